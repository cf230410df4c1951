"""Class actions of the catalogue (ANALYSIS.md P.2.12, P-ACT-6, P-ACT-7, P-RES-4): what a class action, a duel, a
seeking or a ruling per target declares, what it yields once resolved, and the runes it places.

Its events evolve ``GameState.catalogue``; ``Catalogue`` names each, so it is stored under the topic it has always
had, ``domain.powers.catalogue:Catalogue.<Name>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from copy import deepcopy
from typing import TYPE_CHECKING, Any, cast

from domain import limits
from domain import visibility as vis
from domain.errors import RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers import catalogue_rules as cr
from domain.powers import hexmap, rules
from domain.powers import magic_rules as mr
from domain.powers.base import GameBase
from domain.powers.catalogue_shares import ShareUndercut
from domain.powers.catalogue_state import (
    CatalogueEvent,
    ClassActionRecord,
    cat,
    claimed_towns,
    claims_of,
    map_town,
    record,
    rune_hexes,
    world_towns,
)
from domain.powers.magic_mana import mana_spent
from domain.powers.magic_state import draw, kept_gain, pool_of
from domain.powers.state import Asset

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState


# The inputs of a class action's formula that the map holds once the GM declared the town (P-TOWN-2, P-TOWN-4).
_FROM_THE_MAP = {
    "sack": ("uprising", "wealth"),
    "slaughter": ("uprising", "depopulated", "population"),
    "health_drive": ("population",),
}


def _new_finger_army(army_id: str, power_id: str, stats: dict[str, Any], size: int, hex_id: str) -> dict[str, Any]:
    """A Patron's Finger Army of the Cult's design ([003:1203]), loyal to it, garrisoned where it rose."""
    from domain.powers.armies import _new_army

    return _new_army(army_id, "Patron's Finger Army", power_id, stats, size, hex_id, hex_id, True, False, False)


def check_ruling(game: Game, a: ActionState, resistible: bool) -> None:
    """Seeking cannot be resisted (P-ACT-7)."""
    kind_record = cat(game.state).get("kinds", {}).get(a.id)
    kind = kind_record["kind"] if kind_record is not None else None
    if resistible and kind in ("targeted_seeking", "broad_seeking"):
        raise RuleViolation("seeking cannot be resisted [003:58]", rule="P-ACT-7", field="resistible")


def net_after_resistance(game: Game, a: ActionState, resist: dict[str, int]) -> int:
    """Summed resistance for an outcome that concerns everyone; an action with an effect per target keeps
    its successes, each target's resistance applying to its own share only (P-RES-4 as P-AMB-7); under
    ``multi_resist_mode: "summed"`` every resister's successes add up against the whole action."""
    summed = game.state.options.get("multi_resist_mode") == "summed"
    kind_record = cat(game.state).get("kinds", {}).get(a.id)
    if kind_record is not None and kind_record.get("per_target") and not summed:
        return int(a.successes or 0)
    return rules.net_successes(a.successes or 0, list(resist.values()))


def on_resolving(game: Game, a: ActionState, ledger: dict[str, str]) -> bool:
    """At an action's turn in the queue: undercut collaborators' used-up assets (P-ASSET-13), charge the
    fees (P-ASSET-5, P-ASSET-6), and lose a duel declared at the wrong place (P-ACT-6). True if lost."""
    s = game.state
    c = cat(s)
    for n, sh in enumerate(c.get("shares", {}).get(a.id, [])):
        for pa in sh["pool"]["assets"]:
            if pa["cls"] not in rules.ONCE_PER_SEASON:
                continue
            if pa["asset_id"] in ledger and ledger[pa["asset_id"]] != a.id:
                record(
                    game,
                    ShareUndercut,
                    action_id=a.id,
                    share=n,
                    asset_id=pa["asset_id"],
                    name=pa["name"],
                    actor=SYSTEM,
                    audience=vis.powers([sh["power"]]),
                )
            else:
                ledger[pa["asset_id"]] = a.id
    kind = c.get("kinds", {}).get(a.id)
    if kind is not None and lost_at_its_turn(game, a, kind):
        return True
    payers: list[tuple[str, Sequence[Mapping[str, Any]]]] = [
        (a.power, [vars(pa) for pa in (a.pool.assets if a.pool else [])])
    ]
    payers += [(sh["power"], sh["pool"]["assets"]) for sh in c.get("shares", {}).get(a.id, [])]
    for payer, assets in payers:
        game._charge_fees(a.id, payer, assets)
    return False


