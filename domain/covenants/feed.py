"""The covenant game's feed lines in words (issue 28 item 3, "words, not ids"): a card, a seat and a turn
are named, never shown by their ids. Built from the event's payload and the public names only
(``feed_names``: the seats and the cards held at the table, which every covenant sees, A.4); a card
no longer held (a discarded one, face down) is "a card"."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from domain.platform.feed import WINDOW_CLOSE_REASONS, who
from domain.platform.i18n import _

TURN_WINDOW = re.compile(r"w\d+")


def feed_names(game: Any) -> dict[str, str]:
    """The names a feed line may use beside the seats': each card held at the table (public, A.4), by its id.
    A card still pending (generated, not yet kept) or discarded is not named."""
    return {c.id: c.name for c in game.state.cards.values() if not c.pending}


def _card(card_id: Any, names: Mapping[str, str]) -> str:
    return names.get(str(card_id)) or _("a card")


def turn_words(kind: str, names: Mapping[str, str], phase_word: Any) -> str | None:
    """A turn window's kind (``move:bob:5:1``) in words: "Bob's turn (move)"; None if it is not a turn's."""
    parts = kind.split(":")
    if len(parts) != 4:
        return None
    return _("the turn of {who} ({phase})").format(who=who(parts[1], names), phase=phase_word(parts[0]))


def describe_cards(kind: str, data: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """Cards and the track in words, or None."""
    if kind == "CardCreated":
        if data.get("pending"):  # generated, to be kept or discarded face down: named once kept (A.4)
            return _("{who} generated a card.").format(who=who(data.get("owner"), names))
        card = str(data.get("name") or _("a card"))
        if data.get("owner"):
            return _("{card} came to {who}.").format(card=card, who=who(data["owner"], names))
        return _("{card} came into play.").format(card=card)
    if kind == "CardGenerated":
        return _("{who} rolled for a new card.").format(who=who(data.get("seat"), names))
    if kind == "CardKept":
        return _("{who} kept {card}.").format(who=who(data.get("seat"), names), card=_card(data.get("card_id"), names))
    if kind == "CardDiscarded":
        if str(data.get("card_id")) in names:
            return _("{card} was discarded.").format(card=names[str(data["card_id"])])
        return _("A card was discarded.")
    if kind == "TokenMoved":
        return _("{who} moved to square {square}.").format(who=who(data.get("seat"), names), square=data.get("square"))
    if kind == "TurnPassed":
        if data.get("acted"):
            return _("{who} ended their turn.").format(who=who(data.get("seat"), names))
        return _("{who} passed.").format(who=who(data.get("seat"), names))
    return None


def describe_windows(kind: str, data: Mapping[str, Any], names: Mapping[str, str], phase_word: Any) -> str | None:
    """A turn's window opening and closing in words (its id, ``w24``, is never shown), or None."""
    if kind == "WindowOpened":
        turn = turn_words(str(data.get("kind") or ""), names, phase_word)
        return _("Now {turn}.").format(turn=turn) if turn else None
    if kind == "WindowClosed" and TURN_WINDOW.fullmatch(str(data.get("window_id") or "")):
        reason = str(data.get("reason") or "")
        why = _(WINDOW_CLOSE_REASONS[reason]) if reason in WINDOW_CLOSE_REASONS else reason or _("closed")
        return _("The turn ended: {reason}.").format(reason=why)
    return None
