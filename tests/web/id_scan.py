"""Finds ids and code names in what a page shows (issue 28 item 3, "words, not ids").

A page is read as its visible text: scripts, styles, comments and every tag (with its attributes: form values,
hrefs, ids) are taken out, entities decoded. In that text the scanner flags:

- a window or phase id (``move:bob:1:1``, ``w24``, ``s1m1-planning``, ``y1-spring-c2-main``, ``t1-prepare``);
- a uuid (a game, action, battle or post id);
- a snake_case word (``vis_source``) or a CamelCase word (``CastSpell``, ``CardCreated``): a command's or an
  event's class name;
- a seat's, a room's or a card's id, as a whole word, where it differs from the name the page should show
  (``ann`` for "Ann", ``hall`` for "Great Hall").

``ALLOWED`` lists what a page legitimately shows, each with why; a test passes the names its game gave
(seat, room and card names are words, whatever their case).
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from fastapi.testclient import TestClient

HIDDEN = re.compile(r"<(script|style|textarea)\b.*?</\1\s*>|<!--.*?-->", re.S | re.I)
TAG = re.compile(r"<[^>]*>")
# An element a page marks as the stored record itself (the audit's event kind and payload, shown as recorded so
# the auditor can check them against an export): its content is the record, not the page's words.
RECORD = re.compile(r"<(code|span)\b[^>]*\bclass=\"[^\"]*\brecord\b[^\"]*\"[^>]*>.*?</\1>", re.S)

PATTERNS: dict[str, re.Pattern[str]] = {
    "window id": re.compile(r"\b[a-z][\w-]*:[\w-]+(?::[\w-]+)+\b"),
    "short window id": re.compile(r"\bw\d+\b"),
    "phase id": re.compile(r"\b(?:s\d+m\d+-[a-z]+|s\d+-[a-z]+|y\d+-[a-z]+-c\d+-[a-z-]+|t\d+-[a-z-]+)\b"),
    "uuid": re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
    "snake_case": re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b"),
    "CamelCase": re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+\b"),
    "hex coordinates": re.compile(r"(?<![\w,.-])-?\d{1,2},-?\d{1,2}(?![\w,.])"),
}

# What a page may show although it looks like an id; each entry says why.
ALLOWED: dict[str, str] = {
    "Emissary": "the service's name",
    "JavaScript": "the push page says a browser without it cannot take push notifications: a product's name",
    # The Powers GM console's forms whose free-text field takes an id typed as it is (no list of them exists to
    # offer as a select): each label gives examples of what to type. The words are the input's own vocabulary.
    **dict.fromkeys(
        ("gate_guardians", "teleport_home", "satellite_shrine"), "Powers GM form: examples of a reaction id to type"
    ),
    **dict.fromkeys(("vessel_heart", "elemental_specialization"), "Powers GM form: examples of a perk id to type"),
    **dict.fromkeys(("recruit_mercenaries", "towns_claimed", "army_id"), "Powers form: an action kind / its JSON keys"),
    "lose_actions": "Powers GM form: an example of a consequence's JSON kind to type",
    **dict.fromkeys(
        ("PlaceArmy", "DesertArmy", "DetectArmy", "GrantExperience"),
        "Powers GM console's command form: it takes a command's name, as the API does (examples)",
    ),
}
# Where an id is the point: the text around it says so (each with why).
ALLOWED_AROUND: dict[str, str] = {
    r"POST /games/[0-9a-f-]{36}/commands": "the API route the GM's command form mirrors, with the game id to copy",
    r'"hex": "-?\d+,-?\d+"': "the Powers GM's map form takes JSON: its example shows the hex ids the GM types",
    r"\(hex, e\.g\. -?\d+,-?\d+\)": "a Powers GM field that takes a hex id typed as it is: its example",
    r"\(Feld, z\. B\. -?\d+,-?\d+\)": "the same field's example in German (issue 28's audit: Powers read in German)",
}


@dataclass
class Names:
    """The ids of one game whose words the page must show instead (id -> name)."""

    seats: dict[str, str] = field(default_factory=dict)
    rooms: dict[str, str] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)

    def raw(self) -> dict[str, str]:
        """Every id that is not already its own name, with what it is."""
        out: dict[str, str] = {}
        for kind, table in (("seat", self.seats), ("room", self.rooms), ("card", self.cards)):
            for ident, name in table.items():
                if ident and ident != name and ident.lower() not in ("gm",):
                    out[ident] = kind
        return out


def visible_text(page: str) -> str:
    """What a reader sees of ``page``: no tag, attribute, script, style or comment; entities decoded."""
    text = HIDDEN.sub(" ", page)
    text = RECORD.sub(" ", text)
    text = TAG.sub(" ", text)
    return htmllib.unescape(text)


def scan_text(text: str, where: str, names: Names | None = None, allowed: Iterable[str] = ()) -> list[str]:
    """Every id-like token in ``text`` as "where: kind 'token' in '...context...'"."""
    ok = set(ALLOWED) | set(allowed)
    found: list[str] = []

    spared = [range(a.start(), a.end()) for p in ALLOWED_AROUND for a in re.finditer(p, text)]

    def hit(kind: str, m: re.Match[str]) -> None:
        if m.group(0) in ok or any(m.start() in r for r in spared):
            return
        context = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
        found.append(f"{where}: {kind} {m.group(0)!r} in {context!r}")

    for kind, pattern in PATTERNS.items():
        for m in pattern.finditer(text):
            hit(kind, m)
    for ident, kind in (names.raw() if names else {}).items():
        for m in re.finditer(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text):
            hit(f"raw {kind} id", m)
    return sorted(set(found))


def scan_page(page: str, where: str, names: Names | None = None, allowed: Iterable[str] = ()) -> list[str]:
    return scan_text(visible_text(page), where, names, allowed)


# The other pages of a game a role may open (each answers the roles it does not serve with no page), and the
# pages beside every game: "My games", the lobby, the new-game form. Issue 28's audit added all but the first four.
EVERY_GAME_PAGE = (
    "/play/{game}/live?feed=1",
    "/play/{game}/audit",
    "/play/{game}/webhooks",
    "/",
    "/play/{game}/contact",
    "/play/{game}/seats",
    "/play/{game}/disputes",
    "/play/{game}/rules",
    "/play/{game}/push",
    "/me",
    "/lobby",
)
PHASE_OPTION = re.compile(r'<option value="([^"]+)"[^>]*>')
OLDER = re.compile(r'<a href="\?([^"]+)#feed" rel="next">')
THREAD = re.compile(r'href="/play/[^/"]+/talk/([^"?#/]+)"')


def pages_for(client: TestClient, game_id: str) -> dict[str, str]:
    """Every page a signed-in ``client`` may open in ``game_id``: the board (and each earlier phase the phase
    selector offers, and each older page of the feed), the live fragment, the audit (the GM's), posts (the
    list and each thread), the webhooks page (the GM's), "My games", the seat's notifications, the seats and
    the rules changes (the GM's), the disputes, the push page and the lobby."""
    out: dict[str, str] = {}

    def get(url: str) -> str | None:
        r = client.get(url)
        if r.status_code != 200 or "text/html" not in r.headers.get("content-type", ""):
            return None
        out[url] = r.text
        return r.text

    board = get(f"/play/{game_id}") or ""
    for more in EVERY_GAME_PAGE:
        get(more.format(game=game_id))
    selector = re.search(r'<select name="phase".*?</select>', board, re.S)
    for phase in PHASE_OPTION.findall(selector.group(0) if selector else "")[:6]:
        get(f"/play/{game_id}?phase={htmllib.unescape(phase)}")
    url: str | None = f"/play/{game_id}"
    for _ in range(5):
        older = OLDER.search(out.get(url or "", "") or "")
        if not older:
            break
        url = f"/play/{game_id}?{htmllib.unescape(older.group(1))}"
        get(url)
    talk = get(f"/play/{game_id}/talk") or ""
    for thread in sorted(set(THREAD.findall(talk)))[:4]:
        get(f"/play/{game_id}/talk/{thread}")
    return out


def scan_game(
    clients: Mapping[str, TestClient], game_id: str, names: Names, allowed: Iterable[str] = ()
) -> tuple[list[str], list[str]]:
    """(what is found, the pages read as "role url") for every role's client."""
    found: list[str] = []
    read: list[str] = []
    for role, client in clients.items():
        for url, page in pages_for(client, game_id).items():
            read.append(f"{role} {url}")
            found += scan_page(page, f"{role} {url}", names, allowed)
    return found, read
