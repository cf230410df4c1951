"""The composition root: build the game service and its read models from settings. The workers build theirs
here; the API and the CLI through ``api.compose``."""

from __future__ import annotations

from contextlib import nullcontext

from application.service import Games
from projections import migrations
from projections.db import ReadModelDB
from projections.gamestore import GameStore
from projections.projector import Projector
from projections.settings import Settings


def build_games(settings: Settings | None = None, **kwargs) -> Games:
    """The game service on the store the settings select (SQLite by default, PostgreSQL if configured)."""
    settings = settings or Settings()
    # Outside production each process creates the event store's tables if they are missing, under the lock
    # `emissary migrate` holds.
    creates_tables = settings.eventsourcing_env().get("CREATE_TABLE") == "y"
    with migrations.command_lock(settings) if creates_tables else nullcontext():
        return Games(
            env=settings.eventsourcing_env(),
            snapshot_interval=settings.snapshot_interval,
            retries=settings.command_retries,
            command_threads=settings.command_threads,
            **kwargs,
        )


def build_projector(games: GameStore, settings: Settings | None = None) -> Projector:
    """The read models for this service, in the same database (SQLite: a file beside the store)."""
    settings = settings or Settings()
    if games.env.get("PERSISTENCE_MODULE") == "eventsourcing.popo" and not settings.database_url == "memory":
        settings = settings.model_copy(update={"database_url": "memory"})  # an in-memory store: read models too
    projector = Projector(games, ReadModelDB(settings))
    games.phase_lookup = projector.phase_start
    games.reads = projector
    if settings.syncs_read_models:  # keep up to date after every write
        if settings.auto_migrate:  # development and tests: start up to date, though events were recorded before
            projector.catch_up()
        games.on_recorded.append(projector.catch_up)
    return projector
