"""Security property: in randomly generated Powers games, no player's view, feed, event list, past
views, receipts or error messages ever carry what that player may not see (P.4).

The model of who may see what is written here from the rules, independently of the implementation:
every secret is a unique marker string, and ``allowed[marker]`` is the set of powers that may see it,
which only ever grows (what was seen cannot be unseen, even by a rollback). ``test_the_checker_catches_
a_planted_leak`` shows the checker fails when the implementation leaks.

Hashes are checked too: a digest or commitment a player sees must not let them confirm what it
covers by trying the few values it could be. For every sha256 a player was shown, the checker tries
every dice roll and set of conversions of every action whose dice the player may not see (giving
the attacker everything else about the action, and every salt or nonce the player holds), every
difficulty from 0 to 50 under every nonce the player holds, and every 64-hex string the player holds
as a month seed; and it recomputes every receipt digest from the player's own events, so that a
receipt commits to nothing the player may not see.

Dice: no player is ever shown a month seed (no ``SeedRevealed`` event, no string equal to a seed
of the game: the seed goes to the GM alone) nor the key of a roll whose dice it may not see, so
nothing lets it recompute a hidden roll.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from application.service import Caller, Games
from domain.dice import commitment, seal_difficulty
from domain.errors import DomainError
from domain.platform.verify import verify_export
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import game as powers_game
from domain.powers import magic, views
from domain.powers.catalogue_commands import RecordLocation, SetAssetTerms, SubmitDuel
from projections.db import ReadModelDB
from projections.projector import Projector
from projections.settings import Settings
from tests.helpers import add_power

WORLD_HEXES = ["0,0", "1,0", "0,1"]
CLASSES = [
    ("champion", "wizard"),
    ("conspiracy", "circle"),
    ("city", "overlord"),
    ("champion", "dragon"),
    ("conspiracy", "cause"),
]

act = st.tuples(
    st.just("act"), st.integers(0, 3), st.booleans(), st.booleans(), st.integers(0, 3), st.booleans(), st.booleans()
)
consequence = st.tuples(st.just("consequence"), st.integers(0, 30), st.integers(0, 3))
react = st.tuples(st.just("react"), st.integers(0, 3), st.integers(0, 30))
probe = st.tuples(st.just("probe"), st.integers(0, 3), st.integers(0, 30))
# The world (domain.powers.world): hidden features with marker names, what a power learns, and influence.
world_op = st.one_of(
    st.tuples(st.just("feature"), st.integers(0, 3), st.booleans(), st.sampled_from(["outpost", "stronghold"])),
    st.tuples(st.just("learn"), st.integers(0, 30), st.integers(0, 3)),
    st.tuples(st.just("influence"), st.integers(0, 3), st.sampled_from(WORLD_HEXES), st.integers(0, 3)),
)
# Wallets, trades and ambitions (domain/powers/development.py): their reasons, notes and tasks are markers.
development_op = st.one_of(
    st.tuples(st.just("wallet"), st.integers(0, 3)),
    st.tuples(st.just("trade"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("ambition"), st.integers(0, 3)),
    st.tuples(st.just("reveal"), st.integers(0, 3)),
)
# Armies (domain/powers/armies.py): a Stealthy army and its Experience are its controller's (P.4 [003:326]).
army_op = st.tuples(st.just("army"), st.integers(0, 3), st.booleans())
# Battles (domain/powers/battle.py): a power declares against another in the month's Battle step, perhaps
# revealing an Experience asset to the GM (P.4: "Assets revealed in secret in a battle" are the GM's); the armies
# that fight are seen by both sides (the battlemap); every step closes at the GM's hand with its default.
battle_op = st.tuples(st.just("battle"), st.integers(0, 3), st.integers(0, 3), st.booleans())
planning_op = st.one_of(
    world_op,
    army_op,
    army_op,
    battle_op,
    act,
    act,
    act,
    consequence,
    probe,
    st.tuples(st.just("share"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("grant"), st.integers(0, 3)),
    st.tuples(st.just("catalogue"), st.integers(0, 3), st.integers(0, 3), st.booleans(), st.booleans()),
    st.tuples(st.just("magic"), st.integers(0, 3)),
    development_op,
)
resistance_op = st.one_of(
    react, react, probe, st.tuples(st.just("waive"), st.integers(0, 3)), st.tuples(st.just("grant"), st.integers(0, 3))
)
# A month: Planning moves, then Resolution, Resistance moves, the window closing, Battle, and
# sometimes a rollback to an earlier phase.
month = st.tuples(
    st.lists(planning_op, min_size=1, max_size=12),
    st.lists(resistance_op, max_size=6),
    st.one_of(st.none(), st.integers(0, 10)),
)


def as_ops(months: list) -> list[tuple]:
    ops: list[tuple] = []
    for planning, resistance, rollback in months:
        ops += [*planning, ("advance",), ("resolve",), *resistance, ("close",), ("advance",)]
        if rollback is not None:
            ops.append(("rollback", rollback))
    return ops


class Leak(AssertionError):
    """A player was shown a marker they may not see."""


HEX = re.compile(r"^[0-9a-f]{32}$|^[0-9a-f]{64}$")
ABSENT = object()


def _walk(obj):
    yield obj
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v)


def _sha(data) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


def _rolls(max_dice: int):
    """Every (faces, conversions) of up to ``max_dice`` six-sided dice."""
    for n in range(max_dice + 1):
        for faces in itertools.product(range(1, 7), repeat=n):
            threes = [i for i, f in enumerate(faces) if f in (3, 4)]
            for k in range(len(threes) + 1):
                for converted in itertools.combinations(threes, k):
                    yield list(faces), list(converted)


class World:
    """A game driven through the service, with the rules' model of who may see each marker."""

    def __init__(self, n_powers: int) -> None:
        self.games = Games()
        self.projector = Projector(self.games, ReadModelDB(Settings(database_url="memory")))
        self.game_id, _, _ = self.games.create_game("Property", "GM")
        self.powers: list[str] = []
        self.allowed: dict[str, set[str]] = defaultdict(set)
        self.shown: dict[str, list[str]] = defaultdict(list)  # receipts and errors each power was given
        self.actions: list[dict] = []
        self.counter = itertools.count()
        self.might: dict[str, str] = {}
        self.dice_allowed: dict[str, set[str]] = defaultdict(set)  # action id -> who may see its dice
        self.truth: dict[str, dict] = {}  # what a digest covers besides dice and salt, as the GM saw it
        self._digests: dict[tuple, set[str]] = {}
        self.features: list[tuple[str, str]] = []
        self.influence_allowed: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.ambitions: list[tuple[str, str, str]] = []
        self.wallets: dict[str, set[tuple]] = defaultdict(set)  # every wallet each power held, as the GM saw it
        self.army_names: dict[str, str] = {}
        self.battles_due: list[tuple] = []  # battle ops of this month, fought in its Battle step
        for i in range(n_powers):
            cls, sub = CLASSES[i]
            pid = add_power(self.games, self.game_id, "gm", f"P{i}", cls, sub)[0]
            self.powers.append(pid)
            secret = f"SS{next(self.counter)}X"
            aid = self.games.send(self.game_id, "gm", pc.GrantAsset(pid, secret, "secret", 1)).result["asset_id"]
            self.might[pid] = self.games.send(self.game_id, "gm", pc.GrantAsset(pid, "might", "skill", 2)).result[
                "asset_id"
            ]
            self.allowed[secret] = {pid}
            self.allowed[aid] = {pid}  # asset ids embed the name
        self.games.send(self.game_id, "gm", pc.Advance())
        self.games.send(self.game_id, "gm", pc.Advance())
        self.follow_the_wallets()

    def mark(self, prefix: str, who: set[str]) -> str:
        marker = f"{prefix}{next(self.counter)}X"
        self.allowed[marker] |= who
        return marker

    def record(self, power: str, thing) -> None:
        self.shown[power].append(json.dumps(thing, default=str))

    def apply(self, o: tuple) -> None:
        g, gid, P = self.games, self.game_id, self.powers
        kind = o[0]
        try:
            if kind == "act":
                _, who, public, resistible, target, sealed, collab = o
                me = P[who % len(P)]
                other = P[target % len(P)]
                collaborators = [other] if collab and other != me else []
                circle = {me, *collaborators}
                title = self.mark("TT", circle)
                desc = self.mark("DD", circle)
                r = g.send(
                    gid,
                    me,
                    pc.SubmitAction(
                        me,
                        title=title,
                        description=desc,
                        slot="public" if public else "private",
                        targets=[other] if other != me else [],
                        resistible=resistible,
                        collaborators=collaborators,
                        roll=not sealed,
                        convert=1,
                        skill="might",
                        assets=[] if sealed else [{"asset_id": self.might[me]}],
                    ),
                )
                self.record(me, r.as_dict())
                info = {
                    "id": r.result["action_id"],
                    "owner": me,
                    "title": title,
                    "desc": desc,
                    "circle": circle,
                    "public": public,
                    "resistible": resistible and other != me,
                    "target": other,
                    "nonce": None,
                }
                self.actions.append(info)
                self.dice_allowed[info["id"]] |= circle
                if sealed:
                    g.send(gid, "gm", pc.SetDifficulty(info["id"], 2, sealed=True))
                    nonce = [e for e in g.visible_events(gid, "gm") if e["type"] == "DifficultyRecorded"][-1]
                    self.allowed[nonce["data"]["nonce"]] = set()
                    info["nonce"] = nonce["data"]["nonce"]
                    self.record(me, g.send(gid, me, pc.RollAction(info["id"], assets=[], convert=0)).as_dict())
            elif kind == "consequence" and self.actions:
                a = self.actions[o[1] % len(self.actions)]
                to = P[o[2] % len(P)]
                text = self.mark("CQ", a["circle"])
                disclosed = self.mark("DC", a["circle"] | {to})
                cid = g.send(
                    gid, "gm", pc.ProposeConsequence(a["id"], text, [{"kind": "disclose", "to": to, "text": disclosed}])
                ).result["consequence_id"]
                self.record(a["owner"], g.send(gid, a["owner"], pc.AcceptConsequence(a["id"], cid)).as_dict())
            elif kind == "share":
                owner, to = P[o[1] % len(P)], P[o[2] % len(P)]
                view = g.view(gid, owner)["me"]["assets"]
                secrets = [x for x in view if x["cls"] == "secret"]
                if secrets:
                    s = secrets[0]
                    self.record(owner, g.send(gid, owner, pc.ShareSecret(owner, s["asset_id"], to)).as_dict())
                    self.allowed[s["name"]].add(to)
                    self.allowed[s["asset_id"]].add(to)
            elif kind == "catalogue":
                self.catalogue(*o[1:])
            elif kind == "grant":
                to = P[o[1] % len(P)]
                g.grant_visibility(gid, "gm", to, self.mark("GR", {to}), source="seeking")
            elif kind == "magic":
                # P.4: a power's spells, conduits and mana are its own (and the GM's).
                me, gm = P[o[1] % len(P)], Caller.of("gm")
                spell = f"spell{next(self.counter)}"
                g.run(gm, gid, magic.DefineSpell(spell, self.mark("MG", {me}), "fast", "F", for_power=me))
                g.run(gm, gid, magic.TeachSpell(me, spell))
                through = g.run(gm, gid, magic.SetConduit(me, self.mark("MC", {me}), "0,0")).result["conduit_id"]
                g.run(gm, gid, magic.GrantMana(me, "F", 1))
                mine = [a["id"] for a in self.actions if a["owner"] == me]
                cast = magic.CastSpell(me, spell, through, action_id=mine[-1] if mine else None, pay=["F"])
                self.record(me, g.run(Caller.of(me), gid, cast).as_dict())
            elif kind == "probe" and self.actions:
                me = P[o[1] % len(P)]
                a = self.actions[o[2] % len(self.actions)]
                for probe in (
                    lambda: g.send(gid, me, pc.DiscardAction(a["id"])),
                    lambda: g.send(gid, me, pc.LockConversions(a["id"], convert=0)),
                    lambda: g.send(gid, me, pc.DeclareReaction(me, a["id"], [])),
                ):
                    try:
                        self.record(me, probe().as_dict())
                    except DomainError as err:
                        self.record(me, err.as_dict())
            elif kind in ("feature", "learn", "influence"):
                self.apply_world(o)
            elif kind in ("wallet", "trade", "ambition", "reveal"):
                self.develop(o)
            elif kind == "army":
                self.apply_army(o)
            elif kind == "battle":
                self.battles_due.append(o)
            elif kind == "advance":
                g.send(gid, "gm", pc.Advance())
            elif kind == "resolve":
                g.send(gid, "gm", pc.Resolve(announcement=""))
            elif kind == "react" and self.actions:
                me = P[o[1] % len(P)]
                a = self.actions[o[2] % len(self.actions)]
                self.record(me, g.send(gid, me, pc.DeclareReaction(me, a["id"], [])).as_dict())
            elif kind == "waive":
                me = P[o[1] % len(P)]
                self.record(me, g.send(gid, me, pc.WaiveReactions(me)).as_dict())
            elif kind == "close":
                for w in g.view(gid, "gm")["windows"]:
                    if not w["closed"]:
                        g.close_window(gid, "gm", w["window_id"])
                self.fight()
            elif kind == "rollback":
                phases = [p for p in g.phases(gid) if p["phase"] != "setup"]
                if phases:
                    p = phases[o[1] % len(phases)]
                    g.rollback(gid, "gm", "property test", version=p["version"])
                    self.actions = [
                        a
                        for a in self.actions
                        if a["id"] in g.view(gid, "gm").get("queue", [])
                        or any(x["action_id"] == a["id"] for x in g.view(gid, "gm")["actions"])
                    ]
        except DomainError:
            pass
        self.follow_the_month()
        self.follow_the_influence()

    def apply_world(self, o: tuple) -> None:
        """A world step: the GM adds a feature (its name, and a stronghold's protection, are markers), shows a
        hidden feature to a power, or sets a power's influence (P.4)."""
        from application.service import Caller
        from domain.powers import world

        g, gid, P, gm = self.games, self.game_id, self.powers, Caller.of("gm")
        if o[0] == "feature":
            _, who, public, kind = o
            owner = P[who % len(P)]
            fid = f"f{next(self.counter)}"
            name = self.mark("FE", set(P) if public or kind == "stronghold" else {owner})
            secret = self.mark("PR", {owner})  # what protects a stronghold is its owner's alone
            hexes = [{"hex": h} for h in WORLD_HEXES]
            feature = {"id": fid, "kind": kind, "name": name, "hex": "1,0", "controller": owner, "public": public}
            feature |= {"protection": secret} if kind == "stronghold" else {}
            g.run(gm, gid, world.AmendMap(hexes=hexes, features=[feature]))
            self.features.append((fid, name))
        elif o[0] == "learn" and self.features:
            fid, name = self.features[o[1] % len(self.features)]
            to = P[o[2] % len(P)]
            g.run(gm, gid, world.RevealFeature(fid, to))
            self.allowed[name].add(to)
        elif o[0] == "influence":
            _, who, hex_, amount = o
            g.send(gid, "gm", pc.SetInfluence(P[who % len(P)], hex_, amount))

    def apply_army(self, o: tuple) -> None:
        """The GM places an army (its name a marker: public if visible, its controller's if Stealthy) and gives it
        Experience (an asset, its controller's)."""
        from domain.powers import armies, world

        g, gid, gm, (_, who, stealthy) = self.games, self.game_id, Caller.of("gm"), o
        owner = self.powers[who % len(self.powers)]
        army_id = self.mark("AR", {owner} if stealthy else set(self.powers))
        block = {k: {"die": 4, "bonus": 0} for k in ("attack", "morale", "presence")}
        block |= {"defense": 3, "keywords": ["stealthy"] if stealthy else [], "cls": "levy"}
        g.run(gm, gid, world.AmendMap(hexes=[{"hex": h} for h in WORLD_HEXES]))
        name = self.mark("AN", self.allowed[army_id])
        self.army_names[army_id] = name
        g.run(gm, gid, armies.PlaceArmy(army_id, name, "0,1", 3, owner, block=block))
        g.run(gm, gid, armies.GrantExperience(army_id, 1))
        for n in (1, 2, 3):  # its Experience, and what battles add, are its controller's
            self.allowed[f"{army_id}.xp{n}"] = {owner}

    def fight(self) -> None:
        """The month's battles (domain.powers.battle), in its Battle step: a power declares against another where
        both have armies; it may reveal an Experience asset to the GM at setup; the GM closes every step, so the
        battle's defaults play it to its end. The armies in the battle are seen by both its powers from then on."""
        from domain.powers import battle

        g, gid, P = self.games, self.game_id, self.powers
        due, self.battles_due = self.battles_due, []
        for _, a, b, reveal in due:
            me, enemy = P[a % len(P)], P[b % len(P)]
            if me == enemy or g.view(gid, "gm")["game"]["step"] != "battle":
                continue
            there = [x for x in g.view(gid, "gm")["armies"]["armies"] if x["hex"] == "0,1"]
            bid = f"bt{next(self.counter)}"
            try:
                r = g.run(Caller.of(me), gid, battle.DeclareBattle(bid, "0,1", me, [enemy]))
            except DomainError as err:
                self.record(me, err.as_dict())
                continue
            self.record(me, r.as_dict())
            for x in there:
                if x["controller"] in (me, enemy):
                    for marker in (x["army_id"], self.army_names.get(x["army_id"])):
                        if marker:
                            self.allowed[marker] |= {me, enemy}
            mine = [x for x in there if x["controller"] == me]
            xp = [e["asset_id"] for x in mine for e in x["experience"] if not e["used_up"]]
            if reveal and xp:
                setup = battle.SubmitBattleSetup(bid, me, armies=[x["army_id"] for x in mine], assets=xp[:1])
                self.record(me, g.run(Caller.of(me), gid, setup).as_dict())
            for _ in range(200):
                view = g.view(gid, "gm")
                fight = [x for x in view["battles"] if x["battle_id"] == bid][0]
                if fight["step"] == "ended":
                    break
                g.close_window(gid, "gm", fight["window"])

    def follow_the_influence(self) -> None:
        """P.4: a conspiracy may see another's influence in a hex while both have influence there (what it saw
        stays seen); Incorruptible aside, nobody else sees it. Read from the GM's board, the game's truth."""
        sheets = self.games.view(self.game_id, "gm").get("sheets", [])
        conspiracies = [x for x in sheets if x["cls"] == "conspiracy"]
        for a in conspiracies:
            for b in conspiracies:
                for h in set(a["influence"]) & set(b["influence"]):
                    self.influence_allowed[(a["power_id"], h)].add(b["power_id"])

    def check_influence(self, p: str, surfaces: list) -> None:
        """No surface of ``p`` shows another power's influence in a hex where P.4 hides it from ``p``."""
        seen = []
        for x in _walk(surfaces):
            if not isinstance(x, dict):
                continue
            if x.get("type") == "InfluenceSet" and isinstance(x.get("data"), dict):
                seen.append((x["data"]["power_id"], x["data"]["hex_id"]))
            elif x.get("type") == "InfluenceDisclosed" and isinstance(x.get("data"), dict):
                seen += [(q, x["data"]["hex_id"]) for q in x["data"]["entries"]]
            elif set(x) == {"power", "hex", "amount"}:
                seen.append((x["power"], x["hex"]))
        for q, h in seen:
            if q != p and p not in self.influence_allowed[(q, h)]:
                raise Leak(f"{p} was shown {q}'s influence in {h}")

    def catalogue(self, who: int, target: int, public: bool, right_place: bool) -> None:
        """Class catalogue (domain.powers.catalogue): a private army's terms, and a duel whose target's true
        place only the GM knows (P-ACT-6)."""
        g, gid, P = self.games, self.game_id, self.powers
        me, other = P[who % len(P)], P[target % len(P)]
        army = self.mark("AR", {me})
        aid = g.send(gid, "gm", pc.GrantAsset(me, army, "army", 1)).result["asset_id"]
        self.allowed[aid] = {me}
        g.run(Caller.of("gm"), gid, SetAssetTerms(aid, {"profession": self.mark("PR", {me}), "hex": "0,0"}))
        if other == me:
            return
        g.run(Caller.of("gm"), gid, RecordLocation(other, "0,0"))
        title, desc = self.mark("TT", {me}), self.mark("DD", {me})
        duel = SubmitDuel(
            me,
            other,
            "0,0" if right_place else "1,0",
            title=title,
            description=desc,
            slot="public" if public else "private",
        )
        r = g.run(Caller.of(me), gid, duel)
        self.record(me, r.as_dict())
        info = {"id": r.result["action_id"], "owner": me, "title": title, "desc": desc, "circle": {me}}
        self.actions.append({**info, "public": public, "resistible": True, "target": other, "nonce": None})
        self.dice_allowed[info["id"]] |= {me}

    def develop(self, o: tuple) -> None:
        """A wallet's ledger and a trade are their powers' (and the GM's); an ambition's name is public once
        taken, its tasks its power's, a ❓ task nobody's until the task before it is done (P.4)."""
        g, gid, P, gm = self.games, self.game_id, self.powers, Caller.of("gm")
        me = P[o[1] % len(P)]
        if o[0] == "wallet":
            # A different insight per power keeps one power's wallet from looking like another's.
            changes = {"coin": 1000, "insight": P.index(me) + 1}
            g.run(gm, gid, dev.AdjustResources(me, changes, self.mark("WL", {me})))
        elif o[0] == "trade":
            other = P[o[2] % len(P)]
            note = self.mark("TR", {me, other})
            trade = g.run(Caller.of(me), gid, dev.ProposeTrade(me, other, want={"coin": 1}, note=note))
            self.record(me, trade.as_dict())
            self.record(other, g.run(Caller.of(other), gid, dev.AcceptTrade(other, trade.result["trade_id"])).as_dict())
        elif o[0] == "ambition":
            name, task, mystery = self.mark("AN", {me}), self.mark("AT", {me}), self.mark("MY", set())
            tasks = [{"text": task}, {"text": mystery, "central": True, "mysterious": True}]
            aid = g.run(gm, gid, dev.OfferAmbition(me, name, "minor", 5, 1, tasks)).result["ambition_id"]
            self.ambitions.append((aid, me, mystery))
            self.record(me, g.run(Caller.of(me), gid, dev.AcceptAmbition(me, aid)).as_dict())
            self.allowed[name] |= set(P)
        elif o[0] == "reveal" and self.ambitions:
            aid, owner, mystery = self.ambitions[o[1] % len(self.ambitions)]
            g.run(gm, gid, dev.CompleteTask(aid, "t1"))
            self.allowed[mystery].add(owner)
        self.follow_the_wallets()

    def follow_the_wallets(self) -> None:
        """Record every wallet as the GM's board shows it, the game's truth."""
        sheets = self.games.view(self.game_id, "gm").get("development", {}).get("sheets", {})
        for pid, sheet in sheets.items():
            self.wallets[pid].add(tuple(sorted(sheet["wallet"].items())))

    def check_wallets(self, p: str, surfaces: list) -> None:
        """No surface of ``p`` shows another power's wallet or a change to it ([003:330] "A power's non-asset
        resources such as coin, respect, fear, and mana are private")."""
        theirs = set().union(*(w for q, w in self.wallets.items() if q != p)) - self.wallets[p]
        for x in _walk(surfaces):
            if not isinstance(x, dict):
                continue
            data = x.get("data")
            if x.get("type") == "WalletChanged" and isinstance(data, dict) and data.get("power_id") != p:
                raise Leak(f"{p} was shown a change to {data.get('power_id')}'s wallet")
            if isinstance(x.get("wallet"), dict) and tuple(sorted(x["wallet"].items())) in theirs:
                raise Leak(f"{p} was shown another power's wallet {x['wallet']}")

    def follow_the_month(self) -> None:
        """Widen the model as the month moves on, by the rules of P.4 (timing read from the GM's board)."""
        status = {a["action_id"]: a for a in self.games.view(self.game_id, "gm").get("actions", [])}
        everyone = set(self.powers)
        for a in self.actions:
            now = status.get(a["id"])
            if now is not None and now["pool"] is not None:
                self.truth[a["id"]] = {
                    "action_id": a["id"],
                    "power": now["power"],
                    "title": now["title"],
                    "slot": now["slot"],
                    "skill": now["skill"],
                    "roll_no": now["pool"]["roll_no"],
                }
            if now is None or now["discarded"]:
                continue
            if now["status"] in ("provisional", "resolved"):
                if a["resistible"]:
                    self.allowed[a["title"]].add(a["target"])  # who acts and what the action is (P-AMB-3)
                if a["public"]:
                    self.allowed[a["title"]] |= everyone
                if a["nonce"] and not now["difficulty_sealed"]:
                    public_now = a["public"] and (not a["resistible"] or now["status"] == "resolved")
                    self.allowed[a["nonce"]] |= everyone if public_now else a["circle"]
            if now["status"] == "resolved" and a["public"]:
                # A public action is fully public once resolved (after its window, if resistible: P-AMB-45).
                self.allowed[a["desc"]] |= everyone
                self.dice_allowed[a["id"]] |= everyone

    def check(self) -> None:
        """Every surface of every player against the model."""
        g, gid = self.games, self.game_id
        self.projector.catch_up()
        key = str(g.get_game(gid).id)
        self.follow_the_wallets()
        for p in self.powers:
            surfaces = [g.view(gid, p), g.visible_events(gid, p), self.projector.feed(key, p), self.shown[p]]
            for phase in g.phases(gid):
                if phase["phase"] != "setup":
                    try:
                        surfaces.append(g.view_at(gid, p, version=phase["version"]))
                    except DomainError as err:
                        surfaces.append(err.as_dict())
            try:
                g.require_gm(p)
                surfaces.append(self.projector.audit(key))
            except DomainError as err:
                surfaces.append(err.as_dict())
            blob = json.dumps(surfaces, default=str)
            for marker, who in self.allowed.items():
                if p not in who and marker in blob:
                    raise Leak(f"{p} was shown {marker} (allowed: {sorted(who)})")
            self.check_dice_secrets(p, surfaces[1], blob)
            self.check_influence(p, surfaces)
            self.check_wallets(p, [*surfaces, *(json.loads(x) for x in self.shown[p])])
            self.check_hashes(p, [*surfaces, *(json.loads(x) for x in self.shown[p])])
        for p in self.powers:  # and what each player can check (dice, difficulties, digests) checks out
            report = verify_export(g.visible_events(gid, p))
            assert report.ok, (p, report.mismatches)

    def dice_secrets(self) -> tuple[set[str], dict[str, set[str]]]:
        """Every month seed of the game (revealed to the GM, or the open month's), and every roll key
        with the powers that may see that roll's dice."""
        g, gid = self.games, self.game_id
        gm = g.visible_events(gid, "gm", limit=100_000)
        seeds = {e["data"]["seed"] for e in gm if e["type"] == "SeedRevealed"} | {g.get_game(gid).state.seed}
        keys: dict[str, set[str]] = {}
        for e in gm:
            data = e["data"]
            if e["type"] == "DiceRolled" and data["pool"].get("key"):
                keys[data["pool"]["key"]] = self.dice_allowed[data["action_id"]]
            elif e["type"] == "ReactionDeclared" and data["pool"].get("key"):
                keys[data["pool"]["key"]] = {data["power_id"]}  # a reaction's dice are the resister's own
            elif e["type"] == "TiesBroken" and data.get("key"):
                keys[data["key"]] = set()  # the GM breaks ties
        return seeds - {None}, keys

    def check_dice_secrets(self, p: str, events: list[dict], blob: str) -> None:
        """No month seed, and no key of a roll ``p`` may not see, in anything ``p`` was shown."""
        if any(e["type"] == "SeedRevealed" for e in events):
            raise Leak(f"{p} was shown a SeedRevealed event: the month seed goes to the GM alone")
        seeds, keys = self.dice_secrets()
        for seed in seeds:
            if seed in blob:
                raise Leak(f"{p} holds the month seed of commitment {commitment(seed)}")
        for key, who in keys.items():
            if p not in who and key in blob:
                raise Leak(f"{p} holds the key of a roll it may not see (allowed: {sorted(who)})")

    def submission_digests(self, action_id: str, salt) -> set[str]:
        """Every digest this action's submission could have, over all rolls, with this salt."""
        key = (action_id, salt if salt is not ABSENT else "<absent>", salt is ABSENT)
        if key not in self._digests:
            base = self.truth[action_id]
            self._digests[key] = {
                _sha({**base, "faces": faces, "converted": converted} | ({} if salt is ABSENT else {"salt": salt}))
                for faces, converted in _rolls(2)
            }
        return self._digests[key]

    def check_hashes(self, p: str, surfaces: list) -> None:
        """No digest or commitment ``p`` was shown confirms a hidden value from the small space it hides."""
        strings = {x for x in _walk(surfaces) if isinstance(x, str) and HEX.match(x)}
        hashes = {x for x in strings if len(x) == 64}
        # Every salt, nonce or seed the player holds, whatever it is called.
        keys = (
            {None, ""}
            | strings
            | {x["salt"] for x in _walk(surfaces) if isinstance(x, dict) and isinstance(x.get("salt"), str)}
        )
        for action_id in self.truth:
            if p in self.dice_allowed[action_id]:
                continue
            for salt in [ABSENT, *keys]:
                hit = self.submission_digests(action_id, salt) & hashes
                if hit:
                    raise Leak(f"{p} recovers the hidden dice of {action_id} from digest {sorted(hit)[0]}")
        for a in self.actions:
            if a["nonce"] is None or p in self.allowed[a["nonce"]]:
                continue
            sealed = seal_difficulty(2, a["nonce"])  # what this action's commitment is (the value is always 2)
            for value in range(51):
                if commitment(f"difficulty:{value}") in hashes or any(
                    seal_difficulty(value, nonce) == sealed for nonce in keys - {None}
                ):
                    raise Leak(f"{p} recovers the sealed difficulty {value} of {a['id']}")
        events = [e for e in surfaces[1]]
        revealed = {e["data"]["commitment"] for e in events if e["type"] == "SeedRevealed"}
        for x in strings:
            if len(x) == 64 and commitment(x) in hashes and commitment(x) not in revealed:
                raise Leak(f"{p} holds the unrevealed month seed of commitment {commitment(x)}")
        self.check_receipts(p, events)

    def check_receipts(self, p: str, events: list[dict]) -> None:
        """Every receipt digest is the digest of a run of the player's own events (the ones it names)."""
        types = [e["type"] for e in events]
        for text in self.shown[p]:
            r = json.loads(text)
            if "digest" not in r or "events" not in r:
                continue
            k = len(r["events"])
            runs = [events[i : i + k] for i in range(len(events) - k + 1) if types[i : i + k] == r["events"]]
            if not any(_sha([{"type": e["type"], "data": e["data"]} for e in run]) == r["digest"] for run in runs):
                raise Leak(f"{p}'s receipt {r['sequence']} commits to events {p} does not see")


