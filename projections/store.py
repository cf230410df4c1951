"""The composition root: build the game service and its read models from settings."""

from __future__ import annotations

from projections.db import ReadModelDB
from projections.projector import Projector
from projections.service import Games
from projections.settings import Settings


def build_games(settings: Settings | None = None, **kwargs) -> Games:
    """A game service on the store the settings select (SQLite by default, PostgreSQL if configured)."""
    settings = settings or Settings()
    return Games(env=settings.eventsourcing_env(), snapshot_interval=settings.snapshot_interval,
                 retries=settings.command_retries, **kwargs)


def build_projector(games: Games, settings: Settings | None = None) -> Projector:
    """The read models for this service, in the same database (SQLite: a file beside the store)."""
    projector = Projector(games, ReadModelDB(settings or Settings()))

    def phase_start(game_id: str, phase: str) -> int | None:
        projector.catch_up()
        return projector.phase_start(game_id, phase)

    games.phase_lookup = phase_start
    return projector
