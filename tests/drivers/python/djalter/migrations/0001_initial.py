from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(
            name="Book",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False)),
                ("title", models.CharField(max_length=100)),
                ("pages", models.IntegerField(null=True)),
                ("notes", models.TextField(default="")),
            ],
        ),
    ]