def play(n_powers: int, ops: list[tuple]) -> World:
    world = World(n_powers)
    for i, o in enumerate(ops):
        world.apply(o)
        if i % 8 == 7:
            world.check()
    world.check()
    return world


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(3, 4), st.lists(month, min_size=1, max_size=3))
# Found by this test: after a rollback into Planning, an export's verification matched the next month's
# resolved actions against the publication the rollback superseded.
@example(
    n_powers=4,
    months=[
        ([("consequence", 0, 0), ("act", 0, True, False, 0, True, False)], [("react", 0, 0)], None),
        (
            [("act", 0, False, True, 0, False, False), ("grant", 0), ("act", 0, False, True, 0, False, False)],
            [("react", 0, 0), ("waive", 0), ("react", 0, 0), ("react", 0, 29), ("waive", 2), ("grant", 0)],
            5,
        ),
        (
            [
                ("grant", 0),
                ("grant", 1),
                ("share", 2, 1),
                ("share", 2, 0),
                ("act", 3, True, True, 1, True, True),
                ("grant", 1),
                ("act", 0, True, True, 0, True, False),
                ("grant", 3),
                ("act", 2, True, False, 1, True, True),
                ("share", 1, 1),
                ("probe", 3, 19),
                ("grant", 1),
            ],
            [],
            None,
        ),
    ],
)
# Found by this test: a duel rolled without its conversions, discarded, then locked: Resolution never
# published the digest the lock recorded.
@example(n_powers=3, months=[([("catalogue", 2, 0, False, False), ("probe", 2, 0)], [], None)])
def test_no_player_is_ever_shown_what_the_rules_hide_from_them(n_powers, months):
    play(n_powers, as_ops(months))


