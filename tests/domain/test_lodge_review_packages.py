"""A rules package of Rooms (LH-7, lodge-wide-rooms) with the catalogue a game pinned: a kept catalogue plays on
as it was shipped, and a package whose start Room is not among its Rooms is refused naming the field."""

from __future__ import annotations

import json

import pytest

from api.cli import main
from domain import visibility as vis
from domain.errors import RuleViolation
from domain.ids import GM
from domain.lodge import package as package_module
from domain.lodge.catalogue import KEPT, content_hash
from domain.lodge.game import RULES_VERSION, LodgeGame
from domain.lodge.package import installed_package
from domain.lodge.ruleset import LodgeOptions, board_view


def test_lh_7_a_game_pinned_to_a_kept_catalogue_with_a_package_of_rooms_replays_as_it_was():
    """LH-7: a kept catalogue "loads as it was, without the checks added since". lodge-cards-2's Feedback triggers
    itself (refused in a new catalogue since, L-AMB-9); a game that pinned it with a package of Rooms must still
    replay its LodgeCreated, so putting the package's Rooms in does not check its cards again."""
    kept = KEPT / "lodge-cards-2.json"
    pin = {"name": "lodge-cards", "version": "lodge-cards-2", "sha256": content_hash(kept)}
    game = LodgeGame(
        name="Lodge",
        ruleset="lodge",
        rules_version=RULES_VERSION,
        timezone="UTC",
        options=LodgeOptions(package="lodge-wide-rooms").model_dump(mode="json"),
        package=installed_package("lodge-wide-rooms").model_dump(mode="json"),
        catalogue="lodge-cards-2",
        catalogue_pin=pin,
        actor=GM,
        audience=[vis.PUBLIC],
    )
    feedback = game.catalogue.cards["feedback"].persistent
    assert feedback is not None and [p.op for p in feedback.phrases] == ["damage"]  # as lodge-cards-2 has it
    assert game.catalogue.room_by_id["vault"].slots == 7 and len(board_view(game, "gm")["rooms"]["vault"]["slots"]) == 7


def _package(tmp_path, monkeypatch, edit) -> str:
    raw = json.loads((package_module.PACKAGES / "lodge-wide-rooms.json").read_text())
    raw["id"] = "no-start"
    edit(raw)
    folder = tmp_path / "packages"
    folder.mkdir()
    (folder / "no-start.json").write_text(json.dumps(raw))
    monkeypatch.setattr(package_module, "PACKAGES", folder)
    package_module.installed_package.cache_clear()
    return str(folder / "no-start.json")


def test_lh_7_a_package_whose_start_room_is_not_among_its_rooms_is_refused_naming_the_field(
    tmp_path, monkeypatch, capsys
):
    """LH-7: the package gives the Room every Mage starts in; with Rooms of its own, that Room must be one of
    them, or the first Mage seated stands nowhere. Refused when a game loads it, and by ``cards check``."""
    path = _package(tmp_path, monkeypatch, lambda raw: raw.update(start_room="attic"))
    with pytest.raises(RuleViolation) as refused:
        LodgeGame.start("Lodge", options={"package": "no-start"})
    assert (refused.value.rule, refused.value.field) == ("LH-7", "package")
    assert "field start_room: 'attic' is not one of" in refused.value.message
    assert main(["cards", "check", path]) == 1
    captured = capsys.readouterr()
    assert "field start_room: 'attic' is not one of" in captured.err and captured.out == ""


def test_lh_7_a_catalogue_that_fails_its_checks_is_refused_naming_the_rule(tmp_path, monkeypatch):
    """LH-7: the catalogue a new game pins is the installed one, checked when it is loaded; one that fails (here a
    Room adjacent to itself, L-MOVE-1) refuses the game naming the rule, the field and the Room."""
    from domain.lodge import catalogue as catalogue_module

    raw = json.loads(catalogue_module.INSTALLED.read_text())
    next(r for r in raw["rooms"] if r["id"] == "library")["adjacent"].append("library")
    (tmp_path / "cards.json").write_text(json.dumps(raw))
    monkeypatch.setattr(catalogue_module, "INSTALLED", tmp_path / "cards.json")
    with pytest.raises(RuleViolation) as refused:
        LodgeGame.start("Lodge")
    assert (refused.value.rule, refused.value.field) == ("LH-7", "catalogue")
    assert "rooms[1] 'library', field adjacent" in refused.value.message
