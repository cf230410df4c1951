"""What every part of a Powers game (a sub-domain mixin: the month, the world, magic, battles, the catalogue)
shares: the base of its events, and the cast to the ``Game`` it is part of, so its rules can call the game's own
methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from domain.platform.game import PlatformGame

if TYPE_CHECKING:
    from domain.powers.base import GameBase
    from domain.powers.game import Game
    from domain.powers.state import GameState


def as_game(part: PlatformGame) -> Game:
    """This part as the whole ``Game``: every part is a base of ``Game``, so the cast always holds."""
    return cast("Game", part)


class PartEvent(PlatformGame.Event):
    """Base of the events of every part of the game: ``evolve`` folds the event into the state and reads nothing
    else; the few whose fold needs another part of the game override ``fold`` instead. An event that only tells
    (the feed tells it, the state keeps nothing of it) folds nothing. Each part's own base names the topic its
    events are stored under."""

    def evolve(self, s: GameState) -> None:
        """Fold this event into the state."""

    def fold(self, game: GameBase) -> None:
        self.evolve(game.state)

    def apply(self, aggregate: Any) -> None:
        self.fold(aggregate)
        super().apply(aggregate)