def plant_view(monkeypatch, leaky) -> None:
    """Serve Powers' boards through ``leaky``: the registered ruleset is swapped for a copy with that view."""
    import dataclasses

    from domain.platform import ruleset as rulesets

    monkeypatch.setitem(rulesets._REGISTRY, "powers", dataclasses.replace(rulesets.get("powers"), view=leaky))


def test_the_checker_catches_a_planted_leak(monkeypatch):
    """A broken implementation that lists every action in every player's view must be caught."""
    real = views.board_view

    def leaky(game, viewer):
        out = real(game, viewer)
        out["debug"] = [a.title for a in game.state.actions.values()]
        return out

    plant_view(monkeypatch, leaky)
    ops = [("act", 0, False, False, 1, False, False), ("act", 1, False, False, 0, False, False)]
    with pytest.raises(Leak):
        play(3, ops)


def test_the_checker_catches_leaked_spells(monkeypatch):
    """A broken implementation that shows every player the GM's magic (every power's spells) must be caught."""
    real = views.board_view

    def leaky(game, viewer):
        return real(game, viewer) | {"magic": magic.magic_view(game, "gm")}

    plant_view(monkeypatch, leaky)
    with pytest.raises(Leak, match="MG"):
        play(3, [("act", 0, False, False, 1, False, False), ("magic", 0)])


