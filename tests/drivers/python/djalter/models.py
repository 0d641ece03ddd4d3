from django.db import models


class Book(models.Model):
    """The model as the last migration leaves it."""

    title = models.CharField(max_length=200, db_index=True)
    pages = models.BigIntegerField(default=0)
    isbn = models.CharField(max_length=13, unique=True, null=True)

    class Meta:
        app_label = "djalter"
