"""The Commands step (P-BAT-2 to P-BAT-7, [003:577], [003:590]): the power whose turn it is commands one of its
armies, which is exhausted: slay or charge an enemy on the field, hold or charge a goal, rest, or a special command
once per battle. The commanding player's choices (attack options, damage type, Bloodlust's allocation, Shieldbearers'
restore, Supports' pass) are checked before anything is recorded; the rules (``battle_rules``) return the attack,
morale and presence, and one ``BattleCommandGiven`` carries its rolls and changes. At a deadline an army not commanded
holds on Advance, or takes its standing order."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import limits
from domain.dice import Roller
from domain.errors import RuleViolation
from domain.ids import SYSTEM
from domain.powers import army_rules as ar
from domain.powers import battle_base as bb
from domain.powers import battle_rules as br
from domain.powers import battle_setup as setup
from domain.powers.battle_base import BattleEvent, BattleRoll, record

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def give_command(
    game: Game,
    battle_id: str,
    power_id: str,
    army_id: str,
    command: str,
    target: str | None = None,
    goal: str | None = None,
    *,
    now: datetime,
    roller: Roller,
    actor: str,
    special: str | None = None,
    options: list[str] | None = None,
    damage: str | None = None,
    allocation: list[int] | None = None,
    restore: int = 0,
    pass_to: str | None = None,
) -> dict[str, Any]:
    """Commands ([003:577]): the power whose turn it is commands one of its armies, which is exhausted. A special
    command (``special``: its name) is once per army per battle ([003:590], P-BAT-3); its effect is the GM's.

    The commanding player's choices where the rules give one: attack ``options`` (P-BAT-2: ``needler``,
    ``slayer``, ``axes`` and ``hammers``, the last two spending a momentum each), the ``damage`` type among
    those the army's keywords allow this round (P-BAT-5, ``battle_rules.damage_types``; Hammers' Crush spends
    a momentum, a Stampeding Charge's does not), the wounds' ``allocation`` when the army has Bloodlust
    (P-BAT-6), the momentum a Shieldbearers army spends to ``restore`` armor and a Supports army passing one
    momentum ``pass_to`` an ally on the field (P-BAT-3, P-BAT-7), both before the command."""
    b = game.battle(battle_id)
    bb.check_turn(game.state, b, power_id, "commands", now)
    side = b["turn"]["side"]
    if army_id not in game._commandable(b, side, power_id):
        raise RuleViolation(
            f"{army_id} is not one of your armies on the field that may still take a command",
            rule="P-BAT-3",
            field="army_id",
        )
    order = setup.checked_order(b, side, {"command": command, "target": target, "goal": goal, "special": special})
    if command == "special":
        br.check_special(order["special"], b.get("specials", {}).get(army_id, []))
    order["choices"] = check_choices(game.state, b, army_id, command, options, damage, allocation, restore, pass_to)
    out = execute(game, b, power_id, army_id, order, roller, by_default=False, actor=actor)
    game._after_act(b, now, roller)
    return out


def default_command(game: Game, b: dict[str, Any], p: str, roller: Roller) -> None:
    side = b["turn"]["side"]
    army_id = game._commandable(b, side, p)[0]
    order = {"command": "hold", "target": None, "goal": "advance"}
    standing = b["armies"][army_id].get("order")
    if b["default"] == "standing" and standing:
        order = dict(standing)
    try:
        execute(game, b, p, army_id, order, roller, by_default=True, actor=SYSTEM)
    except RuleViolation:  # a standing order that no longer applies (its target gone, no momentum)
        execute(game, b, p, army_id, {"command": "hold", "target": None, "goal": "advance"}, roller, True, SYSTEM)


def execute(
    game: Game,
    b: dict[str, Any],
    p: str,
    army_id: str,
    order: dict[str, Any],
    roller: Roller,
    by_default: bool,
    actor: str,
) -> dict[str, Any]:
    s = game.state
    side = b["armies"][army_id]["side"]
    cmd = order["command"]
    rolls: list[BattleRoll] = []
    hit: dict[str, Any] | None = None
    routs = 0
    presence = 0
    target_id = order.get("target")
    goal = order.get("goal") or "advance"
    choices = order.get("choices") or {}
    opts = frozenset(choices.get("options", ()))
    # The other side's armies on the field (the state does not change until the command's event).
    foes = game._fighting(b, bb.other(side)) if cmd in ("slay", "charge") else []
    check_order_targets(b, cmd, target_id, foes, goal)
    # the rules return new dicts, never changing the state's
    army, changes = ready_army(s.armies.armies, army_id, cmd, choices, opts)
    if cmd in ("slay", "charge"):
        assert target_id is not None
        army, hit, routs = strike(game, b, side, army_id, army, target_id, foes, cmd, choices, roller, rolls, changes)
    if cmd in ("hold", "charge"):
        threshold = b["goals"][goal][side]
        faces = bb.roll(
            game,
            roller,
            rolls,
            f"presence of {army_id}",
            br.check_dice(army, "presence"),
            br.die_size(army, "presence"),
        )
        presence = br.presence(army, faces, threshold, command=cmd, wall_goal=goal == "walls")
        army = br.momentum_trigger(army, "presence", round_no=b["round"])  # Air elementals (P-BAT-7)
    if cmd == "special":
        goal = order["special"]  # recorded as the command's goal: its name, for the report and the GM
    own = bb.diff(s.armies.armies[army_id], army)
    if own:
        changes[army_id] = own
    record(
        game,
        BattleCommandGiven,
        battle_id=b["id"],
        round=b["round"],
        power_id=p,
        army_id=army_id,
        command=cmd,
        target=target_id if cmd in ("slay", "charge") else None,
        goal=goal if cmd in ("hold", "charge", "special") else None,
        rolls=rolls,
        hit=hit,
        routs=routs,
        presence=presence,
        changes=changes,
        by_default=by_default,
        actor=actor,
        audience=bb.audience(b),
    )
    return {"command": cmd, "hit": hit, "routs": routs, "presence": presence, "rolls": [r["faces"] for r in rolls]}


def strike(
    game: Game,
    b: dict[str, Any],
    side: str,
    army_id: str,
    army: dict[str, Any],
    target_id: str,
    foes: list[str],
    cmd: str,
    choices: dict[str, Any],
    roller: Roller,
    rolls: list[BattleRoll],
    changes: dict[str, dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any], int]:
    """A Slay's or a Charge's attack on its target (P-BAT-2 to P-BAT-7): the attack's and any morale roll go
    into ``rolls``, the target's and its allies' changes into ``changes``. Returns the attacker as it stands
    after, the hit as the event records it, and the units routed."""
    s = game.state
    opts, routs = frozenset(choices.get("options", ())), 0
    target = s.armies.armies[target_id]
    enemies = [s.armies.armies[x] for x in foes]
    br.check_target(army, target, enemies)
    damage = choices.get("damage")
    dice = br.check_dice(army, "attack", damage=damage)
    faces = bb.roll(game, roller, rolls, f"attack of {army_id}", dice, br.die_size(army, "attack"))
    earlier = b["attacked"].get(target_id, 0)
    kind = br.attack_kind(army)
    reactions = br.defender_reactions(target, kind)
    target, h = br.attack(
        army,
        target,
        faces,
        command=cmd,
        escalation=b["sides"][side]["escalation"],
        earlier_attacks=earlier,
        terrain=b["terrain"] or None,
        options=opts,
        damage=damage,
        allocation=choices.get("allocation"),
        kind=kind,
        reactions=reactions,
    )
    hit = {f.name: getattr(h, f.name) for f in dataclasses.fields(h)}  # flat: asdict's recursion costs
    hit.update({"options": sorted(opts), "kind": kind, "reactions": sorted(reactions)})
    r_no = b["round"]
    army = br.momentum_trigger(br.attacker_momentum(army, h), "attacks", round_no=r_no)  # P-BAT-7
    target = br.momentum_trigger(target, "attacked", round_no=r_no, attacker=army)
    if h.routs_due > 0 and ar.size(target) > 0:
        mfaces = bb.roll(
            game, roller, rolls, f"morale of {target_id}", br.morale_dice(target), br.die_size(target, "morale")
        )
        wall = b["goals"]["walls"].get("wallkeepers", 0) if b["walls"] and side == "A" else 0
        target, routs = br.morale(target, mfaces, army["rank"], h.routs_due, wall_rank=wall)
        if routs:  # Dark elementals: an enemy routs
            army = br.momentum_trigger(army, "enemy_routs", round_no=r_no)
    changes[target_id] = bb.diff(s.armies.armies[target_id], br.cap_momentum(target))
    for ally_id in foes if h.armor_broken else []:  # the target's allies: Mountain Dwarves (P-BAT-7)
        if ally_id != target_id:
            ally = s.armies.armies[ally_id]
            gained = bb.diff(ally, br.ally_momentum(ally, h))
            if gained:
                changes[ally_id] = gained
    return army, hit, routs


def check_choices(
    state: GameState,
    b: dict[str, Any],
    army_id: str,
    command: str,
    options: Any,
    damage: Any,
    allocation: Any,
    restore: Any,
    pass_to: Any,
) -> dict[str, Any]:
    """The commanding player's choices, checked before anything is recorded (P-BAT-2, -3, -5, -6, -7)."""
    army = state.armies.armies[army_id]
    attacks = command in ("slay", "charge")
    opts = list(dict.fromkeys(options or []))
    if not all(isinstance(o, str) for o in opts):
        raise RuleViolation("attack options are names", rule="P-BAT-2", field="options")
    if opts and not attacks:
        raise RuleViolation("attack options go with an attack (slay, charge)", rule="P-BAT-2", field="options")
    for o in opts:
        if o not in br.ATTACK_OPTIONS:
            raise RuleViolation(
                f"an attack option is one of {', '.join(br.ATTACK_OPTIONS)}", rule="P-BAT-2", field="options"
            )
        if not br.has(army, o):
            raise RuleViolation(f"{army['name']} is not {o.title()}", rule="P-BAT-2", field="options")
    if "needler" in opts and "slayer" in opts:
        raise RuleViolation("Slayer conflicts with Needler: choose one", rule="P-BAT-2", field="options")
    if damage is not None:
        allowed = br.damage_types(army, round_no=b["round"], command=command)
        if not attacks or damage not in allowed:
            raise RuleViolation(
                f"{army['name']} deals {', '.join(allowed) or 'untyped damage only'} in this attack",
                rule="P-BAT-5",
                field="damage",
            )
        if damage == "crush" and not (br.has(army, "stampeding") and command == "charge"):
            opts.append("hammers")  # Hammers: "Crush damage for a momentum" ([003:696])
    if allocation is not None:
        if br.allocator(army) != "attacker":
            raise RuleViolation(
                "the defender allocates wounds; an army with Bloodlust chooses ([003:721])",
                rule="P-BAT-6",
                field="allocation",
            )
        if not attacks or not isinstance(allocation, list) or not all(isinstance(i, int) for i in allocation):
            raise RuleViolation("an allocation lists unit indexes of the target", rule="P-BAT-6")
    n = limits.whole_number(restore, "restore", 0, 20, "P-BAT-3")
    if n and not br.has(army, "shieldbearers"):
        raise RuleViolation(f"{army['name']} is not Shieldbearers", rule="P-BAT-3", field="restore")
    side = b["armies"][army_id]["side"]
    if pass_to is not None:
        if not br.has(army, "supports"):
            raise RuleViolation(f"{army['name']} is not Supports", rule="P-BAT-7", field="pass_to")
        if pass_to == army_id or pass_to not in bb.fighting_in(state, b, side):
            raise RuleViolation("momentum passes to an ally on the field", rule="P-BAT-7", field="pass_to")
    spend = n + sum(1 for o in opts if o in ("axes", "hammers")) + (1 if command == "charge" else 0)
    spend += 1 if pass_to is not None else 0
    if spend > int(army.get("momentum", 0)):
        raise RuleViolation(
            f"{army['name']} has {army.get('momentum', 0)} momentum; these choices spend {spend}",
            rule="P-BAT-3",
            field="momentum",
        )
    return {
        "options": sorted(opts),
        "damage": "crush" if "hammers" in opts else damage,
        "allocation": list(allocation) if allocation is not None else None,
        "restore": n,
        "pass_to": pass_to,
    }


