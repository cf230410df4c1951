"""A part of a Powers game (a sub-domain mixin: the world, magic, battles, the catalogue) as the ``Game`` it is
part of, so its rules can call the game's own methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from domain.platform.game import PlatformGame
    from domain.powers.game import Game


def as_game(part: PlatformGame) -> Game:
    """This part as the whole ``Game``: every part is a base of ``Game``, so the cast always holds."""
    return cast("Game", part)
