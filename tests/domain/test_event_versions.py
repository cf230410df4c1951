"""Event evolution (DESIGN "Event evolution"): every event type has a version, a changed shape has an
upcaster, and a rollback records what carries over instead of a whole state."""

from __future__ import annotations

import dataclasses
import json
from copy import deepcopy
from pathlib import Path

import pytest

from domain.powers.game import EVENT_VERSIONS, Game, event_types, fold
from domain.powers.state import GameState
from tests.domain.helpers import NOW, SEED, asset_of, game_in_planning, seen, sheet_of, submit

MANIFEST = Path(__file__).parents[1] / "fixtures" / "event_manifest.json"
ENVELOPE = {"originator_id", "originator_version", "timestamp", "originator_topic"}

HOW_TO_UPDATE = """
Stored events live for years, so an event's shape never changes silently. To change one:
  1. bump its version in EVENT_VERSIONS (domain/powers/game.py) and declare its event class explicitly
     (as Game.StateRestored is), with class_version = N+1 and a static method upcast_vN_vN+1(state: dict)
     that turns the stored dict of version N into version N+1;
  2. add the new version's sorted field names to tests/fixtures/event_manifest.json, KEEPING the old ones;
  3. keep tests/fixtures/events_2026_11 loading (tests/integration/test_event_fixture.py).
A new event type starts at version 1: add it to EVENT_VERSIONS and to the manifest.
"""


def declared() -> dict[str, tuple[int | None, list[str]]]:
    """Each event type's version (None if it has none) and its fields, as the code declares them."""
    return {
        name: (
            cls.__dict__.get("class_version"),
            sorted(f.name for f in dataclasses.fields(cls) if f.name not in ENVELOPE),
        )
        for name, cls in event_types().items()
    }


def upcasters() -> set[str]:
    return {f"{name}.{attr}" for name, cls in event_types().items() for attr in dir(cls) if attr.startswith("upcast_v")}


def manifest_problems(manifest: dict, shapes: dict[str, tuple[int | None, list[str]]], upcast: set[str]) -> list[str]:
    """What is wrong between the event types the code declares and the committed manifest."""
    out = []
    for name, (version, fields) in sorted(shapes.items()):
        if version is None:
            out.append(f"{name} has no version: add it to EVENT_VERSIONS")
            continue
        known = manifest.get(name, {})
        if str(version) not in known:
            out.append(f"{name} version {version} is not in the manifest")
        elif known[str(version)] != fields:
            out.append(
                f"{name} version {version} has fields {fields}, the manifest {known[str(version)]}: "
                f"a changed shape needs a new version and an upcaster"
            )
        if known and max(int(v) for v in known) > version:
            out.append(f"{name}: the manifest knows a later version than {version}")
        out += [
            f"{name} is at version {version} without upcast_v{v}_v{v + 1}"
            for v in range(1, version)
            if f"{name}.upcast_v{v}_v{v + 1}" not in upcast
        ]
    out += [f"the manifest names {name}, which the game no longer has" for name in sorted(set(manifest) - set(shapes))]
    return out


def test_every_event_type_has_a_version_and_its_shape_is_in_the_manifest():
    assert sorted(EVENT_VERSIONS) == sorted(event_types()), HOW_TO_UPDATE
    problems = manifest_problems(json.loads(MANIFEST.read_text()), declared(), upcasters())
    assert not problems, "\n".join(problems) + HOW_TO_UPDATE


def test_the_manifest_check_refuses_a_changed_shape_a_new_event_and_a_version_without_upcaster():
    manifest = json.loads(MANIFEST.read_text())
    shapes = declared()
    version, fields = shapes["DeadlineSet"]
    changed = {**shapes, "DeadlineSet": (version, sorted([*fields, "previous"]))}
    assert manifest_problems(manifest, changed, upcasters()) == [
        f"DeadlineSet version {version} has fields {sorted([*fields, 'previous'])}, the manifest {fields}: "
        "a changed shape needs a new version and an upcaster"
    ]
    added = {**shapes, "PowerRenamed": (1, ["actor", "audience", "name", "power_id"])}
    assert manifest_problems(manifest, added, upcasters()) == ["PowerRenamed version 1 is not in the manifest"]
    bumped = {**shapes, "DeadlineSet": (2, fields)}
    assert manifest_problems({**manifest, "DeadlineSet": {"1": fields, "2": fields}}, bumped, upcasters()) == [
        "DeadlineSet is at version 2 without upcast_v1_v2"
    ]
    assert manifest_problems(manifest, shapes, upcasters() - {"StateRestored.upcast_v1_v2"}) == [
        "StateRestored is at version 2 without upcast_v1_v2"
    ]


