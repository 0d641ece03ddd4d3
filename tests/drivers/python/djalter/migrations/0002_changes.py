from django.db import migrations, models


def fill(apps, schema_editor):
    Book = apps.get_model("djalter", "Book")
    for i in range(3):
        Book.objects.create(title=f"t{i}", pages=None if i == 1 else 10 * i)


class Migration(migrations.Migration):
    dependencies = [("djalter", "0001_initial")]
    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AddField("book", "isbn", models.CharField(max_length=13, unique=True, null=True)),
        migrations.AlterField("book", "title", models.CharField(max_length=200, db_index=True)),
        migrations.AlterField("book", "pages", models.BigIntegerField(default=0)),
        migrations.RemoveField("book", "notes"),
    ]
