"""Verify a Lodge export: the platform's checks (domain.platform.verify), and the Evocation deck's draws.

The Lodge effect rules roll no dice, so a post's ``[roll NdS]`` is refused there. Its one secret draw, the
Evocation deck's order (L.4), is sealed from everyone, the host included, but committed before any draw: a public
``DeckCommitted`` gives the cards shuffled and the SHA-256 of the seed, and a public ``DeckRevealed`` opens that
seed when the game ends (or when a rollback supersedes the deck: the deck returned to is shuffled afresh under a
new commitment). Once a seed is open the check redoes its shuffle (``domain.lodge.deck``) and walks the draws the
export shows: every Evocation summoned is the deck's top card, and every one gone returns to its bottom (R3, R16).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from domain.dice import commitment
from domain.lodge.deck import deck_order
from domain.platform.verify import HEX64, Report, Verifier, data_model


class _Committed(BaseModel):
    cards: list[str] = Field(max_length=1000)
    commitment: str = Field(pattern=HEX64)


class _Revealed(BaseModel):
    seed: str = Field(max_length=200)
    commitment: str


# A Lodge event exports as {"data": {"data": ..., "changes": [...]}}: its own data beside its board changes.
SHAPES: dict[str, type[BaseModel]] = {
    "DeckCommitted": data_model("DeckCommitted", data=(_Committed, ...)),
    "DeckRevealed": data_model("DeckRevealed", data=(_Revealed, ...)),
}


@dataclass
class LodgeReport(Report):
    """The platform's report, with each revealed deck's draws checked (L.4)."""

    decks_verified: int = 0  # decks whose revealed seed gives every draw the export shows
    decks_unrevealed: int = 0


@dataclass
class _Deck:
    cards: list[str]
    where: str
    moves: list[tuple[str, str, str]] = field(default_factory=list)  # (draw | return, card, where)
    seed: str | None = None


def _check_deck(events: list[dict[str, Any]], report: LodgeReport) -> None:
    """L.4: each revealed deck seed hashes to its commitment, and its shuffle gives every draw shown after it."""
    decks: dict[str, _Deck] = {}
    current: _Deck | None = None
    cards_of: dict[str, str] = {}  # an Evocation's card, from its summoning
    for e in events:
        payload, kind = e.get("data") or {}, e.get("type")
        data = payload.get("data") or {}
        where = f"event {e.get('seq')} ({kind})"
        if kind == "DeckCommitted":
            current = decks.setdefault(data["commitment"], _Deck(list(data["cards"]), where))
        elif kind == "GameRolledBack":
            current = None  # the draws after it come from the deck shuffled afresh after it
        elif kind == "DeckRevealed":
            deck = decks.get(data["commitment"])
            if deck is None:
                report.mismatches.append(f"{where}: a deck seed was revealed that was never committed before it")
            elif commitment(data["seed"]) != data["commitment"]:
                report.mismatches.append(f"{where}: the revealed deck seed does not hash to its commitment (L.4)")
            else:
                deck.seed = data["seed"]
        for ch in payload.get("changes") or []:
            if ch.get("op") == "summon":
                cards_of[ch["evocation"]] = ch["card"]
                if current is not None:
                    current.moves.append(("draw", ch["card"], where))
            elif ch.get("op") == "evocation_gone" and current is not None and ch.get("evocation") in cards_of:
                current.moves.append(("return", cards_of[ch["evocation"]], where))
    for deck in decks.values():
        if deck.seed is None:
            report.decks_unrevealed += 1
            continue
        _walk(deck, report)


def _walk(deck: _Deck, report: LodgeReport) -> None:
    pile = deck_order(deck.seed or "", deck.cards)
    for move, card, where in deck.moves:
        if move == "return":
            pile.append(card)
        elif not pile or pile[0] != card:
            top = pile[0] if pile else "nothing"
            report.mismatches.append(
                f"{where}: drew {card}, but the deck shuffled from its revealed seed has {top} on top (L.4)"
            )
            return
        else:
            pile.pop(0)
    report.decks_verified += 1


VERIFY_LODGE = Verifier(
    ruleset="lodge",
    shapes=SHAPES,
    checks=(_check_deck,),
    report=LodgeReport,
    not_checked=(
        "the Evocation deck's order before its seed is revealed (L.4): it is sealed from everyone until the game "
        "ends, and the draws are checked then",
    ),
)
"""Lodge's ``Ruleset.verify``: the platform's checks and the deck's draws once its seed is open."""
