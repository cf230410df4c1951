"""Battles at the end of the Main Phase (A-BAT-1, A-EX-5, H-15): the battle line, capacity and attack, the battles
queued by events and challenges, the wait for every player's "no counter", and each side's allocation of the
damage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from domain.covenants import cards, market, rules, track
from domain.covenants.base import ENEMIES, INVASION_MIGHT, PUBLIC, CovenantEvent, check_taken
from domain.covenants.errors import RuleViolation
from domain.covenants.state import Battle, BattleDue, Card, CovenantState
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def battle_line(game: CovenantGame, seat: str) -> list[Card]:
    """A-BAT-1: the covenant's beings of Mundane Might (the inactive ones receive damage but deal none)."""
    out = []
    for c in game.covenant_cards(seat):
        d = game.house.cards.get(c.name)
        if d is not None and d.animate and d.might_type == "mundane" and d.might > 0:
            out.append(c)
    return out


def capacity(game: CovenantGame, c: Card) -> int:
    """A-BAT-1: a being's Might plus the shields and armour attached to it (A-AMB-22)."""
    bonus = 0
    for x in game.state.cards.values():
        dx = game.house.cards.get(x.name)
        if x.attached_to == c.id and dx is not None and dx.capacity_bonus:
            bonus += max(0, dx.capacity_bonus - x.damage)  # A-DMG-2: -1 per point of damage it took
    return max(0, _might(game, c) + bonus - c.damage)  # A-AMB-22: less the damage taken


def _might(game: CovenantGame, c: Card) -> int:
    """A being's Mundane Might, with what spells in effect add to it (A-EX-5)."""
    boost = sum(e.get("might", 0) for e in game.state.effects if e.get("target") == c.id)
    return game.house.cards[c.name].might + boost


def attack(game: CovenantGame, beings: list[Card]) -> int:
    weapons: dict[str, int] = {}
    for x in game.state.cards.values():
        dx = game.house.cards.get(x.name)
        if x.attached_to is not None and dx is not None and dx.weapon_bonus:  # A-DMG-2: less its damage
            weapons[x.attached_to] = weapons.get(x.attached_to, 0) + max(0, dx.weapon_bonus - x.damage)
    return rules.attack_total(
        [{"might": _might(game, c), "active": c.active, "weapon": weapons.get(c.id, 0)} for c in beings]
    )


def event_battles(game: CovenantGame) -> list[BattleDue]:
    """Battles the events in play cause this Main Phase: an Armed Invasion fights every covenant, from the
    starting player ([000:699]), until it retreats; an Army of Skeletons its target ([000:727]); the house
    Winter of Wolves every covenant. A.1.4: only the first Main Phase after the event was played."""
    s = game.state
    order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
    out: list[BattleDue] = []
    for name in s.events_in_play:
        ev = game.house.events.get(name)
        if name not in ENEMIES or ev is None or ev.might_type != "mundane" or s.fought.get(name) == s.seasons_begun:
            continue
        if (name == "Armed Invasion" and s.invasion.get("retreated")) or name in s.defeated:
            continue
        targets = order
        if ev.kind == "directed":
            targets = [e["target"] for e in s.effects if e.get("event") and e.get("spell") == name]
        targets = [p for p in targets if not game.out_of_play(p)]
        if name == "Riots":  # [000:779] the Town "unrotates at the beginning of the next season and engages in
            # battle again"
            targets = [p for p in targets if town_of(game, p) is not None]
        slug = name.lower().replace(" ", "-")
        out += [{"id": f"{slug}-{s.seasons_begun}-{p}", "a": p, "b": name, "cause": name} for p in targets]
    return out


def queue_event_battles(game: CovenantGame) -> None:
    battles = event_battles(game)
    if battles:
        game.trigger_event(game.BattlesQueued, battles=battles, actor=SYSTEM, audience=PUBLIC)


class BattlesQueued(CovenantEvent):
    battles: list[BattleDue]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.battles = [*s.battles, *[b.copy() for b in self.battles]]
        for b in self.battles:
            s.fought[b["cause"]] = s.seasons_begun


def town_of(game: CovenantGame, seat: str) -> Card | None:
    return next((c for c in game.covenant_cards(seat) if c.kind == "town"), None)


class Side(TypedDict):
    """A side of a battle: what it deals, and its beings that take what the other deals."""

    deals: int
    beings: list[str]


