"""Rules changes replayed (issue 29 item 3; ``domain.platform.replay``): the GM or a host replays the game's history
under another installed version of its ruleset in a scratch copy and sees the difference, event by event; then keeps
the pinned version, or adopts the other from a phase.

A replay records nothing: both copies are folded afresh from the store (the game just before the first event
replayed) and discarded. An adoption replays again in the command's own transaction, against the game as it stands
under its lock, so what is adopted is what the store holds then; it records ``RulesAdopted`` (sealed: the amended
results, which ``fold`` re-applies whenever the game is loaded) and one ``RulesChangeTold`` per viewer: the GM the
whole difference, each seat (a host too) the changes to the events it may see and to its own view, and, last, every
observer (the public audience) those of the public events and of the observers' view; each line numbers the results
re-decided among its viewer's events by the viewer's own numbers, for their derivations (issue 29).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from application.service import Caller, CommandKey, Games, Receipt, Turn
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM
from domain.platform import replay as replays
from domain.platform import ruleset as rulesets


def _replayed(games: Games, game: Any, version: str, from_phase: str | None) -> tuple[Any, int, replays.Replayed]:
    """The version to replay under, the version replayed from, and the replay of the game's history from there."""
    if not isinstance(version, str) or not version:
        raise RuleViolation("name the version of the ruleset to replay under", field="version")
    other = rulesets.version(game.state.ruleset, version)
    start = 1 if from_phase is None else _phase_start(games, str(game.id), from_phase)
    replays.check_from(game, start)
    base = games.get_game(str(game.id), start - 1, for_update=True) if start > 1 else None
    events = list(games.events.get(game.id, gt=start - 1, lte=game.version))
    return other, start, replays.replay(base, events, other, games.fold_onto)


def _phase_start(games: Games, game_id: str, from_phase: str) -> int:
    """The version ``from_phase`` began at; an unknown phase is refused naming ``from_phase``, the field sent."""
    try:
        return games.phase_version(game_id, from_phase, None)
    except (NotFound, RuleViolation) as err:
        raise type(err)(err.message, rule=err.rule, field="from_phase") from None


GAME_VERSIONS = ("from_version", "upto")  # where in the game's history: the GM's alone


def _for(principal: str, summary: dict[str, Any]) -> dict[str, Any]:
    """The summary as ``principal`` is shown it: a host who plays (the covenant game) is not told the game's
    versions, which count the events it was not shown (as the phases it reads carry none)."""
    if principal == GM:
        return summary
    return {k: v for k, v in summary.items() if k not in GAME_VERSIONS}


def _summary(game: Any, other: Any, start: int, from_phase: str | None, upto: int) -> dict[str, Any]:
    return {
        "game_id": str(game.id),
        "ruleset": game.state.ruleset,
        "pinned": game.state.rules_version,
        "version": other.version,
        "changes": other.changes,
        "from_phase": from_phase or "setup",
        "from_version": start,
        "upto": upto,
        "installed": rulesets.installed_versions(game.state.ruleset),
    }


def differences_for(principal: str, replayed: replays.Replayed) -> list[dict[str, Any]]:
    """What a replayer is shown: the GM every difference whole; a host who plays those of the events it may see."""
    if principal == GM:
        return [d.as_dict() for d in replayed.differences]
    return replays.for_viewer(replayed.differences, principal)


def replay(games: Games, caller: Caller, game_id: str, version: str, from_phase: str | None = None) -> dict[str, Any]:
    """Replay the game's history (from the start, or from a phase) under ``version``: the difference, event by event,
    for the GM or a host (Forbidden for anyone else, naming the roles); nothing is recorded."""
    game = games.get_game(game_id, for_update=False)
    replays.require_replayer(game, caller.principal)
    other, start, replayed = _replayed(games, game, version, from_phase)
    return {
        **_for(caller.principal, _summary(game, other, start, from_phase, game.version)),
        "differences": differences_for(caller.principal, replayed),
        "final": replayed.final if caller.principal == GM else _own_view(other, replayed, caller.principal),
    }


def _own_view(other: Any, replayed: replays.Replayed, viewer: str) -> list[dict[str, Any]]:
    """How the viewer's own view ends differently under the other version."""
    return replays.compare(
        replays.view_of(other, replayed.recorded, viewer), replays.view_of(other, replayed.scratch, viewer)
    )


def _changes_for(other: Any, replayed: replays.Replayed, viewer: str) -> list[dict[str, Any]]:
    """The changes ``viewer`` (a seat, or ``observer``: what every observer sees) may be told: those of the events
    it may see, and how its own view ends differently."""
    mine = replays.for_viewer(replayed.differences, viewer)
    view = _own_view(other, replayed, viewer)
    if view:
        mine.append({"type": "view", "rules": [], "result": {}, "state": view})
    return mine


# words(the adoption's summary, the differences the adopter may see, the receipt) -> a reply kept with the receipt
Words = Callable[[dict[str, Any], list[dict[str, Any]], Receipt], str]


def adopt(
    games: Games,
    caller: Caller,
    game_id: str,
    version: str,
    from_phase: str,
    key: CommandKey | None = None,
    words: Words | None = None,
) -> dict[str, Any]:
    """Adopt ``version`` from the start of ``from_phase``: the game's state becomes the replayed one, pinned at
    ``version``, recorded with the difference attached; every viewer told what it may see. Refused, recording
    nothing, for anyone but the GM or a host, for a version not installed or the one pinned, or an unknown phase.
    ``key``: the request's idempotency key (a mail's Message-ID: the same mail again answers its first receipt);
    ``words``: the receipt's result is ``{"reply": words(...)}`` (the mail's answer) instead of the summary."""
    if not isinstance(from_phase, str) or not from_phase:
        raise RuleViolation("name the phase the new version counts from (such as setup)", field="from_phase")

    def turn(t: Turn) -> dict[str, Any]:
        game = t.game
        replays.require_replayer(game, caller.principal)
        if version == game.state.rules_version:
            raise RuleViolation(f"this game is already pinned at version {version!r}", field="version")
        other, start, replayed = _replayed(games, game, version, from_phase)
        seats = [s for s in game.seats if s != GM]
        stored = games.events.get(game.id, lte=game.version)
        amended = replays.numbered(stored, replayed.differences, [GM, *seats, vis.OBSERVER])
        # the GM: the whole difference
        told = {GM: replays.Told([GM], [d.as_dict() for d in replayed.differences], amended[GM])}
        for seat in seats:
            told[seat] = replays.Told(vis.seats([seat]), _changes_for(other, replayed, seat), amended[seat])
        # every observer, last (issue 29): a rules change is public, and its derivations follow it as a seat's do
        changes = _changes_for(other, replayed, vis.OBSERVER)
        told[vis.OBSERVER] = replays.Told([vis.PUBLIC], changes, amended[vis.OBSERVER], public=True)
        upto, previous = game.version, game.state.rules_version
        game.adopt_rules(version, from_phase, start, replayed, told, caller.principal)
        out = {
            **_for(caller.principal, _summary(game, other, start, from_phase, upto)),
            "previous": previous,
            "differences": len(differences_for(caller.principal, replayed)),  # a host's: those it may be told
        }
        if words is not None:
            return {"reply": words(out, differences_for(caller.principal, replayed), t.receipt())}
        return out

    return games.run_turn(caller, game_id, turn, key).as_dict()
