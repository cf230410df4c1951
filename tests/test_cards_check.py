"""``emissary cards check``: a Lodge catalogue validated against its schema, each card's phrases in words, and a
bad file named by card and field with a non-zero exit (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.cli import main
from domain.errors import RuleViolation
from domain.lodge import package as package_module
from domain.lodge.catalogue import DATA, default_catalogue, describe
from domain.lodge.game import LodgeGame
from domain.lodge.ruleset import LODGE


def _broken(tmp_path, edit) -> str:
    raw = json.loads((DATA / "cards.json").read_text())
    edit(raw)
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(raw))
    return str(path)


def test_the_shipped_catalogue_checks_and_prints_every_phrase_in_words(capsys):
    assert main(["cards", "check", str(DATA / "cards.json")]) == 0
    out = capsys.readouterr().out
    catalogue = default_catalogue()
    for card in [*catalogue.spells, *catalogue.physical_actions, *catalogue.black_rose]:
        assert f"{card.id} (" in out
        for n, phrase in enumerate(card.phrases, 1):
            assert f"  {n}. {describe(phrase)}" in out
    assert "Place 3 Instability in the target Room" in out  # unravel, in words


def test_a_phrase_without_its_amount_names_the_card_and_field(tmp_path, capsys):
    def edit(raw: dict) -> None:
        quake = next(c for c in raw["spells"] if c["id"] == "quake")
        del quake["phrases"][0]["amount"]

    assert main(["cards", "check", _broken(tmp_path, edit)]) == 1
    captured = capsys.readouterr()
    assert "'quake'" in captured.err and "field phrases[0]" in captured.err and "needs an amount" in captured.err
    assert captured.out == ""


def test_an_unknown_primitive_names_the_card_and_field(tmp_path, capsys):
    def edit(raw: dict) -> None:
        raw["physical_actions"][0]["phrases"][0]["op"] = "teleport"

    assert main(["cards", "check", _broken(tmp_path, edit)]) == 1
    err = capsys.readouterr().err
    walk = json.loads((DATA / "cards.json").read_text())["physical_actions"][0]["id"]
    assert f"physical_actions[0] {walk!r}, field phrases[0].op" in err


def test_a_file_that_is_not_json_is_refused(tmp_path, capsys):
    path = tmp_path / "cards.json"
    path.write_text("{ not json")
    assert main(["cards", "check", str(path)]) == 1
    assert "not a readable JSON catalogue" in capsys.readouterr().err


def _spell(raw: dict, card: str) -> dict:
    return next(c for c in raw["spells"] if c["id"] == card)


def _room(raw: dict, room: str) -> dict:
    return next(r for r in raw["rooms"] if r["id"] == room)


def _refused(tmp_path, capsys, edit) -> str:
    assert main(["cards", "check", _broken(tmp_path, edit)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


def test_an_unknown_field_on_a_card_names_the_card_and_field(tmp_path, capsys):
    """A field the schema does not know is refused, never ignored (L-EFF-1: a card is its data)."""
    err = _refused(tmp_path, capsys, lambda raw: _spell(raw, "quake").update(colour="red"))
    assert "'quake', field colour" in err and "Extra inputs are not permitted" in err


def test_l_eff_1_a_field_its_phrase_does_not_read_is_refused_naming_the_card_and_field(tmp_path, capsys):
    """L-EFF-1: a phrase is one primitive with what it reads; an amount on ``summon`` was accepted and ignored."""
    err = _refused(tmp_path, capsys, lambda raw: _spell(raw, "call-beast")["phrases"][0].update(amount=2))
    assert "'call-beast', field phrases[0]" in err and "a 'summon' phrase takes no 'amount'" in err


def test_l_move_1_a_room_adjacent_to_itself_is_refused_naming_the_room_and_field(tmp_path, capsys):
    """L-MOVE-1 [002:R28]: "its controller moves it to an adjacent Room": a Room is not adjacent to itself."""
    err = _refused(tmp_path, capsys, lambda raw: _room(raw, "library")["adjacent"].append("library"))
    assert "rooms[1] 'library', field adjacent" in err and "adjacent to itself" in err


def test_l_move_1_a_door_that_leads_only_one_way_is_refused_unless_declared(tmp_path, capsys):
    """L-MOVE-1: a door leads both ways (the Library lists the Hall, so the Hall lists the Library) unless the
    Room declares it one-way (``one_way``)."""
    err = _refused(tmp_path, capsys, lambda raw: _room(raw, "hall")["adjacent"].remove("library"))
    assert "room 'library', field adjacent: the door to 'hall' leads only one way" in err

    def declared(raw: dict) -> None:
        _room(raw, "hall")["adjacent"].remove("library")
        _room(raw, "library")["one_way"] = ["hall"]

    assert main(["cards", "check", _broken(tmp_path, declared)]) == 0
    assert "library (room, Library; 4 slots; doors to hall (one way), observatory)" in capsys.readouterr().out


def test_l_amb_9_a_persistent_card_that_triggers_itself_is_refused_naming_the_card_and_field(tmp_path, capsys):
    """L-AMB-9: "an effect can re-trigger itself, or loop with another": the engine cuts the loop, and the card
    check refuses a card set that relies on it: Thornskin (when its Mage is damaged) inflicting Damage on her."""

    def edit(raw: dict) -> None:
        _spell(raw, "thornskin")["persistent"]["phrases"] = [{"op": "damage", "amount": 1, "to": "target"}]

    err = _refused(tmp_path, capsys, edit)
    assert "card 'thornskin', field persistent.trigger" in err and "triggers itself" in err


def test_l_amb_9_a_cycle_of_persistent_triggers_is_refused_naming_the_card_and_field(tmp_path, capsys):
    """L-AMB-9: Ward (a Model enters its Room: 1 Damage) and Regrowth made to move its damaged Mage into a Room
    trigger each other: Ward -> Regrowth -> Ward."""

    def edit(raw: dict) -> None:
        _spell(raw, "regrowth")["persistent"]["phrases"] = [{"op": "move", "amount": 1, "to": "target"}]

    err = _refused(tmp_path, capsys, edit)
    assert "field persistent.trigger" in err and "cycle of persistent triggers" in err
    assert "ward -> regrowth -> ward" in err or "regrowth -> ward -> regrowth" in err


SHIPPED = package_module.PACKAGES


def _package(tmp_path, monkeypatch, name: str, edit) -> str:
    """The optional package of Rooms, edited, installed under a new name in a scratch package folder."""
    raw = json.loads((SHIPPED / "lodge-wide-rooms.json").read_text())
    raw["id"] = name
    edit(raw)
    folder = tmp_path / "packages"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(raw))
    monkeypatch.setattr(package_module, "PACKAGES", folder)
    package_module.installed_package.cache_clear()
    return str(folder / f"{name}.json")


def _game_refuses(name: str) -> str:
    assert LODGE.options is not None  # the ruleset's steps read the installed default package when it is imported
    with pytest.raises(RuleViolation) as err:
        LodgeGame.start("Lodge", options={"package": name})
    assert err.value.field == "package"
    return err.value.message


def test_l_move_1_a_game_loading_a_package_whose_room_is_adjacent_to_itself_is_refused(tmp_path, monkeypatch, capsys):
    """The same check when a game loads a rules package of Rooms, and from ``cards check`` on the package."""
    path = _package(tmp_path, monkeypatch, "self-door", lambda raw: _room(raw, "gallery")["adjacent"].append("gallery"))
    message = _game_refuses("self-door")
    assert "'self-door' is wrong" in message and "rooms[6] 'gallery', field adjacent" in message
    assert main(["cards", "check", path]) == 1
    assert "rooms[6] 'gallery', field adjacent" in capsys.readouterr().err


def test_l_move_1_a_game_loading_a_package_with_an_undeclared_one_way_door_is_refused(tmp_path, monkeypatch, capsys):
    """A door that leads only one way is refused when a game loads the package, and played one way once declared:
    the Gallery's door leads into the Hall, and none leads back from the Hall."""
    path = _package(tmp_path, monkeypatch, "one-way", lambda raw: _room(raw, "hall")["adjacent"].remove("gallery"))
    assert "room 'gallery', field adjacent: the door to 'hall' leads only one way" in _game_refuses("one-way")
    assert main(["cards", "check", path]) == 1 and "leads only one way" in capsys.readouterr().err

    def declared(raw: dict) -> None:
        _room(raw, "hall")["adjacent"].remove("gallery")
        _room(raw, "gallery")["one_way"] = ["hall"]

    _package(tmp_path, monkeypatch, "one-way-declared", declared)
    game = LodgeGame.start("Lodge", options={"package": "one-way-declared"})
    assert "gallery" not in game.catalogue.room_by_id["hall"].adjacent
    assert game.catalogue.room_by_id["gallery"].one_way == ["hall"]


