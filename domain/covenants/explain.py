"""How the covenant game's results came about (issue 29), from the events one viewer was shown
(``domain.platform.explain``): each die it rolled (``die:<roll number>``: the starting player, generation rolls...)
and each Certamen (``certamen:<challenge id>``: the sealed bids opened against their commitments, each side's score
and the winner, A-CERT-3, A-AMB-7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.covenants.base import bid_commitment
from domain.platform.explain import DICE_RULE, Derivation, Events
from domain.platform.i18n import N_


def derive(events: Events) -> dict[str, dict[str, Any]]:
    """Every die and Certamen these events show their viewer, derived (``Ruleset.derive``)."""
    out: dict[str, dict[str, Any]] = {}
    committed: dict[tuple[str, str], tuple[str, int | None]] = {}
    for e in events:
        data, seq = e.get("data") or {}, e.get("seq")
        if e.get("type") == "DieRolled":
            d = _die(e, data, seq)
            out[d.result_id] = d.as_dict()
        elif e.get("type") == "CertamenBidCommitted":
            committed[(data["challenge_id"], data["seat"])] = (data["commitment"], seq)
        elif e.get("type") == "CertamenResolved":
            scored = "scores" in (data.get("result") or {})
            d = _certamen(e, data, seq, committed) if scored else _by_default(e, data, seq)
            out[d.result_id] = d.as_dict()
        elif e.get("type") == "CertamenForfeited":
            d = _forfeit(e, data, seq)
            out[d.result_id] = d.as_dict()
    return out


def _die(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None) -> Derivation:
    purpose, sides = str(data.get("purpose") or ""), data.get("sides")
    d = Derivation(f"die:{data['roll_no']}", "die", purpose, {"seq": seq, "type": e.get("type")})
    i = d.roll(N_("{purpose}: d{sides}"), data, seq, purpose=purpose, sides=sides)
    says = N_("the face of the d{sides}")
    total = d.step("total", DICE_RULE, says, "sum_faces", {"roll": i}, sum(data["faces"]), sides=sides)
    d.result = {"published": {"faces": sum(data["faces"])}, "steps": {"faces": total}}
    return d


def _certamen(
    e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None, committed: Mapping[tuple[str, str], Any]
) -> Derivation:
    """Each side's score as published, its vis bid opened against the commitment made before (A-AMB-7), and the
    winner: the one highest score, none on a tie (A-CERT-3)."""
    challenge = data["challenge_id"]
    result = data["result"]
    d = Derivation(f"certamen:{challenge}", "certamen", str(challenge), {"seq": seq, "type": e.get("type")})
    paid = result.get("paid") or {}
    scores = {}
    for side, score in sorted(result["scores"].items()):
        bid = (data.get("bids") or {}).get(side) or {}
        vis = int(paid.get(side, bid.get("vis", 0)))
        sealed = committed.get((challenge, side))
        says = N_("{side}: vis spent")
        if sealed is not None and "nonce" in bid:
            if bid_commitment(challenge, side, int(bid["vis"]), str(bid["nonce"])) == sealed[0]:
                says = N_("{side}: vis spent; its sealed bid, opened, matches its commitment")
            else:
                says = N_("{side}: vis spent; its sealed bid, opened, DOES NOT match its commitment")
        spent = d.given(f"{side}-vis", "A-AMB-7", says, vis, seq, side=side)
        shown = d.given(f"{side}-published", "A-CERT-3", N_("{side}: score, as published"), int(score), seq, side=side)
        says = N_("{side}: Certamen rating, Technique, Form and bonuses: the published score less the vis")
        rest = d.step(f"{side}-rating", "A-CERT-3", says, "minus", [shown, spent], int(score) - vis, side=side)
        scores[side] = d.step(
            f"{side}-score", "A-CERT-3", N_("{side}: score"), "sum", [rest, spent], int(score), side=side
        )
    says = N_("the one highest score wins; equal scores, no winner")
    winner = d.step("winner", "A-CERT-3", says, "unique_max", scores, result.get("winner"))
    d.result = {"published": {"winner": result.get("winner")}, "steps": {"winner": winner}}
    return d


def _by_default(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None) -> Derivation:
    """A challenge one of whose mages is no longer active: the other wins by default, or, neither active, it is
    cancelled (A-CERT-2); no bid is opened."""
    challenge, result = data["challenge_id"], data.get("result") or {}
    d = Derivation(f"certamen:{challenge}", "certamen", str(challenge), {"seq": seq, "type": e.get("type")})
    if result.get("cancelled"):
        says = N_("neither mage is active: the challenge is cancelled, without a winner")
    else:
        says = N_("one mage only is active: its side wins by default")
    winner = d.given("winner", "A-CERT-2", says, result.get("winner"), seq)
    d.result = {"published": {"winner": result.get("winner")}, "steps": {"winner": winner}}
    return d


def _forfeit(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None) -> Derivation:
    """The challenged covenant forfeits and pays the house rules' penalty (A-CERT-2)."""
    challenge, seat = data["challenge_id"], data["seat"]
    d = Derivation(f"certamen:{challenge}", "certamen", str(challenge), {"seq": seq, "type": e.get("type")})
    gold = d.given("gold", "A-CERT-2", N_("{side} forfeits: gold paid"), data.get("gold"), seq, side=seat)
    vis = d.given("vis", "A-CERT-2", N_("{side} forfeits: vis paid"), data.get("vis"), seq, side=seat)
    d.result = {"published": {"gold": data.get("gold"), "vis": data.get("vis")}, "steps": {"gold": gold, "vis": vis}}
    return d
