"""A command changes a game only through the events it records, for every registered ruleset and the fake one
(issue 26 item 4: decide, then evolve).

A ruleset's handlers decide: they read the game's state, refuse or record events, and each event's ``evolve`` folds
it into the state. If a handler (or a rule it calls) changed the state in place besides, the live game would still
be right until it is reloaded, and the change would be lost then, or differ on another process. The replay test of
the contract (``test_contract.py``) compares a played game with its replay once, at the end, where a change made in
place and later overwritten would not show. Here every save of seeded random legal play with silence (the liveness
test's ``Play``) is checked: the state of the game being saved equals the state its events alone give, the events
stored before it plus those it is saving, as the store would give them back (through the store's mapper). A
rollback's ``StateRestored`` is folded with the game's whole history.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from domain.platform import ruleset as registry
from domain.platform.game import PlatformGame
from tests.contract.test_liveness import Play, plan_for


class Shadow:
    """Folds each game's events as they are saved, beside the live game the service holds, and notes each save
    whose game differs from its fold."""

    def __init__(self, play: Play, ruleset: registry.Ruleset) -> None:
        assert ruleset.fold is not None
        self.fold = ruleset.fold
        self.games = play.games
        self.folded: dict[Any, Any] = {}
        self.checked = 0
        self.differ: list[str] = []
        save = play.games.save

        def checked_save(*objs: Any, **kwargs: Any) -> Any:
            for obj in objs:
                if isinstance(obj, PlatformGame) and obj.pending_events:
                    self.check(obj)
            return save(*objs, **kwargs)

        play.games.save = checked_save  # type: ignore[method-assign]

    def stored(self, game_id: Any) -> list[Any]:
        return list(self.games.events.get(game_id))

    def check(self, game: PlatformGame) -> None:
        mapper = self.games.events.mapper
        pending = [mapper.to_domain_event(mapper.to_stored_event(e)) for e in game.pending_events]
        before = game.version - len(pending)
        shadow = self.folded.get(game.id)
        if any(type(e).__name__ == "StateRestored" for e in pending) or shadow is None or shadow.version != before:
            shadow = self.fold(None, [*self.stored(game.id), *pending])
        else:
            shadow = self.fold(shadow, pending)
        self.folded[game.id] = shadow
        self.checked += 1
        if shadow.state != game.state:
            names = ", ".join(type(e).__name__ for e in pending)
            self.differ.append(f"version {before} -> {game.version} ({names})")


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_a_command_changes_the_game_only_through_the_events_it_records(ruleset, seed):
    plan = plan_for(ruleset)
    play = Play(ruleset, plan, seed=seed)
    shadow = Shadow(play, ruleset)
    try:
        outcome = play.run()
    finally:
        play.games.close()
    assert not outcome.broken, outcome.broken
    assert shadow.checked >= 10, f"{ruleset.name}: too few saves to check ({shadow.checked})"
    assert shadow.differ == [], f"{ruleset.name}: the live game differs from its events' fold after " + "; ".join(
        shadow.differ[:5]
    )


def test_the_check_names_a_save_whose_game_changed_beside_its_events(ruleset):
    """The check can fail: a game changed in place, beside its events, is named."""
    play = Play(ruleset, plan_for(ruleset), seed=7)
    shadow = Shadow(play, ruleset)
    try:
        game_id = play.games.get_game(play.table.game_id, for_update=False).id
        shadow.folded[game_id] = shadow.fold(None, shadow.stored(game_id))
        careless = shadow.fold(None, shadow.stored(game_id))
        _change_in_place(careless)  # recording nothing
        shadow.check(careless)
    finally:
        play.games.close()
    assert len(shadow.differ) == 1 and shadow.checked == 1


def _change_in_place(game: Any) -> None:
    """Change the first field of a game's state in place, as a careless handler would."""
    state = game.state
    if dataclasses.is_dataclass(state):
        first = dataclasses.fields(state)[0].name
        setattr(state, first, object())
    else:
        state["careless"] = object()
