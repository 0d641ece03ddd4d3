"""Django 5 migrations that change a table with rows in it: AddField (a UNIQUE
nullable column), AlterField (longer CharField with an index; nullable IntegerField
to a NOT NULL BigIntegerField, which Django does with several ALTER TABLE
statements), RemoveField; then the rows and the resulting schema are checked.

Usage: django_alter.py PORT
Prints one line per check and `OK django alter` at the end; the first mismatch raises.
"""

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
        c.execute("DROP DATABASE IF EXISTS dj_alter")
        c.execute("CREATE DATABASE dj_alter")
    settings.configure(
        DATABASES={
            "default": {
                "ENGINE": "django.db.backends.mysql",
                "NAME": "dj_alter",
                "USER": "root",
                "PASSWORD": "",
                "HOST": "127.0.0.1",
                "PORT": str(port),
            }
        },
        INSTALLED_APPS=["djalter"],
        USE_TZ=False,
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
    )
    django.setup()
    from django.core.management import call_command

    from djalter.models import Book

    call_command("migrate", verbosity=0)
    rows = list(Book.objects.order_by("id").values_list("title", "pages", "isbn"))
    check("rows kept through the migrations", rows, [("t0", 0, None), ("t1", 0, None), ("t2", 20, None)])
    Book.objects.create(title="x" * 150, pages=7, isbn="978")
    check("longer title stored", Book.objects.get(isbn="978").title, "x" * 150)
    with admin.cursor() as c:
        c.execute("SHOW CREATE TABLE dj_alter.djalter_book")
        ddl = c.fetchone()[1]
        c.execute("SHOW COLUMNS FROM dj_alter.djalter_book")
        cols = [r[0] for r in c.fetchall()]
    check("columns", cols, ["id", "title", "pages", "isbn"])
    check("pages is NOT NULL bigint", "`pages` bigint(20) NOT NULL" in ddl, True)
    check("isbn is UNIQUE", "UNIQUE KEY `isbn` (`isbn`)" in ddl, True)
    check("title is indexed", "KEY `djalter_book_title_" in ddl, True)
    try:
        Book.objects.create(title="dup", isbn="978")
        raise AssertionError("duplicate isbn accepted")
    except django.db.IntegrityError as e:
        check("duplicate isbn refused", e.args[0], 1062)
    try:
        call_command("migrate", "djalter", "0001", verbosity=0)
        raise AssertionError("a 150-character title fitted into varchar(100)")
    except django.db.DataError as e:
        check("shortening the title is refused in strict mode", e.args[0], 1265)
    # Django reverts with one ALTER TABLE per change; MariaDB's DDL is not
    # transactional, so the ones before the refused ALTER stay done.
    with admin.cursor() as c:
        c.execute("SHOW CREATE TABLE dj_alter.djalter_book")
        check("the refused ALTER left the title", "`title` varchar(200) NOT NULL" in c.fetchone()[1], True)
        c.execute("SELECT length(title) FROM dj_alter.djalter_book WHERE isbn = '978'")
        check("the refused ALTER left the row", c.fetchone()[0], 150)
    Book.objects.filter(isbn="978").delete()
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    # Record the partial revert's state as done and finish it.
    MigrationRecorder(connection).record_unapplied("djalter", "0002_changes")
    with admin.cursor() as c:
        c.execute("ALTER TABLE dj_alter.djalter_book MODIFY title varchar(100) NOT NULL, DROP COLUMN isbn")
        c.execute("SHOW COLUMNS FROM dj_alter.djalter_book")
        cols = [r[0] for r in c.fetchall()]
    check("migrated back", cols, ["id", "title", "pages", "notes"])
    print("OK django alter")


if __name__ == "__main__":
    main()
