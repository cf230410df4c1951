"""Per-viewer sequences: "the count of events you may see" (README, Receipts)."""

from __future__ import annotations

from copy import deepcopy
from datetime import datetime, timezone

from eventsourcing.domain import Snapshot

from domain import visibility as vis
from domain.platform.game import RECOUNT_SEEN
from domain.powers.game import Game
from tests.domain.helpers import seen

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def test_receipt_sequence_equals_visible_event_count_from_the_first_event():
    game = Game.start("Counted", "GM")
    assert seen(game, "gm")["sequence"] == 1  # GameCreated, counted once
    game.add_power("alpha", "Alpha", "conspiracy", "circle")
    game.advance(NOW, "ab" * 32)
    events = list(game.pending_events)
    for viewer in ("gm", "alpha"):
        assert seen(game, viewer)["sequence"] == sum(1 for e in events if vis.can_see(e.audience, viewer))


def test_a_snapshot_from_when_game_created_was_counted_twice_is_upcast_to_count_it_once():
    game = Game.start("Old", "GM")
    game.add_power("alpha", "Alpha", "conspiracy", "circle")
    now = Snapshot.take(game)
    old_state = {k: v for k, v in now.state.items() if k != "class_version"}  # written by version 1
    old_state["state"] = deepcopy(old_state["state"])
    old_state["state"].seen = {k: v + 1 if k in ("gm", "public") else v for k, v in old_state["state"].seen.items()}
    old = Snapshot(
        originator_id=now.originator_id,
        originator_version=now.originator_version,
        timestamp=now.timestamp,
        topic=now.topic,
        state=old_state,
    )
    # 3: the platform's events count once (tests/domain/test_snapshot_recount); 4: the open seats in the state
    assert now.state["class_version"] == 4
    restored = old.mutate(None)
    assert restored.__dict__.pop(RECOUNT_SEEN) is True  # the repository counts them again from the events
    assert restored.state.seen == game.state.seen
    assert restored.state.sequence_for("gm") == game.version