def test_the_checker_catches_leaked_hidden_armies(monkeypatch):
    """A broken implementation that shows every player the GM's armies (Stealthy ones, Experience) must be caught."""
    from domain.powers import armies

    real = views.board_view

    def leaky(game, viewer):
        return real(game, viewer) | {"armies": armies.armies_view(game, "gm")}

    plant_view(monkeypatch, leaky)
    with pytest.raises(Leak, match="AR|AN"):
        play(3, [("army", 0, True)])


def test_the_checker_catches_a_leaked_ambition_task(monkeypatch):
    """A broken implementation that shows every ambition's tasks, ❓ ones included, to every player must be caught."""
    real = views.board_view

    def leaky(game, viewer):
        out = real(game, viewer)
        out["debug"] = [t.text for a in game.state.development.ambitions.values() for t in a.tasks]
        return out

    plant_view(monkeypatch, leaky)
    with pytest.raises(Leak, match="MY"):
        play(3, [("ambition", 0)])


def test_the_checker_catches_a_public_ledger(monkeypatch):
    """A broken implementation that records a wallet's changes for the whole table must be caught."""
    real = dev.Development._wallet_changed

    def leaky(self, power_id, changes, reason, actor, audience):
        return real(self, power_id=power_id, changes=changes, reason=reason, actor=actor, audience=["public"])

    monkeypatch.setattr(dev.Development, "_wallet_changed", leaky)
    with pytest.raises(Leak, match="WL"):
        play(3, [("wallet", 0)])


