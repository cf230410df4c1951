"""Issue 17, "every string ready for translation": the talk pages (``talk.html``, ``thread.html``, ``tied.html``)
have no unmarked words, and the phrases ``api/web/talk.py`` shows (flashes, page titles, desk thread names) are
marked for extraction, each with its values by name."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_file

from tests.web.i18n_scan import scan

WEB = Path(__file__).resolve().parents[2] / "api" / "web"
TEMPLATES = [WEB / "templates" / name for name in ("talk.html", "thread.html", "tied.html", "macros.html")]


def test_the_talk_templates_have_no_unmarked_words():
    found = scan(TEMPLATES)
    assert found == [], "\n".join(found)


def test_the_talk_pages_python_phrases_are_marked():
    keywords = {"_": None, "N_": None, "ngettext": (1, 2)}
    phrases = {m for _, m, _, _ in extract_from_file("python", WEB / "talk.py", keywords=keywords)}
    for phrase in (
        "Thread opened.",
        "Posted.",
        "Edited.",
        "Hidden.",
        "No such thread",
        "{name} and the GM",
        "{name} and the host",
    ):
        assert phrase in phrases, (phrase, sorted(phrases))
    kit = {m for _, m, _, _ in extract_from_file("python", WEB / "kit.py", keywords=keywords)}
    assert "Sign in first" in kit  # the talk pages refuse a stranger with the web kit's one sign-in page


def test_the_talk_templates_plurals_and_values_are_extracted_by_name():
    """Counts are plurals a language can count its own way; values go in by name, so a translator can move them."""
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2)}
    found = set()
    for path in TEMPLATES:
        found |= {
            m for _, m, _, _ in extract_from_file("jinja2", path, keywords, options={"extensions": "jinja2.ext.i18n"})
        }
    assert ("%(n)s post", "%(n)s posts") in found and ("%(n)s post found.", "%(n)s posts found.") in found
    assert {"Between %(names)s (and the GM).", "in %(title)s", "Posts about this"} <= found
    assert {"Hidden by the GM: %(reason)s", "Hidden by %(who)s (host): %(reason)s"} <= found  # issue 28
