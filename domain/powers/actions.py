"""Actions and dice in Powers (P.2.1, P.3): submitting a month's actions against the quota, building and rolling
their pools on the server, locking conversions, discarding, and the arithmetic of a pool."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

from domain import limits
from domain import visibility as vis
from domain.dice import Roller
from domain.errors import RuleViolation
from domain.platform.game import _at, digest
from domain.powers import development_rules, rules
from domain.powers.base import DieData, GameBase, PoolAssetData, PoolData, PowersEvent, pool_from
from domain.powers.state import ActionState, Asset, GameState, Pool


def submission_digest(
    action_id: str,
    power: str,
    title: str,
    slot: str,
    skill: str | None,
    roll_no: int,
    faces: list[int],
    converted: list[int],
    salt: str | None,
) -> str:
    """The digest of a submission as locked: what its receipt shows and Resolution publishes.

    The secret ``salt`` (disclosed only to those who see the submission, and to the table with a
    public action's dice once resolved) keeps anyone else from trying every roll against it.
    """
    return digest(
        {
            "action_id": action_id,
            "power": power,
            "title": title,
            "slot": slot,
            "skill": skill,
            "roll_no": roll_no,
            "faces": list(faces),
            "converted": list(converted),
            "salt": salt,
        }
    )


def rolled(a: ActionState) -> Pool:
    """The pool of an action that has been rolled (an event about its dice folds only onto a rolled action)."""
    if a.pool is None:
        raise AssertionError(f"action {a.id} has not been rolled")
    return a.pool


def action_digest(a: ActionState, converted: list[int]) -> str:
    """An action's submission digest with these dice converted."""
    if a.pool is None:
        raise AssertionError(f"action {a.id} is digested before it was rolled")
    return submission_digest(
        a.id, a.power, a.title, a.slot, a.skill, a.pool.roll_no, [x.face for x in a.pool.dice], converted, a.salt
    )


def check_submission(
    title: str,
    description: str,
    location: str | None,
    skill: str | None,
    targets: list[str] | None,
    collaborators: list[str] | None,
) -> None:
    """An action's texts within their limits, at most ``limits.ITEMS`` targets and collaborators, and its skill
    one of the rules' (P-ASSET-3)."""
    limits.check_text(title, "title", limits.TITLE, required=True, what="an action's title")
    limits.check_text(description, "description", limits.DESCRIPTION, what="a description")
    limits.check_optional_text(location, "location", limits.LOCATION, what="a location")
    check_items(targets, "targets")
    check_items(collaborators, "collaborators")
    if skill is not None and skill not in rules.SKILLS:
        raise RuleViolation(
            f"a skill is one of {', '.join(rules.SKILLS)}; {skill!r} is not", rule="P-ASSET-3", field="skill"
        )


def check_parties(
    targets: list[str] | None, collaborators: list[str] | None, power_id: str, powers: Collection[str]
) -> tuple[list[str], list[str]]:
    """An action's targets are powers of the game; its collaborators other powers of it (P-DICE-11). Returns
    both as lists, the collaborators sorted."""
    targets = list(targets or [])
    for t in targets:
        if t not in powers:
            raise RuleViolation(f"no power {t!r} to target", field="targets")
    collaborators = sorted(set(collaborators or []))
    for c in collaborators:
        if c not in powers or c == power_id:
            raise RuleViolation(
                f"{c!r} cannot be a collaborator: name other powers of this game",
                rule="P-DICE-11",
                field="collaborators",
            )
    return targets, collaborators


def check_items(items: Collection[Any] | None, field: str) -> None:
    """A command's list names at most ``limits.ITEMS`` items."""
    if items is not None and len(items) > limits.ITEMS:
        raise RuleViolation(f"{field} lists at most {limits.ITEMS} items", field=field)


def status_stacks(effect: dict[str, Any]) -> int:
    """A status effect's stacks (``months`` in effects recorded before the field was named for what it is)."""
    return int(effect.get("stacks", effect.get("months", 0)))


def spend(s: GameState, pool_assets: Sequence[Mapping[str, Any]]) -> None:
    """Fold what rolling a pool spends, for an action or a reaction alike: a novel asset's surprise
    (P-DICE-9) and a single-use asset (P-ASSET-8)."""
    for pa in pool_assets:
        asset: Asset | None = s.assets.get(pa["asset_id"])
        if asset is not None:
            asset.novel = False
            if asset.cls in rules.SINGLE_USE:
                asset.used_up = True


def conversion_weights(pool: Pool, critical_mode: str) -> dict[str, int]:
    """Successes one converted die adds, by the asset it belongs to (P-DICE-3, P-AMB-5)."""
    return {pa.asset_id: rules.conversion_weight(pa.mode, critical_mode) for pa in pool.assets}


def convertible_dice(pool: Pool, critical_mode: str) -> list[int]:
    """The 3s and 4s whose conversion adds a success (not a rank-mode critical asset's: P-AMB-5)."""
    weights = conversion_weights(pool, critical_mode)
    return [i for i, d in enumerate(pool.dice) if rules.is_convertible(d.face) and weights.get(d.asset, 1) > 0]


def choose_conversions(pool: Pool, convert: int | None, dice: list[int] | None, critical_mode: str) -> list[int]:
    """The dice of a rolled pool to convert: those named (``dice``), or up to ``convert`` of them as the rules
    choose them; refuses a die that is not a 3 or 4, one that would add nothing, and more than were rolled
    (P-DICE-3, P-AMB-5)."""
    convertible = convertible_dice(pool, critical_mode)
    if dice is not None:
        bad = [i for i in dice if not (0 <= i < len(pool.dice) and rules.is_convertible(pool.dice[i].face))]
        if bad or len(set(dice)) != len(dice):
            raise RuleViolation(
                f"only 3s and 4s can be converted; dice {bad} are not 3s or 4s", rule="P-DICE-3", field="dice"
            )
        wasted = [i for i in dice if i not in convertible]
        if wasted:
            raise RuleViolation(
                f"dice {wasted} belong to a critical asset, which counts three times its rank in this game: "
                "converting them would cost a consequence and add nothing",
                rule="P-AMB-5",
                field="dice",
            )
        return sorted(dice)
    convert = convert or 0
    if convert < 0:
        raise RuleViolation("the number of conversions cannot be negative", rule="P-DICE-3", field="convert")
    if convert > len(convertible):
        rolled = sum(1 for d in pool.dice if rules.is_convertible(d.face))
        useless = rolled - len(convertible)
        raise RuleViolation(
            f"you rolled {rolled} 3s and 4s, so you can convert at most {len(convertible)}"
            + (
                f" ({useless} belong to a critical asset, which counts three times its rank in this game)"
                if useless
                else ""
            ),
            rule="P-AMB-5" if useless and convert <= rolled else "P-DICE-3",
            field="convert",
        )
    return rules.choose_conversions(
        [(d.face, d.asset) for d in pool.dice], convert, conversion_weights(pool, critical_mode)
    )


def check_extra(extra_actions: int) -> int:
    """At most one action is spent as an asset on a challenge (P-AMB-30)."""
    if extra_actions not in (0, 1):
        raise RuleViolation(
            "at most one action can be spent as an asset on a challenge", rule="P-AMB-30", field="extra_actions"
        )
    return extra_actions


class ActionSubmitted(PowersEvent):
    action_id: str
    power_id: str
    index: int
    title: str
    description: str
    skill: str | None
    slot: str
    location: str | None
    targets: list[str]
    resistible: bool
    difficulty: int | None
    collaborators: list[str]
    actor: str
    audience: list[str]
    dungeon: bool = False

    def evolve(self, s: GameState) -> None:
        s.actions[self.action_id] = ActionState(
            id=self.action_id,
            power=self.power_id,
            index=self.index,
            title=self.title,
            description=self.description,
            skill=self.skill,
            slot=self.slot,
            location=self.location,
            targets=list(self.targets),
            resistible=self.resistible,
            difficulty=self.difficulty,
            collaborators=list(self.collaborators),
            dungeon=self.dungeon,
        )
        s.powers[self.power_id].commands += 1


class DiceRolled(PowersEvent):
    action_id: str
    extra_actions: int
    pool: PoolData
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.actions[self.action_id]
        a.pool = pool_from(self.pool)
        a.salt = self.pool.get("salt")
        a.extra_actions = self.extra_actions
        a.status = "rolled"
        s.next_roll = self.pool["roll_no"] + 1
        spend(s, self.pool["assets"])


class ConversionsLocked(PowersEvent):
    action_id: str
    converted: list[int]
    digest: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.actions[self.action_id]
        pool = rolled(a)
        for i in self.converted:
            pool.dice[i].converted = True
        pool.locked = True
        a.digest = self.digest
        a.status = "submitted"


class ActionDiscarded(PowersEvent):
    action_id: str
    actor: str
    audience: list[str]
    undo: dict[str, Any] | None = None

    def fold(self, game: GameBase) -> None:
        s = game.state
        a = s.actions[self.action_id]
        a.discarded = True
        a.status = "discarded"
        for c in a.consequences:
            c.status = {"accepted": "undone", "proposed": "withdrawn"}.get(c.status, c.status)
        if self.undo:
            p = s.powers[a.power]
            p.debt_next_month = max(0, p.debt_next_month - self.undo["lose_actions"])
            left = {name: p.statuses.get(name, 0) - n for name, n in self.undo["statuses"].items()}
            p.statuses = {k: v for k, v in {**p.statuses, **left}.items() if v > 0}
        game._undo_shares(self.action_id)  # collaborators' consequences are undone with it (P-AMB-29, P-DICE-11)


class Actions(GameBase):
    """The month's actions and their dice (a base of ``domain.powers.game.Game``)."""

    ActionSubmitted = ActionSubmitted
    DiceRolled = DiceRolled
    ConversionsLocked = ConversionsLocked
    ActionDiscarded = ActionDiscarded

    def _check_planning(self, now: datetime, power_id: str | None = None) -> None:
        if self.state.step != "planning":
            raise RuleViolation(
                f"actions are submitted during Planning; this is {self.state.step.title()}", rule="P.1.2"
            )
        w = self.open_window("planning")
        if w is not None and now >= _at(w.deadline_for(power_id)):
            raise RuleViolation(
                f"the Planning deadline passed at {w.deadline_for(power_id)}", rule="P.1.2", field="deadline"
            )

    def submit_action(
        self,
        power_id: str,
        action_id: str,
        title: str,
        *,
        now: datetime,
        roller: Roller,
        description: str = "",
        skill: str | None = None,
        slot: str = "private",
        location: str | None = None,
        targets: list[str] | None = None,
        resistible: bool = False,
        difficulty: int | None = None,
        assets: list[dict[str, Any]] | None = None,
        extra_actions: int = 0,
        convert: int | None = None,
        roll: bool = True,
        collaborators: list[str] | None = None,
        dungeon: bool = False,
        actor: str | None = None,
        salt: str | None = None,
    ) -> None:
        """Submit an action for this month (P-ACT-1); the server rolls its pool now (P-DICE-1..8).

        With ``roll=False`` the action is only proposed, so the GM can set its difficulty
        (openly or sealed) before the roll (GM-1, GM-2); roll it later with ``roll_action``.
        ``dungeon``: a challenge inside a dungeon, where Delve joins up to one other skill (P-ASSET-4).
        ``salt`` is fresh entropy from the caller for the submission's digest (see ``roll_action``).
        """
        self._check_planning(now, power_id)
        self.power(power_id)
        check_submission(title, description, location, skill, targets, collaborators)
        targets, collaborators = check_parties(targets, collaborators, power_id, self.state.powers)
        if difficulty is not None and not 0 <= difficulty <= 50:
            raise RuleViolation("a difficulty is a whole number from 0 to 50", rule="P-DICE-1", field="difficulty")
        if action_id in self.state.actions:
            raise RuleViolation(f"action {action_id!r} already exists", field="action_id")
        extra = check_extra(extra_actions)
        self.check_quota(power_id, slot, 1 + (extra if roll else 0))
        dungeon = self.check_location(power_id, location, assets or [] if roll else []) or dungeon
        if roll:  # validate the pool before recording anything: a refused command records nothing
            self._check_new_pool(power_id, assets or [], skill, bool(dungeon), location, targets)
        self.trigger_event(
            self.ActionSubmitted,
            action_id=action_id,
            power_id=power_id,
            index=self.count_actions(power_id) + 1,
            title=title.strip(),
            description=description,
            skill=skill,
            slot=slot,
            location=location,
            targets=targets,
            resistible=bool(resistible),
            difficulty=difficulty,
            collaborators=collaborators,
            actor=actor or power_id,
            audience=vis.powers([power_id, *collaborators]),
            dungeon=bool(dungeon),
        )
        if roll:
            self.roll_action(
                action_id,
                now=now,
                roller=roller,
                assets=assets or [],
                extra_actions=extra,
                convert=convert,
                actor=actor,
                salt=salt,
            )

    def check_quota(self, power_id: str, slot: str, cost: int) -> None:
        """Refuses ``cost`` more actions in the power's ``slot`` beyond this month's quota (P-ACT-1, P-ACT-2)."""
        ps = self.power(power_id)
        used_pub, used_priv = self.slots_used(power_id)
        rules.check_action_quota(
            ps.subclass, rules.Quota(ps.public, ps.private), ps.debt_this_month, used_pub, used_priv, slot, cost
        )

    def _check_new_pool(
        self,
        power_id: str,
        assets: list[dict[str, Any]],
        skill: str | None,
        dungeon: bool,
        location: str | None,
        targets: list[str],
    ) -> None:
        """Refuses a new action's pool as its roll would, and a roll the month's committed block has not left."""
        where = {"location": location, "against": targets}
        self._pick_pool(power_id, assets, skill_tag=skill, is_reaction=False, dungeon=dungeon, where=where)
        self._armies_check_pool(None, power_id, location, assets)
        self._runes_check_pool(location, assets)
        self._roll_proof(self.state.next_roll)

    def roll_action(
        self,
        action_id: str,
        *,
        now: datetime,
        roller: Roller,
        assets: list[dict[str, Any]],
        extra_actions: int = 0,
        convert: int | None = None,
        actor: str | None = None,
        salt: str | None = None,
    ) -> None:
        """Roll a submitted action's pool on the server (P-DICE-2); conversions may be locked now or later.

        ``salt`` is fresh entropy from the caller (the service passes 16 random bytes): it goes into
        the submission's digest, which Resolution publishes to the table, and is disclosed only to
        those who see the submission, so nobody else can recover the dice by trying every roll (P.4).
        """
        a = self.action(action_id)
        self._check_planning(now, a.power)
        if a.pool is not None:
            raise RuleViolation(
                "this action has already been rolled; dice are never rerolled", rule="P-DICE-5", field="action_id"
            )
        if a.discarded:
            raise RuleViolation("this action was discarded", rule="P-DICE-10", field="action_id")
        self.power(a.power)
        extra = check_extra(extra_actions)
        if extra:
            self.check_quota(a.power, a.slot, extra)
        self.check_reach(a.location, assets)
        self._armies_check_pool(action_id, a.power, a.location, assets)
        self._runes_check_pool(a.location, assets)
        pool = self._build_pool(
            a.power,
            assets,
            skill_tag=a.skill,
            extra_actions=extra,
            roller=roller,
            is_reaction=False,
            dungeon=a.dungeon,
            where={"location": a.location, "against": list(a.targets), "action_id": action_id},
        )
        if salt is not None:
            pool["salt"] = salt  # told only to the submission's audience, with its dice
        self.trigger_event(
            self.DiceRolled,
            action_id=action_id,
            extra_actions=extra,
            pool=pool,
            actor=actor or a.power,
            audience=self._audience(a),
        )
        if convert is not None:
            # Chosen before seeing the dice, ``convert`` means "up to": never more than the 3s and 4s rolled
            # where a conversion counts (P-AMB-5).
            available = len(convertible_dice(pool_from(pool), self._critical_mode()))
            self.lock_conversions(action_id, convert=min(max(convert, 0), available), now=now, actor=actor)

    def _build_pool(
        self,
        power_id: str,
        picks: list[dict[str, Any]],
        *,
        skill_tag: str | None,
        extra_actions: int,
        roller: Roller,
        is_reaction: bool,
        reacting_to_skill: str | None = None,
        dungeon: bool = False,
        where: dict[str, Any] | None = None,
    ) -> PoolData:
        chosen = self._pick_pool(
            power_id,
            picks,
            skill_tag=skill_tag,
            is_reaction=is_reaction,
            reacting_to_skill=reacting_to_skill,
            dungeon=dungeon,
            where=where,
        )
        pool_assets: list[PoolAssetData] = [
            {"asset_id": a.id, "name": a.name, "cls": a.cls, "rank": a.rank, "mode": m, "undercut": False}
            for a, m in chosen
        ]
        return self._roll_pool(power_id, pool_assets, extra_actions, roller)

    def _pick_pool(
        self,
        power_id: str,
        picks: list[dict[str, Any]],
        *,
        skill_tag: str | None,
        is_reaction: bool,
        reacting_to_skill: str | None = None,
        dungeon: bool = False,
        where: dict[str, Any] | None = None,
    ) -> list[tuple[Asset, str]]:
        """Check a pool's assets against the rules (P-ASSET-1, P-ASSET-3, P-ASSET-4, P-DICE-6..9, P-RES-3).

        A reaction comes after every action of the month has been through the queue, so a
        once-a-season asset already in the season ledger is refused outright (P-ASSET-12); an
        action's is undercut at Resolution instead, in queue order (P-ASSET-13).
        """
        chosen: list[tuple[Asset, str]] = []
        for pick in picks:
            asset_id = pick.get("asset_id")
            development_rules.check_not_resource(pick.get("resource", asset_id), "assets")
            mode = pick.get("mode", "normal")
            asset: Asset | None = self.state.assets.get(asset_id) if asset_id is not None else None
            if asset is None or power_id not in asset.holders:
                rule = "P-RES-3" if is_reaction else "P-ASSET-1"
                raise RuleViolation(
                    f"{self.state.powers[power_id].name} holds no asset {asset_id!r}"
                    + ("; a resister uses only its own assets" if is_reaction else ""),
                    rule=rule,
                    field="assets",
                )
            if any(asset.id == c.id for c, _ in chosen):
                raise RuleViolation(f"{asset.name!r} is in the pool twice", rule="P-ASSET-1", field="assets")
            if asset.used_up:
                raise RuleViolation(f"{asset.name!r} has been used up", rule="P-ASSET-8", field="assets")
            if is_reaction and asset.cls in rules.ONCE_PER_SEASON and asset.id in self.state.season_ledger:
                raise RuleViolation(
                    f"{asset.name!r} has already been used this season: an {asset.cls} acts once a season",
                    rule="P-ASSET-12",
                    field="assets",
                )
            if mode == "both" or (pick.get("assured") and pick.get("critical")):
                raise RuleViolation(
                    f"{asset.name!r} is both assured and critical: choose one benefit, not both",
                    rule="P-DICE-8",
                    field="assets",
                )
            if pick.get("assured"):
                mode = "assured"
            elif pick.get("critical"):
                mode = "critical"
            rules.check_mode(mode, asset.name, asset.assured, asset.critical, asset.novel)
            chosen.append((asset, mode))
        self.check_operating(picks)  # P-TOWN-3: a stopped industry lends its asset to no pool
        rules.check_pool(
            [(a.cls, a.name, m) for a, m in chosen],
            skill_tag,
            is_reaction=is_reaction,
            reacting_to_skill=reacting_to_skill,
            dungeon=dungeon,
        )
        self._check_terms(power_id, chosen, where)  # fees, loyalty, mobility, professions (P-ASSET-5..7)
        return chosen

    def _roll_pool(
        self, power_id: str, pool_assets: list[PoolAssetData], extra_actions: int, roller: Roller
    ) -> PoolData:
        if extra_actions:
            # P-ASSET-2: an action spent as an asset is rank 1 assured (rank 2 with Personal Touch).
            rank = 2 if self.state.powers[power_id].options.get("personal_touch") else 1
            pool_assets.append(
                {
                    "asset_id": "action",
                    "name": "extra action",
                    "cls": "action",
                    "rank": rank,
                    "mode": "assured",
                    "undercut": False,
                }
            )
        owners = [a["asset_id"] for a in pool_assets if a["mode"] != "assured" for _ in range(a["rank"])]
        roll_no = self.state.next_roll
        proof = self._roll_proof(roll_no)
        faces = roller.faces(roll_no, len(owners)) if owners else []
        dice: list[DieData] = [
            {"face": f, "asset": owner, "converted": False, "removed": False} for f, owner in zip(faces, owners)
        ]
        pool = {
            "roll_no": roll_no,
            "commitment": self.state.seed_commitment,
            "assets": pool_assets,
            "dice": dice,
            "locked": False,
            **proof,
        }
        return cast(PoolData, pool)  # ``proof`` holds the roll's ``key`` and ``path``, or nothing

    def _spend(self, pool_assets: Sequence[Mapping[str, Any]]) -> None:
        """Fold what rolling a pool spends (``spend``; the catalogue's shares fold through this)."""
        spend(self.state, pool_assets)

    def lock_conversions(
        self,
        action_id: str,
        *,
        now: datetime,
        convert: int | None = None,
        dice: list[int] | None = None,
        actor: str | None = None,
    ) -> None:
        """Fix how many 3s and 4s count as successes, each costing a consequence (P-DICE-3, P-DICE-5)."""
        a = self.action(action_id)
        self._check_planning(now, a.power)
        if a.pool is None:
            raise RuleViolation("roll the action before converting dice", rule="P-DICE-5", field="action_id")
        if a.discarded:  # its submission is no longer resolved or published: nothing of it is locked
            raise RuleViolation("this action was discarded", rule="P-DICE-10", field="action_id")
        if a.pool.locked:
            raise RuleViolation(
                "conversions are fixed with the roll and cannot be changed", rule="P-DICE-5", field="convert"
            )
        chosen = choose_conversions(a.pool, convert, dice, self._critical_mode())
        self.trigger_event(
            self.ConversionsLocked,
            action_id=action_id,
            converted=chosen,
            digest=action_digest(a, chosen),
            actor=actor or a.power,
            audience=self._audience(a),
        )
        self._forewarn(a, already=[])

    def _lock_conversions_now(self, pool: PoolData, convert: int) -> PoolData:
        """Convert up to ``convert`` of a freshly rolled pool's 3s and 4s as ``_conversions`` picks them, and lock
        it (a pool rolled and converted in one command: a reaction, a share, a guardian's roll)."""
        p = pool_from(pool)
        mode = self._critical_mode()
        chosen = set(choose_conversions(p, min(max(convert, 0), len(convertible_dice(p, mode))), None, mode))
        pool["dice"] = [{**d, "converted": i in chosen} for i, d in enumerate(pool["dice"])]
        pool["locked"] = True
        return pool

    def conversion_preview(self, a: ActionState) -> list[dict[str, int]]:
        """What each number of conversions would give an action's rolled pool (issue 17: the board shows it
        without JavaScript): the successes (its collaborators' too, P-DICE-11) and consequences for 0, 1, ...
        conversions, the dice chosen as ``LockConversions`` would choose them (P-DICE-3, P-AMB-5)."""
        pool = a.pool
        if pool is None:
            return []
        shared, _ = self._shared_tally(a)
        out = []
        mode = self._critical_mode()
        for n in range(len(convertible_dice(pool, mode)) + 1):
            chosen = set(choose_conversions(pool, n, None, mode))
            trial = replace(pool, dice=[replace(d, converted=i in chosen) for i, d in enumerate(pool.dice)])
            t = self.tally(a, trial)
            out.append({"convert": n, "successes": t.successes + shared, "consequences": t.consequences})
        return out

    def discard_action(self, action_id: str, *, now: datetime, actor: str | None = None) -> None:
        """Mark an action discarded after the roll: no effects, no consequences; the action stays spent
        (P-DICE-10 as P-AMB-29)."""
        a = self.action(action_id)
        pending = any(c.status == "proposed" for c in a.consequences)
        if self.state.step != "planning" and not (self.state.step == "resolution" and pending):
            raise RuleViolation(
                "an action can be discarded until the Planning deadline, or while a consequence is offered",
                rule="P-AMB-29",
                field="action_id",
            )
        if self.state.step == "planning":
            self._check_planning(now, a.power)
        if a.discarded:
            raise RuleViolation("this action is already discarded", rule="P-AMB-29", field="action_id")
        # P-AMB-29: a discarded action applies no consequences: undo what accepting them applied (the
        # lost actions and the status stacks). A disclosure cannot be unseen, so it stays.
        lost = 0
        stacks: dict[str, int] = {}
        for c in a.consequences:
            for e in c.effects if c.status == "accepted" else []:
                if e["kind"] == "lose_actions":
                    lost += e["count"]
                elif e["kind"] == "status":
                    stacks[e["name"]] = stacks.get(e["name"], 0) + status_stacks(e)
        self.trigger_event(
            self.ActionDiscarded,
            action_id=action_id,
            actor=actor or a.power,
            audience=self._audience(a),
            undo={"lose_actions": lost, "statuses": stacks},
        )

    def tally(self, a: ActionState, pool: Pool | None = None) -> rules.Tally:
        """The arithmetic of an action's pool (or a reaction's), without undercut assets."""
        own = pool is None
        pool = pool if pool is not None else a.pool
        if pool is None:
            return rules.Tally(0, 0, 0, 0)
        groups = []
        for pa in pool.assets:
            if pa.undercut:
                continue
            dice = [(d.face, d.converted) for d in pool.dice if d.asset == pa.asset_id and not d.removed]
            groups.append((pa.rank, pa.mode, dice))
        t = rules.tally(groups, critical_mode=self.state.options.get("critical_mode", "rolled"))
        full_size = sum(pa.rank for pa in pool.assets)
        if own:  # the action's own: its collaborators' pools add their successes (P-DICE-11)
            shared, size = self._shared_tally(a)
            return rules.Tally(t.successes + shared, t.consequences, full_size + size, t.rolled)
        return rules.Tally(t.successes, t.consequences, full_size, t.rolled)