def lost_at_its_turn(game: Game, a: ActionState, kind: ClassActionRecord) -> bool:
    """A catalogue action at its turn in the queue: a duel declared at the wrong place is lost (P-ACT-6); its
    coin and mana costs are paid now, and one its power cannot pay does not happen ([003:28]). True if lost."""
    audience = [vis.PUBLIC] if a.slot == "public" else vis.powers([a.power, *a.collaborators])
    if kind.get("kind") == "duel":
        target, declared = kind["params"].get("target"), kind["params"].get("location")
        true = cat(game.state).get("locations", {}).get(target) if isinstance(target, str) else None
        if true is not None and true != declared:
            record(
                game,
                ActionLost,
                action_id=a.id,
                reason=f"the duel was declared at {declared}, but the target was not there [003:54]",
                actor=SYSTEM,
                audience=audience,
            )
            return True
    coin = int(kind.get("price", {}).get("coin", 0))
    if coin:
        # [003:28] costs are paid at the start of the action: one its power cannot pay does not happen.
        try:
            game.pay(
                a.power, {"coin": coin}, f"{kind['kind'].replace('_', ' ')}: its cost", rule="P.2.12", actor=SYSTEM
            )
        except RuleViolation:
            record(
                game,
                ActionLost,
                action_id=a.id,
                reason=f"its cost of {coin} coin could not be paid [003:28]",
                actor=SYSTEM,
                audience=vis.powers([a.power, *a.collaborators]),  # a wallet is private (P.4)
            )
            return True
    return bool(kind.get("price", {}).get("mana_cost")) and not paid_in_mana(game, a, kind)


def credit(game: Game, a: ActionState, outputs: dict[str, Any]) -> None:
    """What a successful class action earns goes into its power's wallet (P-ASSET-10, P.2.12)."""
    kind = cat(game.state)["kinds"][a.id]["kind"]
    gains = {
        "inquisition": ("fear", outputs.get("fear", 0)),
        "health_drive": ("respect", outputs.get("respect", 0)),
        "sack": ("coin", outputs.get("coin", 0)),
        "slaughter": (game.holdings(a.power).control or "fear", outputs.get("fear_or_respect", 0)),
    }
    resource, amount = gains.get(kind, ("coin", 0))
    if amount:
        game.earn(a.power, resource, int(amount), f"{kind.replace('_', ' ')} [P.2.12]")


def after_resolved(game: Game, a: ActionState, resist: dict[str, int]) -> None:
    """Once an action's result is final: what its class action yields (P.2.12), what a seeking uncovers
    (P-ACT-7), and each target's own result for an effect per target (P-RES-4)."""
    c = cat(game.state)
    kind = c.get("kinds", {}).get(a.id)
    if kind is None:
        return
    audience = vis.powers([a.power, *a.collaborators])
    result = {"success": bool(a.success), "successes": int(a.net or 0), "excess": int(a.excess or 0)}
    if kind.get("per_target"):
        targets = per_target(game, a, kind)
        if game.state.options.get("multi_resist_mode") == "summed":  # P-AMB-7's option: all resisters count
            resist = {t: sum(resist.values()) for t in targets}
        per = cr.per_target_results(int(a.successes or 0), int(a.difficulty or 0), resist, targets)
        for t, r in per.items():
            record(
                game,
                TargetResult,
                action_id=a.id,
                target=t,
                result=r,
                actor=SYSTEM,
                audience=vis.powers([a.power, *a.collaborators, t]) if t in game.state.powers else audience,
            )
        if kind["kind"] == "inquisition":
            outputs: dict[str, Any] = {"removed": {t: r["excess"] for t, r in per.items()}}
            outputs["fear"] = sum(outputs["removed"].values())  # [003:955] Fear = influence removed
        else:
            outputs = {"per_target": per}
    elif kind["kind"] in ("targeted_seeking", "broad_seeking"):
        broad = kind["kind"] == "broad_seeking"
        outputs = {
            "area": cr.seeking_area(kind["params"]["hex"], broad),
            "detected": cr.seeking_detects(int(a.net or 0), broad, kind["params"].get("named")),
            "thresholds": cr.seeking_thresholds(broad),
        }
    elif kind["kind"] == "duel":
        outputs = {"target": kind["params"].get("target"), "defeated": bool(a.success)}
        held = game._immunity_held(a.power, str(kind["params"].get("target")))
        if held is not None:  # P-AMB-10, [003:54]: while the immunity applies, a duel cannot kill
            outputs["immunity_held"] = held
    else:
        ca = cr.CLASS_ACTIONS[kind["kind"]]
        outputs = ca.yields(dict(kind["params"]), result)
    record(
        game,
        ClassActionOutcome,
        action_id=a.id,
        power_id=a.power,
        kind=kind["kind"],
        success=bool(a.success),
        outputs=outputs,
        actor=SYSTEM,
        audience=audience,
    )
    credit(game, a, outputs)
    if a.success:
        apply_to_world(game, a, kind, outputs)
        apply_creation(game, a, kind, outputs)


