"""The covenant table drawn (issue 28 item 1): the track with each covenant's token, and each covenant's cards drawn
as cards (``templates/track_svg.html`` renders what these functions lay out).

Everything is laid out from the viewer's own view (``table_view``, A.4) and nothing else: the cards in play, the
tokens and the viewer's own legal moves are what that view holds, so a drawing can show no more than the view
does. The discard pile is drawn as a face-down stack with its size only, whoever looks (its order and contents,
which the auditor's view holds, are not drawn: the auditor reads them in the list beside it).

The track is one SVG sized for a phone (four squares a row, ``WIDTH`` units wide, drawn at most a little wider on
a wide screen); each card is an SVG of its own in a wrapping list, so a hand wraps at any width and keeps its
size. Each SVG has ``role="img"`` with a title and a description in words; the list of squares and the table of
covenants are the text equivalent beside it."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from domain.covenants import rules
from domain.platform.i18n import _

WIDTH = 340  # the track's width in SVG units: a 360 px phone draws it about one to one
PER_ROW = 4
GAP = 6
SQUARE_H = 64
PAD = 2
CARD_W, CARD_H = 74, 100  # a card upright; an inactive one lies turned (CARD_H wide), as on the table
PALETTE = 4  # token colours, by seat order (app.css .tok-0 .. .tok-3): four covenants at most (A-ORDER-1)


def token_label(covenant: str) -> str:
    """A token's mark: the covenant's first two letters (its colour and the legend say the rest)."""
    letters = [ch for ch in covenant if ch.isalnum()]
    return ("".join(letters[:2]) or "?").capitalize()


def track(view: dict[str, Any], me: str, word: Callable[[Any], str]) -> dict[str, Any]:
    """The track's squares laid out in rows, each with the tokens on it and whether the viewer may move there now;
    the legend of tokens; and the description in words (the SVG's ``<desc>``)."""
    covenants = view["covenants"]
    legal = set((view.get("me") or {}).get("legal_moves") or [])
    tokens = {
        seat: {
            "seat": seat,
            "cls": f"tok-{i % PALETTE}",
            "label": token_label(c["covenant"]),
            "covenant": c["covenant"],
            "name": c["name"],
            "mine": seat == me,
            "square": c["square"],
        }
        for i, (seat, c) in enumerate(covenants.items())
    }
    side = (WIDTH - 2 * PAD - (PER_ROW - 1) * GAP) / PER_ROW
    squares = []
    for n, kind in enumerate(rules.TRACK):
        row, col = divmod(n, PER_ROW)
        x, y = PAD + col * (side + GAP), PAD + row * (SQUARE_H + GAP)
        here = [t for t in tokens.values() if t["square"] == n]
        step = min(26.0, (side - 8) / max(1, len(here)))
        placed = [dict(t, cx=x + 4 + step / 2 + i * step, cy=y + SQUARE_H - 16) for i, t in enumerate(here)]
        squares.append(
            {
                "n": n,
                "x": x,
                "y": y,
                "w": side,
                "h": SQUARE_H,
                "word": word(kind),
                "legal": n in legal,
                "tokens": placed,
            }
        )
    rows = -(-len(rules.TRACK) // PER_ROW)
    parts = [
        _("{covenant} ({seat}) is on square {n}, {square}.").format(
            covenant=t["covenant"], seat=t["name"], n=t["square"], square=word(rules.TRACK[t["square"]])
        )
        for t in tokens.values()
        if 0 <= t["square"] < len(rules.TRACK)
    ]
    if legal:
        parts.append(_("You may move to: {squares}.").format(squares=", ".join(str(n) for n in sorted(legal))))
    return {
        "width": WIDTH,
        "height": PAD * 2 + rows * SQUARE_H + (rows - 1) * GAP,
        "squares": squares,
        "legend": list(tokens.values()),
        "desc": " ".join(parts) or _("No covenant is on the track yet."),
        "legal": sorted(legal),
    }


def _lines(text: str, width: int, most: int) -> list[str]:
    """``text`` wrapped to ``most`` lines of ``width`` characters, the last one cut with an ellipsis if need be."""
    lines = textwrap.wrap(text, width) or [""]
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = lines[-1][: width - 1].rstrip() + "…"
    return lines


def card(c: dict[str, Any], names: dict[str, str], word: Callable[[Any], str]) -> dict[str, Any]:
    """One card as drawn: its name (wrapped), its kind, what lies on it (damage, counters), what it is attached to,
    its Arts; turned when inactive, dashed while just generated; ``title`` says it all in words."""
    notes = [word(c["kind"])]
    if not c["active"]:
        notes.append(_("inactive"))
    if c["pending"]:
        notes.append(_("just generated"))
    if c["damage"]:
        notes.append(_("damage {damage}").format(damage=c["damage"]))
    if c.get("counters"):
        notes.append(_("counters {n}").format(n=c["counters"]))
    on = names.get(c["attached_to"] or "") if c.get("attached_to") else None
    if on:
        notes.append(_("on {card}").format(card=on))
    if c.get("arts"):
        notes.append(_("arts {arts}").format(arts=" ".join(c["arts"])))
    turned = not c["active"]
    w, h = (CARD_H, CARD_W) if turned else (CARD_W, CARD_H)
    return {
        "id": c["id"],
        "w": w,
        "h": h,
        "turned": turned,
        "pending": c["pending"],
        "name": _lines(c["name"], 14 if turned else 10, 2 if turned else 3),
        "kind": word(c["kind"]),
        "damage_n": int(c["damage"] or 0),
        "counters": int(c.get("counters") or 0),
        "on": _lines(_("on {card}").format(card=on), 15 if turned else 11, 1)[0] if on else None,
        "arts": " ".join(c.get("arts") or []),
        "title": f"{c['name']} ({', '.join(notes)})",
    }


def hands(view: dict[str, Any], me: str, word: Callable[[Any], str]) -> list[dict[str, Any]]:
    """Each covenant's cards in play, the viewer's own covenant first."""
    names = {c["id"]: c["name"] for cov in view["covenants"].values() for c in cov["cards"]}
    order = sorted(view["covenants"].items(), key=lambda kv: kv[0] != me)
    return [
        {
            "seat": seat,
            "covenant": cov["covenant"],
            "name": cov["name"],
            "mine": seat == me,
            "cls": f"tok-{list(view['covenants']).index(seat) % PALETTE}",
            "label": token_label(cov["covenant"]),
            "cards": [card(c, names, word) for c in cov["cards"]],
        }
        for seat, cov in order
    ]
