"""A preview of a Powers battle round (issue 29 item 2; P.1.3, P-BAT-1..8): closing the round's Commands window draws
new dice from the month's committed seed, so the preview must draw them at the very roll numbers the real close then
draws, and leave the game's next roll number where it was."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from application import preview as previews
from application.service import Caller, Games
from domain.platform.commands import CloseWindow
from tests.scenarios import four_power_battle

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)


def at_commands(games: Games) -> tuple[str, str, list[str]]:
    """A battle of four powers' eight armies at its first Commands window (as ``tests/bench.py`` plays one)."""
    gm = Caller.of("gm")
    gid, powers = four_power_battle(games, "battle preview")
    b = games.view(gid, "gm")["battles"][0]
    while b["step"] != "commands":
        games.run(gm, gid, CloseWindow(b["window"]))
        b = games.view(gid, "gm")["battles"][0]
    return gid, b["window"], powers


def rolls(events: list[dict]) -> list[tuple[int, list[int]]]:
    """Every roll an event list carries: its roll number and faces."""
    found: list[tuple[int, list[int]]] = []

    def walk(v: object) -> None:
        if isinstance(v, dict):
            if isinstance(v.get("roll_no"), int) and isinstance(v.get("faces"), list):
                found.append((v["roll_no"], v["faces"]))
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(events)
    return found


def test_p_bat_a_battle_rounds_preview_draws_the_dice_its_close_then_draws():
    games = Games(clock=lambda: NOW)
    try:
        gid, window, powers = at_commands(games)
        pv = previews.preview(games, Caller.of("gm"), gid)
        assert pv.window_id == window and pv.blocked is None
        seen = len(games.visible_events(gid, "gm", limit=100_000))
        shown = rolls([e["data"] for e in pv.outcomes["gm"]["events"]])
        assert shown, "the round's close draws dice"
        games.close_window(gid, "gm", window)
        after = games.visible_events(gid, "gm", after=seen, limit=100_000)
        assert rolls([e["data"] for e in after]) == shown  # the same roll numbers, the same faces
        for p in powers:  # each power sees what the preview said it would see, nothing of the others' secrets
            mine = [(e["type"], e["data"]) for e in pv.outcomes[p]["events"]]
            published = games.visible_events(gid, p, limit=100_000)[-len(mine) :] if mine else []
            assert json.dumps(mine, sort_keys=True) == json.dumps(
                [(e["type"], e["data"]) for e in published], sort_keys=True
            )
    finally:
        games.close()
