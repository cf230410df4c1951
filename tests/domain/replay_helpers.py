"""What the rules-replay tests of the real rulesets share (issue 29 item 3): the result events as recorded, what each
viewer was told of an adoption, and the check that no seat is told a change to an event it may not see (it catches a
planted leak: tests/domain/test_powers_rules_replay.py)."""

from __future__ import annotations

from typing import Any

from application.service import Games


def recorded(games: Games, game_id: str, kind: str) -> list[Any]:
    """The events of this kind the game recorded, in order."""
    return [e for e in games.iter_events(game_id) if type(e).__name__ == kind]


def told(games: Games, game_id: str, viewer: str, *, public: bool = False) -> list[list[dict[str, Any]]]:
    """The changes each ``RulesChangeTold`` the viewer may see tells (the GM sees every seat's line); the observers'
    public line, which every seat sees too, with ``public`` alone."""
    return [
        e["data"]["changes"]
        for e in games.visible_events(game_id, viewer, after=0, limit=100_000)
        if e["type"] == "RulesChangeTold" and (public or not e["data"].get("public"))
    ]


def kinds_seen(games: Games, game_id: str, viewer: str) -> set[str]:
    return {e["type"] for e in games.visible_events(game_id, viewer, after=0, limit=100_000)}


def unseen_changes(games: Games, game_id: str, viewer: str, changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes told to ``viewer`` that no event it may see accounts for: each change to an event's results must
    match one event of that kind the viewer was shown, whose recorded fields are the change's "before", and no two
    changes one event (a change more than it may see counts the events it was not shown). Empty: nothing leaked."""
    shown = [e for e in games.visible_events(game_id, viewer, after=0, limit=100_000) if e["data"] is not None]
    used: set[int] = set()
    out = []
    for c in changes:
        if c["type"] == "view":  # how the viewer's own view ends: made from its own view
            continue
        found = next(
            (
                i
                for i, e in enumerate(shown)
                if i not in used
                and e["type"] == c["type"]
                and all(e["data"].get(k) == v["before"] for k, v in c["result"].items())
            ),
            None,
        )
        if found is None:
            out.append(c)
        else:
            used.add(found)
    return out