def apply_to_world(game: Game, a: ActionState, kind: ClassActionRecord, outputs: dict[str, Any]) -> None:
    """What a successful class action does to the map, through the world's own records (P.2.12): Sack and
    Slaughter lower the town and raise its Uprising, Annex and Commandeer claim it, Channel gains the mana
    of its hex's element up to the storage cap (P-MAG-1). Towns not on the map stay as recorded."""
    town = map_town(game.state, kind["params"].get("town"))
    if town is None:
        return
    name = kind["kind"]
    if name in ("sack", "slaughter"):
        harm: dict[str, Any] = {k: outputs[k] for k in ("wealth", "population") if k in outputs}
        harm["statuses"] = {"uprising": int(outputs.get("uprising", 0))}
        by = a.power if game.is_public(a) else None
        game.harm_town(town, harm, f"{name} [P.2.12]", by)
    elif name in ("annex", "commandeer"):
        game._claim(town, a.power, f"{name} [P.2.12]", actor=SYSTEM)
        if name == "commandeer":
            game.renounce_claims(a.power, town, "commandeered another town [003:1276]")
    elif name == "channel":
        hx = game.state.world.hexes.get(game.state.world.towns[town]["hex"])
        element = hx.get("element") if hx is not None else None
        if element is None:
            return
        amount = kept_gain(game.state, a.power, element, int(outputs.get("mana", 0)))
        if amount > 0:
            game._mana_granted(
                power_id=a.power, element=element, amount=amount, actor=SYSTEM, audience=vis.powers([a.power])
            )


def apply_creation(game: Game, a: ActionState, kind: ClassActionRecord, outputs: dict[str, Any]) -> None:
    """What a successful class action creates (P.2.12): Hidden Runes place a Rune asset in the hex ([003:1175]);
    Rise, Fingers and Sacrificial Summoning raise a Patron's Finger Army ([003:1230], [003:1224]) of the army
    type the Cult designed (``params.type``), through the armies' own records, on the map the GM declared."""
    p = kind["params"]
    if kind["kind"] == "hidden_runes":
        rune = outputs["rune"]
        record(
            game,
            RunePlaced,
            power_id=a.power,
            hex=rune["hex"],
            rank=int(rune["rank"]),
            asset_id=f"rune-{a.id}",
            actor=SYSTEM,
            audience=vis.powers([a.power]),
        )
    elif kind["kind"] in ("rise_fingers", "sacrificial_summoning") and p.get("type") is not None:
        size = int(outputs.get("finger_army_size", 0))
        s = game.state
        hex_id = p.get("hex")
        if kind["kind"] == "sacrificial_summoning":
            from domain.powers.armies import army_audience

            old = s.armies.armies.get(p.get("army", ""))
            if old is None or old["controller"] != a.power:
                return  # gone or lost since it was declared: nothing left to convert
            hex_id, size = old["hex"], len(old["units"])
            game._army_disbanded(army_id=old["id"], keep_card=False, actor=SYSTEM, audience=army_audience(old))
        if size < 1 or not isinstance(hex_id, str) or hex_id not in s.world.hexes or p["type"] not in s.armies.types:
            return
        army = _new_finger_army(f"fingers-{a.id}", a.power, s.armies.types[p["type"]], size, hex_id)
        game._record_army(army, actor=SYSTEM)


