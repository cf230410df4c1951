"""Verify a covenant game's export: every die it shows against the season seed's committed root.

A player holds, for every ``DieRolled``, the roll's key and its Merkle path under the root published
in ``SeedCommitted`` before it; once the season ends, ``SeedRevealed`` lets anyone check the root and
every key from the seed itself. Imports only the platform's dice, never another ruleset.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from domain.dice import commitment, faces_from_key, key_under_root, roll_key, roll_tree


@dataclass
class CovenantReport:
    events_checked: int = 0
    rolls_verified: int = 0
    seeds_verified: int = 0
    mismatches: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, **self.__dict__}


def verify_covenant_events(events: Iterable[dict]) -> CovenantReport:
    events = list(events)
    report = CovenantReport(events_checked=len(events))
    roots: dict[str, tuple[str | None, int]] = {}
    revealed: dict[str, str] = {}
    for e in events:
        data = e.get("data", {})
        if e.get("type") == "SeedRevealed" and data.get("commitment"):
            if commitment(data["seed"]) != data["commitment"]:
                report.mismatches.append(f"event {e.get('seq')}: a revealed seed does not hash to its commitment")
            else:
                revealed[data["commitment"]] = data["seed"]
    for e in events:
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')} ({kind})"
        if kind == "SeedCommitted":
            roots[data["commitment"]] = (data.get("root"), data.get("first_roll") or 0)
            seed = revealed.get(data["commitment"])
            if seed is not None:
                if data.get("root") and roll_tree(seed, data.get("first_roll") or 0).root != data["root"]:
                    report.mismatches.append(f"{where}: the revealed seed does not give the committed root")
                else:
                    report.seeds_verified += 1
        elif kind == "DieRolled":
            _check_roll(report, where, data, roots, revealed)
        elif kind == "PostMade":  # [roll NdS] in a post (issue 16), from the same committed keys
            for roll in data.get("rolls") or []:
                _check_roll(report, where, roll, roots, revealed)
    return report


def _check_roll(
    report: CovenantReport, where: str, data: dict, roots: dict[str, tuple[str | None, int]], revealed: dict[str, str]
) -> None:
    """One roll against the committed root of its seed (and the seed, once revealed)."""
    month = roots.get(data.get("commitment") or "")
    if month is None:
        report.mismatches.append(f"{where}: roll {data.get('roll_no')} uses a seed not committed before it")
        return
    root, first = month
    key, faces, n = data.get("key"), list(data.get("faces", [])), data.get("roll_no")
    if key is None or root is None or n is None or not key_under_root(root, first, n, key, data.get("path") or []):
        report.mismatches.append(f"{where}: roll {n}'s key and path do not lead to the committed root")
        return
    seed = revealed.get(data["commitment"])
    if seed is not None and roll_key(seed, n) != key:
        report.mismatches.append(f"{where}: roll {n}'s key does not derive from the revealed seed")
        return
    expected = faces_from_key(key, len(faces), int(data.get("sides", 6)))
    if expected != faces:
        report.mismatches.append(f"{where}: roll {n} is {faces}, but its key gives {expected}")
        return
    report.rolls_verified += 1
