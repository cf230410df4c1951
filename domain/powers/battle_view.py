"""A battle as each viewer sees it (P.4): the battlefield, armies and wounds, goals and whose turn for its powers and
the GM; secret assets for the GM (and their owner) only; for the rest of the table its declaration and result. The
battle report, round by round, is its events as the viewer saw them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.copying import deepcopy
from domain.ids import GM
from domain.powers import army_rules as ar
from domain.powers import battle_rules as br
from domain.powers.battle_base import battles_of

if TYPE_CHECKING:
    from domain.powers.game import Game


def army_line(game: Game, aid: str, e: dict[str, Any], viewer: str) -> dict[str, Any]:
    army = game.state.armies.armies.get(aid)
    out: dict[str, Any] = {"army_id": aid, "side": e["side"], "power": e["power"], "where": e["where"]}
    if army is None:  # slain to the last unit, or dispersed after the battle
        return {**out, "gone": True, "size": 0, "units": []}
    out.update(
        {
            "name": army["name"],
            "rank": army["rank"],
            "size": ar.size(army),
            "units": [dict(u) for u in army["units"]],  # the battlemap shows wounds (P.4)
            "armor": br.current_armor(army),  # what is left of it in this battle (P-BAT-5)
            "armor_max": ar.armor(army),  # equipment + base, what Rest restores (P-AMB-15)
            "momentum": army["momentum"],
            "statuses": dict(army["statuses"]),
            "defense": army["defense"],
            "attack": dict(army["attack"]),
            "presence": dict(army["presence"]),
            "morale": dict(army["morale"]),
            "keywords": list(army["keywords"]),
        }
    )
    if viewer == GM or viewer == e["power"]:
        out["standing_order"] = deepcopy(e.get("order"))
    return out


def battle_view(game: Game, battle_id: str, viewer: str) -> dict[str, Any]:
    """One battle as ``viewer`` sees it: the battlefield, armies and wounds, goals, whose turn; secret assets for
    the GM (and their owner) only (P.4). A power outside the battle sees its declaration and result only."""
    b = game.battle(battle_id)
    inside = viewer == GM or viewer in game._powers_of(b)
    out: dict[str, Any] = {
        "battle_id": b["id"],
        "hex": b["hex"],
        "declared_by": b["declared_by"],
        "sides": {k: {"powers": list(v["powers"])} for k, v in b["sides"].items()},
        "step": b["step"],
        "round": b["round"],
        "result": None,
    }
    if b["step"] == "ended":  # the table learns who won; the losses and gains are the battle's powers' (P.4)
        out["result"] = {k: b["result"][k] for k in ("reason", "winner")}
    if not inside:
        return out
    out["result"] = deepcopy(b["result"])
    out.update(
        {
            "terrain": b["terrain"],
            "effects": b["effects"],
            "default": b["default"],
            "sides": {
                k: {
                    "powers": list(v["powers"]),
                    "goals": dict(v["goals"]),
                    "escalation": v["escalation"],
                    "order": list(v["order"]),
                    "champions": list(v.get("champions", [])),
                }
                for k, v in b["sides"].items()
            },
            "goals": {g: {**deepcopy(goal), "open": br.goal_open(goal, b["round"])} for g, goal in b["goals"].items()},
            "walls": b["walls"],
            "initiative": b["initiative"],
            "turn": deepcopy(b["turn"]) if b["step"] == "commands" else None,
            "window": b["window"],
            "pending": game.battle_pending(b),
            "exhausted": list(b.get("exhausted", [])),
            "presence": deepcopy(b["presence"]),
            "offers": deepcopy(b["offers"]),
            "scores": deepcopy(b.get("scores", [])),
            "armies": [army_line(game, aid, e, viewer) for aid, e in sorted(b["armies"].items())],
        }
    )
    assets = b.get("assets", {})
    out["secret_assets"] = deepcopy(assets) if viewer == GM else {k: v for k, v in assets.items() if k == viewer}
    return out


def battles_view(game: Game, viewer: str) -> list[dict[str, Any]]:
    return [battle_view(game, bid, viewer) for bid in sorted(battles_of(game.state))]


REPORTED = (
    "BattleDeclared",
    "BattleTerrainSet",
    "BattleSetupSubmitted",
    "BattleAssetsRevealed",
    "BattleOrdersGiven",
    "BattleStarted",
    "BattleRoundBegan",
    "BattleStepBegan",
    "BattleTurnBegan",
    "BattleDeployed",
    "BattleSpellCast",
    "BattleCommandGiven",
    "BattleGoalsScored",
    "BattleTermsOffered",
    "BattleTermsAnswered",
    "BattleCleanedUp",
    "BattleWithdrawn",
    "BattleRuled",
    "BattleEnded",
)


def battle_report(events: list[Any], battle_id: str, viewer: str) -> list[dict[str, Any]]:
    """A battle report as ``viewer`` saw it, round by round: the battle's events this viewer may see (the GM:
    all), each as its round, kind and body. ``events`` are the game's stored events."""
    rounds: dict[int, list[dict[str, Any]]] = {}
    current = 0
    for e in events:
        name = type(e).__name__
        if name not in REPORTED:
            continue
        data = {k: v for k, v in e.__dict__.items() if k not in ("originator_id", "originator_version", "timestamp")}
        bid = data.get("battle_id") or (data.get("battle") or {}).get("id")
        if bid != battle_id or not vis.can_see(data.get("audience", []), viewer):
            continue
        current = data.get("round", current)
        body = {k: deepcopy(v) for k, v in data.items() if k not in ("audience", "battle_id", "battle")}
        for r in body.get("rolls", []) or []:
            r.pop("proof", None)
        rounds.setdefault(current, []).append({"event": name, **body})
    return [{"round": r, "events": evs} for r, evs in sorted(rounds.items())]