def live_runes(game: Game, power_id: str, *, placed_only: bool = False) -> dict[str, int]:
    """[003:1161] "Each hex can have at most one of your runes": the hexes where this power has a rune, placed
    and not yet expended, or (unless ``placed_only``) being placed by one of its Hidden Runes actions this
    month."""
    s = game.state
    k = cat(s).get("counters", {}).get(power_id, {})
    placed = k.get("rune_assets", {})
    live = {}
    for h, rank in k.get("runes", {}).items():
        asset = s.assets.get(placed.get(h, ""))
        if h in placed and (asset is None or asset.used_up or power_id not in asset.holders):
            continue  # expended (P-ASSET-8: single use) or destroyed
        live[h] = int(rank)
    for aid, kd in ({} if placed_only else cat(s).get("kinds", {})).items():
        a = s.actions.get(aid)
        if kd["kind"] == "hidden_runes" and a is not None and a.power == power_id and not a.discarded:
            if "outcome" not in kd:
                live.setdefault(kd["params"]["hex"], int(kd["params"]["rank"]))
    return live


def runes_check_pool(game: Game, location: str | None, assets: list[dict[str, Any]]) -> None:
    """[003:1161] "A rune can be expended once as part of any ritual or challenge targeting that hex": a Rune
    asset placed by Hidden Runes goes only into a pool whose action is in the rune's hex (the action's
    location; the decision: "targeting that hex" is read as the challenge's location)."""
    s = game.state
    for pick in assets:
        asset_id = pick.get("asset_id") if isinstance(pick, dict) else None
        asset = s.assets.get(asset_id) if isinstance(asset_id, str) else None
        if asset is None or asset.cls != "rune":
            continue
        hexes = [h for h, aid in rune_hexes(s, asset.holders).items() if aid == asset.id]
        if not hexes:
            continue  # a rune the GM granted (a starting rune) is where the GM says
        if not location or hexmap.normal_hex(location) != hexes[0]:
            raise RuleViolation(
                f"{asset.name} helps only a challenge in its hex [003:1161]", rule="P.2.12", field="assets"
            )


def per_target(game: Game, a: ActionState, kind: ClassActionRecord) -> list[str]:
    given = kind["params"].get("targets")
    return list(given) if isinstance(given, list) and given else list(a.targets)


def effective_consequences(game: Game, a: ActionState) -> int:
    """Consequences that count after perks that ignore some (P-DICE-12)."""
    taken = game.tally(a).consequences
    kind_record = cat(game.state).get("kinds", {}).get(a.id)
    kinds = list(kind_record.get("kinds", [])) if kind_record is not None else []
    kinds += {"negotiation": ["negotiation"], "craft": ["crafting"]}.get(a.skill or "", [])
    return cr.effective_consequences(taken, kinds, game.state.powers[a.power].options)


def standing(game: Game, power_id: str) -> cr.Standing:
    s = game.state
    k = cat(s).get("counters", {}).get(power_id, {})
    return cr.Standing(
        season=s.season,
        influence=dict(s.powers[power_id].influence),
        heirs=int(k.get("heirs", 0)),
        masters=int(k.get("masters", 0)),
        runes=live_runes(game, power_id),
        saboteurs_this_season=int(k.get("saboteurs", {}).get(str(s.season), 0)),
        last_coming_of_age=int(k.get("last_coming_of_age", 0)),
        last_channel=0,
        health_drives=list(k.get("health_drives", {}).get(str(s.season), [])),
        royal_guard_rank=int(k.get("royal_guard_rank", 0)),
        towns_claimed=len(claimed_towns(game.state, power_id)) if world_towns(game.state) else None,
    )


