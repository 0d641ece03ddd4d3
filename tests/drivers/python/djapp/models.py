from django.db import models
from django.db.models.functions import Now


class Item(models.Model):
    name = models.CharField(max_length=50)
    qty = models.IntegerField(db_default=5)
    created = models.DateTimeField(db_default=Now())

    class Meta:
        app_label = "djapp"


class Tag(models.Model):
    label = models.CharField(max_length=20, unique=True)

    class Meta:
        app_label = "djapp"