def test_the_checker_catches_a_leaked_sealed_difficulty(monkeypatch):
    """A broken implementation that shows players the sealed difficulties must be caught."""
    real = views._full_action

    def leaky(game, a, *, with_secret, owner=True):
        return real(game, a, with_secret=True, owner=owner) | {
            "nonce": game.state.sealed_difficulties.get(a.id, {}).get("nonce")
        }

    monkeypatch.setattr(views, "_full_action", leaky)
    with pytest.raises(Leak):
        play(3, [("act", 0, False, False, 1, True, False)])


def test_the_checker_catches_an_unsalted_submission_digest(monkeypatch):
    """A broken implementation that publishes submission digests without their secret salt lets the
    other players try every roll against Resolution's published list: it must be caught."""

    def unsalted(a, converted):
        return powers_game.digest(
            {
                "action_id": a.id,
                "power": a.power,
                "title": a.title,
                "slot": a.slot,
                "skill": a.skill,
                "roll_no": a.pool.roll_no,
                "faces": [d.face for d in a.pool.dice],
                "converted": converted,
            }
        )

    from domain.powers import actions, resolution

    monkeypatch.setattr(actions, "action_digest", unsalted)
    monkeypatch.setattr(resolution, "action_digest", unsalted)
    with pytest.raises(Leak, match="recovers the hidden dice"):
        play(3, [("act", 0, False, False, 1, False, False), ("advance",), ("resolve",)])


