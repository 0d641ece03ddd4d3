"""Django 5 against a server that says it is MariaDB 10.11: migrations, then ORM
inserts, which fetch primary keys and database defaults with INSERT ... RETURNING
(one row with save(), many with bulk_create()). The SQL Django sends is captured,
so the checks prove RETURNING was used.

Django's MySQL backend needs mysqlclient; PyMySQL stands in for it here.
Usage: django_returning.py PORT
Prints one line per check and `OK django` at the end; the first mismatch raises.
"""

import datetime as dt
import sys

import pymysql

pymysql.install_as_MySQLdb()

import django  # noqa: E402
from django.conf import settings  # noqa: E402


def check(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")
    print(f"ok {what}")


def main():
    port = int(sys.argv[1])
    admin = pymysql.connect(host="127.0.0.1", port=port, user="root")
    with admin.cursor() as c:
        c.execute("DROP DATABASE IF EXISTS dj_returning")
        c.execute("CREATE DATABASE dj_returning")
    admin.close()
    settings.configure(
        DATABASES={
            "default": {
                "ENGINE": "django.db.backends.mysql",
                "NAME": "dj_returning",
                "USER": "root",
                "PASSWORD": "",
                "HOST": "127.0.0.1",
                "PORT": str(port),
            }
        },
        INSTALLED_APPS=["djapp"],
        USE_TZ=False,
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
    )
    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from djapp.models import Item, Tag

    call_command("migrate", verbosity=0)
    check("backend sees MariaDB", connection.mysql_is_mariadb, True)
    check("backend returns columns from INSERT", connection.features.can_return_columns_from_insert, True)
    check("backend returns rows from bulk INSERT", connection.features.can_return_rows_from_bulk_insert, True)

    with CaptureQueriesContext(connection) as q:
        item = Item.objects.create(name="first")
    inserts = [x["sql"] for x in q.captured_queries if x["sql"].startswith("INSERT")]
    check("create() sent one INSERT", len(inserts), 1)
    check("create() used RETURNING", "RETURNING" in inserts[0], True)
    check("primary key from RETURNING", item.pk, 1)
    check("db_default from RETURNING", item.qty, 5)
    check("db_default timestamp from RETURNING", isinstance(item.created, dt.datetime), True)

    with CaptureQueriesContext(connection) as q:
        items = Item.objects.bulk_create([Item(name=f"bulk{i}") for i in range(4)])
    inserts = [x["sql"] for x in q.captured_queries if x["sql"].startswith("INSERT")]
    check("bulk_create() sent one INSERT", len(inserts), 1)
    check("bulk_create() used RETURNING", "RETURNING" in inserts[0], True)
    check("bulk_create() primary keys", [i.pk for i in items], [2, 3, 4, 5])

    tags = Tag.objects.bulk_create([Tag(label="a"), Tag(label="b")])
    check("tag ids", [t.pk for t in tags], [1, 2])
    check("stored items", list(Item.objects.order_by("id").values_list("id", "name"))[:2],
          [(1, "first"), (2, "bulk0")])
    deleted, _ = Item.objects.filter(id__gte=4).delete()
    check("delete", deleted, 2)
    check("items left", Item.objects.count(), 3)
    print("OK django")


if __name__ == "__main__":
    main()