class Riot(TypedDict, total=False):
    """The Riots' Town after a battle: its card, its damage so far, and what that damage did (A-EVT-4)."""

    town: str
    damage: int
    outcome: str


def _side(game: CovenantGame, side: str) -> Side:
    """What a side of a battle deals and who allocates what it takes (A-BAT-1: the sum of the Might of its
    active beings and their weapons; an event's Might, less what it lost)."""
    if side in game.state.powers:
        line = battle_line(game, side)
        return {"deals": attack(game, line), "beings": [c.id for c in line]}
    ev = game.house.events.get(side)
    might = ev.might if ev is not None else 0
    if side == "Armed Invasion":  # [000:701] "The Might of this card is reduced by any damage it receives."
        might = INVASION_MIGHT - game.state.invasion.get("damage", 0)
    return {"deals": max(0, might), "beings": []}


def next_battle(game: CovenantGame) -> None:
    """Begin the next battle due (both sides' damage fixed as they clash), or leave the battle phase."""
    s = game.state
    while s.battles:
        b = s.battles[0]
        if b["b"] == "Armed Invasion" and s.invasion.get("retreated"):
            game.trigger_event(game.BattleSkipped, battle_id=b["id"], actor=SYSTEM, audience=PUBLIC)
            continue
        boosts = _open_boosts(game)
        if boosts:  # A-EX-5, H-15: the battle waits until every player confirms "no counter"
            order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
            game.trigger_event(
                game.BattleDeferred, battle_id=b["id"], spells=boosts, awaiting=order, actor=SYSTEM, audience=PUBLIC
            )
            return
        a, o = _side(game, b["a"]), _side(game, b["b"])
        dealt = {b["a"]: a["deals"], b["b"]: o["deals"]}
        # who must allocate: a covenant that takes damage and has beings to take it
        takes = {b["b"]: a["deals"], b["a"]: o["deals"]}
        toll = ENEMIES.get(b["b"]) is not None  # a covenant facing an enemy it may pay off answers it
        allocating = [x for x in (b["a"], b["b"]) if x in s.powers and ((takes[x] and battle_line(game, x)) or toll)]
        game.trigger_event(
            game.BattleBegan,
            battle_id=b["id"],
            a=b["a"],
            b=b["b"],
            cause=b["cause"],
            dealt=dealt,
            allocating=allocating,
            actor=SYSTEM,
            audience=PUBLIC,
        )
        if allocating:
            return
        _resolve_battle(game)
    track.advance_from(game, "battle")


def _open_boosts(game: CovenantGame) -> list[str]:
    """Spells of this Main Phase that raise a being's Might and may still be countered (A-EX-5)."""
    s = game.state
    fought = {x for e in s.boosted_battles for x in e["spells"]}
    return [
        x["id"]
        for x in s.spells_cast
        if game.house.spells[x["spell"]].might_per_pawn and x["id"] not in s.closed_spells and x["id"] not in fought
    ]


class BattleDeferred(CovenantEvent):
    battle_id: str
    spells: list[str]
    awaiting: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.deferred = {"battle": self.battle_id, "spells": list(self.spells)}
        s.turn = list(self.awaiting)


def confirm_no_counter(game: CovenantGame, seat: str, *, silent: bool = False) -> None:
    """H-15 [000:111] "all players agree that the spell can fully take effect": a player confirms he will not
    counter the spells the deferred battle waits on; when all have, the battle is fought (A-AMB-15). Silence
    (``silent``: the deadline, or the host, closed the turn) is no agreement: the battle is fought all the same,
    and a counter later in the phase undoes it (A-EX-5)."""
    s = game.state
    if s.phase != "battle" or s.deferred is None:
        raise RuleViolation("no battle waits for a counter", rule="H-15")
    if seat not in s.turn:
        raise RuleViolation("you have confirmed already", rule="H-15")
    game.trigger_event(game.CounterWaived, seat=seat, actor=SYSTEM if silent else seat, audience=PUBLIC, silent=silent)
    if not s.turn:
        next_battle(game)


