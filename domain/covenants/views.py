"""What a viewer sees of a covenant game (A.4): everything but the discard pile's order and contents, sealed
Certamen bids and the season seed. The auditor (the organising credential) sees every bid; a host who
plays sees what any player sees."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from domain.covenants import battle, rules
from domain.covenants.offers import moves as offered_moves
from domain.covenants.state import Battle, Card, Challenge
from domain.ids import GM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def table_view(game: CovenantGame, viewer: str) -> dict[str, Any]:
    s = game.state
    whose = s.turn[0] if s.turn else None
    view: dict[str, Any] = {
        "game": {
            "name": s.name,
            "ruleset": s.ruleset,
            "rules_version": s.rules_version,
            "house": dict(s.pin),
            "year": s.year,
            "season": rules.SEASONS[s.season],
            "cycle": s.cycle,
            "phase": s.phase,
            "starting_player": s.starting,
            "order": list(s.order),
            "whose_turn": whose,
            "turn": list(s.turn),
            "extra_round": s.extra_round,  # the Main Phase's one extra round (A-AMB-5)
            "seed_commitment": s.seed_commitment,
            "winners": list(s.winners),
            "forked_from": s.forked_from,
        },
        "covenants": {
            seat: {
                "name": p.name,
                "covenant": p.covenant,
                "roles": list(p.roles),
                "square": p.square,
                "gold": p.gold,
                "vis": p.vis,
                "provision": p.provision,
                "score": p.score,
                "marked": p.marked,
                "damaged_another": p.damaged_another,  # a drawn Quaesitor Investigation may target it (A-AMB-19)
                "tribute": list(p.tribute),
                "tax_owed": p.tax_owed,
                "cards": [_card(c) for c in s.cards.values() if c.owner == seat],
            }
            for seat, p in s.powers.items()
        },
        "discard": {"count": len(s.discard)},  # face down ([000:8])
        "effects": [dict(e) for e in s.effects],
        "events_in_play": list(s.events_in_play),
        "held_events": [dict(h) for h in s.held_events],
        "pending_event": dict(s.pending_event) if s.pending_event else None,
        "actions": [dict(a) for a in s.actions],
        "trades": [dict(tr) for tr in s.trades.values()],
        "challenges": [_challenge(ch, viewer) for ch in s.challenges.values()],
        "service": {k: (dict(v) if isinstance(v, dict) else v) for k, v in s.service.items()},  # Call to Service
        "chaos": dict(s.chaos),  # Season of Chaos: who must choose a rival, who must answer
        "battles": [dict(b) for b in s.battles],  # due at the end of the Main Phase, in order (A-BAT-1)
        "battle": _battle(game, s.battle),
        "invasion": dict(s.invasion),
        "plague": dict(s.plague),
        "investigation": dict(s.investigation),  # Quaesitor: the covenant out of play and its mages investigated
        "event_until": dict(s.event_until),  # the last season index each event in play stays (None: its rule)
        "deferred": dict(s.deferred) if s.deferred else None,  # a battle waiting for "no counter" (H-15)
        "windows": [
            {"id": w.id, "kind": w.kind, "closes_at": w.deadline_for(viewer if viewer in s.powers else None)}
            for w in s.windows.values()
            if not w.closed
        ],
        "sequence": s.sequence_for(viewer),
    }
    if viewer in s.powers:
        view["me"] = {"seat": viewer, "learned": list(s.powers[viewer].grants)}
        if whose == viewer and s.phase == "move":
            view["me"]["legal_moves"] = [m.square for m in offered_moves(game, viewer)]  # what ``offers`` offers
    if viewer == GM:
        view["discard"]["cards"] = [dict(d) for d in s.discard]
    return view


def _battle(game: CovenantGame, bt: Battle | None) -> dict[str, Any] | None:
    """The battle being fought: what each side deals, and what each covenant still has to allocate."""
    if bt is None:
        return None
    out: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in bt.items()}
    out["to_allocate"] = {seat: battle.damage_to_allocate(game, seat) for seat in game.state.turn}
    return out


def _card(c: Card) -> dict[str, Any]:
    return {k: v for k, v in asdict(c).items() if k not in ("new_damage", "inactive_all_season")}


def _challenge(ch: Challenge, viewer: str) -> dict[str, Any]:
    shown = {k: v for k, v in ch.items() if k not in ("bids", "sealed")}
    shown["sealed"] = sorted(ch["sealed"])  # who has bid, never how much (A-AMB-7)
    if viewer == GM:
        shown["bids"] = {k: dict(v) for k, v in ch["bids"].items()}
    elif viewer in ch["bids"]:
        shown["my_bid"] = dict(ch["bids"][viewer])
    return shown
