"""Scoring a rebuilt Room (L-SCORE-1, R45-R50) and a defeated Mage's Damage table (L-DEF-2, R38)."""

from __future__ import annotations

from collections.abc import Sequence


def _reduce(amount: int) -> int:
    # R50/R38: tied participants gain the amount reduced by 1; "1 Power Point or less ... is not reduced"
    return amount - 1 if amount > 1 else amount


def score_room(counts: dict[str, int], banner: Sequence[int], ranking: str = "dense") -> dict[str, int]:
    """Power Points for each colour (or the Black Rose) from its Instability Cubes in a rebuilt Room.

    One colour alone gains the leftmost banner + 1 (R46, which replaces R47: L-AMB-2); otherwise the most
    cubes gain the leftmost, the second highest number the central (dense ranking, L-AMB-1; ``competition``
    counts the places taken), every other the rightmost; any tie reduces by 1 (R50, L-AMB-3)."""
    left, centre, right = banner
    counts = {p: n for p, n in counts.items() if n >= 1}
    if len(counts) == 1:
        (only,) = counts
        return {only: left + 1}
    levels = sorted(set(counts.values()), reverse=True)
    out: dict[str, int] = {}
    for p, n in counts.items():
        if ranking == "competition":
            place = sum(1 for q in counts.values() if q > n)
            amount = left if place == 0 else centre if place == 1 else right
        else:
            amount = left if n == levels[0] else centre if len(levels) > 1 and n == levels[1] else right
        tied = sum(1 for q in counts.values() if q == n) > 1
        out[p] = _reduce(amount) if tied else amount
    return out


def score_defeat(counts: dict[str, int], table: Sequence[int]) -> dict[str, int]:
    """Power Points for those who damaged a defeated Mage, ranked by Damage dealt (L-AMB-4: the host's table,
    one amount per rank, dense; empty = off), ties reduced by 1 unless the amount is 1 or less (R38)."""
    counts = {p: n for p, n in counts.items() if n >= 1}
    if not table:
        return {}
    levels = sorted(set(counts.values()), reverse=True)
    out: dict[str, int] = {}
    for p, n in counts.items():
        rank = levels.index(n)
        if rank >= len(table) or table[rank] <= 0:
            continue
        tied = sum(1 for q in counts.values() if q == n) > 1
        out[p] = _reduce(table[rank]) if tied else table[rank]
    return out