class CounterWaived(CovenantEvent):
    seat: str
    actor: str
    audience: list[str]
    silent: bool = False

    def evolve(self, s: CovenantState) -> None:
        s.turn = [p for p in s.turn if p != self.seat]
        if s.deferred is not None:
            key: Literal["silent", "agreed"] = "silent" if self.silent else "agreed"
            s.deferred[key] = [*s.deferred.get(key, []), self.seat]
        if not s.turn and s.deferred is not None:
            if s.deferred.get("silent"):  # A-EX-5: fought before everyone agreed; still counterable this phase
                d = s.deferred
                s.boosted_battles = [
                    *s.boosted_battles,
                    {"battle": d["battle"], "spells": list(d["spells"]), "agreed": d.get("agreed", [])},
                ]
            else:
                s.closed_spells = [*s.closed_spells, *s.deferred["spells"]]
            s.deferred = None


class BattleSkipped(CovenantEvent):
    battle_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.battles = [b for b in s.battles if b["id"] != self.battle_id]


class BattleBegan(CovenantEvent):
    battle_id: str
    a: str
    b: str
    cause: str
    dealt: dict[str, int]
    allocating: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.battles = [x for x in s.battles if x["id"] != self.battle_id]
        s.battle = {
            "id": self.battle_id,
            "a": self.a,
            "b": self.b,
            "cause": self.cause,
            "dealt": dict(self.dealt),
            "allocated": {},
        }
        s.turn = list(self.allocating)


def damage_to_allocate(game: CovenantGame, seat: str) -> int:
    """The damage the seat's covenant takes in the battle being fought."""
    bt = game.state.battle
    if bt is None or seat not in (bt["a"], bt["b"]):
        return 0
    other = bt["b"] if seat == bt["a"] else bt["a"]
    return int(bt["dealt"][other])


def allocate_damage(game: CovenantGame, seat: str, allocation: dict[str, int], pay_off: bool = False) -> dict[str, Any]:
    """H-6 "Each player decides which beings receive damage": the damage the other side deals, capacity first
    (A-BAT-1; A-AMB-22: the receiving side assigns the surplus). ``pay_off``: pay an enemy that takes a toll
    instead of fighting it (H-11)."""
    game.require_turn(seat, "battle")
    bt = game.state.battle
    if bt is None or game.state.deferred is not None:
        raise RuleViolation("the battle waits until every player confirms no counter", rule="H-15")
    if pay_off:
        toll = ENEMIES.get(bt["b"] if bt["a"] == seat else bt["a"])
        if toll is None:
            raise RuleViolation("this battle cannot be paid off", rule="A-EVT-4", field="pay_off")
        what, amount = toll
        if market.owned(game, seat, what) < amount:  # what it owns this season, as a conversion or trade (A-ECON-1)
            raise RuleViolation(f"paying it off takes {amount} {what}", rule="A-EVT-4", field="pay_off")
        game.trigger_event(
            game.TollPaid, battle_id=bt["id"], seat=seat, what=what, amount=amount, actor=seat, audience=PUBLIC
        )
        next_battle(game)
        return {"battle_id": bt["id"], "paid": {what: amount}}
    damage = damage_to_allocate(game, seat)
    capacities = {c.id: capacity(game, c) for c in battle_line(game, seat)}
    alloc = {k: int(v) for k, v in allocation.items() if v}
    if any(v < 0 for v in alloc.values()):
        raise RuleViolation("damage is a whole number of points", rule="A-BAT-1", field="allocation")
    check_taken(damage, capacities, alloc)
    game.trigger_event(
        game.DamageAllocated, battle_id=bt["id"], seat=seat, allocation=alloc, actor=seat, audience=PUBLIC
    )
    if not game.state.turn:
        _resolve_battle(game)
        next_battle(game)
    return {"battle_id": bt["id"], "taken": alloc}


class TollPaid(CovenantEvent):
    battle_id: str
    seat: str
    what: str
    amount: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        p = s.powers[self.seat]
        setattr(p, self.what, getattr(p, self.what) - self.amount)
        s.battle, s.turn = None, []


class DamageAllocated(CovenantEvent):
    battle_id: str
    seat: str
    allocation: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        assert s.battle is not None
        s.battle["allocated"][self.seat] = dict(self.allocation)
        if s.turn and s.turn[0] == self.seat:
            s.turn.pop(0)


def default_allocation(game: CovenantGame, seat: str, damage: int) -> dict[str, int]:
    """Silence at a battle (H-9): the damage fills each being to capacity in card order; the surplus goes to
    the first."""
    left, alloc = damage, {}
    beings = battle_line(game, seat)
    for c in beings:
        alloc[c.id] = min(left, capacity(game, c))
        left -= alloc[c.id]
    if beings and left:
        alloc[beings[0].id] += left
    return alloc


