"""Powers' convenience API over the application service: each method builds a Powers command and sends
it through ``Games.run``, as the HTTP, web, mail and worker channels do (tests, the CLI and the demo
use them). The composition root builds the service with every ruleset's such mixin (``api.rulesets``).
"""

from __future__ import annotations

from typing import Any

from application.service import Caller, CommandKey, Games, Receipt, issued
from domain.powers import commands as pc


class BattleReads:
    """A battle as a viewer sees it, and its report round by round (domain.powers.battle, P.4)."""

    get_game: Any
    events: Any

    def battle(self, game_id: str, viewer: str, battle_id: str) -> dict:
        from domain.powers.battle import battle_view

        game = self.get_game(game_id, for_update=False)
        _check_viewer(game, viewer)
        return battle_view(game, battle_id, viewer)

    def battle_report(self, game_id: str, viewer: str, battle_id: str) -> list[dict]:
        """The report of a battle as ``viewer`` saw it, round by round (the GM: in full)."""
        from domain.powers.battle import battle_report

        game = self.get_game(game_id, for_update=False)
        _check_viewer(game, viewer)
        game.battle(battle_id)  # NotFound for an unknown battle
        return battle_report(list(self.events.get(game.id)), battle_id, viewer)


def _check_viewer(game: Any, viewer: str) -> None:
    from domain.errors import NotFound

    if viewer != "gm" and viewer not in game.state.powers:
        raise NotFound("no such seat in this game", field="authorization")


class PowersCommands(BattleReads):
    """The Powers commands as methods of the service (mixed into ``Games``)."""

    run: Any  # Games.run

    def add_power(
        self,
        game_id: str,
        principal: str,
        name: str,
        cls: str,
        subclass: str,
        options: dict | None = None,
        *,
        key: CommandKey | None = None,
    ) -> tuple[str, str | None, Receipt]:
        """GM adds a power; returns (power_id, its token, receipt); no token on a replayed key."""
        command, token = issued(pc.AddPower(name, cls, subclass, "", options))
        receipt = self.run(Caller.of(principal), game_id, command, key)
        return receipt.result["power_id"], None if receipt.replayed else token, receipt

    def grant_asset(
        self,
        game_id: str,
        principal: str,
        power_id: str,
        name: str,
        cls: str,
        rank: int,
        asset_id: str | None = None,
        assured: bool = False,
        critical: bool = False,
        novel: bool = False,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(
            Caller.of(principal),
            game_id,
            pc.GrantAsset(power_id, name, cls, rank, asset_id, assured, critical, novel),
            key,
        )

    def set_months(self, game_id: str, principal: str, months: int, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.SetMonths(months), key)

    def advance(
        self, game_id: str, principal: str, expected_step: str | None = None, *, key: CommandKey | None = None
    ) -> Receipt:
        """GM moves the calendar on one step, if the game is still at ``expected_step`` (else 409)."""
        return self.run(Caller.of(principal), game_id, pc.Advance(expected_step), key)

    # ------------------------------------------------------------------ planning

    def submit_action(
        self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None, **draft: Any
    ) -> Receipt:
        """Submit (and, unless ``roll`` is false, roll) an action; returns its id and dice in the receipt."""
        return self.run(Caller.of(principal), game_id, pc.SubmitAction(power_id=power_id, **draft), key)

    def roll_action(
        self, game_id: str, principal: str, action_id: str, *, key: CommandKey | None = None, **pool: Any
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.RollAction(action_id, **pool), key)

    def lock_conversions(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        convert: int | None = None,
        dice: list[int] | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.LockConversions(action_id, convert, dice), key)

    def discard_action(self, game_id: str, principal: str, action_id: str, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.DiscardAction(action_id), key)

    def set_difficulty(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        value: int,
        sealed: bool = False,
        tiers: dict | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM declares a difficulty openly or seals it by hash commitment (GM-2)."""
        return self.run(Caller.of(principal), game_id, pc.SetDifficulty(action_id, value, sealed, tiers), key)

    def set_ruling(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        resistible: bool,
        resisters: list[str],
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.SetRuling(action_id, resistible, resisters), key)

    def propose_consequence(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        text: str,
        effects: list[dict],
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.ProposeConsequence(action_id, text, effects), key)

    def accept_consequence(
        self, game_id: str, principal: str, action_id: str, consequence_id: str, *, key: CommandKey | None = None
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.AcceptConsequence(action_id, consequence_id), key)

    # ------------------------------------------------------------------ resolution and resistance

    def resolve(
        self,
        game_id: str,
        principal: str,
        announcement: str = "",
        expected_step: str | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM resolves the month (P.1.4) and publishes it; the resistance window opens."""
        return self.run(Caller.of(principal), game_id, pc.Resolve(expected_step, announcement), key)

    def declare_reaction(
        self,
        game_id: str,
        principal: str,
        power_id: str,
        action_id: str,
        assets: list[dict],
        convert: int | None = 0,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """A power resists a provisional action alone (P-RES-1..4)."""
        return self.run(Caller.of(principal), game_id, pc.DeclareReaction(power_id, action_id, assets, convert), key)

    def lock_reaction(
        self, game_id: str, principal: str, reaction_id: str, convert: int, *, key: CommandKey | None = None
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.LockReaction(reaction_id, convert), key)

    def waive(self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.WaiveReactions(power_id), key)

    # ------------------------------------------------------------------ what powers learn and share

    def share_secret(
        self, game_id: str, principal: str, power_id: str, asset_id: str, to: str, *, key: CommandKey | None = None
    ) -> Receipt:
        """Share a Secret with another power, irrevocably ([003:114])."""
        return self.run(Caller.of(principal), game_id, pc.ShareSecret(power_id, asset_id, to), key)

    def set_influence(
        self, game_id: str, principal: str, power_id: str, hex_id: str, amount: int, *, key: CommandKey | None = None
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.SetInfluence(power_id, hex_id, amount), key)


ServiceMixin = PowersCommands  # what api.rulesets mixes into the service


class PowersGames(PowersCommands, Games):
    """The service with the Powers commands as methods (tests and tools that host Powers alone)."""
