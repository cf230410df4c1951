"""The Lodge on the platform (issue 15): the card catalogue and the host's rules package as validated data,
the package pinned by the game, hidden information per L.4, phases from the package, and three turns with
Clean-up scoring played through the application service."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from api.compose import build_games, build_projector
from application.service import Caller, Games
from domain.errors import RuleViolation
from domain.lodge.catalogue import DATA, default_catalogue, describe, load_catalogue
from domain.lodge.game import EVENT_VERSIONS, LodgeGame, lodge_event_types
from domain.lodge.package import PACKAGES, installed_package, load_package
from domain.lodge.ruleset import (
    LODGE,
    AdvancePhase,
    BlackRoseAct,
    CastSpell,
    CommandEvocation,
    PhysicalAction,
    PrepareSpells,
)
from projections.settings import Settings
from tests.domain.lodge_helpers import play_lodge_turn


@pytest.fixture
def games():
    g = Games(entropy=lambda n: "ab" * n)
    yield g
    g.close()


def test_the_catalogue_is_data_validated_by_its_schema_and_large_enough_to_play(tmp_path):
    cat = default_catalogue()
    assert len(cat.spells) >= 20 and len(cat.evocations) >= 8 and len(cat.physical_actions) >= 3
    assert {r.cell_of for r in cat.rooms if r.cell_of} == {"red", "blue", "green", "yellow"}
    assert describe(cat.cards["unravel"].phrases[0]) == "Place 3 Instability in the target Room"
    broken = json.loads((DATA / "cards.json").read_text())
    broken["rooms"][0]["adjacent"].append("attic")
    (tmp_path / "bad.json").write_text(json.dumps(broken))
    with pytest.raises(ValidationError, match="attic"):
        load_catalogue(tmp_path / "bad.json")


def test_the_default_rules_package_is_versioned_house_rules_and_the_game_pins_it(games, tmp_path):
    package = installed_package("lodge-house-1")
    assert package.house_rules and package.version == "1" and [p.name for p in package.phases][0] == "prepare"
    assert package.defeat_pp == []  # L-AMB-4: off until the source is found
    bad = json.loads((PACKAGES / "lodge-house-1.json").read_text())
    bad["phases"][0]["may"].append("Teleport")
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(RuleViolation, match=r"'bad' is wrong: phases\[0\]: .*unknown commands \['Teleport'\]"):
        load_package(tmp_path / "bad.json")
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    (created,) = [e for e in games.events.get(games.get_game(game_id).id) if type(e).__name__ == "LodgeCreated"]
    assert created.package["id"] == "lodge-house-1" and created.package["house_rules"] is True
    assert created.package["banners"]["hall"]["A"] == [4, 2, 1]
    for options, field in (({"package": "nonesuch"}, "package"), ({"colour": "red"}, "options.colour")):
        with pytest.raises(RuleViolation) as refused:
            games.create_game("Lodge", ruleset="lodge", options=options)
        assert refused.value.field == field
    assert [s.name for s in LODGE.steps] == ["setup", "prepare", "actions", "black-rose", "cleanup"]


def test_views_show_unrevealed_spells_to_their_owner_and_the_host_and_the_deck_order_to_nobody(games):
    game_id = play_lodge_turn(games)
    ann, bob, host = (games.view(game_id, v) for v in ("ann", "bob", "gm"))
    assert ann["mages"]["ann"]["slots"]["III"] == {"card": "oblivion", "face": "down", "casts": 0}
    assert bob["mages"]["ann"]["slots"]["III"] == {"card": None, "face": "down", "casts": 0}
    assert host["mages"]["ann"]["slots"]["III"]["card"] == "oblivion"
    assert bob["mages"]["ann"]["slots"]["I"]["card"] == "firebolt"  # revealed when cast: everyone
    assert ann["rooms"] == bob["rooms"] and ann["evocations"] == bob["evocations"] != {}  # the board: everyone
    # the deck's order is the secret checked here: no view or event shows it, so it is read from the state
    deck = games.get_game(game_id).state.deck
    order = json.dumps(deck)
    for viewer in ("gm", "ann", "bob", "cy"):
        text = json.dumps([games.view(game_id, viewer), games.visible_events(game_id, viewer)])
        assert order not in text and f'"deck": {order}' not in text
        assert games.view(game_id, viewer)["evocation_deck"] == {"cards": len(deck)}


def test_a_command_the_phase_does_not_allow_is_refused_and_records_nothing(games):
    game_id = play_lodge_turn(games)  # at t2-prepare
    before = games.recorder.max_notification_id()
    with pytest.raises(RuleViolation) as refused:
        games.run(Caller.of("ann"), game_id, PhysicalAction("ann", "walk", moves=["library"]))
    assert refused.value.rule == "LH-7" and games.recorder.max_notification_id() == before
    with pytest.raises(RuleViolation):
        games.run(Caller.of("gm"), game_id, AdvancePhase("actions"))  # the host names the phase it ends
    assert games.recorder.max_notification_id() == before


def test_a_phase_window_closes_at_its_deadline_and_the_next_phase_opens(games):
    game_id = play_lodge_turn(games)
    game = games.get_game(game_id)
    seen = games.view(game_id, "gm")
    (w,) = seen["windows"]
    assert w["kind"] == "prepare" and seen["game"]["phase"] == "prepare"
    games.clock = lambda: game.created_on + timedelta(days=30)
    assert games.close_due_window(game_id, w["id"]) is True
    assert games.view(game_id, "gm")["game"]["phase"] == "actions"


def test_three_turns_with_cleanup_scoring_through_the_service(games):
    game_id = play_lodge_turn(games)  # turn 1: the Library rebuilt and scored
    gm, ann, bob, cy = (Caller.of(p) for p in ("gm", "ann", "bob", "cy"))
    turn1 = games.view(game_id, "gm")
    assert turn1["rooms"]["library"]["side"] == "B" and turn1["mages"]["ann"]["power_points"] == 3
    for _turn in (2, 3):
        games.run(ann, game_id, PrepareSpells("ann", {"QUICK": "unravel"}))
        games.run(gm, game_id, AdvancePhase("prepare"))
        games.run(ann, game_id, CastSpell("ann", "QUICK", "observatory"))
        games.run(gm, game_id, AdvancePhase("actions"))
        games.run(gm, game_id, BlackRoseAct("thorns", "bob"))
        games.run(gm, game_id, AdvancePhase("black-rose"))
    view = games.view(game_id, "cy")
    scored = [e for e in games.visible_events(game_id, "cy") if e["type"] == "RoomScored"]
    assert [s["data"]["data"]["room"] for s in scored] == ["library", "observatory", "observatory"]
    assert [s["data"]["data"]["pp"] for s in scored][1:] == [{"ann": 4}, {"ann": 5}]  # sides A then B
    assert view["game"]["phase"] == "ended" and view["ended"]["ann"] == 3 + 4 + 5
    assert view["ended"]["black-rose"] == 2 * len(view["black_rose"]["trophies"])
    with pytest.raises(RuleViolation):
        games.run(gm, game_id, AdvancePhase("prepare"))
    with pytest.raises(RuleViolation):
        games.run(cy, game_id, CommandEvocation("cy", "ev1"))


def test_every_lodge_event_type_has_a_version_and_its_fields_are_in_the_manifest():
    """DESIGN "Event evolution": a stored event's shape never changes silently. To change one, bump its version
    in domain/lodge/game.py EVENT_VERSIONS, add an upcaster, and add the new fields to the manifest."""
    manifest = json.loads((Path(__file__).parents[1] / "fixtures" / "lodge_event_manifest.json").read_text())
    envelope = {"originator_id", "originator_version", "timestamp", "originator_topic"}
    for name, cls in lodge_event_types().items():
        assert cls.class_version == EVENT_VERSIONS[name]
        fields = sorted(f.name for f in dataclasses.fields(cls) if f.name not in envelope)
        assert manifest[name][str(cls.class_version)] == fields, name
    game = LodgeGame.start("Lodge")
    game.add_mage("ann", "Ann", "red")
    recorded = {type(e).__name__ for e in game.collect_events()}
    assert recorded <= set(EVENT_VERSIONS) | {"CredentialIssued"}


def test_the_read_models_follow_a_lodge_game_its_phases_and_each_mages_timeline(tmp_path):
    games = build_games(Settings(data_dir=tmp_path / "data"))
    projector = build_projector(games, Settings(data_dir=tmp_path / "data"))
    try:
        gid = play_lodge_turn(games)
        projector.catch_up()
        assert [p["phase"] for p in games.phases(gid)] == [
            "setup",
            "t1-prepare",
            "t1-actions",
            "t1-black-rose",
            "t1-cleanup",
            "t2-prepare",
        ]
        feed = json.dumps(projector.feed(gid, "bob"))
        assert "RoomScored" in feed and "oblivion" not in feed and "plunder" not in feed
        assert "restoration" in json.dumps(projector.feed(gid, "bob"))  # his own face-down card
        sent = [(n["recipient"], n["body"]["subject"]) for n in projector.outbox(gid) if n["recipient"] == "bob"]
        assert sent == [
            ("bob", "Turn 1: prepare"),
            ("bob", "Turn 1: actions"),
            ("bob", "Turn 1: black-rose"),
            ("bob", "library is rebuilt"),
            ("bob", "Turn 2: prepare"),
        ]
    finally:
        projector.db.close()
        games.close()


def test_the_game_pins_its_catalogue_and_refuses_to_go_on_when_it_is_neither_installed_nor_kept(
    games, tmp_path, monkeypatch
):
    """LH-7: the game pins what the excerpt leaves out, and the cards it plays with. A game records the card
    catalogue's name, version and content hash when it is created; a later command runs with that catalogue,
    the installed one or a shipped version kept by version, and is refused when neither has that hash."""
    from domain.lodge import catalogue as catalogue_module

    installed = json.loads((DATA / "cards.json").read_text())
    kept = DATA / "catalogues" / f"{installed['version']}.json"
    assert catalogue_module.content_hash(kept) == catalogue_module.content_hash(DATA / "cards.json")
    game_id = play_lodge_turn(games)  # at t2-prepare
    (created,) = [e for e in games.events.get(games.get_game(game_id).id) if type(e).__name__ == "LodgeCreated"]
    assert created.catalogue_pin == {
        "name": "lodge-cards",
        "version": installed["version"],
        "sha256": catalogue_module.content_hash(DATA / "cards.json"),
    }
    changed = dict(installed, version=installed["version"] + "-next")
    changed["spells"] = [dict(c, name=c["name"].upper()) for c in installed["spells"]]
    (tmp_path / "cards.json").write_text(json.dumps(changed))
    (tmp_path / "kept").mkdir()
    monkeypatch.setattr(catalogue_module, "INSTALLED", tmp_path / "cards.json")
    monkeypatch.setattr(catalogue_module, "KEPT", tmp_path / "kept")
    before = games.recorder.max_notification_id()
    for command in (PrepareSpells("ann", {"QUICK": "unravel"}), AdvancePhase("prepare")):
        with pytest.raises(RuleViolation, match="LH-7") as refused:
            games.run(Caller.of("gm" if isinstance(command, AdvancePhase) else "ann"), game_id, command)
        assert refused.value.rule == "LH-7" and refused.value.field == "catalogue"
        assert installed["version"] in str(refused.value)
    assert games.recorder.max_notification_id() == before
    new_id, _, _ = games.create_game("Lodge", ruleset="lodge")  # a new game pins the newly installed one
    (created,) = [e["data"] for e in games.visible_events(new_id, "gm") if e["type"] == "LodgeCreated"]
    assert created["catalogue_pin"]["version"] == installed["version"] + "-next"
    (tmp_path / "kept" / f"{installed['version']}.json").write_text(kept.read_text())  # the shipped version kept
    games.run(Caller.of("ann"), game_id, PrepareSpells("ann", {"QUICK": "unravel"}))
    assert games.get_game(game_id).catalogue.spells[0].name == installed["spells"][0]["name"]


def test_a_lodge_created_before_the_catalogue_pin_is_upcast_and_plays_with_the_installed_catalogue():
    """DESIGN "Event evolution": LodgeCreated version 1 recorded only the catalogue's version; its upcaster adds
    no pin, and such a game keeps the installed catalogue, as it did when it was recorded."""
    created = lodge_event_types()["LodgeCreated"]
    stored = {"name": "Lodge", "catalogue": "lodge-cards-1"}
    created.upcast_v1_v2(stored)
    assert stored == {"name": "Lodge", "catalogue": "lodge-cards-1", "catalogue_pin": None}
    game = LodgeGame.start("Lodge")
    game.state.catalogue = {}
    assert game.catalogue is default_catalogue()
