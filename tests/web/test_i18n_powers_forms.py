"""Issue 17, "every string ready for translation": the powers' forms on the board and the console (wallets,
trades, development, ambitions, magic, the map, the catalogue, armies, and the GM's forms for them) and the
words ``api.powers.forms`` answers with. The scanner finds no unmarked word in the two templates; Babel
extracts the forms' receipts and hints; and a page served in a stand-in language shows every label, legend,
button, summary and heading of those forms, and the receipt of a form, through the catalog."""

from __future__ import annotations

import gettext
import json
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file
from fastapi.testclient import TestClient

from api.app import create_app
from api.powers import declared, forms
from api.web import forms as web_forms
from api.web import i18n
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.web.i18n_scan import scan

TEMPLATES = Path(forms.__file__).parent / "templates"
FORMS = [TEMPLATES / "features_board.html", TEMPLATES / "features_console.html"]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


class Brackets(gettext.NullTranslations):
    """A stand-in catalog that translates every phrase it is asked for into ⟦phrase⟧, so a page shows which
    of its words went through the catalog."""

    def gettext(self, message: str) -> str:
        return f"⟦{message}⟧"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"⟦{singular if n == 1 else plural}⟧"


def test_the_powers_forms_templates_have_no_unmarked_words():
    found = scan(FORMS)
    assert found == [], "\n".join(found)


def test_the_forms_receipts_and_hints_are_extracted_for_translation():
    phrases = {  # the forms, where Powers' commands declare them, and the form kit that answers them
        m[1]
        for path in (forms.__file__, declared.__file__, web_forms.__file__)
        for m in extract_from_file("python", path, keywords=KEYWORDS)
    }
    for phrase in (
        "Trade offered: it happens when they accept.",  # a receipt (N_ in the table, _ when shown)
        "Map declared.",
        "Dispel declared: the action's difficulty is the ritual's.",
        "only the GM may do this",
        "{command} recorded.",
        "{key}: give a whole number",  # a hint of how to type a field
        "{key}: write each as 'name amount', e.g. 'coin 3, favor 1'",
        "{key}: not JSON ({error}, line {line})",
    ):
        assert phrase in phrases, phrase
    receipts = {spec.ok for spec in declared.SPECS.values()}
    assert receipts <= phrases, sorted(receipts - phrases)  # every receipt of the table is marked


@pytest.fixture
def bracketed(tmp_path, monkeypatch):
    """A game with a city, a wizard and a map, read in a language whose catalog is ``Brackets``."""
    monkeypatch.setattr(i18n, "translations_for", lambda code: Brackets() if code == "de" else i18n.ENGLISH)
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Words")
    city, city_token, _ = add_power(games, gid, "gm", "City", "city", "sovereign")
    add_power(games, gid, "gm", "Wiz", "champion", "wizard")

    def seat(token: str) -> TestClient:
        client = TestClient(app, headers={"Accept-Language": "de"})
        client.get(f"/signin/{gid}/{token}")
        return client

    yield gid, seat(gm_token), seat(city_token), city
    close_app(app)


def region(page: str, first: str, last: str) -> str:
    """The part of a page from section ``first`` to the end of section ``last``."""
    start = page.index(f'id="{first}"')
    return page[start : page.index("</section>", page.index(f'id="{last}"'))]


def unmarked(html: str) -> list[str]:
    """The labels, legends, buttons, summaries and headings whose words did not go through the catalog."""
    found = []
    for tag, inner in re.findall(r"<(label|legend|button|summary|h2)\b[^>]*>(.*?)</\1>", html, re.S):
        words = re.sub(r"<[^>]*>", "", inner).strip()
        if words and not words.startswith("⟦"):
            found.append(f"<{tag}>{words}")
    return found


def test_every_word_of_the_forms_reads_in_the_viewers_language(bracketed):
    gid, gm, city, city_id = bracketed
    csrf = re.search(r'name="csrf" value="([^"]+)"', gm.get(f"/play/{gid}").text).group(1)
    posted = gm.post(
        f"/play/{gid}/declare-map",
        data={"map": json.dumps({"hexes": [{"hex": "0,0", "terrain": "plains"}]}), "csrf": csrf},
    ).text
    assert "⟦Map declared.⟧" in posted  # the receipt, in the language of the one who sent the form
    refused = gm.post(f"/play/{gid}/award-fame", data={"power_id": "x", "amount": "many", "csrf": csrf}).text
    assert "⟦{key}: give a whole number⟧".format(key="amount") in refused  # a hint of the form's own
    ambition = {"name": "Rule", "kind": "minor", "fame": "5", "required": "1", "tasks": "! Hold", "csrf": csrf}
    assert "⟦Ambition offered.⟧" in gm.post(f"/play/{gid}/offer-ambition", data={**ambition, "power_id": city_id}).text
    console = region(gm.get(f"/play/{gid}").text, "gm-map", "gm-command")
    assert "⟦Declare the whole map (replaces it)⟧" in console and 'aria-label="⟦applies⟧"' in console
    assert unmarked(console) == [], unmarked(console)
    board = region(city.get(f"/play/{gid}").text, "wallet", "armies")
    assert "⟦Control: ⟦not chosen yet⟧.⟧" in board and "⟦⟦Roll the level-up⟧: army⟧" in board
    assert '<option value="respect">⟦respect⟧</option>' in board  # the posted value stays the word the rules use
    assert "⟦(⟦minor⟧, 5 fame, ⟦offered⟧)⟧" in board  # a state or kind of the rules, in the viewer's words
    assert unmarked(board) == [], unmarked(board)