def check_fingers(game: Game, power_id: str, kind: str, params: dict[str, Any]) -> None:
    """On a declared map a Finger Army is raised for real (P.2.12): its stats are the army type the Cult
    designed ([003:1203] "a repeated template"; the GM records it with DefineArmyType), named in
    ``params.type``; Rise, Fingers names a hex of the map; Sacrificial Summoning names an army the Cult
    controls, whose size and rank the map knows."""
    s = game.state
    type_id = params.get("type")
    if not isinstance(type_id, str) or type_id not in s.armies.types:
        raise RuleViolation(
            "name the army type of your Patron's Finger design (params.type; the GM defines it) [003:1203]",
            rule="P.2.12",
            field="params.type",
        )
    if kind == "rise_fingers":
        if hexmap.normal_hex(params.get("hex", "")) not in s.world.hexes:
            raise RuleViolation("Rise, Fingers happens in a hex of the map", rule="P.2.12", field="params.hex")
        return
    army = s.armies.armies.get(params.get("army", "")) if isinstance(params.get("army"), str) else None
    if army is None or army["controller"] != power_id:
        raise RuleViolation(
            "Sacrificial Summoning converts an army you control (params.army) [003:1224]",
            rule="P.2.12",
            field="params.army",
        )
    params.update({"army_size": len(army["units"]), "army_rank": army["rank"]})  # the map knows


def priced_in_mana(game: Game, power_id: str, kind: str, ca: cr.ClassAction, price: dict[str, Any]) -> dict[str, Any]:
    """A class action that costs mana (Hidden Runes, Uplift Master, Sacrificial Summoning, Rise, Fingers;
    P.2.12) records its cost as a P-MAG-2 cost (``mana_cost``), the rune's in its hex's element on the
    map, and is refused at submission (naming P-MAG-2, recording nothing) if the power cannot pay it.
    Decision: it is debited at its turn in the queue, where coin prices are ([003:28] "Costs are paid at
    the start of each action"); mana gained during the action by then pays first (P-AMB-37)."""
    element = None
    if "element_of" in price.get("mana", {}):
        h = game.state.world.hexes.get(hexmap.normal_hex(price["mana"]["element_of"]))
        element = h.get("element") if h else None
    cost = cr.mana_cost(price, element)
    if cost is None:
        return price
    check_mana_cost(power_id, cost, game.state.powers[power_id].mana, kind, ca.source)
    return {**price, "mana_cost": cost}


def check_mana_cost(power_id: str, cost: str, held: Mapping[str, int], kind: str, source: str) -> dict[str, int]:
    """The mana a P-MAG-2 cost spends from ``held``, or a refusal naming P-MAG-2 and the action's rule."""
    price = mr.parse_cost(cost)
    try:
        payment = mr.check_payment(price, mr.auto_payment(price, held))
        mr.check_held(payment.spent, held)
    except RuleViolation as e:
        raise RuleViolation(
            f"{kind.replace('_', ' ').title()} costs {cost} mana (P.2.12, {source}); {power_id} cannot pay it: "
            f"{e.message}",
            rule="P-MAG-2",
            field="mana",
        ) from None
    return dict(sorted(payment.spent.items()))


def paid_in_mana(game: Game, a: ActionState, kind: ClassActionRecord) -> bool:
    """At the action's turn: pay its mana cost by P-MAG-2, from the mana the action holds first, then the
    wallet; one that cannot be paid now is lost ([003:28]). True if paid."""
    cost = kind["price"]["mana_cost"]
    usable = [pool_of(game.state, a.id)["channelled"]]
    held = dict(game.state.powers[a.power].mana)
    for e, n in usable[0].items():
        held[e] = held.get(e, 0) + n
    try:
        spent = check_mana_cost(a.power, cost, held, kind["kind"], "")
    except RuleViolation:
        record(
            game,
            ActionLost,
            action_id=a.id,
            reason=f"its cost of {cost} mana could not be paid (P-MAG-2) [003:28]",
            actor=SYSTEM,
            audience=vis.powers([a.power, *a.collaborators]),  # mana is private (P.4)
        )
        return False
    pooled, from_wallet = draw(spent, usable)
    mana_spent(
        game,
        power_id=a.power,
        action_id=a.id,
        cost=cost,
        paid=spent,
        pooled=pooled,
        from_wallet=from_wallet,
        actor=SYSTEM,
        audience=vis.powers([a.power]),
    )
    return True


