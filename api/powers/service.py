"""Powers' reads over the application service that no projection answers: a battle as a viewer sees it and its
report (``api.powers.routes``). Its commands have no methods here: each is declared once (``api.powers.declared``)
and every channel, tests and tools included, sends it through ``Games.run`` / ``Games.send``.
"""

from __future__ import annotations

from typing import Any

from application.service import Games


class BattleReads:
    """A battle as a viewer sees it, and its report round by round (domain.powers.battle, P.4), from the service."""

    def __init__(self, games: Games) -> None:
        self.games = games

    def battle(self, game_id: str, viewer: str, battle_id: str) -> dict:
        from domain.powers.battle import battle_view

        game: Any = self.games.get_game(game_id, for_update=False)
        _check_viewer(game, viewer)
        return battle_view(game, battle_id, viewer)

    def battle_report(self, game_id: str, viewer: str, battle_id: str) -> list[dict]:
        """The report of a battle as ``viewer`` saw it, round by round (the GM: in full)."""
        from domain.powers.battle import battle_report

        game: Any = self.games.get_game(game_id, for_update=False)
        _check_viewer(game, viewer)
        game.battle(battle_id)  # NotFound for an unknown battle
        return battle_report(list(self.games.events.get(game.id)), battle_id, viewer)


def _check_viewer(game: Any, viewer: str) -> None:
    """A game of Powers (a battle of another ruleset's game is no battle of Powers: 404, naming the battle), which
    ``viewer`` sits at."""
    from domain.errors import NotFound
    from domain.powers.game import Game

    if not isinstance(game, Game):
        raise NotFound("this game has no battles of Powers", field="battle_id")
    if viewer != "gm" and viewer not in game.state.powers:
        raise NotFound("no such seat in this game", field="authorization")