def test_the_checker_catches_a_receipt_that_commits_to_hidden_events(monkeypatch):
    """A receipt digest over events its holder may not see (here: everything recorded, so accepting a
    consequence that discloses something to another power) must be caught."""
    real = Games._receipt

    def leaky(self, game, principal, events):
        return real(self, game, "gm", events)

    monkeypatch.setattr(Games, "_receipt", leaky)
    with pytest.raises(Leak, match="receipt"):
        play(3, [("act", 0, False, False, 1, False, False), ("consequence", 0, 1)])


def test_the_checker_catches_a_difficulty_committed_without_its_nonce(monkeypatch):
    """A broken implementation that commits to a sealed difficulty as ``sha256("difficulty:<value>")``
    lets every player try the 51 values against the published commitment: it must be caught."""
    from domain.powers import resolution, rulings

    def unsalted(value, nonce):
        return commitment(f"difficulty:{value}")

    monkeypatch.setattr(rulings, "seal_difficulty", unsalted)
    monkeypatch.setattr(resolution, "seal_difficulty", unsalted)
    with pytest.raises(Leak, match="recovers the sealed difficulty"):
        play(3, [("act", 0, False, False, 1, True, False)])


def test_the_checker_catches_a_month_seed_shown_to_players(monkeypatch):
    """A broken implementation that reveals the month seed to the table (as before per-roll keys: then
    anyone recomputes every private roll of the month) must be caught."""
    real = Games.visible_events

    def leaky(self, game_id, viewer, after=0, limit=500):
        out = real(self, game_id, viewer, after, limit)
        if viewer != "gm":
            out += [e for e in real(self, game_id, "gm", 0, 100_000) if e["type"] == "SeedRevealed"]
        return out

    monkeypatch.setattr(Games, "visible_events", leaky)
    with pytest.raises(Leak, match="SeedRevealed"):
        play(3, [("act", 0, False, False, 1, False, False), ("advance",), ("resolve",), ("close",), ("advance",)])


