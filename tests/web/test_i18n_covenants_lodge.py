"""Issue 17, "every string ready for translation", for the covenant game's table and the Lodge's board: no word
of their templates is left unmarked, and their page code and the feed and phase words of their rulesets
mark their phrases (``_``, ``N_``) so ``make messages`` extracts them. English stays as it was."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_file

from api.web import i18n
from domain.covenants import ruleset as covenants
from domain.lodge import ruleset as lodge
from domain.platform import i18n as words
from tests.web.i18n_scan import scan

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def extracted(path: str) -> set[str]:
    found = set()
    for _line, message, _comments, _context in extract_from_file("python", str(ROOT / path), keywords=KEYWORDS):
        found |= set(message) if isinstance(message, tuple) else {message}
    return found


def test_the_covenant_and_lodge_templates_have_no_unmarked_word():
    found = scan([ROOT / "api" / "covenants" / "templates", ROOT / "api" / "lodge" / "templates"])
    assert found == [], "\n".join(found)


def test_the_covenant_page_code_marks_its_phrases():
    assert {"the covenant {name}", "vis source", "provision"} <= extracted("api/covenants/web.py")
    assert {"Moved.", "Trade offered."} <= extracted("api/covenants/declared.py")  # the forms, with their commands
    assert {"at turn", "to come", "done this phase", "You"} <= extracted("api/covenants/status.py")


def test_the_lodge_page_code_marks_its_phrases():
    assert {"meddle", "available"} <= extracted("api/lodge/web.py")
    assert {"Spell cast.", "{name} seated. Send them their link (shown once)."} <= extracted("api/lodge/declared.py")
    assert {"passed", "still acting", "You"} <= extracted("api/lodge/status.py")


def test_the_rulesets_feed_and_phase_words_are_marked():
    assert {
        "Year {year}, {season}, cycle {cycle}: {phase}",
        "{phase} began.",
        "The auditor rolled the game back: {reason}.",
        "certamen",
        "autumn",
    } <= extracted("domain/covenants/ruleset.py")
    assert {
        "Turn {turn}: {phase}",
        "The {phase} phase has begun: {who} may {may}.",
        "Final Power Points: {scores}.",
        "The host rolled the game back: {reason}.",
        "black-rose",
    } <= extracted("domain/lodge/ruleset.py")


def test_english_phase_titles_and_feed_lines_are_unchanged():
    assert covenants.phase_title("y1-spring-c2-main") == "Year 1, spring, cycle 2: Main"
    assert covenants.describe("PhaseBegan", {"year": 2, "season": 3, "cycle": 1, "phase": "certamen"}, {}) == (
        "Year 2, winter, cycle 1: Certamen began."
    )
    assert lodge.phase_title("t3-black-rose") == "Turn 3: Black-rose"
    began = {"data": {"turn": 1, "phase": "prepare", "acts": "every mage", "may": ["PrepareSpells", "Pass"]}}
    assert lodge.notify("PhaseBegan", began) == {
        "subject": "Turn 1: prepare",
        "text": "The prepare phase has begun: every Mage may PrepareSpells, Pass.",
    }


def test_a_feed_line_and_a_mail_read_in_the_catalogs_language():
    """The feed is worded when read, and a mail as it is queued (issue 28), each in its reader's language; the
    projector keeps ``notify``'s texts in English whatever the language of the request that recorded the event
    (it words them under ``words.ENGLISH``)."""
    ended = {"data": {"scores": {"ann": 3}}}
    fake = _Catalog({"Final Power Points: {scores}.": "Endstand: {scores}.", "every Mage": "jeder Magier"})
    with words.use(fake):
        assert lodge.describe("GameEnded", ended, {}) == "Endstand: ann 3."
        assert lodge.notify("GameEnded", ended)["text"] == "Endstand: ann 3."
        with words.use(words.ENGLISH):  # as the projector words what it keeps
            assert lodge.notify("GameEnded", ended)["text"] == "Final Power Points: ann 3."
    assert i18n.translations_for("en") is words.ENGLISH


class _Catalog(words.ENGLISH.__class__):
    def __init__(self, table: dict[str, str]) -> None:
        super().__init__()
        self.table = table

    def gettext(self, message: str) -> str:
        return self.table.get(message, message)


def test_both_pages_render_in_another_language(app, games):
    """Every trans block takes its values by name: the pages render under a catalog (German: the platform's frame
    is translated, the game's words wait for the catalog) as they do in English."""
    from fastapi.testclient import TestClient

    from application.service import Caller, new_token
    from domain.lodge.ruleset import AddMage, BeginGame
    from domain.platform.commands import ReissueLink
    from tests.covenants.play import seat_three

    gid, _token, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(Caller.of("gm"), gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    table = seat_three(games)
    for game, seat in ((gid, "ann"), (table.game_id, table.turn()[0]), (table.game_id, "gm")):
        token, digest = new_token()
        games.run(Caller.of("gm"), game, ReissueLink(seat, digest))
        client = TestClient(app, headers={"Accept-Language": "de-DE"})
        client.get(f"/signin/{game}/{token}")
        page = client.get(f"/play/{game}")
        assert page.status_code == 200 and "Zum Inhalt springen" in page.text, (game, seat)
