"""The composition root for the write side: build the game service from settings."""

from __future__ import annotations

from projections.service import Games
from projections.settings import Settings


def build_games(settings: Settings | None = None, **kwargs) -> Games:
    """A game service on the store the settings select (SQLite by default, PostgreSQL if configured)."""
    settings = settings or Settings()
    return Games(env=settings.eventsourcing_env(), snapshot_interval=settings.snapshot_interval,
                 retries=settings.command_retries, **kwargs)