def test_the_checker_catches_a_seed_under_another_name(monkeypatch):
    """A month seed shown in a view under any name (here a debug field) must be caught."""
    real = views.board_view

    def leaky(game, viewer):
        return real(game, viewer) | {"debug": game.state.seed}

    plant_view(monkeypatch, leaky)
    with pytest.raises(Leak, match="month seed"):
        play(3, [("act", 0, False, False, 1, False, False)])


def test_the_checker_catches_the_key_of_a_roll_shown_to_others(monkeypatch):
    """A broken implementation that shows every roll's key to every player must be caught."""
    real = views.board_view

    def leaky(game, viewer):
        return real(game, viewer) | {"debug": [a.pool.key for a in game.state.actions.values() if a.pool]}

    plant_view(monkeypatch, leaky)
    with pytest.raises(Leak, match="key of a roll"):
        play(3, [("act", 0, False, False, 1, False, False), ("act", 1, False, False, 0, False, False)])


def test_the_checker_catches_a_hidden_feature_shown_to_the_table(monkeypatch):
    """A broken implementation that shows every feature on the map to everyone must be caught."""
    from domain.powers import world_view

    monkeypatch.setattr(world_view, "sees_feature", lambda state, feature_id, viewer: True)
    with pytest.raises(Leak, match="FE"):
        play(3, [("feature", 0, False, "outpost")])