def submit_class_action(
    game: Game, power_id: str, action_id: str, kind: str, params: dict[str, Any] | None = None, **submit: Any
) -> dict[str, Any]:
    """Submit a class action (P.2.12): its difficulty comes from its formula, its limits are checked, and
    ``submit`` goes on to ``submit_action`` (now, roller, assets, convert, slot, location...)."""
    ps = game.power(power_id)
    params = dict(params or {})
    _check_params(params)
    ca = cr.class_action(kind, ps.cls, ps.subclass, ps.options)
    st = standing(game, power_id)
    on_map = map_town(game.state, params.get("town"))
    if on_map is not None:
        params["town"] = on_map  # by id, whether named by id or hex: "once per town" counts the same town
    if on_map is not None and kind in _FROM_THE_MAP:
        # The map knows the town: what the submitter said of it does not count ("the new Wealth", [003:1339]).
        t = world_towns(game.state)[on_map]
        params.update(
            {k: t["statuses"].get(k, 0) if k in t["statuses"] or k not in t else t[k] for k in _FROM_THE_MAP[kind]}
        )
    if kind == "channel":
        town = params.get("town")
        if not isinstance(town, str) or not town:
            raise RuleViolation("Channel names a claimed town", rule="P.2.12", field="params.town")
        if world_towns(game.state) and on_map not in {t for t, _ in claims_of(game.state, power_id)}:
            raise RuleViolation("Channel selects a town you claim [003:967]", rule="P.2.12", field="params.town")
        last = cat(game.state).get("counters", {}).get(power_id, {}).get("last_channel", {}).get(town, 0)
        st = cr.Standing(**{**vars(st), "last_channel": int(last)})
    if kind in ("rise_fingers", "sacrificial_summoning") and game.state.world.hexes:
        check_fingers(game, power_id, kind, params)
    full = cr.prepare(kind, params, ps.options, st)
    difficulty = ca.difficulty(full)
    # What it costs and yields reads its inputs too: check them now, not when Resolution reaches it.
    price = cr.price(kind, full)
    ca.yields(full, {"success": True, "successes": 0, "excess": 0})
    price = priced_in_mana(game, power_id, kind, ca, price)
    targets = list(submit.pop("targets", []) or [])
    submit.setdefault("skill", ca.skill)
    submit.setdefault("title", kind.replace("_", " ").title())
    location = submit.get("location") or full.get("hex")
    if location is not None:
        submit["location"] = location
    title = submit.pop("title")
    game.submit_action(
        power_id, action_id, title, difficulty=difficulty, resistible=ca.resistible, targets=targets, **submit
    )
    audience = [vis.PUBLIC] if ca.public else game._audience(game.action(action_id))
    record(
        game,
        ClassActionDeclared,
        action_id=action_id,
        power_id=power_id,
        kind=kind,
        params=full,
        difficulty=difficulty,
        formula=ca.formula,
        cost=ca.cost,
        price=price,
        declared=list(ca.declared),
        kinds=list(ca.kinds),
        per_target=ca.per_target,
        season=game.state.season,
        actor=submit.get("actor") or power_id,
        audience=audience,
    )
    return {"action_id": action_id, "kind": kind, "difficulty": difficulty, "formula": ca.formula}


def submit_duel(
    game: Game,
    power_id: str,
    action_id: str,
    target: str,
    location: str,
    *,
    target_is_power: bool = True,
    **submit: Any,
) -> dict[str, Any]:
    """Duel (P-ACT-6): difficulty 1, resistible by the target; the target's location is declared now, and
    the action is lost at Resolution if the target was elsewhere."""
    game.power(power_id)
    hexmap.parse_hex(location)
    limits.check_text(target, "target", limits.IDENTIFIER)
    if target_is_power:
        game.power(target)
        if target == power_id:
            raise RuleViolation("a duel is against someone else", rule="P-ACT-6", field="target")
    title = submit.pop("title", "Duel")
    game.submit_action(
        power_id,
        action_id,
        title,
        difficulty=1,
        resistible=True,
        targets=[target] if target_is_power else [],
        location=location,
        **submit,
    )
    record(
        game,
        ClassActionDeclared,
        action_id=action_id,
        power_id=power_id,
        kind="duel",
        params={"target": target, "location": location},
        difficulty=1,
        formula="1 [003:54]",
        cost="",
        price={},
        declared=[],
        kinds=["duel"],
        per_target=False,
        season=game.state.season,
        actor=submit.get("actor") or power_id,
        audience=game._audience(game.action(action_id)),
    )
    return {"action_id": action_id, "kind": "duel", "difficulty": 1}