def test_lh_7_a_package_room_with_slots_and_no_banner_is_refused_when_a_game_loads_it(tmp_path, monkeypatch):
    """LH-7: the banners are the package's; a Room whose Instability could fill must have them to be scored."""
    _package(tmp_path, monkeypatch, "no-banner", lambda raw: raw["banners"].pop("chapel"))
    assert "the Rooms ['chapel'] have Instability slots but no banners" in _game_refuses("no-banner")


def test_l_amb_9_a_game_loading_a_catalogue_with_a_trigger_cycle_is_refused_naming_the_card(tmp_path, monkeypatch):
    """The same checks when a game loads the installed catalogue: a new game is refused, naming the card and the
    field, rather than played with Thornskin triggering itself (L-AMB-9)."""
    from domain.lodge import catalogue as catalogue_module

    def edit(raw: dict) -> None:
        _spell(raw, "thornskin")["persistent"]["phrases"] = [{"op": "damage", "amount": 1, "to": "target"}]

    monkeypatch.setattr(catalogue_module, "INSTALLED", Path(_broken(tmp_path, edit)))
    assert LODGE.options is not None
    with pytest.raises(RuleViolation) as err:
        LodgeGame.start("Lodge")
    assert err.value.field == "catalogue"
    assert (
        "cards.json is wrong" in err.value.message and "card 'thornskin', field persistent.trigger" in err.value.message
    )