def test_the_checker_catches_influence_shown_to_a_city(monkeypatch):
    """A broken implementation that shows a conspiracy's influence to every power must be caught."""
    from domain.powers import world_view

    monkeypatch.setattr(world_view, "influence_watchers", lambda state, hex_id, power_id: list(state.powers))
    with pytest.raises(Leak, match="influence"):
        play(3, [("influence", 1, "0,0", 2)])


def test_the_checker_catches_influence_shown_in_a_view(monkeypatch):
    """A broken implementation whose map and board show every power's influence to every power must be caught
    (P.4: "other non-conspiracy powers don't automatically know how much influence you have in each hex")."""
    from domain.powers import world_view

    def everyone(state, me):
        return [
            {"power": p.id, "hex": h, "amount": n}
            for p in state.powers.values()
            if p.id != me.id
            for h, n in p.influence.items()
        ]

    monkeypatch.setattr(world_view, "influence_seen", everyone)
    monkeypatch.setattr(views, "influence_seen", everyone)
    with pytest.raises(Leak, match="influence"):
        play(3, [("influence", 1, "0,0", 2)])


def test_the_checker_catches_map_knowledge_shown_to_a_power_that_did_not_learn_it(monkeypatch):
    """A broken implementation that shows a hidden feature to the table once any power has learned of it must be
    caught: what one power learned about the map is its own (P.4)."""
    from domain.powers import world_view

    real = world_view.sees_feature

    def leaky(state, feature_id, viewer):
        return real(state, feature_id, viewer) or bool(state.world.features[feature_id]["known_to"])

    monkeypatch.setattr(world_view, "sees_feature", leaky)
    play(3, [("feature", 0, False, "outpost")])  # nobody learned of it yet: nothing leaks
    with pytest.raises(Leak, match="FE"):
        play(3, [("feature", 0, False, "outpost"), ("learn", 0, 1)])


def test_the_checker_catches_a_wallet_shown_to_another_power(monkeypatch):
    """A broken implementation that shows every power's wallet on every board must be caught ([003:330] "A
    power's non-asset resources such as coin, respect, fear, and mana are private")."""
    real = dev.development_view

    def leaky(game, viewer):
        return real(game, viewer) | {"sheets": real(game, "gm")["sheets"]}

    monkeypatch.setattr(dev, "development_view", leaky)
    monkeypatch.setattr(views, "development_view", leaky)
    with pytest.raises(Leak, match="wallet"):
        play(3, [("wallet", 0)])


BATTLE_MONTH = [("army", 0, False), ("army", 1, False), ("army", 1, True), ("battle", 0, 1, True)]


def test_battles_show_no_secret_asset_to_the_enemy():
    """A battle with an Experience asset revealed to the GM (P.4): the other side never sees it."""
    world = play(
        3, as_ops([([("army", 0, False), ("army", 1, False), ("army", 1, True), ("battle", 0, 1, True)], [], None)])
    )
    gm = world.games.view(world.game_id, "gm")
    assert gm["battles"] and gm["battles"][0]["step"] == "ended"
    assert gm["battles"][0]["secret_assets"]


def test_the_checker_catches_a_secret_battle_asset_shown_to_the_enemy(monkeypatch):
    """A broken implementation that shows the GM's battle view (secret assets) to every player must be caught."""
    from domain.powers import battle

    real = views.board_view

    def leaky(game, viewer):
        return real(game, viewer) | {"battles": battle.battles_view(game, "gm")}

    plant_view(monkeypatch, leaky)
    with pytest.raises(Leak, match="AR"):
        play(
            3, as_ops([([("army", 0, False), ("army", 1, False), ("army", 1, True), ("battle", 0, 1, True)], [], None)])
        )
