"""Hex geometry for Powers' map (P-ACT-4, P-INFL-2/3, ranges): hexes are named by axial coordinates.

A hex id is ``"q,r"`` (axial coordinates, pointy-top). The GM declares which hexes exist and what is on
them (``domain.powers.world``); geometry needs only the ids, so rules that count neighbours or ranges
(influence spending and spreading, casting range, mobility) are pure functions of two ids.
"""

from __future__ import annotations

from domain.errors import RuleViolation

AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def parse_hex(hex_id: str) -> tuple[int, int]:
    """``"q,r"`` -> ``(q, r)``; anything else is refused naming the field (P-ACT-4)."""
    try:
        q, r = (int(part) for part in hex_id.split(","))
    except (AttributeError, ValueError):
        raise RuleViolation(
            f"hex {hex_id!r} is not axial coordinates 'q,r' (for example '0,0')", rule="P-ACT-4", field="hex"
        ) from None
    return q, r


def hex_id(q: int, r: int) -> str:
    """The id of the hex at axial ``(q, r)``."""
    return f"{q},{r}"


def normal_hex(value: object) -> str:
    """A hex id as given, checked and written the one way (``"q,r"``); refused naming P-ACT-4 otherwise."""
    q, r = parse_hex(value if isinstance(value, str) else "")
    return hex_id(q, r)


def neighbours(hex_: str) -> list[str]:
    """The six hexes around ``hex_`` ("surrounding hexes", [003:1108]), whether or not the map has them."""
    q, r = parse_hex(hex_)
    return [hex_id(q + dq, r + dr) for dq, dr in AXIAL_DIRECTIONS]


def distance(a: str, b: str) -> int:
    """Steps between two hexes: 0 for the same hex, 1 for neighbours."""
    (aq, ar), (bq, br) = parse_hex(a), parse_hex(b)
    return (abs(aq - bq) + abs(ar - br) + abs((aq + ar) - (bq + br))) // 2


def within(a: str, b: str, reach: int) -> bool:
    """Whether ``b`` is within ``reach`` steps of ``a`` (range, mobility)."""
    return distance(a, b) <= reach
