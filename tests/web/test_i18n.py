"""The viewer's language (issue 17, "every string ready for translation, with dates and numbers formatted by
locale"): the catalog a request reads, the formats of its times and numbers, and the footer's choice."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from fastapi.testclient import TestClient

from api.app import create_app
from api.web import i18n
from domain.platform import i18n as words
from projections.settings import Settings
from tests.web.i18n_scan import scan, scan_source

MOMENT = datetime(2026, 11, 30, 14, 5, tzinfo=timezone.utc)


def at_locale(tag: str, fn, *args, **kw):
    token = i18n._locale.set(i18n.choose(tag, None))
    try:
        return fn(*args, **kw)
    finally:
        i18n._locale.reset(token)


def test_accept_language_is_read_most_wanted_first_and_q0_is_refused():
    assert i18n.accepted("fr;q=0.5, de-AT, en;q=0.8, es;q=0") == ["de-AT", "en", "fr"]
    assert i18n.accepted("*") == [] and i18n.accepted("") == []


def test_the_chosen_language_wins_then_the_browsers_first_known_then_english():
    assert str(i18n.choose("de", "fr")) == "de"
    assert str(i18n.choose(None, "xx-YY, fr-CA;q=0.9")) == "fr_CA"  # "xx" is no language Babel knows
    assert str(i18n.choose("../../etc", "not a tag")) == "en"


def test_a_regional_variant_reads_its_languages_catalog():
    assert i18n.catalog_of(i18n.choose("de-AT", None)) == "de"
    assert i18n.catalog_of(i18n.choose("ja", None)) == "en"  # no Japanese catalog: English words


def test_times_are_in_the_viewers_zone_and_written_the_way_their_language_writes_them():
    berlin = ZoneInfo("Europe/Berlin")
    assert at_locale("de", i18n.local_time, MOMENT.isoformat(), berlin) == "Mo., 30. Nov. 2026, 15:05 CET"
    assert at_locale("en-GB", i18n.local_time, MOMENT.isoformat(), berlin) == "Mon, 30 Nov 2026, 15:05 CET"
    assert at_locale("en-US", i18n.local_time, MOMENT, ZoneInfo("America/New_York")) == (
        "Mon, Nov 30, 2026, 9:05\u202fAM EST"
    )
    assert at_locale("en", i18n.local_time, "2026-11-30T14:05:00", "UTC").endswith("UTC")  # naive: UTC


def test_numbers_are_written_the_way_the_viewers_language_writes_them():
    assert at_locale("de", i18n.number, 12345.5) == "12.345,5"
    assert at_locale("en", i18n.number, 12345.5) == "12,345.5"
    assert at_locale("en", i18n.number, "not a number") == "not a number"


def test_a_marked_phrase_reads_in_the_catalogs_language_and_in_english_without_one():
    assert words._("Skip to content") == "Skip to content"
    with words.use(i18n.translations_for("de")):
        assert words._("Skip to content") == "Zum Inhalt springen"
        assert words._("a phrase no catalog has") == "a phrase no catalog has"


def test_pages_read_in_the_browsers_language_and_the_footer_choice_overrides_it(tmp_path):
    client = TestClient(create_app(Settings(data_dir=tmp_path)))
    german = client.get("/", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}).text
    assert '<html lang="de">' in german and "Zum Inhalt springen" in german and "Sprache" in german
    french = client.get("/", headers={"Accept-Language": "fr-FR"}).text
    assert '<html lang="en">' in french  # no French catalog: the words, and so the page, are English
    english = client.get("/", headers={"Accept-Language": "en-US"}).text
    assert '<html lang="en">' in english and "Skip to content" in english
    chosen = client.get("/language", params={"lang": "de", "next": "/new"}, follow_redirects=False)
    assert chosen.status_code == 303 and chosen.headers["location"] == "/new"
    assert "Zum Inhalt springen" in client.get("/", headers={"Accept-Language": "en-US"}).text
    back = client.get(
        "/language", params={"lang": ""}, headers={"Referer": "http://testserver/new?x=1"}, follow_redirects=False
    )
    assert back.status_code == 303 and back.headers["location"] == "/new?x=1"  # back where it was chosen
    assert "Skip to content" in client.get("/", headers={"Accept-Language": "en-US"}).text


def test_the_language_choice_returns_only_to_our_own_pages(tmp_path):
    client = TestClient(create_app(Settings(data_dir=tmp_path)))
    for elsewhere in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        r = client.get("/language", params={"lang": "de", "next": elsewhere}, follow_redirects=False)
        assert r.headers["location"] == "/", elsewhere
    assert "secure" not in r.headers["set-cookie"].lower()  # plain http here; https adds Secure
    r = client.get("/language", params={"lang": "klingon", "next": "/"}, follow_redirects=False)
    assert "lang=klingon" not in r.headers.get("set-cookie", "")  # only a shipped catalog is kept


def test_the_scanner_finds_unmarked_words_and_passes_marked_ones():
    assert scan_source("<p>{% trans %}Your move.{% endtrans %}</p><p>{{ _('Ready') }}</p>", "ok") == []
    found = scan_source('<p>Your move.</p><input type="submit" value="Send"><a title="Back">→</a>', "bad")
    assert len(found) == 3
    assert scan_source("<p>{{ 'closes' if live else 'was to close' }}</p>", "expr") != []
    assert scan_source('<p class="{{ "done" if x }}">{{ x["name"] }}</p>', "ids") == []


def test_the_platform_frame_every_page_extends_is_ready_for_translation():
    assert scan([Path(i18n.__file__).parent / "templates" / "base.html"]) == []


def test_every_template_of_every_ruleset_is_ready_for_translation():
    """Issue 17: every word of every page, the platform's and each ruleset's, is marked; a new template with a
    bare word fails here, naming the file, the line and the words."""
    root = Path(i18n.__file__).resolve().parents[1]  # api/
    templates = sorted(root.rglob("templates/**/*.html"))
    assert len(templates) > 25 and any("covenants" in str(t) for t in templates)
    assert scan(templates) == []


def test_the_german_catalog_translates_every_phrase_with_the_same_placeholders():
    """The catalog we ship is whole and sound: every phrase translated, and each translation keeps the values
    its phrase names (``%(name)s`` and ``{name}``), so no German page can fail on a missing value."""
    import re

    from babel.messages.pofile import read_po

    with (i18n.LOCALE_DIR / "de" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale="de")
    named = re.compile(r"%\((\w+)\)s|\{(\w+)\}")
    untranslated, mismatched = [], []
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if not all(strings):
            untranslated.append(ids[0])
            continue
        for i, s in enumerate(strings):  # a plural's first form against the singular, the others the plural
            if set(named.findall(s)) != set(named.findall(ids[min(i, len(ids) - 1)])):
                mismatched.append(ids[0])
    assert untranslated == [] and mismatched == [], (untranslated[:10], mismatched[:10])


def repeats(text: str, span: int = 30) -> bool:
    """Whether some ``span`` characters of ``text`` occur in it twice."""
    seen: set[str] = set()
    for i in range(len(text) - span + 1):
        if text[i : i + span] in seen:
            return True
        seen.add(text[i : i + span])
    return False


def test_no_german_translation_says_its_sentence_twice():
    """A translation re-added after a rebase once landed pasted behind the one already there ("... verwaltennur die
    Spielleitung ..."): a translation that repeats 30 characters its phrase does not repeat is refused."""
    from babel.messages.pofile import read_po

    assert repeats("abc. " * 10) and not repeats("nur die Spielleitung darf die Webhooks dieses Spiels verwalten")
    with (i18n.LOCALE_DIR / "de" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale="de")
    doubled = []
    for m in catalog:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        doubled += [s for s in strings if s and repeats(s) and not any(repeats(i) for i in ids)]
    assert doubled == [], doubled[:3]


def test_the_shipped_catalog_holds_every_phrase_the_code_marks(tmp_path):
    """``make messages`` has been run: Babel's extraction of the code and templates today finds no phrase the
    German catalog lacks, so no marked word reads in English on a German page by oversight."""
    import subprocess
    import sys

    from babel.messages.pofile import read_po

    repo = Path(i18n.__file__).resolve().parents[2]
    pot = tmp_path / "messages.pot"
    pybabel = str(Path(sys.executable).parent / "pybabel")
    keywords = ["-k", "_", "-k", "N_", "-k", "ngettext:1,2"]
    subprocess.run(
        [pybabel, "--quiet", "extract", "-F", "babel.cfg", *keywords, "-o", str(pot), "."], cwd=repo, check=True
    )
    with pot.open("rb") as f:
        marked = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    with (i18n.LOCALE_DIR / "de" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        shipped = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f, locale="de") if m.id}
    assert len(marked) > 1000 and sorted(marked - shipped) == []


def test_the_language_cookie_is_secure_over_https(tmp_path):
    client = TestClient(create_app(Settings(data_dir=tmp_path)), base_url="https://testserver")
    r = client.get("/language", params={"lang": "de", "next": "/"}, follow_redirects=False)
    assert "lang=de" in r.headers["set-cookie"] and "secure" in r.headers["set-cookie"].lower()
    assert "httponly" in r.headers["set-cookie"].lower() and "samesite=lax" in r.headers["set-cookie"].lower()


def test_the_status_strips_steps_read_in_the_readers_language_for_every_ruleset():
    from api.web.status import _step_words

    assert [_step_words(n) for n in ("planning", "main", "black-rose")] == ["Planning", "Main", "Black-rose"]
    with words.use(i18n.translations_for("de")):
        assert [_step_words(n) for n in ("planning", "main", "prepare")] == ["Planung", "Hauptphase", "Vorbereitung"]