def test_an_event_type_without_a_version_is_refused(monkeypatch):
    """An event added with ``@event("Name")`` and not given a version in EVENT_VERSIONS."""

    class Unversioned(Game.Event):
        power_id: str

    monkeypatch.setattr(Game, "PowerRenamed", Unversioned, raising=False)
    shapes = declared()
    assert shapes["PowerRenamed"] == (None, ["power_id"])
    manifest = {**json.loads(MANIFEST.read_text()), "PowerRenamed": {"1": ["power_id"]}}
    assert manifest_problems(manifest, shapes, upcasters()) == ["PowerRenamed has no version: add it to EVENT_VERSIONS"]


def _rolled_back_game() -> tuple[Game, int, list]:
    g = game_in_planning(
        ("alpha", "conspiracy", "circle"),
        ("beta", "city", "sovereign"),
        assets=[("sec", "alpha", "Hidden vault", "secret", 2)],
    )
    target = g.version
    restored = deepcopy(g.state)
    submit(g, "alpha", "a1", [5, 5], title="TITLE-OF-A-SUPERSEDED-ACTION")
    g.share_secret("alpha", "sec", "beta")
    g.grant_visibility("beta", "GRANT-THAT-SURVIVES", source="ruling")
    g.set_timezone("beta", "Asia/Tokyo")
    g.rollback(target, restored, reason="try again", now=NOW, seed=SEED)
    return g, target, list(g.pending_events)


def test_a_rollback_records_the_target_version_and_what_carries_over_not_a_whole_state():
    g, target, events = _rolled_back_game()
    restored = [e for e in events if type(e).__name__ == "StateRestored"]
    assert len(restored) == 1 and restored[0].to_version == target
    assert not hasattr(restored[0], "state")
    text = repr(vars(restored[0]))
    assert "GameState" not in text and "TITLE-OF-A-SUPERSEDED-ACTION" not in text
    # What carries over did carry over, and the superseded action did not.
    assert seen(g)["actions"] == [] and seen(g)["game"]["rollbacks"] == 1
    assert "beta" in asset_of(g, "sec")["holders"] and sheet_of(g, "beta")["timezone"] == "Asia/Tokyo"
    assert [x["text"] for x in sheet_of(g, "beta")["learned"]] == ["GRANT-THAT-SURVIVES"]


def test_a_replay_re_folds_the_target_version_and_equals_the_live_game():
    g, target, events = _rolled_back_game()
    assert fold(None, events).state == g.state
    assert fold(None, events, lambda gid, v: fold(None, events[:v]).state).state == g.state
    with pytest.raises(RuntimeError, match=f"state at version {target}: fold the events"):
        game = None
        for e in events:  # the library's plain projector cannot know the state at the target version
            game = e.mutate(game)


def test_a_version_1_state_restored_is_upcast_and_folds_to_the_state_it_embeds_with_the_games_sequences():
    g, _, _ = _rolled_back_game()
    stored = {"state": deepcopy(g.state), "actor": "system", "audience": ["sealed"]}
    Game.StateRestored.upcast_v1_v2(stored)
    assert stored["to_version"] is None and isinstance(stored["carried"]["state"], GameState)
    event = object.__new__(Game.StateRestored)
    object.__setattr__(
        event, "__dict__", {**stored, "originator_id": g.id, "originator_version": g.version + 1, "timestamp": NOW}
    )
    other = game_in_planning(("gamma", "city", "sovereign"))
    other._id = g.id
    other._version = g.version
    # Every viewer's sequence is the game's own as folded now, not the one embedded: a release that counted
    # GameCreated twice embedded its count (issue 27).
    other.state.seen = {"gm": 99, "public": 7, "power:beta": 3}
    assert event.mutate(other).state == dataclasses.replace(g.state, seen={"gm": 99, "public": 7, "power:beta": 3})