def submit_seeking(
    game: Game,
    power_id: str,
    action_id: str,
    hex_id: str,
    *,
    broad: bool = False,
    named: str | None = None,
    **submit: Any,
) -> dict[str, Any]:
    """Targeted or Broad Seeking (P-ACT-7): cannot be resisted; what it uncovers is computed from its
    successes at Resolution (1 influence, 2 hidden armies, 3 creatures and hidden objects; doubled for
    Broad Seeking, which covers the hex and its neighbours; +1 assured against the one thing named)."""
    game.power(power_id)
    hexmap.parse_hex(hex_id)
    if named is not None and named not in cr.SEEK_CATEGORIES:
        raise RuleViolation(
            f"seek one of {', '.join(cr.SEEK_CATEGORIES)}, not {named!r}", rule="P-ACT-7", field="named"
        )
    if broad and named is not None:
        raise RuleViolation(
            "only Targeted Seeking names one thing for an assured success", rule="P-ACT-7", field="named"
        )
    if submit.pop("resistible", False):
        raise RuleViolation("seeking cannot be resisted [003:58]", rule="P-ACT-7", field="resistible")
    kind = "broad_seeking" if broad else "targeted_seeking"
    difficulty = min(cr.seeking_thresholds(broad).values())
    title = submit.pop("title", kind.replace("_", " ").title())
    game.submit_action(
        power_id,
        action_id,
        title,
        difficulty=difficulty,
        resistible=False,
        skill=submit.pop("skill", "vigilance"),
        location=hex_id,
        **submit,
    )
    record(
        game,
        ClassActionDeclared,
        action_id=action_id,
        power_id=power_id,
        kind=kind,
        params={"hex": hex_id, "named": named},
        difficulty=difficulty,
        formula="influence 1, hidden armies 2, creatures and hidden objects 3" + (", doubled" if broad else ""),
        cost="",
        price={},
        declared=[],
        kinds=[],
        per_target=False,
        season=game.state.season,
        actor=submit.get("actor") or power_id,
        audience=game._audience(game.action(action_id)),
    )
    return {"action_id": action_id, "kind": kind, "thresholds": cr.seeking_thresholds(broad)}


def rule_per_target(game: Game, action_id: str) -> None:
    """GM: this action's effect falls on each target separately, so each resister's successes reduce only its
    own share (P-RES-4 as P-AMB-7); by default several resisters' successes add up against the action."""
    a = game.action(action_id)
    if game.state.resolved:
        raise RuleViolation("this month is already resolved", rule="P-RES-4")
    if not a.resistible or len(a.targets) < 2:
        raise RuleViolation("resistance per target is for a resistible action with several targets", rule="P-RES-4")
    if action_id in cat(game.state).get("kinds", {}):
        raise RuleViolation("this catalogue action already says how it is resisted", rule="P-RES-4")
    record(
        game,
        ClassActionDeclared,
        action_id=action_id,
        power_id=a.power,
        kind="per_target",
        params={"targets": list(a.targets)},
        difficulty=int(a.difficulty or 0),
        formula="each target's resistance reduces its own share (P-AMB-7)",
        cost="",
        price={},
        declared=[],
        kinds=[],
        per_target=True,
        season=game.state.season,
        actor=GM,
        audience=game._audience(a),
    )


def _check_params(params: dict[str, Any]) -> None:
    if len(params) > limits.ITEMS:
        raise RuleViolation(f"params lists at most {limits.ITEMS} items", field="params")
    for k, v in params.items():
        if not isinstance(k, str) or len(k) > limits.IDENTIFIER:
            raise RuleViolation("a parameter's name is a short text", field="params")
        _check_value(v, f"params.{k}", depth=0)


