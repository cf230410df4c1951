"""How a battle round came about (issue 29), from the events one viewer was shown (``domain.platform.explain``):
``battle:<battle id>:round:<n>``, each command's dice with their roll numbers, each attack's threshold, successes,
armor and wounds (P-BAT-1, P-BAT-2, P-BAT-4, P-BAT-5), each presence applied to a goal, each side's presence on each
goal and the goal's winner (P-BAT-8: strictly more, a tie to nobody; attackers score no Advance while Walls
stand)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.platform.explain import Derivation, Events
from domain.platform.i18n import N_


def derive(events: Events) -> dict[str, dict[str, Any]]:
    """Every battle round these events show their viewer scored, derived (part of Powers' ``Ruleset.derive``)."""
    out: dict[str, dict[str, Any]] = {}
    sides: dict[str, dict[str, str]] = {}  # battle id -> power -> side
    commands: dict[tuple[str, int], list[tuple[Mapping[str, Any], int | None]]] = {}
    for e in events:
        kind, data, seq = e.get("type"), e.get("data") or {}, e.get("seq")
        if kind == "BattleDeclared":
            battle = data.get("battle") or {}
            for side, sd in (battle.get("sides") or {}).items():
                for p in sd.get("powers", []):
                    sides.setdefault(str(battle.get("id")), {})[p] = side
        elif kind == "BattleSetupSubmitted":
            sides.setdefault(data["battle_id"], {})[data["power_id"]] = data["side"]
        elif kind == "BattleCommandGiven":
            commands.setdefault((data["battle_id"], int(data["round"])), []).append((data, seq))
        elif kind == "BattleGoalsScored":
            key = (data["battle_id"], int(data["round"]))
            d = _round(e, data, seq, commands.pop(key, []), sides.get(data["battle_id"], {}))
            out[d.result_id] = d.as_dict()
    return out


def _round(
    e: Mapping[str, Any],
    data: Mapping[str, Any],
    seq: int | None,
    given: list[tuple[Mapping[str, Any], int | None]],
    sides: Mapping[str, str],
) -> Derivation:
    battle, n = data["battle_id"], int(data["round"])
    d = Derivation(f"battle:{battle}:round:{n}", "battle-round", f"{battle}, {n}", {"seq": seq, "type": e.get("type")})
    presence: dict[tuple[str, str], list[str]] = {}
    for k, (c, cseq) in enumerate(given):
        army, side = str(c["army_id"]), sides.get(str(c["power_id"]), "?")
        for r in c.get("rolls") or []:
            d.roll("{what}", {**r, **(r.get("proof") or {})}, cseq, what=str(r.get("what")))
        _command(d, k, c, cseq, army)
        if c.get("presence") and c.get("goal"):
            says = N_("{army}: presence on {goal}")
            ref = d.given(f"c{k}-presence", "P-BAT-8", says, int(c["presence"]), cseq, army=army, goal=str(c["goal"]))
            presence.setdefault((str(c["goal"]), side), []).append(ref)
    winners = data.get("winners") or {}
    walls = bool(data.get("walls")) or winners.get("walls") == "A"  # Walls fallen this round stood while scoring
    steps, published = {}, {}
    for goal, per_side in sorted((data.get("successes") or {}).items()):
        refs = {
            side: _side(d, goal, side, int(total), presence.get((goal, side), []), seq)
            for side, total in sorted(per_side.items())
        }
        blocked = "A" if goal == "advance" and walls else None
        says = N_("{goal}: the side with more presence wins it, a tie nobody")
        if blocked:
            says = N_("{goal}: the side with more presence wins it, a tie nobody; the attackers not while Walls stand")
        steps[goal] = d.step(
            f"{goal}-winner",
            "P-BAT-8",
            says,
            "contest",
            {"sides": refs, "blocked": blocked},
            winners.get(goal),
            goal=goal,
        )
        published[goal] = winners.get(goal)
    d.result = {"published": published, "steps": steps}
    return d


def _command(d: Derivation, k: int, c: Mapping[str, Any], seq: int | None, army: str) -> None:
    """One command of the round: the attack it made, if any (P-BAT-1, P-BAT-2, P-BAT-4, P-BAT-5)."""
    says = N_("{army}: {command}")
    d.given(f"c{k}", "P-BAT-3", says, c.get("command"), seq, army=army, command=str(c.get("command")))
    hit = c.get("hit")
    if not hit:
        return
    target = str(c.get("target"))
    says = N_("{army} attacks {target}: the threshold, its Defense")
    d.given(f"c{k}-threshold", "P-BAT-2", says, int(hit.get("threshold") or 0), seq, army=army, target=target)
    says = N_("{army} attacks {target}: dice whose face plus the attack bonus reach the threshold, as published")
    d.given(f"c{k}-successes", "P-BAT-1", says, int(hit.get("successes") or 0), seq, army=army, target=target)
    says = N_("{target}: armor lost")
    d.given(f"c{k}-armor", "P-BAT-5", says, int(hit.get("armor_lost") or 0), seq, target=target)
    wounds = [int(w) for w in hit.get("wounds") or []]
    says = N_("{target}: new wounds, unit by unit")
    d.step(f"c{k}-wounds", "P-BAT-4", says, "sum", wounds, sum(wounds), target=target)


def _side(d: Derivation, goal: str, side: str, total: int, refs: list[str], seq: int | None) -> str:
    """A side's presence on a goal: the sum of its armies' (P-BAT-8), or as published when an army that applied
    presence left the field (its presence dissipates) or was not shown to the viewer."""
    if sum(d.value(r) for r in refs) == total:
        says = N_("{goal}: presence of side {side}")
        return d.step(f"{goal}-{side}", "P-BAT-8", says, "sum", refs, total, goal=goal, side=side)
    says = N_("{goal}: presence of side {side}, as published (an army routed or destroyed loses its presence)")
    return d.given(f"{goal}-{side}", "P-BAT-8", says, total, seq, goal=goal, side=side)
