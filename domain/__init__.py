"""Emissary's domain: one event-sourced aggregate per game, rules as pure functions.

Nothing here imports FastAPI, Celery or SQL, reads the clock or the environment:
the clock, entropy and the dice roller are passed in by the caller.
"""