def check_order_targets(b: dict[str, Any], cmd: str, target_id: str | None, foes: list[str], goal: str) -> None:
    """An attack names an enemy army on the field (P-BAT-2); a Hold or a Charge, a goal still in play (P-BAT-8)."""
    if cmd in ("slay", "charge"):
        if target_id is None or target_id not in foes:
            raise RuleViolation("attack an enemy army on the field: name the target", rule="P-BAT-2", field="target")
    if cmd in ("hold", "charge") and goal not in b["goals"]:
        raise RuleViolation(f"no goal {goal!r} in this battle", rule="P-BAT-8", field="goal")
    if cmd in ("hold", "charge") and not br.goal_open(b["goals"][goal], b["round"]):
        raise RuleViolation(
            f"{b['goals'][goal].get('name', goal)} is removed in round {b['round']}: a side won it away",
            rule="P-BAT-8",
            field="goal",
        )


def ready_army(
    armies: Mapping[str, dict[str, Any]], army_id: str, cmd: str, choices: dict[str, Any], opts: frozenset[str]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The commanded army before its roll: Shieldbearers restore armor ([003:700]), Supports pass a momentum
    ([003:702]), a Charge and Axes or Hammers spend one ([003:695], [003:696]), a Rest rests. Returns the army
    and the changes to another army (the one passed to)."""
    army = armies[army_id]
    changes: dict[str, dict[str, Any]] = {}
    if choices.get("restore"):  # Shieldbearers ([003:700])
        army = br.restore_armor(army, choices["restore"])
    if choices.get("pass_to"):  # Supports ([003:702])
        army, gained = br.pass_momentum(army, armies[choices["pass_to"]], 1)
        changes[choices["pass_to"]] = bb.diff(armies[choices["pass_to"]], gained)
    if cmd == "charge":
        army = br.spend_momentum(army, 1)
    for o in ("axes", "hammers"):  # each spends a momentum ([003:695], [003:696])
        if o in opts:
            army = br.spend_momentum(army, 1)
    if cmd == "rest":
        army = br.cap_momentum(br.rest(army))
    return army, changes


# ---------------------------------------------------------------------- events


class BattleCommandGiven(BattleEvent):
    battle_id: str
    round: int
    power_id: str
    army_id: str
    command: str
    target: str | None
    goal: str | None
    rolls: list[BattleRoll]
    hit: dict[str, Any] | None
    routs: int
    presence: int
    changes: dict[str, dict[str, Any]]
    by_default: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        b["exhausted"].append(self.army_id)
        b.setdefault("last_power", {})[b["armies"][self.army_id]["side"]] = self.power_id
        if self.power_id not in b["acted"]:
            b["acted"].append(self.power_id)
        if self.target is not None:
            b["attacked"][self.target] = b["attacked"].get(self.target, 0) + 1
            if self.hit and self.hit.get("slain"):
                b.setdefault("kills", []).append([self.army_id, self.target, self.hit["slain"]])
        if self.command == "special" and self.goal is not None:
            b.setdefault("specials", {}).setdefault(self.army_id, []).append(self.goal)
        elif self.goal is not None and self.presence:
            mine = b["presence"].setdefault(self.army_id, {})
            mine[self.goal] = mine.get(self.goal, 0) + self.presence
        bb.apply_changes(s, self.changes)
        bb.advance_rolls(s, self.rolls)
        for aid in self.changes:
            army = s.armies.armies.get(aid)
            if army is not None and ar.size(army) == 0:
                b["presence"].pop(aid, None)  # routed or destroyed: its presence dissipates (P-BAT-8)
