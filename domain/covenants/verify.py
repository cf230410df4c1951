"""Verify a covenant game's export: the platform's checks (domain.platform.verify), and what the covenant
game adds.

Every die (``DieRolled``: the starting player, generation rolls...) carries its key and Merkle path under the
root the season's ``SeedCommitted`` published before it; the platform checks the key leads to the root, the
faces come from the key, and, once the season ends and ``SeedRevealed`` (public, A.4) opens the seed, the
root and every key from the seed itself. The covenant game adds its sealed Certamen bids (A-AMB-7): a seat's
own sealed bid opens its public commitment, and the bids the resolution shows open the commitments recorded
before it. Imports only the platform, never another ruleset.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, Field

from domain.covenants.game import bid_commitment
from domain.platform.verify import HEX64, MAX_DICE, Report, Roll, Verifier, data_model, dice

_ROLL = {
    "roll_no": (int, Field(ge=0)),
    "commitment": (str | None, None),
    "sides": (int, Field(6, ge=2, le=100)),
    "faces": (list[Annotated[int, Field(ge=1, le=100)]], Field(max_length=MAX_DICE)),
    "key": (str | None, Field(None, pattern=HEX64)),
    "path": (list[str] | None, Field(None, max_length=64)),
}

SHAPES: dict[str, type[BaseModel]] = {
    "DieRolled": data_model("DieRolled", **_ROLL),
    "CertamenBidSealed": data_model(
        "CertamenBidSealed", challenge_id=(str, ...), seat=(str, ...), vis=(int, ...), nonce=(str, ...)
    ),
    "CertamenBidCommitted": data_model(
        "CertamenBidCommitted", challenge_id=(str, ...), seat=(str, ...), commitment=(str, ...)
    ),
    "CertamenResolved": data_model("CertamenResolved", challenge_id=(str, ...), bids=(dict[str, dict[str, Any]], {})),
}


@dataclass
class CovenantReport(Report):
    """The platform's report, with the sealed Certamen bids checked (A-AMB-7)."""

    bids_verified: int = 0


def _rolls(event: dict[str, Any]) -> Iterable[Roll]:
    """Each die a covenant event shows (a post's are the platform's)."""
    if event.get("type") == "DieRolled":
        d = event.get("data", {})
        yield dice(d["roll_no"], d.get("commitment"), list(d["faces"]), d.get("key"), d.get("path"), d["sides"])


def _check_bids(events: list[dict[str, Any]], report: CovenantReport) -> None:
    """A-AMB-7: a sealed bid opens its public commitment, and the resolution opens the bids committed before it."""
    committed: dict[tuple[str, str], str] = {}
    own: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}  # the viewer's own sealed bid, until its commitment
    for e in events:
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')} ({kind})"
        if kind == "CertamenBidSealed":
            own[(data["challenge_id"], data["seat"])] = (where, data)
        elif kind == "CertamenBidCommitted":
            ident = (data["challenge_id"], data["seat"])
            committed[ident] = data["commitment"]
            if ident in own:
                at, bid = own.pop(ident)
                if not _opens(ident, bid, data["commitment"]):
                    report.mismatches.append(f"{at}: your sealed Certamen bid does not match its commitment (A-AMB-7)")
        elif kind == "CertamenResolved":
            for seat, bid in (data.get("bids") or {}).items():
                sealed = committed.get((data["challenge_id"], seat))
                if sealed is None:
                    report.mismatches.append(f"{where}: {seat}'s Certamen bid was opened but never committed before it")
                elif not _opens((data["challenge_id"], seat), bid, sealed):
                    report.mismatches.append(
                        f"{where}: {seat}'s Certamen bid does not open its sealed commitment (A-AMB-7)"
                    )
                else:
                    report.bids_verified += 1


def _opens(ident: tuple[str, str], bid: dict[str, Any], sealed: str) -> bool:
    vis, nonce = bid.get("vis"), bid.get("nonce")
    return isinstance(vis, int) and isinstance(nonce, str) and bid_commitment(*ident, vis, nonce) == sealed


VERIFY_COVENANTS = Verifier(
    ruleset="covenants",
    rolls=_rolls,
    shapes=SHAPES,
    checks=(_check_bids,),
    report=CovenantReport,
    not_checked=("a sealed Certamen bid before both are in: only its owner holds it, and it is checked once resolved",),
)
"""The covenant game's ``Ruleset.verify``: the platform's checks, its dice and its sealed Certamen bids."""


def verify_covenant_events(events: Iterable[dict[str, Any]]) -> CovenantReport:
    """Verify a covenant game's export (the events one viewer was shown, in the order they were recorded)."""
    report: CovenantReport = VERIFY_COVENANTS(events)
    return report
