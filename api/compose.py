"""The API's composition root: the application's game service (``application.compose``; every ruleset's commands
are sent through its ``run`` / ``send``). The API and the CLI build theirs here."""

from __future__ import annotations

from typing import Any

from application import compose
from application.compose import build_projector
from application.service import Games
from projections.settings import Settings

__all__ = ["build_games", "build_projector"]


def build_games(settings: Settings | None = None, **kwargs: Any) -> Games:
    """A game service on the store the settings select."""
    return compose.build_games(settings, **kwargs)