def _check_value(v: object, name: str, depth: int) -> None:
    """Parameters are small JSON: short texts, numbers, booleans, and short lists and objects of them."""
    if isinstance(v, str):
        limits.check_text(v, name, limits.IDENTIFIER)
    elif isinstance(v, (list, dict)):
        if depth >= 2 or len(v) > limits.ITEMS:
            raise RuleViolation(f"{name} holds at most {limits.ITEMS} items, two levels deep", field=name)
        for item in v.values() if isinstance(v, dict) else v:
            _check_value(item, name, depth + 1)
    elif v is not None and not isinstance(v, (int, float, bool)):
        raise RuleViolation(f"{name} is a text, a number, a boolean or a list of them", field=name)


# ---------------------------------------------------------------------- events


class ClassActionDeclared(CatalogueEvent):
    action_id: str
    power_id: str
    kind: str
    params: dict[str, Any]
    difficulty: int
    formula: str
    cost: str
    price: dict[str, Any]
    declared: list[str]
    kinds: list[str]
    per_target: bool
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        c = cat(s)
        c.setdefault("kinds", {})[self.action_id] = {
            "kind": self.kind,
            "params": deepcopy(self.params),
            "difficulty": self.difficulty,
            "formula": self.formula,
            "cost": self.cost,
            "price": deepcopy(self.price),
            "declared": list(self.declared),
            "kinds": list(self.kinds),
            "per_target": self.per_target,
        }
        k = c.setdefault("counters", {}).setdefault(self.power_id, {})
        if self.kind == "saboteurs":  # P-AMB-38: each use raises the next this season, succeeded or not
            uses = k.setdefault("saboteurs", {})
            uses[str(self.season)] = uses.get(str(self.season), 0) + 1
        if self.kind == "health_drive":
            k.setdefault("health_drives", {}).setdefault(str(self.season), []).append(
                cast(str, self.params.get("town"))
            )  # named: prepare checked it


class ActionLost(CatalogueEvent):
    """An action lost at its turn in the queue; the once-a-season assets of its pools are used all the same, as
    the resolution's season ledger keeps them (``fold``: the resolution's own ``_mark_used``)."""

    action_id: str
    reason: str
    actor: str
    audience: list[str]

    def fold(self, game: GameBase) -> None:
        a = game.state.actions[self.action_id]
        a.status, a.success, a.net, a.excess, a.successes = "resolved", False, 0, 0, 0
        game._mark_used(self.action_id)


class ClassActionOutcome(CatalogueEvent):
    action_id: str
    power_id: str
    kind: str
    success: bool
    outputs: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        k = cat(s).setdefault("counters", {}).setdefault(self.power_id, {})
        kinds = cat(s).get("kinds", {})
        if self.action_id in kinds:
            kinds[self.action_id]["outcome"] = {"success": self.success, **deepcopy(self.outputs)}
        if self.kind == "coming_of_age":
            k["last_coming_of_age"] = s.season  # the counter restarts at each use, success or not
        if self.kind == "channel":
            k.setdefault("last_channel", {})[kinds[self.action_id]["params"]["town"]] = s.season
        if not self.success:
            return
        if self.kind == "coming_of_age":
            k["heirs"] = k.get("heirs", 0) + 1
        elif self.kind == "uplift_master":
            k["masters"] = k.get("masters", 0) + 1
        elif self.kind == "hidden_runes":
            k.setdefault("runes", {})[self.outputs["rune"]["hex"]] = self.outputs["rune"]["rank"]
        elif self.kind == "grand_knighting":
            k["royal_guard_rank"] = int(self.outputs.get("rank") or 0)


class TargetResult(CatalogueEvent):
    action_id: str
    target: str
    result: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        kinds = cat(s).get("kinds", {})
        if self.action_id in kinds:
            kinds[self.action_id].setdefault("per_target_results", {})[self.target] = dict(self.result)


class RunePlaced(CatalogueEvent):
    power_id: str
    hex: str
    rank: int
    asset_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.assets[self.asset_id] = Asset(
            id=self.asset_id, name=f"Rune at {self.hex}", cls="rune", rank=self.rank, holders=[self.power_id]
        )
        k = cat(s).setdefault("counters", {}).setdefault(self.power_id, {})
        k.setdefault("runes", {})[self.hex] = self.rank
        k.setdefault("rune_assets", {})[self.hex] = self.asset_id
