"""A minimal Django app for django_returning.py: two models, one migration."""
