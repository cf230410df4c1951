"""The Evocation deck's order from its seed (L.4): one function, used by the game when it shuffles and by the
verifier when the seed is revealed (``domain.lodge.verify``), so that anyone holding an export can redo it.

The order is Python's ``random.Random(seed).shuffle`` of the cards in the order ``DeckCommitted`` lists them: the
Mersenne Twister seeded from the seed string (its version 2 seeding: SHA-512 of the string), then Fisher-Yates.
A reader checking with another tool must use that generator; the commitment itself (SHA-256 of the seed) is
standard."""

from __future__ import annotations

import random
from collections.abc import Sequence


def deck_order(seed: str, cards: Sequence[str]) -> list[str]:
    """The deck, top first, that ``seed`` shuffles ``cards`` into."""
    order = list(cards)
    random.Random(seed).shuffle(order)
    return order