def _resolve_battle(game: CovenantGame) -> None:
    """Both sides' damage lands at once; a covenant that damaged another is marked (A-AGG-1 [000:98], A-EX-7:
    "Any covenant that does damage to another becomes liable for a Quaesitor Investigation")."""
    s = game.state
    bt = s.battle
    assert bt is not None
    marked = []
    for seat, other in ((bt["a"], bt["b"]), (bt["b"], bt["a"])):
        if seat in s.powers and other in s.powers and bt["allocated"].get(other):
            marked.append(seat)
    event_damage = bt["dealt"][bt["a"]] if bt["b"] == "Armed Invasion" else 0
    retreated = bool(event_damage) and s.invasion.get("damage", 0) + event_damage >= INVASION_MIGHT
    enemy = game.house.events.get(bt["b"]) if bt["b"] in ENEMIES and bt["b"] != "Armed Invasion" else None
    # [000:729] the Skeletons "receive damage equal to or exceeding their mundane might, they disappear"
    defeated = [bt["b"]] if enemy is not None and bt["dealt"][bt["a"]] >= enemy.might else []
    riot: Riot = {}
    town = town_of(game, bt["a"]) if bt["b"] == "Riots" else None
    if town is not None:  # A-EVT-4 [000:781] with A-AMB-13: the Town's damage, kept from battle to battle
        total = town.damage + bt["dealt"][bt["a"]]
        riot = {"town": town.id, "damage": total, "outcome": rules.riots_outcome(total)}
        defeated = ["Riots"] if riot["outcome"] != "town_inactive" else []
    game.trigger_event(
        game.BattleResolved,
        battle_id=bt["id"],
        marked=marked,
        event_damage=event_damage,
        retreated=retreated,
        actor=SYSTEM,
        audience=PUBLIC,
        defeated=defeated,
        riot=riot,
    )
    if riot.get("outcome") == "town_discarded":
        game.trigger_event(
            game.CardDiscarded, card_id=riot["town"], reason="burnt in the Riots", actor=SYSTEM, audience=PUBLIC
        )
    for seat, alloc in bt["allocated"].items():
        for card_id, amount in alloc.items():
            if amount and card_id in s.cards:
                cards.damage(game, card_id, amount, seat)


class BattleResolved(CovenantEvent):
    battle_id: str
    marked: list[str]
    event_damage: int
    retreated: bool
    actor: str
    audience: list[str]
    defeated: list[str] | None = None
    riot: Riot | None = None

    def evolve(self, s: CovenantState) -> None:
        bt = cast(Battle, s.battle or {})
        for e in s.boosted_battles:  # what a counter later in the phase undoes (A-EX-5)
            if e["battle"] == self.battle_id:
                cards = [c for alloc in bt["allocated"].values() for c in alloc if c in s.cards]
                e["before"] = {c: [s.cards[c].damage, s.cards[c].active] for c in cards}
                e["defeated"] = self.defeated or []
                e["event_damage"] = self.event_damage
                e["record"] = {"id": bt["id"], "a": bt["a"], "b": bt["b"], "cause": bt["cause"]}
                if self.riot and self.riot["town"] in s.cards:  # the Riots' Town as it was before this battle
                    town = s.cards[self.riot["town"]]
                    e["town"] = [town.id, town.damage, town.active, town.inactive_until]
        s.defeated = [*s.defeated, *(self.defeated or [])]
        if self.riot:  # "If the Town received less than 4 points damage, it is made inactive (rotated) and does not
            # produce provision points this season"; 4 to 8: "the Town reverts back to normal"
            town = s.cards[self.riot["town"]]
            if self.riot["outcome"] == "town_inactive":
                town.damage, town.active, town.inactive_until = (
                    self.riot["damage"],
                    False,
                    rules.SEASONS[(s.season + 1) % 4],
                )
            elif self.riot["outcome"] == "event_ends":
                town.damage, town.active, town.inactive_until = 0, True, None
        for seat in self.marked:
            s.powers[seat].marked = True
            s.powers[seat].damaged_another = True  # A-AMB-19
        if self.event_damage:  # [000:701] "The Might of this card is reduced by any damage it receives."
            s.invasion = {**s.invasion, "damage": s.invasion.get("damage", 0) + self.event_damage}
        if self.retreated:
            s.invasion["retreated"] = True
        s.battle = None
