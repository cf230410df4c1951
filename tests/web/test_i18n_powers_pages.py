"""Powers' main pages ready for translation (issue 17, "every string ready for translation"): the board, the
GM's console and what they include have no unmarked word, and the Python that builds them (flash messages,
the map's labels, the status strip's words, the feed's lines) marks its phrases for extraction."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.extract import extract_from_file

from domain.platform import i18n as words
from domain.powers import feed
from tests.web.i18n_scan import scan

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "api" / "powers" / "templates"
PAGES = [
    "board",
    "decision",
    "console",
    "console_decision",
    "actions",
    "console_tabs",
    "announcement",
    "map",
    "battle",
    "armies_console",
]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def phrases(path: Path) -> set[str]:
    """Every phrase Babel extracts from a Python file (a plural as its singular and its plural)."""
    found: set[str] = set()
    for _line, message, _comments, _context in extract_from_file("python", str(path), keywords=KEYWORDS):
        found.update(message if isinstance(message, tuple) else (message,))
    return found


def test_powers_main_pages_have_no_unmarked_words():
    found = scan([TEMPLATES / f"{name}.html" for name in PAGES])
    assert found == [], "\n".join(found)


def test_the_scanner_would_find_a_word_left_unmarked_on_the_board():
    source = (TEMPLATES / "board.html").read_text(encoding="utf-8")
    assert "{% trans %}My power sheet{% endtrans %}" in source
    from tests.web.i18n_scan import scan_source

    unmarked = source.replace("{% trans %}My power sheet{% endtrans %}", "My power sheet")
    assert any("My power sheet" in f for f in scan_source(unmarked, "board.html"))


def test_the_page_building_python_marks_its_phrases():
    expected = {
        "api/powers/web.py": {"Close Planning", "The map as {power} knows it"},
        "api/powers/declared.py": {  # the forms of Powers' commands, declared with them
            "Rolled. Choose your conversions and confirm.",
            "Yes, discard it",
            "{name} added. Send them their link (shown once).",
        },
        "api/powers/status.py": {"{n} action left", "{n} actions left", "You ({name})", "may still resist"},
        "api/powers/army_forms.py": {"Army placed.", "The army deserted."},
        "api/powers/mapsvg.py": {
            "Hex {hex}: {terrain}",
            "{name} (population {population}, wealth {wealth})",
            "{feature}, yours",
            "influence of {power}",
        },
        "domain/powers/feed.py": {
            "{power} submitted {title} ({slot}).",
            "“{title}”",
            "Season {season}, month {month}: {step}",
            "Planning",
            "The server rolled {n} dice for an action.",
            "Succeeded: {parts} against difficulty {difficulty} ({spare} to spare).",
            "The GM changed the difficulty from {old} to {new} after the roll.",
        },
    }
    for path, wanted in expected.items():
        missing = wanted - phrases(ROOT / path)
        assert not missing, (path, missing)


def shout(message: str) -> str:
    """A phrase in capitals, its values' names ({title}) kept."""
    return re.sub(r"[^{}]+(?=\{|$)", lambda m: m.group(0).upper(), message)


class Shouting:
    """A stand-in catalog that writes every phrase in capitals: what is marked reads translated."""

    def gettext(self, message: str) -> str:
        return shout(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return shout(singular if n == 1 else plural)


def test_feed_lines_are_looked_up_in_the_readers_catalog_and_keep_their_values():
    data = {"power_id": "gandalf", "title": "Duel the Witch-king", "slot": "private"}
    names = {"gandalf": "Gandalf"}
    assert feed.describe("ActionSubmitted", data, names) == "Gandalf submitted “Duel the Witch-king” (private)."
    with words.use(Shouting()):  # type: ignore[arg-type]
        assert feed.describe("ActionSubmitted", data, names) == "Gandalf SUBMITTED “Duel the Witch-king” (PRIVATE)."
        assert shout("{power} submitted {title}.") == "{power} SUBMITTED {title}."
        assert feed.phase_title("s1m2-planning") == "SEASON 1, MONTH 2: PLANNING"
    assert feed.phase_title("s1m2-planning") == "Season 1, month 2: Planning"
    assert feed.phase_title("s2-tidings") == "Season 2: Tidings" and feed.phase_title("setup") == "Setting up"


def test_result_words_read_as_before_in_english():
    assert feed.result_words({"successes": 0}) == "Done (no difficulty was set): 0 successes."
    assert feed.result_words({"successes": 1, "difficulty": 1, "success": True, "excess": 0}) == (
        "Succeeded: 1 success against difficulty 1."
    )
    resisted = {"successes": 3, "resisted": 1, "net": 2, "difficulty": 1, "success": True, "excess": 1}
    assert feed.result_words(resisted, "Gondor") == (
        "Succeeded: 3 successes, 1 taken away by Gondor's resistance, net 2 against difficulty 1 (1 to spare)."
    )
    failed = {"successes": 2, "resisted": 2, "net": 0, "difficulty": 3, "success": False}
    assert feed.result_words(failed) == ("Failed: 2 successes, 2 taken away by resistance, net 0 against difficulty 3.")


def test_the_templates_phrases_reach_the_catalog_with_their_values_named():
    """What ``make messages`` extracts from the pages (Babel's Jinja extractor, as ``babel.cfg`` says)."""
    found: set[str] = set()
    for name in PAGES:
        for _line, message, _comments, _context in extract_from_file(
            "jinja2", str(TEMPLATES / f"{name}.html"), options={"extensions": "jinja2.ext.i18n"}
        ):
            found.update(message if isinstance(message, tuple) else (message,))
    wanted = {
        "My power sheet",
        "Result: %(result)s",
        "Season %(season)s, month %(month)s: %(step)s",
        "%(count)s success",
        "%(count)s successes",
        "Battle %(battle)s at %(hex)s:",
        "What each choice gives",
        "The map, hex by hex",
        "Place army",
    }
    assert wanted - found == set()
