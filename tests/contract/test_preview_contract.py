"""A preview for the GM or host (issue 29 item 2), for every registered ruleset and the fake one: the pending step
closed in a scratch copy shows each viewer the outcome the real close then publishes (the same committed dice, the
same roll numbers), the game records one audit line only the GM and hosts see, and players may not preview.

Each ruleset's game is played to a pending step: Powers' resistance window (P-RES-2: its close finalises the month's
results, P-RES-4), the covenant game's Certamen (A.4), a Lodge turn's actions with a prompt open (L.3), the fake
table's round (TABLE-1: silence posts).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application import preview as previews
from application.service import Caller, Games
from domain.errors import Forbidden
from domain.platform import ruleset as registry
from tests.contract.drivers import DRIVERS, Played

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
SEED_EVENTS = {"SeedCommitted", "SeedRevealed", "SeedSealed", "SeedCleared"}  # the next phase's fresh secret seed


def _powers_pending(games: Games) -> Played:
    from domain.powers import commands as pc
    from tests.scenarios import play_rich_month

    m = play_rich_month(games, finish=False)
    games.send(m.game_id, "gm", pc.Advance())
    games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))  # resistance opens (P-RES-2)
    return Played(m.game_id, ["gm", *m.powers.values()])


def _table_pending(games: Games) -> Played:
    from emissary_fake.ruleset import Join, Post

    played = DRIVERS["table"].play(games)
    games.run(Caller.of("gm"), played.game_id, Join("cy", "Cy"))  # the table is full: the first round opens
    games.run(Caller.of("ann"), played.game_id, Post("ann", "first"))  # the round waits on bob and cy
    return Played(played.game_id, [*played.viewers, "cy"])


PENDING: dict[str, Callable[[Games], Played]] = {"powers": _powers_pending, "table": _table_pending}


@pytest.fixture
def games():
    g = Games(clock=lambda: NOW)  # the preview and the close at one time: their windows' times agree
    yield g
    g.close()


@pytest.fixture
def played(games: Games, ruleset: registry.Ruleset) -> Played:
    return PENDING.get(ruleset.name, DRIVERS[ruleset.name].play)(games)


def stored(games: Games, game_id: str) -> list[tuple[str, dict]]:
    return [(type(e).__name__, dict(e.__dict__)) for e in games.iter_events(game_id)]


def _no_seq(value: Any) -> Any:
    """A value without its viewers' event numbers (a preview numbers on from the events it read)."""
    if isinstance(value, dict):
        return {k: _no_seq(v) for k, v in value.items() if k != "seq"}
    if isinstance(value, list):
        return [_no_seq(v) for v in value]
    return value


def published(games: Games, game_id: str, viewer: str, after: int) -> list[tuple[int, str, dict]]:
    return [
        (e["seq"], e["type"], e["data"])
        for e in games.visible_events(game_id, viewer, after=after, limit=100_000)
        if e["type"] not in SEED_EVENTS and e["type"] != "Previewed"
    ]


def test_preview_then_publish_gives_the_previewed_outcome_for_every_viewer(games, ruleset, played):
    seen = {v: len(games.visible_events(played.game_id, v, limit=100_000)) for v in played.viewers}
    pv = previews.preview(games, Caller.of("gm"), played.game_id)
    assert pv.blocked is None and set(played.viewers) <= set(pv.outcomes)
    games.close_window(played.game_id, "gm", pv.window_id)
    moved = 0
    for viewer in played.viewers:
        # numbered as the viewer's own events will be: after the audit line for the GM and hosts (who see it)
        shown = [
            (e["seq"], e["type"], e["data"]) for e in pv.outcomes[viewer]["events"] if e["type"] not in SEED_EVENTS
        ]
        assert shown == published(games, played.game_id, viewer, seen[viewer]), (ruleset.name, viewer)
        assert pv.outcomes[viewer]["view"] == games.view(played.game_id, viewer), (ruleset.name, viewer)
        moved += len(shown)
    assert moved > 0, f"{ruleset.name}: the pending step published nothing"


