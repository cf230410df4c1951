"""``emissary cards check``: a Lodge catalogue validated against its schema, each card's phrases in words, and a
bad file named by card and field with a non-zero exit (issue 15)."""

from __future__ import annotations

import json

from api.cli import main
from domain.lodge.catalogue import DATA, default_catalogue, describe


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
