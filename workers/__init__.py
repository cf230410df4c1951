"""Celery app and tasks (timed windows, reminders, mail delivery): see the workers issue."""