def test_the_derivations_previewed_are_those_published(games, ruleset, played):
    from api.routes.results import viewer_events
    from domain.platform import explain

    pv = previews.preview(games, Caller.of("gm"), played.game_id)
    games.close_window(played.game_id, "gm", pv.window_id)
    for viewer in played.viewers:
        now = explain.derivations(ruleset, viewer_events(games, played.game_id, viewer))
        for result_id, d in pv.outcomes[viewer]["derivations"].items():  # the dice: same faces, same roll numbers
            assert _no_seq(d) == _no_seq(now[result_id]), (ruleset.name, viewer, result_id)


def test_a_preview_records_the_audit_line_alone(games, ruleset, played):
    before = stored(games, played.game_id)
    pv = previews.preview(games, Caller.of("gm"), played.game_id)
    after = stored(games, played.game_id)
    assert after[: len(before)] == before and [kind for kind, _ in after[len(before) :]] == ["Previewed"]
    line = after[-1][1]
    assert (line["actor"], line["window_id"], line["at"]) == ("gm", pv.window_id, NOW.isoformat())
    assert line["audience"] == ["gm"] + [a for a in line["audience"] if a.startswith("power:")]


def test_players_may_not_preview_and_record_nothing(games, ruleset, played):
    game = games.get_game(played.game_id, for_update=False)
    for viewer in played.viewers[1:]:
        if game.may(viewer, "windows"):
            continue  # a host previews (its own outcome only)
        before = stored(games, played.game_id)
        with pytest.raises(Forbidden, match="may preview the pending step; you are player"):
            previews.preview(games, Caller.of(viewer), played.game_id)
        assert stored(games, played.game_id) == before


def seen_by(games: Games, game_id: str, viewer: str) -> tuple[list[dict], dict]:
    return games.visible_events(game_id, viewer, limit=100_000), games.view(game_id, viewer)


def test_a_preview_shows_players_nothing(games, ruleset, played):
    """Every player's events and view are as they were; the GM sees the audit line."""
    before = {
        v: (games.visible_events(played.game_id, v, limit=100_000), games.view(played.game_id, v))
        for v in played.viewers
    }
    previews.preview(games, Caller.of("gm"), played.game_id)
    game = games.get_game(played.game_id, for_update=False)
    for viewer in played.viewers[1:]:
        if not game.may(viewer, "windows"):
            assert (
                games.visible_events(played.game_id, viewer, limit=100_000),
                games.view(played.game_id, viewer),
            ) == before[viewer]
    gm_after = games.visible_events(played.game_id, "gm", limit=100_000)
    assert gm_after[:-1] == before["gm"][0] and gm_after[-1]["type"] == "Previewed"


def test_a_host_who_plays_previews_only_a_step_every_seat_has_acted_in_and_sees_its_own_outcome_alone(
    games, ruleset, played
):
    """Before every seat has acted, a preview would show a playing host the dice still to be rolled for moves not
    yet made (its own among them): refused, naming the window and the seats waited on, recording nothing."""
    from domain.platform import preview as rules

    game = games.get_game(played.game_id, for_update=False)
    hosts = [v for v in played.viewers[1:] if game.may(v, "windows")]
    for host in hosts:
        w = rules.pending_window(game)
        waited = [s for s in game.seats if rules._waits_on(game, w, s)]
        if waited:
            before = stored(games, played.game_id)
            with pytest.raises(Forbidden) as refused:
                previews.preview(games, Caller.of(host), played.game_id)
            assert refused.value.field == "window_id" and "waits on" in refused.value.message
            assert stored(games, played.game_id) == before
        else:
            pv = previews.preview(games, Caller.of(host), played.game_id)
            assert sorted(pv.outcomes) == sorted([host, "observer"])
        assert rules.viewers(game, host) == [host, "observer"]
