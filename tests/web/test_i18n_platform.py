"""Issue 17 ("every string ready for translation, with dates and numbers formatted by locale"), the platform's
own pages: every word of their templates is marked, the phrases of their Python are extracted, and a page read
in German writes its times and event numbers the German way around the English words."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.extract import extract_from_file
from fastapi.testclient import TestClient

from api.web import i18n
from api.web.kit import templates
from domain.platform import feed
from tests.web.i18n_scan import scan

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "api" / "web" / "templates"
OTHERS = {"base.html", "talk.html", "thread.html", "tied.html"}  # the frame (test_i18n) and the talk's own
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
GERMAN_DATE = re.compile(r"(Mo|Di|Mi|Do|Fr|Sa|So)\., \d{1,2}\. \w+\.? \d{4}, \d{2}:\d{2}")


def platform_templates() -> list[Path]:
    return [p for p in sorted(TEMPLATES.glob("*.html")) if p.name not in OTHERS]


def phrases(path: str) -> set[str]:
    found = set()
    for _, message, _, _ in extract_from_file("python", str(ROOT / path), keywords=KEYWORDS):
        found.update(message if isinstance(message, tuple) else (message,))
    return found


def test_every_word_of_the_platforms_pages_is_marked_for_translation():
    found = scan(platform_templates())
    assert found == [], "\n".join(found)
    assert len(platform_templates()) >= 14  # the scan read the pages themselves


def test_the_page_code_marks_its_titles_receipts_and_status_words():
    assert {
        "This form was refused",
        "Marked ready for this phase.",
        "Close {window} now?",
        "Yes, roll back",
        "GM only",
        "the service",
        "version {number}",
    } <= phrases("api/web/routes.py")
    assert {"Sign in first", "Open the secret link your GM sent you."} <= phrases("api/web/kit.py")  # one refusal page
    assert {
        "Your move.",
        "Waiting on the GM.",
        "Waiting on the host.",
        "Waiting on others.",
        "Waiting on the players: {names}.",
        "You are looking at an earlier phase.",
    } <= phrases("api/web/status.py")
    assert {
        "Setting up",
        "{zone} is not a time zone",
        "This sign-in link does not work: it was used already, it expired, or it was mistyped. "
        "Ask for a new one below.",
    } <= phrases("api/web/people.py")
    assert any(p.startswith("If a seat in a game here") for p in phrases("api/web/people.py"))


def test_the_platforms_feed_lines_and_window_words_are_marked():
    found = phrases("domain/platform/feed.py")
    assert {
        "{window} opened.",
        "{window} closed: {reason}.",
        "The GM granted an extension.",
        "{who} asked for {hours} more in {window}.",
        "{hours} hour",
        "{hours} hours",
        "the GM",
        "The window",
    } <= found
    assert set(feed.WINDOW_CLOSE_REASONS.values()) <= found  # the table of reasons, marked where defined


def test_the_feed_lines_read_as_before_in_english():
    names = {"bob": "Bob"}
    line = feed.platform_line
    assert line("WindowOpened", {}, names, "The window") == "The window opened."
    assert line("WindowClosed", {"reason": "deadline"}, names, "Planning") == "Planning closed: its deadline passed."
    assert line("WindowClosed", {"reason": "odd"}, names, "X") == "X closed: odd."
    assert line("WindowClosed", {}, names, "X") == "X closed: closed."
    assert line("ExtensionRequested", {"seat": "bob", "hours": 1}, names, "X") == "Bob asked for 1 hour more in X."
    assert line("ExtensionRequested", {"seat": "gm", "hours": 2.5}, names, "X") == (
        "the GM asked for 2.5 hours more in X."
    )
    assert line("VisibilityGranted", {"to": "bob", "text": "a secret: "}, names, "X") == (
        "Bob learned something: a secret."
    )
    assert line("VisibilityGranted", {"to": "bob"}, names, "X") == "Bob learned something."
    assert line("GameRolledBack", {}, names, "X") == "The GM rolled the game back: no reason given."


def test_the_audit_and_the_feed_write_their_times_the_way_the_viewers_language_does(app, games):
    game_id, token, _ = games.create_game("Sprachen", timezone_name="Europe/Berlin")
    client = TestClient(app)
    client.get(f"/signin/{game_id}/{token}")
    german = client.get(f"/play/{game_id}/audit", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert german.status_code == 200
    times = re.findall(r"<time [^>]*>([^<]*)</time>", german.text)
    assert times and all(GERMAN_DATE.fullmatch(t.removesuffix(" CET").removesuffix(" CEST")) for t in times), times
    english = client.get(f"/play/{game_id}/audit", headers={"Accept-Language": "en-GB"}).text
    assert not GERMAN_DATE.search(english) and "times in Europe/Berlin" in english
    board = client.get(f"/play/{game_id}", headers={"Accept-Language": "de"}).text
    feed_times = re.findall(r"<time [^>]*>([^<]*)</time>", board[board.index('id="feed"') :])
    assert feed_times and GERMAN_DATE.match(feed_times[0]), feed_times


def test_event_numbers_and_receipts_are_written_the_way_the_viewers_language_does():
    page = templates.env.get_template("feed.html")
    macros = templates.env.from_string('{% from "macros.html" import ok %}{{ ok(flash, "f") }}')
    receipt = {"sequence": 12345, "digest": "0123456789abcdef0", "at": "2026-11-30T14:05:00+00:00"}
    flash = {"kind": "ok", "form": "f", "text": "Done.", "receipt": receipt}
    events = [{"seq": 12345, "at": "", "local": "", "text": "A line.", "by": "Bob", "superseded": False}]

    def render(tag: str) -> tuple[str, str]:
        token = i18n._locale.set(i18n.choose(tag, None))
        try:
            return page.render(feed=events, zone="UTC", me="gm"), macros.render(flash=flash)
        finally:
            i18n._locale.reset(token)

    feed_de, receipt_de = render("de")
    assert "#12.345" in feed_de and "sequence 12.345" in receipt_de
    feed_en, receipt_en = render("en")
    assert "#12,345" in feed_en and "by Bob" in feed_en and 'id="event-12345"' in feed_en
    assert "Receipt: sequence 12,345, recorded <time" in receipt_en and "digest <code>0123456789abcdef…</code>" in (
        receipt_en
    )
