"""The Powers game aggregate: commands validate against the current state, then record events.

Every event carries its ``actor`` (``gm``, ``system`` or a power id) and its ``audience``
(domain.visibility). Event bodies (the ``@event`` methods) only fold state: checks, dice,
entropy and the clock happen in the commands, and their results go into the events.
"""

from __future__ import annotations

from collections.abc import Collection
from copy import deepcopy
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.dice import Roller, SeededRoller, commitment, seal_difficulty
from domain.errors import Conflict, NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.game import PlatformGame, _at, _iso, check_timezone, digest
from domain.platform.game import fold as platform_fold
from domain.powers import development_rules, magic_rules, rules
from domain.powers.armies import Armies
from domain.powers.battle import BATTLE_EVENT_VERSIONS, Battles
from domain.powers.battle import WINDOW_KIND as BATTLE_WINDOW
from domain.powers.catalogue import Catalogue
from domain.powers.development import Development
from domain.powers.magic import Magic, caps_of, has_perk
from domain.powers.options import DEFAULT_OPTIONS, validate_game_options, validate_power_options
from domain.powers.state import (
    ActionState,
    Asset,
    Consequence,
    Die,
    GameState,
    Pool,
    PoolAsset,
    PowerState,
    Reaction,
    Window,
)
from domain.powers.world import World, keep_known_features

CONSEQUENCE_KINDS = ("lose_actions", "status", "disclose", "note")


def _pool_from(data: dict) -> Pool:
    return Pool(
        roll_no=data["roll_no"],
        commitment=data.get("commitment"),
        assets=[PoolAsset(**a) for a in data["assets"]],
        dice=[Die(**d) for d in data["dice"]],
        locked=data.get("locked", False),
        key=data.get("key"),
        path=data.get("path"),
    )


class Game(Armies, Battles, Catalogue, Magic, World, Development, PlatformGame):
    """One game of Powers: its calendar, powers, assets, the month's actions, reactions and windows."""

    class Event(PlatformGame.Event):
        """Base of Powers' own events (the platform's are ``PlatformGame.Event``s)."""

    # Version 2: GameCreated is counted once in the viewers' sequences (version 1 counted it twice).
    class_version = 2

    @staticmethod
    def upcast_v1_v2(aggregate_state: dict) -> None:
        """A snapshot taken when GameCreated was counted twice: count it once, as replaying the events does."""
        state = aggregate_state["state"]
        seen = dict(state.seen)
        for viewer in ("gm", "public"):
            if seen.get(viewer, 0) > 0:
                seen[viewer] -= 1
        aggregate_state["state"] = replace(state, seen=seen)

    @event("GameCreated")
    def __init__(
        self,
        name: str,
        gm_name: str,
        timezone: str,
        ruleset: str,
        rules_version: str,
        options: dict,
        months_per_season: int,
        actor: str,
        audience: list,
    ) -> None:
        self.state = GameState(
            name=name,
            gm_name=gm_name,
            timezone=timezone,
            ruleset=ruleset,
            rules_version=rules_version,
            options={**DEFAULT_OPTIONS, **deepcopy(options)},
            months_per_season=months_per_season,
        )

    @classmethod
    def start(
        cls, name: str, gm_name: str, timezone: str = "UTC", months_per_season: int = 2, options: dict | None = None
    ) -> Game:
        """Create a game of Powers (GM-28: 2 or 3 months a season, default 2)."""
        limits.check_text(name, "name", limits.GAME_NAME, required=True, what="a game's name")
        limits.check_text(gm_name, "gm_name", limits.GM_NAME, what="the GM's name")
        check_timezone(timezone)
        _check_months(months_per_season)
        options = validate_game_options(options)
        return cls(
            name=name.strip(),
            gm_name=gm_name,
            timezone=timezone,
            ruleset="powers",
            rules_version=rules.RULES_VERSION,
            options=options,
            months_per_season=months_per_season,
            actor=GM,
            audience=[vis.PUBLIC],
        )

    # ------------------------------------------------------------------ queries

    def power(self, power_id: str) -> PowerState:
        """The power, or NotFound."""
        try:
            return self.state.powers[power_id]
        except KeyError:
            raise NotFound(f"no power {power_id!r} in this game", field="power") from None

    def acts_for(self, principal: str, seat: str) -> bool:
        """The GM acts for adversaries (GM-10)."""
        return principal == GM and self.power(seat).subclass == rules.ADVERSARY

    def action(self, action_id: str) -> ActionState:
        """This month's action, or NotFound."""
        try:
            return self.state.actions[action_id]
        except KeyError:
            raise NotFound(f"no action {action_id!r} this month", field="action_id") from None

    def _audience(self, a: ActionState) -> list[str]:
        """Who sees an action's own events: its owner and declared collaborators (P.4), and the GM."""
        return vis.powers([a.power, *a.collaborators])

    def actions_of(self, power_id: str) -> list[ActionState]:
        """A power's actions this month, in submission order."""
        return sorted((a for a in self.state.actions.values() if a.power == power_id), key=lambda a: a.index)

    def slots_used(self, power_id: str) -> tuple[int, int]:
        """Actions used this month as (public, private), counting actions spent as assets (P-ASSET-2)."""
        pub, priv = self._shared_slots(power_id)
        for a in self.actions_of(power_id):
            cost = 1 + a.extra_actions
            if a.slot == "public":
                pub += cost
            else:
                priv += cost
        return pub, priv

    def eligible_resisters(self, action: ActionState) -> list[str]:
        """Powers that may resist this action: its targets, other than its owner (P-RES-1, GM-6)."""
        if not action.resistible:
            return []
        return sorted(p for p in action.targets if p in self.state.powers and p != action.power)

    def pending_resisters(self) -> list[str]:
        """Eligible resisters of provisional actions that have neither reacted out nor waived (P-AMB-39)."""
        pending = set()
        for a in self.state.actions.values():
            if a.status != "provisional":
                continue
            for p in self.eligible_resisters(a):
                ps = self.state.powers[p]
                if not ps.done_reacting and ps.reactions_used < ps.reaction_allowance + self._reactions_to_buy(ps):
                    pending.add(p)
        return sorted(pending)

    # ------------------------------------------------------------------ setup

    def add_power(self, power_id: str, name: str, cls: str, subclass: str, options: dict | None = None) -> None:
        """Add a power of any class and subclass, with its monthly quota (P-ACT-1)."""
        limits.check_text(name, "name", limits.POWER_NAME, required=True, what="a power's name")
        limits.check_text(power_id, "power_id", limits.IDENTIFIER)
        if any(p.name.lower() == name.strip().lower() for p in self.state.powers.values()):
            raise RuleViolation(f"there is already a power named {name.strip()!r}", field="name")
        rules.validate_power(cls, subclass, {})
        options = validate_power_options(subclass, options)
        rules.validate_power(cls, subclass, options)
        q = rules.quota(subclass, options)
        self._power_added(
            power_id=power_id,
            name=name.strip(),
            cls=cls,
            subclass=subclass,
            options=options,
            public=q.public,
            private=q.private,
            actor=GM,
            audience=[vis.PUBLIC],
        )

    @event("PowerAdded")
    def _power_added(
        self,
        power_id: str,
        name: str,
        cls: str,
        subclass: str,
        options: dict,
        public: int,
        private: int,
        actor: str,
        audience: list,
    ) -> None:
        self.state.powers[power_id] = PowerState(
            id=power_id,
            name=name,
            cls=cls,
            subclass=subclass,
            options=deepcopy(options),
            public=public,
            private=private,
        )

    def grant_asset(
        self,
        asset_id: str,
        power_id: str,
        name: str,
        cls: str,
        rank: int,
        assured: bool = False,
        critical: bool = False,
        novel: bool = False,
    ) -> None:
        """Give a power an asset; granting an existing asset id to another power shares it (P-ASSET-5, 6)."""
        self.power(power_id)
        limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="an asset's name")
        limits.check_text(asset_id, "asset_id", limits.IDENTIFIER)
        development_rules.check_not_resource(cls, "cls")
        if cls not in rules.ASSET_CLASSES:
            raise RuleViolation(
                f"an asset's class is one of {', '.join(rules.ASSET_CLASSES)}; {cls!r} is not",
                rule="P-ASSET-1",
                field="cls",
            )
        if not 1 <= rank <= 10:
            raise RuleViolation("an asset's rank is between 1 and 10", rule="P-DICE-2", field="rank")
        if cls == "skill" and name not in rules.SKILLS:
            raise RuleViolation(
                f"a skill is one of {', '.join(rules.SKILLS)}; {name!r} is not", rule="P-ASSET-3", field="name"
            )
        existing = self.state.assets.get(asset_id)
        if existing is not None:
            if power_id in existing.holders:
                raise RuleViolation(
                    f"{self.state.powers[power_id].name} already holds {existing.name!r}", field="asset_id"
                )
            if cls in ("skill", "spell", "item", "consumable"):
                raise RuleViolation(f"{cls}s cannot be shared between powers", rule="P-ASSET-8", field="asset_id")
        audience = [vis.PUBLIC] if cls in rules.PUBLIC_ASSET_CLASSES else vis.powers([power_id])
        self._asset_granted(
            asset_id=asset_id,
            power_id=power_id,
            name=name,
            cls=cls,
            rank=rank,
            assured=assured,
            critical=critical,
            novel=novel,
            actor=GM,
            audience=audience,
        )

    @event("AssetGranted")
    def _asset_granted(
        self,
        asset_id: str,
        power_id: str,
        name: str,
        cls: str,
        rank: int,
        assured: bool,
        critical: bool,
        novel: bool,
        actor: str,
        audience: list,
    ) -> None:
        existing = self.state.assets.get(asset_id)
        if existing is None:
            self.state.assets[asset_id] = Asset(
                id=asset_id,
                name=name,
                cls=cls,
                rank=rank,
                holders=[power_id],
                assured=assured,
                critical=critical,
                novel=novel,
            )
        else:
            existing.holders.append(power_id)

    def set_months(self, months: int) -> None:
        """GM-28: this season has 2 or 3 months, fixed before the final month's Battle closes."""
        _check_months(months)
        if self.state.month > months or (self.state.month == months and self.state.step == "cleanup"):
            raise RuleViolation(
                f"month {self.state.month} has already begun; the season cannot be {months} months",
                rule="P-AMB-2",
                field="months",
            )
        self._months_set(months=months, actor=GM, audience=[vis.PUBLIC])

    @event("SeasonLengthSet")
    def _months_set(self, months: int, actor: str, audience: list) -> None:
        self.state.months_per_season = months

    # ------------------------------------------------------------------ calendar

    def expect_step(self, expected: str | None) -> None:
        """Refuse (409, recording nothing) a command that moves the game if the game is no longer at
        the step its sender saw: a burst of the same click moves the game once."""
        if expected is None or expected == self.state.step:
            return
        s = self.state
        where = f"{s.step} (season {s.season}, month {s.month})" if s.month else f"{s.step} (season {s.season})"
        raise Conflict(
            f"this command was sent for the {expected} step, but the game is now at {where}; nothing was recorded",
            field="expected_step",
        )

    def advance(
        self, now: datetime, seed: str, expected_step: str | None = None, *, tidings: str = "", post_id: str = ""
    ) -> str:
        """Move to the next step of the calendar (P.1.1, P.1.2); returns the new step.

        ``seed`` is fresh entropy from the caller, committed if a month begins. ``tidings``, given when a
        season begins, is the GM's narration of it: a post ``post_id`` in the narration thread (issue 16).
        """
        self.expect_step(expected_step)
        s = self.state
        step = s.step
        if tidings.strip():
            if step not in ("setup", "cleanup"):
                raise RuleViolation("tidings are told when a season begins (from setup or cleanup)", field="tidings")
            from domain.platform.posts import check_post_text

            check_post_text(tidings)
        if step == "setup":
            if not s.powers:
                raise RuleViolation("add at least one power before the game begins", rule="P.1.2")
            self._begin_tidings(tidings, post_id)
        elif step == "tidings":
            self._world_end_tidings()
            self._armies_end_tidings()
            self._begin_month(1, now, seed)
        elif step == "planning":
            self._close_planning(now, reason="gm advanced")
        elif step == "resolution":
            raise RuleViolation("resolve the month first: Resolution ends when the GM publishes it", rule="P.1.2")
        elif step == "resistance":
            w = self.open_window("resistance")
            if w is not None:
                raise RuleViolation(
                    f"the resistance window is open until {w.closes_at}; close it first", rule="P-RES-2"
                )
        elif step == "battle":
            fighting = [b["id"] for b in self.active_battles()]
            if fighting:
                raise RuleViolation(
                    f"every battle must end before the month does: {', '.join(fighting)}", rule="P.1.1", field="step"
                )
            # The seed goes to the GM only, for the audit: with it anyone could recompute the month's
            # private rolls. Players verify the rolls they saw from each roll's key and path (P.4).
            if s.seed is None or s.seed_commitment is None:
                raise AssertionError(f"season {s.season} month {s.month} reached battle without a committed seed")
            self._seed_revealed(
                seed=s.seed,
                commitment=s.seed_commitment,
                season=s.season,
                month=s.month,
                actor=SYSTEM,
                audience=[vis.GM_ONLY],
            )
            self._world_month_ends()
            if s.month < s.months_per_season:
                self._begin_month(s.month + 1, now, seed)
            else:
                self._catalogue_cleanup()
                self._world_cleanup()
                self._armies_cleanup()
                self._cleanup_applied(actor=SYSTEM, audience=[vis.PUBLIC])
                self._step_began(step="cleanup", season=s.season, month=s.month, actor=GM, audience=[vis.PUBLIC])
        elif step == "cleanup":
            self._begin_tidings(tidings, post_id)
        return self.state.step

    def _begin_tidings(self, tidings: str = "", post_id: str = "") -> None:
        self._step_began(step="tidings", season=self.state.season + 1, month=0, actor=GM, audience=[vis.PUBLIC])
        if tidings.strip():
            self.narrate(
                tidings,
                post_id=post_id or f"tidings-s{self.state.season}",
                tied_to=f"phase:s{self.state.season}-tidings",
            )
        self._season_mana()
        self._world_tidings()

    def _begin_month(self, month: int, now: datetime, seed: str) -> None:
        s = self.state
        self._commit_seed(seed, s.season, month)
        closes = now + timedelta(hours=float(s.options["planning_hours"]))
        self._window_opened(
            window_id=f"s{s.season}m{month}-planning",
            kind="planning",
            opened_at=_iso(now),
            closes_at=_iso(closes),
            actor=SYSTEM,
            audience=[vis.PUBLIC],
        )
        # StepBegan comes last, so the version of a phase's StepBegan is the phase fully opened.
        self._step_began(step="planning", season=s.season, month=month, actor=GM, audience=[vis.PUBLIC])
        self._catalogue_month_opened()

    @event("StepBegan")
    def _step_began(self, step: str, season: int, month: int, actor: str, audience: list) -> None:
        s = self.state
        if step == "tidings" and season != s.season:
            s.season_ledger = {}
        if step == "planning":
            s.actions = {}
            s.reactions = {}
            s.queue = []
            s.resolved = False
            self._catalogue_month_began()
            for p in s.powers.values():
                p.debt_this_month = p.debt_next_month
                p.debt_next_month = 0
                p.reactions_used = 0
                p.done_reacting = False
                p.ready = False
        if step == "tidings":
            for p in s.powers.values():
                p.extension_hours_used = 0.0
        s.step, s.season, s.month = step, season, month

    @event("CleanupApplied")
    def _cleanup_applied(self, actor: str, audience: list) -> None:
        for p in self.state.powers.values():
            # [003:310] "Cleanup: Statuses tick down. Mana dissipates." Once a season, one stack each.
            p.statuses = {k: v - 1 for k, v in p.statuses.items() if v - 1 > 0}
            if not has_perk(self.state, p.id, "vessel_heart"):  # [003:909] Vessel Heart keeps it (P-MAG-1)
                p.mana = {}

    # ------------------------------------------------------------------ planning

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
        assets: list[dict] | None = None,
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
        limits.check_text(title, "title", limits.TITLE, required=True, what="an action's title")
        limits.check_text(description, "description", limits.DESCRIPTION, what="a description")
        limits.check_optional_text(location, "location", limits.LOCATION, what="a location")
        _check_items(targets, "targets")
        _check_items(collaborators, "collaborators")
        if skill is not None and skill not in rules.SKILLS:
            raise RuleViolation(
                f"a skill is one of {', '.join(rules.SKILLS)}; {skill!r} is not", rule="P-ASSET-3", field="skill"
            )
        targets, collaborators = _check_parties(targets, collaborators, power_id, self.state.powers)
        if difficulty is not None and not 0 <= difficulty <= 50:
            raise RuleViolation("a difficulty is a whole number from 0 to 50", rule="P-DICE-1", field="difficulty")
        if action_id in self.state.actions:
            raise RuleViolation(f"action {action_id!r} already exists", field="action_id")
        extra = _check_extra(extra_actions)
        self.check_quota(power_id, slot, 1 + (extra if roll else 0))
        dungeon = self.check_location(power_id, location, assets or [] if roll else []) or dungeon
        if roll:  # validate the pool before recording anything: a refused command records nothing
            self._check_new_pool(power_id, assets or [], skill, bool(dungeon), location, targets)
        self._action_submitted(
            action_id=action_id,
            power_id=power_id,
            index=len(self.actions_of(power_id)) + 1,
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
        self, power_id: str, assets: list[dict], skill: str | None, dungeon: bool, location: str | None, targets: list
    ) -> None:
        """Refuses a new action's pool as its roll would, and a roll the month's committed block has not left."""
        where = {"location": location, "against": targets}
        self._pick_pool(power_id, assets, skill_tag=skill, is_reaction=False, dungeon=dungeon, where=where)
        self._armies_check_pool(None, power_id, location, assets)
        self._runes_check_pool(location, assets)
        self._roll_proof(self.state.next_roll)

    @event("ActionSubmitted")
    def _action_submitted(
        self,
        action_id: str,
        power_id: str,
        index: int,
        title: str,
        description: str,
        skill: str | None,
        slot: str,
        location: str | None,
        targets: list,
        resistible: bool,
        difficulty: int | None,
        collaborators: list,
        actor: str,
        audience: list,
        dungeon: bool = False,
    ) -> None:
        self.state.actions[action_id] = ActionState(
            id=action_id,
            power=power_id,
            index=index,
            title=title,
            description=description,
            skill=skill,
            slot=slot,
            location=location,
            targets=list(targets),
            resistible=resistible,
            difficulty=difficulty,
            collaborators=list(collaborators),
            dungeon=dungeon,
        )
        self.state.powers[power_id].commands += 1

    def roll_action(
        self,
        action_id: str,
        *,
        now: datetime,
        roller: Roller,
        assets: list[dict],
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
        extra = _check_extra(extra_actions)
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
        self._dice_rolled(
            action_id=action_id, extra_actions=extra, pool=pool, actor=actor or a.power, audience=self._audience(a)
        )
        if convert is not None:
            # Chosen before seeing the dice, ``convert`` means "up to": never more than the 3s and 4s rolled
            # where a conversion counts (P-AMB-5).
            available = len(self._convertible(_pool_from(pool)))
            self.lock_conversions(action_id, convert=min(max(convert, 0), available), now=now, actor=actor)

    def _build_pool(
        self,
        power_id: str,
        picks: list[dict],
        *,
        skill_tag: str | None,
        extra_actions: int,
        roller: Roller,
        is_reaction: bool,
        reacting_to_skill: str | None = None,
        dungeon: bool = False,
        where: dict | None = None,
    ) -> dict:
        chosen = self._pick_pool(
            power_id,
            picks,
            skill_tag=skill_tag,
            is_reaction=is_reaction,
            reacting_to_skill=reacting_to_skill,
            dungeon=dungeon,
            where=where,
        )
        pool_assets = [
            {"asset_id": a.id, "name": a.name, "cls": a.cls, "rank": a.rank, "mode": m, "undercut": False}
            for a, m in chosen
        ]
        return self._roll_pool(power_id, pool_assets, extra_actions, roller)

    def _pick_pool(
        self,
        power_id: str,
        picks: list[dict],
        *,
        skill_tag: str | None,
        is_reaction: bool,
        reacting_to_skill: str | None = None,
        dungeon: bool = False,
        where: dict | None = None,
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
            asset = self.state.assets.get(asset_id)
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

    def _roll_pool(self, power_id: str, pool_assets: list[dict], extra_actions: int, roller: Roller) -> dict:
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
        dice = [{"face": f, "asset": owner, "converted": False, "removed": False} for f, owner in zip(faces, owners)]
        return {
            "roll_no": roll_no,
            "commitment": self.state.seed_commitment,
            "assets": pool_assets,
            "dice": dice,
            "locked": False,
            **proof,
        }

    @event("DiceRolled")
    def _dice_rolled(self, action_id: str, extra_actions: int, pool: dict, actor: str, audience: list) -> None:
        a = self.state.actions[action_id]
        a.pool = _pool_from(pool)
        a.salt = pool.get("salt")
        a.extra_actions = extra_actions
        a.status = "rolled"
        self.state.next_roll = pool["roll_no"] + 1
        self._spend(pool["assets"])

    def _spend(self, pool_assets: list[dict]) -> None:
        """Fold what rolling a pool spends, for an action or a reaction alike: a novel asset's surprise
        (P-DICE-9) and a single-use asset (P-ASSET-8)."""
        for pa in pool_assets:
            asset = self.state.assets.get(pa["asset_id"])
            if asset is not None:
                asset.novel = False
                if asset.cls in rules.SINGLE_USE:
                    asset.used_up = True

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
        chosen = self._conversions(a.pool, convert, dice)
        self._conversions_locked(
            action_id=action_id,
            converted=chosen,
            digest=_submission_digest(a, chosen),
            actor=actor or a.power,
            audience=self._audience(a),
        )
        self._forewarn(a, already=[])

    def _forewarn(self, a: ActionState, already: list[str]) -> None:
        """P-AMB-4 under ``notify_resister_at: "submission"``: once an action is submitted with its roll locked,
        each power that may resist it (and was not told yet) learns who acts, the action and the pool size
        (P-AMB-3), privately; by default they learn it when the Resolution is published (``resolve``)."""
        if self.state.options.get("notify_resister_at") != "submission" or a.pool is None or not a.pool.locked:
            return
        told = [p for p in self.eligible_resisters(a) if p not in already]
        if a.discarded or not told:
            return
        self._resistance_forewarned(
            action_id=a.id,
            power_id=a.power,
            power_name=self.state.powers[a.power].name,
            title=a.title,
            skill=a.skill,
            pool_size=self.tally(a).pool_size,
            resisters=told,
            actor=SYSTEM,
            audience=vis.powers(told),
        )

    @event("ResistanceForewarned")
    def _resistance_forewarned(
        self,
        action_id: str,
        power_id: str,
        power_name: str,
        title: str,
        skill: str | None,
        pool_size: int,
        resisters: list,
        actor: str,
        audience: list,
    ) -> None:
        pass

    def _weights(self, pool: Pool) -> dict[str, int]:
        """Successes one converted die adds, by the asset it belongs to (P-DICE-3, P-AMB-5)."""
        mode = self.state.options.get("critical_mode", "rolled")
        return {pa.asset_id: rules.conversion_weight(pa.mode, mode) for pa in pool.assets}

    def _lock_conversions_now(self, pool: dict, convert: int) -> dict:
        """Convert up to ``convert`` of a freshly rolled pool's 3s and 4s as ``_conversions`` picks them, and lock
        it (a pool rolled and converted in one command: a reaction, a share, a guardian's roll)."""
        p = _pool_from(pool)
        chosen = set(self._conversions(p, min(max(convert, 0), len(self._convertible(p))), None))
        pool["dice"] = [{**d, "converted": i in chosen} for i, d in enumerate(pool["dice"])]
        pool["locked"] = True
        return pool

    def _convertible(self, pool: Pool) -> list[int]:
        """The 3s and 4s whose conversion adds a success (not a rank-mode critical asset's: P-AMB-5)."""
        weights = self._weights(pool)
        return [i for i, d in enumerate(pool.dice) if rules.is_convertible(d.face) and weights.get(d.asset, 1) > 0]

    def conversion_preview(self, a: ActionState) -> list[dict]:
        """What each number of conversions would give an action's rolled pool (issue 17: the board shows it
        without JavaScript): the successes (its collaborators' too, P-DICE-11) and consequences for 0, 1, ...
        conversions, the dice chosen as ``LockConversions`` would choose them (P-DICE-3, P-AMB-5)."""
        pool = a.pool
        if pool is None:
            return []
        shared, _ = self._shared_tally(a)
        out = []
        for n in range(len(self._convertible(pool)) + 1):
            chosen = set(self._conversions(pool, n, None))
            trial = replace(pool, dice=[replace(d, converted=i in chosen) for i, d in enumerate(pool.dice)])
            t = self.tally(a, trial)
            out.append({"convert": n, "successes": t.successes + shared, "consequences": t.consequences})
        return out

    def _conversions(self, pool: Pool, convert: int | None, dice: list[int] | None) -> list[int]:
        convertible = self._convertible(pool)
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
        return rules.choose_conversions([(d.face, d.asset) for d in pool.dice], convert, self._weights(pool))

    @event("ConversionsLocked")
    def _conversions_locked(self, action_id: str, converted: list, digest: str, actor: str, audience: list) -> None:
        a = self.state.actions[action_id]
        for i in converted:
            a.pool.dice[i].converted = True
        a.pool.locked = True
        a.digest = digest
        a.status = "submitted"

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
                    stacks[e["name"]] = stacks.get(e["name"], 0) + _stacks(e)
        self._action_discarded(
            action_id=action_id,
            actor=actor or a.power,
            audience=self._audience(a),
            undo={"lose_actions": lost, "statuses": stacks},
        )

    @event("ActionDiscarded")
    def _action_discarded(self, action_id: str, actor: str, audience: list, undo: dict | None = None) -> None:
        a = self.state.actions[action_id]
        a.discarded = True
        a.status = "discarded"
        for c in a.consequences:
            c.status = {"accepted": "undone", "proposed": "withdrawn"}.get(c.status, c.status)
        if undo:
            p = self.state.powers[a.power]
            p.debt_next_month = max(0, p.debt_next_month - undo["lose_actions"])
            left = {name: p.statuses.get(name, 0) - n for name, n in undo["statuses"].items()}
            p.statuses = {k: v for k, v in {**p.statuses, **left}.items() if v > 0}
        self._undo_shares(action_id)  # collaborators' consequences are undone with it (P-AMB-29, P-DICE-11)

    # ------------------------------------------------------------------ GM rulings

    def set_difficulty(
        self, action_id: str, value: int, *, sealed: bool = False, nonce: str = "", tiers: dict | None = None
    ) -> None:
        """The GM declares a difficulty openly, or records it secretly, committed by hash before the roll (GM-2)."""
        a = self.action(action_id)
        if self.state.resolved or self.state.step not in ("planning", "resolution"):
            raise RuleViolation("difficulties are set before the month is resolved", rule="GM-2", field="action_id")
        if not 0 <= value <= 50:
            raise RuleViolation("a difficulty is a whole number from 0 to 50", rule="P-DICE-1", field="value")
        if a.sealed is not None and a.pool is not None:
            raise RuleViolation(
                "this action's difficulty was sealed before its roll: it is opened at Resolution and can never "
                "be replaced",
                rule="GM-2",
                field="value",
            )
        _check_items(list(tiers or {}), "tiers")
        for text in (tiers or {}).values():
            limits.check_text(text, "tiers", limits.TIER_TEXT, what="a tier's text")
        tiers = {str(k): str(v) for k, v in (tiers or {}).items()}
        for k in tiers:
            if not k.isdigit():
                raise RuleViolation("difficulty tiers are keyed by a number of successes", rule="GM-2", field="tiers")
        if sealed:
            if a.pool is not None:
                raise RuleViolation(
                    "a secret difficulty must be recorded before the roll it governs; this action has been "
                    "rolled, so declare it openly",
                    rule="GM-2",
                    field="sealed",
                )
            if len(nonce) < 16:
                raise RuleViolation("a sealed difficulty needs a nonce of at least 16 characters", rule="GM-2")
            self._difficulty_recorded(
                action_id=action_id, value=value, nonce=nonce, tiers=tiers, actor=GM, audience=[vis.GM_ONLY]
            )
            self._difficulty_committed(
                action_id=action_id, commitment=seal_difficulty(value, nonce), actor=GM, audience=self._audience(a)
            )
        else:
            self._difficulty_declared(
                action_id=action_id,
                value=value,
                tiers=tiers,
                after_roll=a.pool is not None,
                actor=GM,
                audience=self._audience(a),
            )

    @event("DifficultyDeclared")
    def _difficulty_declared(
        self, action_id: str, value: int, tiers: dict, after_roll: bool, actor: str, audience: list
    ) -> None:
        a = self.state.actions[action_id]
        if after_roll and actor == GM:
            # What the roll faced is the difficulty before the GM's first ruling after it.
            rolled = a.changed_after_roll["from"] if a.changed_after_roll else a.difficulty
            a.changed_after_roll = None if rolled == value else {"from": rolled, "to": value}
        a.difficulty, a.tiers, a.sealed = value, dict(tiers), None
        self.state.sealed_difficulties.pop(action_id, None)

    @event("DifficultyRecorded")
    def _difficulty_recorded(
        self, action_id: str, value: int, nonce: str, tiers: dict, actor: str, audience: list
    ) -> None:
        self.state.sealed_difficulties[action_id] = {"value": value, "nonce": nonce, "tiers": dict(tiers)}

    @event("DifficultyCommitted")
    def _difficulty_committed(self, action_id: str, commitment: str, actor: str, audience: list) -> None:
        a = self.state.actions[action_id]
        a.sealed = commitment
        a.difficulty = None

    def set_ruling(self, action_id: str, *, resistible: bool, resisters: list[str]) -> None:
        """The GM rules whether an action can be resisted and by whom (GM-6)."""
        a = self.action(action_id)
        if self.state.resolved:
            raise RuleViolation("this month is already resolved", rule="GM-6")
        _check_items(resisters, "resisters")
        for p in resisters:
            self.power(p)
        self._check_ruling(a, resistible)
        told = self.eligible_resisters(a)
        self._ruling_issued(
            action_id=action_id,
            resistible=resistible,
            targets=sorted(set(resisters)),
            actor=GM,
            audience=self._audience(a),
        )
        self._forewarn(a, already=told)

    def hide_from_resisters(self, action_id: str, asset_ids: list[str]) -> None:
        """GM: the assets of an action's pool its resisters are not shown (GM-19); a later call with fewer reveals
        the rest. Read only where resisters see the assets (``resister_sees_assets: "assets"``, P-AMB-3): the pool
        size they learn counts every asset, hidden or not."""
        a = self.action(action_id)
        if self.state.options.get("resister_sees_assets") != "assets":
            raise RuleViolation(
                "resisters are told only the pool size in this game, which counts every asset: there is nothing "
                "to hide (campaign option resister_sees_assets)",
                rule="P-AMB-3",
                field="asset_ids",
            )
        if self.state.resolved:
            raise RuleViolation(
                "the resisters were shown the pool when the Resolution was published", rule="GM-19", field="action_id"
            )
        _check_items(asset_ids, "asset_ids")
        in_pool = {pa["asset_id"] for pa in self._pool_assets(a)}
        unknown = [x for x in asset_ids if x not in in_pool]
        if unknown:
            raise RuleViolation(
                f"{', '.join(map(str, unknown))} {'is' if len(unknown) == 1 else 'are'} not in this action's pool",
                rule="GM-19",
                field="asset_ids",
            )
        self._hidden_from_resisters(
            action_id=action_id, asset_ids=sorted(set(asset_ids)), actor=GM, audience=[vis.GM_ONLY]
        )

    @event("AssetsHiddenFromResisters")
    def _hidden_from_resisters(self, action_id: str, asset_ids: list, actor: str, audience: list) -> None:
        self.state.actions[action_id].hidden_from_resisters = list(asset_ids)

    def _pool_assets(self, a: ActionState) -> list[dict]:
        """Every asset of an action's pool, its collaborators' too (P-DICE-11)."""
        own = [vars(pa) for pa in a.pool.assets] if a.pool else []
        return [*own, *self._shared_assets(a.id)]

    def resister_assets(self, a: ActionState) -> list[dict] | None:
        """What a resister is shown of the pool against it besides its size (P-AMB-3): None by default; under
        ``resister_sees_assets: "assets"`` each asset's name, class and rank, never whether it is assured or
        critical, without the assets the GM hides (GM-19) nor actions spent as assets (always assured)."""
        if self.state.options.get("resister_sees_assets") != "assets":
            return None
        return [
            {"name": pa["name"], "cls": pa["cls"], "rank": pa["rank"]}
            for pa in self._pool_assets(a)
            if pa["cls"] != "action" and pa["asset_id"] not in a.hidden_from_resisters
        ]

    @event("RulingIssued")
    def _ruling_issued(self, action_id: str, resistible: bool, targets: list, actor: str, audience: list) -> None:
        a = self.state.actions[action_id]
        a.resistible, a.targets = resistible, list(targets)

    def propose_consequence(self, action_id: str, consequence_id: str, text: str, effects: list[dict]) -> None:
        """The GM offers the form the consequences take (GM-3); the player accepts it or discards the action."""
        a = self.action(action_id)
        if a.pool is None or not a.pool.locked:
            raise RuleViolation("consequences are offered once the conversions are locked", rule="GM-3")
        if a.discarded or self.state.resolved:
            raise RuleViolation("this action can no longer take consequences", rule="GM-3")
        self._check_offer(a.consequences, consequence_id, text, effects)
        self._consequence_proposed(
            action_id=action_id,
            consequence_id=consequence_id,
            text=text,
            effects=deepcopy(effects),
            actor=GM,
            audience=self._audience(a),
        )

    def _check_offer(self, offers: list[Consequence], consequence_id: str, text: str, effects: list[dict]) -> None:
        """A consequence the GM offers on an action or a reaction (GM-3, P-AMB-6): a new id, a text, and structured
        effects the aggregate knows how to apply."""
        limits.check_text(consequence_id, "consequence_id", limits.IDENTIFIER)
        limits.check_text(text, "text", limits.CONSEQUENCE_TEXT, what="a consequence's text")
        _check_items(effects, "effects")
        for e in effects:
            self._check_effect(e)
        if any(c.id == consequence_id for c in offers):
            raise RuleViolation(f"consequence {consequence_id!r} already exists", rule="GM-3", field="consequence_id")

    def _check_effect(self, e: dict) -> None:
        if not isinstance(e, dict):
            raise RuleViolation("each consequence effect is an object with a kind", rule="GM-3", field="effects")
        kind = e.get("kind")
        if kind not in CONSEQUENCE_KINDS:
            raise RuleViolation(
                f"a consequence effect is one of {', '.join(CONSEQUENCE_KINDS)}", rule="GM-3", field="effects"
            )
        if kind == "lose_actions" and not (isinstance(e.get("count"), int) and 1 <= e["count"] <= 5):
            raise RuleViolation("lose_actions needs a count from 1 to 5", rule="P-ACT-2", field="effects")
        if kind == "status" and not (
            isinstance(e.get("name"), str)
            and e["name"].strip()
            and isinstance(e.get("stacks"), int)
            and 1 <= e["stacks"] <= 100
            and "months" not in e
        ):
            raise RuleViolation(
                "a status needs a name and a number of stacks, which tick down by one at each Cleanup, once a "
                "season ([003:310])",
                rule="GM-3",
                field="effects",
            )
        if kind == "status":
            limits.check_text(e["name"], "effects", limits.ASSET_NAME, what="a status's name")
        if kind == "disclose":
            if not isinstance(e.get("to"), str):
                raise RuleViolation("a disclosure names the power it is disclosed to", rule="GM-3", field="effects")
            self.power(e["to"])
            if not isinstance(e.get("text"), str) or not e["text"]:
                raise RuleViolation("a disclosure says what is disclosed", rule="GM-3", field="effects")
            limits.check_text(e["text"], "effects", limits.GRANT_TEXT, what="a disclosure")

    @event("ConsequenceProposed")
    def _consequence_proposed(
        self, action_id: str, consequence_id: str, text: str, effects: list, actor: str, audience: list
    ) -> None:
        self.state.actions[action_id].consequences.append(
            Consequence(id=consequence_id, text=text, effects=deepcopy(effects))
        )

    def accept_consequence(self, action_id: str, consequence_id: str, actor: str | None = None) -> None:
        """The player accepts the GM's consequence; its structured effects apply (GM-3, P-ACT-2)."""
        a = self.action(action_id)
        c = _open_offer(a.consequences, consequence_id, "action", closed=a.discarded)
        self._consequence_accepted(
            action_id=action_id, consequence_id=consequence_id, actor=actor or a.power, audience=self._audience(a)
        )
        self._disclose(c.effects, a.power, action_id)

    def _disclose(self, effects: list[dict], about: str, action_id: str) -> None:
        """P.4: information leaked by an accepted consequence is shown to the power it names."""
        for e in effects:
            if e["kind"] == "disclose":
                self._visibility_granted(
                    to=e["to"],
                    about=about,
                    text=e["text"],
                    action_id=action_id,
                    source="consequence",
                    actor=GM,
                    audience=vis.powers([e["to"]]),
                )

    @event("ConsequenceAccepted")
    def _consequence_accepted(self, action_id: str, consequence_id: str, actor: str, audience: list) -> None:
        a = self.state.actions[action_id]
        c = next(c for c in a.consequences if c.id == consequence_id)
        c.status = "accepted"
        _apply_effects(self.state.powers[a.power], c.effects)

    def propose_reaction_consequence(
        self, reaction_id: str, consequence_id: str, text: str, effects: list[dict]
    ) -> None:
        """The GM offers the form a resister's consequences take, as for an actor's (GM-3): a resister rolls "as if
        it was its own challenge", so its converted 3s and 4s are consequences too (P-AMB-6, P-RES-4)."""
        r = self._reaction(reaction_id)
        if not r.pool.locked:
            raise RuleViolation("consequences are offered once the conversions are locked", rule="P-AMB-6")
        self._check_offer(r.consequences, consequence_id, text, effects)
        self._reaction_consequence_proposed(
            reaction_id=reaction_id,
            consequence_id=consequence_id,
            text=text,
            effects=deepcopy(effects),
            actor=GM,
            audience=vis.powers([r.power]),
        )

    @event("ReactionConsequenceProposed")
    def _reaction_consequence_proposed(
        self, reaction_id: str, consequence_id: str, text: str, effects: list, actor: str, audience: list
    ) -> None:
        self.state.reactions[reaction_id].consequences.append(
            Consequence(id=consequence_id, text=text, effects=deepcopy(effects))
        )

    def accept_reaction_consequence(self, reaction_id: str, consequence_id: str, actor: str | None = None) -> None:
        """The resister accepts the GM's consequence; its effects fall on the resister (P-AMB-6, GM-3, P-ACT-2)."""
        r = self._reaction(reaction_id)
        c = _open_offer(r.consequences, consequence_id, "reaction")
        self._reaction_consequence_accepted(
            reaction_id=reaction_id,
            consequence_id=consequence_id,
            actor=actor or r.power,
            audience=vis.powers([r.power]),
        )
        self._disclose(c.effects, r.power, r.action_id)

    @event("ReactionConsequenceAccepted")
    def _reaction_consequence_accepted(self, reaction_id: str, consequence_id: str, actor: str, audience: list) -> None:
        r = self.state.reactions[reaction_id]
        c = next(c for c in r.consequences if c.id == consequence_id)
        c.status = "accepted"
        _apply_effects(self.state.powers[r.power], c.effects)

    def _reaction(self, reaction_id: str) -> Reaction:
        """This month's reaction, or NotFound."""
        try:
            return self.state.reactions[reaction_id]
        except KeyError:
            raise NotFound(f"no reaction {reaction_id!r} this month", field="reaction_id") from None

    def grant_mana(self, power_id: str, element: str, amount: int) -> None:
        """The GM records mana a power gains (a favor, a ruling); it dissipates at Cleanup ([003:310]).

        P-MAG-1: mana is of an element (A, F, E, W, L or D), and a power stores at most its cap of each.
        """
        p = self.power(power_id)
        element = magic_rules.check_element(element.strip() if isinstance(element, str) else element)
        if not isinstance(amount, int) or not 1 <= amount <= 20:
            raise RuleViolation("mana is granted 1 to 20 at a time", rule="P-MAG-1", field="amount")
        magic_rules.check_gain(p.mana, element, amount, caps_of(self.state, power_id))
        self._mana_granted(power_id=power_id, element=element, amount=amount, actor=GM, audience=vis.powers([power_id]))

    @event("ManaGranted")
    def _mana_granted(self, power_id: str, element: str, amount: int, actor: str, audience: list) -> None:
        mana = self.state.powers[power_id].mana
        mana[element] = mana.get(element, 0) + amount

    def share_secret(self, power_id: str, asset_id: str, to: str) -> None:
        """Share a Secret with another power; it can never be retracted ([003:114], P-ASSET-8)."""
        asset = self.state.assets.get(asset_id)
        if asset is None or power_id not in asset.holders:
            raise NotFound(f"you hold no asset {asset_id!r}", field="asset_id")
        if asset.cls != "secret":
            raise RuleViolation(
                f"only secrets are shared; {asset.name!r} is a {asset.cls}", rule="P-ASSET-8", field="asset_id"
            )
        self.power(to)
        if to == power_id or to in asset.holders:
            raise RuleViolation(
                f"{self.state.powers[to].name} already knows {asset.name!r}", rule="P-ASSET-8", field="to"
            )
        self._secret_shared(
            asset_id=asset_id,
            from_power=power_id,
            to=to,
            name=asset.name,
            rank=asset.rank,
            actor=power_id,
            audience=vis.powers([power_id, to]),
        )

    @event("SecretShared")
    def _secret_shared(
        self, asset_id: str, from_power: str, to: str, name: str, rank: int, actor: str, audience: list
    ) -> None:
        self.state.assets[asset_id].holders.append(to)

    def set_influence(self, power_id: str, hex_id: str, amount: int) -> None:
        """GM records a power's influence in a hex; conspiracies there see each other's (P.4, [003:1104])."""
        self.power(power_id)
        limits.check_text(hex_id, "hex", limits.IDENTIFIER, what="a hex")
        if not hex_id.strip():
            raise RuleViolation("name the hex", field="hex")
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= 20:
            raise RuleViolation("influence is a whole number from 0 to 20", rule="P-INFL-1", field="amount")
        if self.state.world.hexes:
            hex_id = self._map_hex(hex_id, "hex", "P-INFL-1")
        self._put_influence(power_id, hex_id, amount, GM)
        self._check_conspiracy_claims(power_id)

    @event("InfluenceSet")
    def _influence_set(self, power_id: str, hex_id: str, amount: int, actor: str, audience: list) -> None:
        influence = self.state.powers[power_id].influence
        if amount:
            influence[hex_id] = amount
        else:
            influence.pop(hex_id, None)

    @event("InfluenceDisclosed")
    def _influence_disclosed(self, to: str, hex_id: str, entries: dict, actor: str, audience: list) -> None:
        pass

    # ------------------------------------------------------------------ windows: who may still act

    def _may_act_in(self, w: Window, power_id: str) -> bool:
        if w.kind == "planning":
            return True
        if w.kind == BATTLE_WINDOW:
            return self._battle_may_act(w, power_id)
        return power_id in self.pending_resisters()

    def declare_ready(self, power_id: str, *, now: datetime) -> None:
        """A power says it has submitted all it will this month; when all have, Planning closes early
        (P-AMB-39); unused actions become schemes."""
        self._check_planning(now, power_id)
        ps = self.power(power_id)
        if ps.ready:
            raise RuleViolation("you have already said you are ready", rule="P-AMB-39")
        self._ready_declared(power_id=power_id, actor=power_id, audience=vis.powers([power_id]))
        self._close_planning_if_everyone_is_ready(now)

    def planning_pending(self) -> list[str]:
        """Powers that may still act this Planning step: not ready, with actions left."""
        pending = []
        for p in self.state.powers.values():
            pub, priv = self.slots_used(p.id)
            left = p.public + p.private - p.debt_this_month - pub - priv
            if not p.ready and left > 0:
                pending.append(p.id)
        return sorted(pending)

    def _close_planning_if_everyone_is_ready(self, now: datetime) -> None:
        if self.state.step == "planning" and not self.planning_pending():
            self._close_planning(now, reason="everyone is ready")

    def pending_in(self, w: Window) -> list[str]:
        """Who may still act in this window."""
        if w.kind == BATTLE_WINDOW:
            return self._battle_pending_in(w)
        return self.planning_pending() if w.kind == "planning" else self.pending_resisters()

    # ------------------------------------------------------------------ rewind

    # Powers' StateRestored (version 2) has always kept the seats under "powers".
    CARRIED_SEATS = "powers"

    def rollback(self, to_version: int, restored: GameState, *, reason: str, now: datetime, seed: str) -> None:
        """The platform's rollback (``carried_over`` says what survives), then a fresh seed governs the
        dice from here; a superseded seed goes to the GM only, for the audit (P.4)."""
        superseded = self.state.seed
        super().rollback(to_version, restored, reason=reason, now=now, seed=seed)
        self._fresh_seed(seed, s_old_seed=superseded if superseded != self.state.seed else None)

    def carried_over(self, restored: GameState, now: datetime) -> dict:
        """What nobody can unsee survives a rollback (the platform's: every viewer's sequence, credentials,
        each power's grants and time zone), and Powers': roll numbers never repeat, the rollback count,
        the holders of shared Secrets; the open windows at the target get a full window from ``now``.

        The rolls made under the superseded seed stay verifiable by their viewers from their keys and
        paths (``rollback`` draws a fresh seed).
        """
        s = self.state
        platform = super().carried_over(restored, now)
        secret_holders = {}
        for asset_id, asset in s.assets.items():
            if asset.cls == "secret" and asset_id in restored.assets:
                kept = list(restored.assets[asset_id].holders)
                for h in asset.holders:
                    if h not in kept and h in restored.powers:
                        kept.append(h)
                secret_holders[asset_id] = kept
        closes_at = {}
        for w in restored.windows.values():
            if not w.closed:
                hours = s.options["planning_hours"] if w.kind == "planning" else s.options["resistance_hours"]
                closes_at[w.id] = max(w.closes_at, _iso(now + timedelta(hours=float(hours))), key=_at)
        return {  # in the order version 2 has always stored
            "seen": platform["seen"],
            "next_roll": s.next_roll,
            "credentials": platform["credentials"],
            "rollbacks": s.rollbacks + 1,
            "powers": platform["powers"],
            "secret_holders": secret_holders,
            "closes_at": closes_at,
            "known_features": self.known_features(),  # added with the map; older rollbacks carry none
        }

    def _merge_carried(self, merged: GameState, carried: dict) -> GameState:
        merged = super()._merge_carried(merged, carried)
        merged.next_roll = carried["next_roll"]
        merged.rollbacks = carried["rollbacks"]
        for asset_id, holders in carried["secret_holders"].items():
            merged.assets[asset_id].holders = list(holders)
        for window_id, closes_at in carried["closes_at"].items():
            merged.windows[window_id].closes_at = closes_at
        keep_known_features(merged, carried.get("known_features", {}))
        return merged

    def _fresh_seed(self, seed: str, s_old_seed: str | None = None, reveal: bool = True) -> None:
        """Commit a fresh seed; superseded seeds go to the GM only, for the audit (P.4)."""
        s = self.state
        for old in sorted({x for x in (s_old_seed, s.seed) if x is not None}) if reveal else []:
            self._seed_revealed(
                seed=old,
                commitment=commitment(old),
                season=s.season,
                month=s.month,
                actor=SYSTEM,
                audience=[vis.GM_ONLY],
            )
        if s.step in ("planning", "resolution", "resistance", "battle"):
            self._commit_seed(seed, s.season, s.month)
        else:
            self._seed_cleared(actor=SYSTEM, audience=[vis.SEALED])

    class StateRestored(PlatformGame.StateRestored, Event):
        """A rollback's new state: the game as it stood at ``to_version``, with what carries over.

        Version 2 records the target version and ``carried`` (``carried_over``); folding it needs the
        state at ``to_version`` (``fold`` re-folds it). Version 1 embedded the whole state: it is upcast
        to ``to_version`` None and that state in ``carried["state"]``, which the fold takes as it is.
        """

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict) -> None:
            state["to_version"] = None
            state["carried"] = {"state": state.pop("state")}

    # ------------------------------------------------------------------ planning closes

    def _close_planning(self, now: datetime, reason: str) -> None:
        s = self.state
        w = self.open_window("planning")
        if w is not None:
            self._window_closed(window_id=w.id, reason=reason, closed_at=_iso(now), actor=SYSTEM, audience=[vis.PUBLIC])
        for a in sorted(s.actions.values(), key=lambda a: (a.power, a.index)):
            # A discarded action is not resolved nor published: locking it would record an unpublished digest.
            if a.pool is not None and not a.pool.locked and not a.discarded:
                self._conversions_locked(
                    action_id=a.id,
                    converted=[],
                    digest=_submission_digest(a, []),
                    actor=SYSTEM,
                    audience=self._audience(a),
                )
        for p in sorted(s.powers.values(), key=lambda p: p.id):
            pub, priv = self.slots_used(p.id)
            missing = max(0, p.public + p.private - p.debt_this_month - pub - priv)
            if missing:
                # [003:26] excess actions each convert into rank 2 schemes.
                ids = [f"scheme-s{s.season}m{s.month}-{p.id}-{i + 1}" for i in range(missing)]
                self._schemes_granted(power_id=p.id, asset_ids=ids, actor=SYSTEM, audience=vis.powers([p.id]))
        self._step_began(step="resolution", season=s.season, month=s.month, actor=SYSTEM, audience=[vis.PUBLIC])

    @event("SchemesGranted")
    def _schemes_granted(self, power_id: str, asset_ids: list, actor: str, audience: list) -> None:
        for asset_id in asset_ids:
            self.state.assets[asset_id] = Asset(id=asset_id, name="scheme", cls="scheme", rank=2, holders=[power_id])

    # ------------------------------------------------------------------ resolution

    def resolve(
        self, *, now: datetime, roller: Roller, announcement: str = "", expected_step: str | None = None
    ) -> list[str]:
        """Resolve the month in the order of P.1.4 and publish it; returns the queue of action ids.

        Undercut shared assets lose their dice (P-ASSET-13), sealed difficulties are revealed,
        resistible actions stay provisional (P-RES-5) and the resistance window opens (P-RES-2).
        """
        self.expect_step(expected_step)
        s = self.state
        limits.check_text(announcement, "announcement", limits.ANNOUNCEMENT, what="an announcement")
        if s.step != "resolution" or s.resolved:
            raise RuleViolation(f"the month is resolved during Resolution; this is {s.step.title()}", rule="P.1.2")
        live = [a for a in s.actions.values() if not a.discarded]
        queue = self._build_queue(live, roller)
        ledger = dict(s.season_ledger)
        provisional = 0
        for action_id in queue:
            a = s.actions[action_id]
            public = self.is_public(a)
            self._undercut(a, ledger)
            if self._on_resolving(a, ledger):
                continue  # a duel declared at the wrong place is lost (P-ACT-6)
            self._world_resolving(a)  # a town action faces the town the queue has left it (P-TOWN-2)
            provisional += self._resolve_queued(a, public)
        # Issue-3 style: a digest of the exact set of submissions this resolution consumed.
        digests = sorted(a.digest for a in live if a.digest)
        self._resolution_published(
            announcement=announcement,
            submissions=digests,
            submissions_digest=digest(digests),
            actor=GM,
            audience=[vis.PUBLIC],
        )
        closes = now + timedelta(hours=float(s.options["resistance_hours"]))
        window_id = f"s{s.season}m{s.month}-resistance"
        self._window_opened(
            window_id=window_id,
            kind="resistance",
            opened_at=_iso(now),
            closes_at=_iso(closes),
            actor=SYSTEM,
            audience=[vis.PUBLIC],
        )
        self._step_began(step="resistance", season=s.season, month=s.month, actor=SYSTEM, audience=[vis.PUBLIC])
        if not provisional:
            self.close_window(window_id, now=now, reason="nothing to resist")
        return queue

    def _build_queue(self, live: list[ActionState], roller: Roller) -> list[str]:
        """The order of resolution (P.1.4), each tie broken by a coin flip on the committed dice (TiesBroken)."""
        s = self.state
        entries = [
            rules.Entry(
                action_id=a.id,
                power=a.power,
                cls=s.powers[a.power].cls,
                index=a.index,
                final_goes_last=s.powers[a.power].subclass == "wizard",
            )
            for a in live
        ]
        flips: list[list[str]] = []
        for group in rules.tie_groups(entries):
            roll_no = s.next_roll
            proof = self._roll_proof(roll_no)
            order = roller.permutation(roll_no, len(group))
            if sorted(order) != list(range(len(group))):
                raise AssertionError("a tie-break must be a permutation")
            ordered = [group[i] for i in order]
            flips.append(ordered)
            self._ties_broken(
                tied=group,
                order=ordered,
                roll_no=roll_no,
                commitment=s.seed_commitment,
                actor=SYSTEM,
                audience=[vis.GM_ONLY],
                **proof,
            )
        pending = list(flips)

        def tiebreak(group: list[str]) -> list[str]:
            # tie_groups and resolution_queue walk the same buckets, so each tie meets its own flip.
            ordered = pending.pop(0)
            if sorted(ordered) != group:
                raise AssertionError(f"the flip {ordered} does not break the tie {group}")
            return ordered

        queue = rules.resolution_queue(entries, tiebreak)
        self._queue_built(queue=queue, actor=GM, audience=[vis.GM_ONLY])
        return queue

    def _undercut(self, a: ActionState, ledger: dict[str, str]) -> None:
        """P-ASSET-13: a once-a-season asset already used this season is undercut; ``ledger`` records the
        action that used each such asset first."""
        if a.pool is None:
            return
        for pa in a.pool.assets:
            if pa.cls not in rules.ONCE_PER_SEASON:
                continue
            if pa.asset_id in ledger and ledger[pa.asset_id] != a.id:
                lost = [i for i, d in enumerate(a.pool.dice) if d.asset == pa.asset_id]
                self._asset_undercut(
                    action_id=a.id,
                    asset_id=pa.asset_id,
                    name=pa.name,
                    dice=lost,
                    actor=SYSTEM,
                    audience=self._audience(a),
                )
            else:
                ledger[pa.asset_id] = a.id

    def _reveal_sealed(self, a: ActionState, public: bool) -> int:
        """The action's difficulty, a sealed one revealed against its commitment (GM-2); 0 when none was set."""
        s = self.state
        difficulty = a.difficulty
        if a.sealed is not None:
            secret = s.sealed_difficulties[a.id]
            if seal_difficulty(secret["value"], secret["nonce"]) != a.sealed:
                raise AssertionError(f"sealed difficulty of {a.id} does not match its commitment")
            difficulty = secret["value"]
            audience = [vis.PUBLIC] if public and not a.resistible else self._audience(a)
            self._difficulty_revealed(
                action_id=a.id,
                value=secret["value"],
                nonce=secret["nonce"],
                commitment=a.sealed,
                tiers=secret["tiers"],
                actor=GM,
                audience=audience,
            )
        return difficulty or 0

    def _resolve_queued(self, a: ActionState, public: bool) -> int:
        """Resolves one action of the queue: a resistible one with resisters stays provisional and they are
        offered to resist (P-RES-5, P-AMB-3, P-AMB-4); any other resolves now. Returns 1 if it stays provisional."""
        s = self.state
        action_id = a.id
        difficulty = self._reveal_sealed(a, public)
        t = self.tally(a)
        details = self._details(a, t, difficulty)
        resisters = self.eligible_resisters(a)
        if a.resistible and resisters:
            self._action_provisional(
                action_id=action_id,
                successes=t.successes,
                difficulty=difficulty,
                details=details,
                actor=SYSTEM,
                audience=self._audience(a),
            )
            # P-AMB-3/P-AMB-45: the resister (and the table, for a public action) learns only the
            # actor, the action and the pool size until the window closes; the offer to resist is the
            # resisters' own private notice (P-AMB-4 "you alone, not the table").
            notice = {
                "action_id": action_id,
                "power_id": a.power,
                "power_name": s.powers[a.power].name,
                "title": a.title,
                "skill": a.skill,
                "pool_size": t.pool_size,
            }
            self._resistance_offered(**notice, resisters=resisters, actor=SYSTEM, audience=vis.powers(resisters))
            if public:
                self._resistance_announced(**notice, actor=SYSTEM, audience=[vis.PUBLIC])
            shown = self.resister_assets(a)
            if shown is not None:  # P-AMB-3's campaign option: to the resisters alone, even of a public action
                self._pool_assets_shown(action_id=action_id, assets=shown, actor=SYSTEM, audience=vis.powers(resisters))
            return 1
        ok, excess = rules.outcome(t.successes, difficulty)
        self._action_resolved(
            action_id=action_id,
            successes=t.successes,
            net=t.successes,
            difficulty=difficulty,
            success=ok,
            excess=excess,
            resisted=0,
            details=details,
            tier=_tier(a, s, t.successes),
            actor=SYSTEM,
            audience=[vis.PUBLIC] if public else self._audience(a),
        )
        self._conclude_ritual(action_id)
        self._world_resolved(action_id)
        self._after_resolved(a, {})
        self._armies_resolved(action_id)
        return 0

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

    def _details(self, a: ActionState, t: rules.Tally, difficulty: int) -> dict:
        pool = a.pool
        return {
            "power": a.power,
            "title": a.title,
            "slot": a.slot,
            "skill": a.skill,
            "roll_no": pool.roll_no if pool else None,
            "commitment": pool.commitment if pool else None,
            "faces": [d.face for d in pool.dice] if pool else [],
            "key": pool.key if pool else None,
            "path": pool.path if pool else None,
            "converted": [i for i, d in enumerate(pool.dice) if d.converted] if pool else [],
            "assets": [
                {"name": pa.name, "cls": pa.cls, "rank": pa.rank, "mode": pa.mode, "undercut": pa.undercut}
                for pa in pool.assets
            ]
            if pool
            else [],
            "pool_size": t.pool_size,
            "consequences": t.consequences,
            "successes": t.successes,
            "difficulty": difficulty,
            "salt": a.salt,
        }

    @event("TiesBroken")
    def _ties_broken(
        self,
        tied: list,
        order: list,
        roll_no: int,
        commitment: str | None,
        actor: str,
        audience: list,
        key: str | None = None,
        path: list | None = None,
    ) -> None:
        self.state.next_roll = roll_no + 1

    @event("ResolutionQueueBuilt")
    def _queue_built(self, queue: list, actor: str, audience: list) -> None:
        self.state.queue = list(queue)

    @event("AssetUndercut")
    def _asset_undercut(self, action_id: str, asset_id: str, name: str, dice: list, actor: str, audience: list) -> None:
        pool = self.state.actions[action_id].pool
        for pa in pool.assets:
            if pa.asset_id == asset_id:
                pa.undercut = True
        for i in dice:
            pool.dice[i].removed = True

    @event("DifficultyRevealed")
    def _difficulty_revealed(
        self, action_id: str, value: int, nonce: str, commitment: str, tiers: dict, actor: str, audience: list
    ) -> None:
        a = self.state.actions[action_id]
        a.difficulty, a.tiers, a.revealed = value, dict(tiers), True

    def _mark_used(self, action_id: str) -> None:
        a = self.state.actions[action_id]
        self._record_season_use([vars(pa) for pa in (a.pool.assets if a.pool else [])], action_id)
        self._record_season_use(self._shared_assets(action_id), action_id)

    def _record_season_use(self, pool_assets: list[dict], user: str) -> None:
        """P-ASSET-12: enter the once-a-season assets an action or reaction used into the season ledger."""
        for pa in pool_assets:
            if pa["cls"] in rules.ONCE_PER_SEASON and not pa.get("undercut"):
                self.state.season_ledger.setdefault(pa["asset_id"], user)

    @event("ActionProvisional")
    def _action_provisional(
        self, action_id: str, successes: int, difficulty: int, details: dict, actor: str, audience: list
    ) -> None:
        a = self.state.actions[action_id]
        a.status, a.successes, a.difficulty = "provisional", successes, difficulty
        self._mark_used(action_id)

    @event("ResistanceOffered")
    def _resistance_offered(
        self,
        action_id: str,
        power_id: str,
        power_name: str,
        title: str,
        skill: str | None,
        pool_size: int,
        resisters: list,
        actor: str,
        audience: list,
    ) -> None:
        pass

    @event("ResistanceAnnounced")
    def _resistance_announced(
        self,
        action_id: str,
        power_id: str,
        power_name: str,
        title: str,
        skill: str | None,
        pool_size: int,
        actor: str,
        audience: list,
    ) -> None:
        pass

    @event("PoolAssetsShown")
    def _pool_assets_shown(self, action_id: str, assets: list, actor: str, audience: list) -> None:
        pass

    @event("ActionResolved")
    def _action_resolved(
        self,
        action_id: str,
        successes: int,
        net: int,
        difficulty: int,
        success: bool,
        excess: int,
        resisted: int,
        details: dict,
        tier: str | None,
        actor: str,
        audience: list,
    ) -> None:
        a = self.state.actions[action_id]
        a.status, a.successes, a.net, a.difficulty = "resolved", successes, net, difficulty
        a.success, a.excess, a.resisted = success, excess, resisted
        self._mark_used(action_id)

    @event("ResolutionPublished")
    def _resolution_published(
        self, announcement: str, submissions: list, submissions_digest: str, actor: str, audience: list
    ) -> None:
        self.state.resolved = True

    # ------------------------------------------------------------------ resistance

    def declare_reaction(
        self,
        power_id: str,
        reaction_id: str,
        action_id: str,
        *,
        now: datetime,
        roller: Roller,
        assets: list[dict],
        convert: int | None = 0,
        actor: str | None = None,
    ) -> None:
        """Resist a provisional action alone, with one's own assets (P-RES-1, P-RES-3, P-RES-4)."""
        ps = self.power(power_id)
        w = self._check_resistance(now, power_id)
        a = self.state.actions.get(action_id)
        if a is None or a.status != "provisional" or power_id not in self.eligible_resisters(a):
            raise NotFound("there is no action you may resist with that id", rule="P-RES-1", field="action_id")
        if ps.done_reacting:
            raise RuleViolation("you waived your reaction this month", rule="P-AMB-39", field="action_id")
        if ps.reactions_used >= ps.reaction_allowance:
            raise RuleViolation(
                f"each power gets {ps.reaction_allowance} reaction a month, and you have used it",
                rule="P-RES-1",
                field="action_id",
            )
        if any(r.power == power_id and r.action_id == action_id for r in self.state.reactions.values()):
            raise RuleViolation("you have already resisted this action", rule="P-RES-1", field="action_id")
        if any(p.get("asset_id") == "action" for p in assets):
            raise RuleViolation("a resister cannot spend actions as assets", rule="P-RES-3", field="assets")
        self._armies_check_pool(None, power_id, a.location, assets)
        self._runes_check_pool(a.location, assets)  # not mobility: P-ACT-4 measures from an action's own location
        pool = self._build_pool(
            power_id,
            assets,
            skill_tag=None,
            extra_actions=0,
            roller=roller,
            is_reaction=True,
            reacting_to_skill=a.skill,
        )
        if convert is not None:
            self._lock_conversions_now(pool, convert)
        self._reaction_declared(
            reaction_id=reaction_id,
            power_id=power_id,
            action_id=action_id,
            pool=pool,
            actor=actor or power_id,
            audience=vis.powers([power_id]),
        )
        self._close_if_everyone_acted(w, now)

    def _check_resistance(self, now: datetime, power_id: str | None = None) -> Window:
        w = self.open_window("resistance")
        if self.state.step != "resistance" or w is None:
            raise RuleViolation("reactions are declared while the resistance window is open", rule="P-RES-2")
        if now >= _at(w.deadline_for(power_id)):
            raise RuleViolation(
                f"the resistance window closed at {w.deadline_for(power_id)}", rule="P-RES-2", field="deadline"
            )
        return w

    @event("ReactionDeclared")
    def _reaction_declared(
        self, reaction_id: str, power_id: str, action_id: str, pool: dict, actor: str, audience: list
    ) -> None:
        self.state.reactions[reaction_id] = Reaction(
            id=reaction_id, power=power_id, action_id=action_id, pool=_pool_from(pool)
        )
        p = self.state.powers[power_id]
        p.reactions_used += 1
        p.commands += 1
        self.state.next_roll = pool["roll_no"] + 1
        # The same bookkeeping as an action's: what the roll spends, and the season ledger. A reaction
        # comes after the whole queue, so it uses its once-a-season assets now (P-ASSET-12).
        self._spend(pool["assets"])
        self._record_season_use(pool["assets"], reaction_id)

    def lock_reaction(self, reaction_id: str, *, now: datetime, convert: int, actor: str | None = None) -> None:
        """Fix a reaction's conversions, if they were not fixed with its roll (P-AMB-6)."""
        r = self.state.reactions.get(reaction_id)
        if r is None:
            raise NotFound(f"no reaction {reaction_id!r}", field="reaction_id")
        self._check_resistance(now, r.power)
        if r.pool.locked:
            raise RuleViolation("conversions are fixed and cannot be changed", rule="P-DICE-5", field="convert")
        chosen = self._conversions(r.pool, convert, None)
        self._reaction_locked(
            reaction_id=reaction_id, converted=chosen, actor=actor or r.power, audience=vis.powers([r.power])
        )

    @event("ReactionConversionsLocked")
    def _reaction_locked(self, reaction_id: str, converted: list, actor: str, audience: list) -> None:
        r = self.state.reactions[reaction_id]
        for i in converted:
            r.pool.dice[i].converted = True
        r.pool.locked = True

    def waive_reactions(self, power_id: str, *, now: datetime, actor: str | None = None) -> None:
        """Waive this month's remaining reactions; silence is a waiver too when the window closes (P-AMB-39)."""
        ps = self.power(power_id)
        w = self._check_resistance(now, power_id)
        if ps.done_reacting:
            raise RuleViolation("you have already waived", rule="P-AMB-39")
        self._reactions_waived(power_id=power_id, actor=actor or power_id, audience=vis.powers([power_id]))
        self._close_if_everyone_acted(w, now)

    @event("ReactionsWaived")
    def _reactions_waived(self, power_id: str, actor: str, audience: list) -> None:
        p = self.state.powers[power_id]
        p.done_reacting = True
        p.commands += 1

    def _close_if_everyone_acted(self, w: Window, now: datetime) -> None:
        if not self.pending_resisters():
            self.close_window(w.id, now=now, reason="everyone acted or waived")

    def close_window(
        self,
        window_id: str,
        *,
        now: datetime,
        reason: str = "deadline",
        force: bool = False,
        expected_step: str | None = None,
        roller: Roller | None = None,
    ) -> bool:
        """Close a window; a no-op (False) if it is already closed, so workers may run it twice.

        Closing Planning converts missing actions into schemes; closing Resistance finalises the
        provisional actions in queue order with net successes (P-RES-4, P-RES-5) and begins Battle.
        """
        self.expect_step(expected_step)
        w = self.state.windows.get(window_id)
        if w is None:
            return False
        if w.closed:
            return False
        due = now >= _at(w.final_closes_at)
        if not (due or force or reason != "deadline"):
            raise RuleViolation(f"this window closes at {w.final_closes_at}", rule="P-RES-2", field="window_id")
        if w.kind == "planning":
            if self.state.step != "planning":
                return False
            self._close_planning(now, reason=reason)
            return True
        self._window_closed(
            window_id=window_id, reason=reason, closed_at=_iso(now), actor=SYSTEM, audience=[vis.PUBLIC]
        )
        if w.kind == "resistance":
            self._finalise(now)
        elif w.kind == BATTLE_WINDOW:  # the GM's default for whoever has not acted, then the battle runs on
            self.battle_window_closed(window_id, now, roller or self._month_roller())
        return True

    def _month_roller(self) -> Roller:
        """The month's committed dice (the service passes its own roller; this is the same derivation)."""
        return SeededRoller(
            self.state.seed or "00", legacy=self.state.seed is not None and self.state.seed_root is None
        )

    # The platform's window commands pass the service's roller to ``close_window`` (a battle's deadline rolls).
    CLOSES_WITH_DICE = True

    def _finalise(self, now: datetime) -> None:
        s = self.state
        for r in sorted(s.reactions.values(), key=lambda r: r.pool.roll_no):
            if not r.pool.locked:
                self._reaction_locked(reaction_id=r.id, converted=[], actor=SYSTEM, audience=vis.powers([r.power]))
        for action_id in s.queue:
            a = s.actions[action_id]
            if a.status != "provisional":
                continue
            reactions = [r for r in s.reactions.values() if r.action_id == action_id]
            resist = {r.power: self.tally(a, r.pool).successes for r in reactions}
            ritual = self._ritual_resisted(a, resist)  # P-RES-6: a ritual is warded off, not reduced
            net, resisted = ritual or (self._net_after_resistance(a, resist), sum(resist.values()))
            ok, excess = rules.outcome(net, a.difficulty or 0)
            t = self.tally(a)
            public = self.is_public(a)
            # P.4: a public action becomes fully public; a private one is shown to its owner and the
            # targets of the resolved action (results only: no dice, no consequences).
            details = (
                self._details(a, t, a.difficulty or 0)
                if public
                else {"power": a.power, "title": a.title, "slot": a.slot}
            )
            audience = [vis.PUBLIC] if public else vis.powers([a.power, *a.collaborators, *self.eligible_resisters(a)])
            self._action_resolved(
                action_id=action_id,
                successes=a.successes,
                net=net,
                difficulty=a.difficulty or 0,
                success=ok,
                excess=excess,
                resisted=resisted,
                details=details,
                tier=_tier(a, s, net),
                actor=SYSTEM,
                audience=audience,
            )
            self._conclude_ritual(action_id)
            self._world_resolved(action_id)
            self._after_resolved(a, resist)
            self._armies_resolved(action_id)
        self._step_began(step="battle", season=s.season, month=s.month, actor=SYSTEM, audience=[vis.PUBLIC])


# Every event type's shape has a version (DESIGN "Event evolution"). A stored event keeps the version
# it was written with; changing a shape bumps its version here and adds ``upcast_vN_vN+1`` (a static
# method turning the stored dict of version N into version N+1) on an explicitly declared event class,
# as ``Game.StateRestored`` does. tests/domain/test_event_versions.py compares these shapes with the
# committed manifest, tests/fixtures/event_manifest.json.
EVENT_VERSIONS: dict[str, int] = {
    "GameCreated": 1,
    "CredentialIssued": 1,
    "CredentialsRevoked": 1,
    "PowerAdded": 1,
    "AssetGranted": 1,
    "SeasonLengthSet": 1,
    "StepBegan": 1,
    "SeedSealed": 1,
    "SeedCommitted": 1,
    "SeedRevealed": 1,
    "CleanupApplied": 1,
    "WindowOpened": 1,
    "WindowClosed": 1,
    "ActionSubmitted": 1,
    "DiceRolled": 1,
    "ConversionsLocked": 1,
    "ActionDiscarded": 1,
    "DifficultyDeclared": 1,
    "DifficultyRecorded": 1,
    "DifficultyCommitted": 1,
    "RulingIssued": 1,
    "ConsequenceProposed": 1,
    "ConsequenceAccepted": 1,
    "VisibilityGranted": 1,
    "ManaGranted": 1,
    "SecretShared": 1,
    "InfluenceSet": 1,
    "InfluenceDisclosed": 1,
    "TimezoneSet": 1,
    "DeadlineSet": 1,
    "ExtensionRequested": 1,
    "ExtensionGranted": 1,
    "ExtensionRefused": 1,
    "ReadyDeclared": 1,
    "RemindersQueued": 1,
    "GameBlocked": 1,  # domain.platform.game (issue 24)
    "MailTurnRecorded": 1,
    "ContactSet": 1,
    "GameRolledBack": 1,
    "StateRestored": 2,  # 2: the target version and what carries over, no longer the whole state
    "SeedCleared": 1,
    "GameForked": 1,
    "SchemesGranted": 1,
    "TiesBroken": 1,
    "ResolutionQueueBuilt": 1,
    "AssetUndercut": 1,
    "DifficultyRevealed": 1,
    "ActionProvisional": 1,
    "ResistanceOffered": 1,
    "ActionResolved": 1,
    "ResolutionPublished": 1,
    "ReactionDeclared": 1,
    "ReactionConversionsLocked": 1,
    "ReactionsWaived": 1,
    "ResistanceForewarned": 1,  # P-AMB-4
    "ResistanceAnnounced": 1,  # P-AMB-45
    "PoolAssetsShown": 1,  # P-AMB-3
    "AssetsHiddenFromResisters": 1,  # GM-19
    "ReactionConsequenceProposed": 1,  # P-AMB-6
    "ReactionConsequenceAccepted": 1,
    # domain.powers.catalogue
    "ExtraDiceRolled": 1,
    "FreeActionTaken": 1,
    "QuotaChanged": 1,
    "AssetTermsSet": 1,
    "ItemWielded": 1,  # P-ASSET-8
    "ImmunitySet": 1,  # P-AMB-10
    "FeesDue": 1,
    "ExtraReactionGained": 1,
    "ReactionUsed": 1,
    "ClassActionDeclared": 1,
    "ActionLost": 1,
    "ClassActionOutcome": 1,
    "RunePlaced": 1,
    "TargetResult": 1,
    "ShareRolled": 1,
    "ShareUndercut": 1,
    "TrueLocationRecorded": 1,
    "DreadGrown": 1,
    "ShareConsequenceProposed": 1,
    "ShareConsequenceAccepted": 1,
    "SpellDefined": 1,
    "SpellLearned": 1,
    "MagicPerkGranted": 1,
    "SpellsPerfected": 1,
    "ConduitSet": 1,
    "ConduitRemoved": 1,
    "SpellCast": 1,
    "RitualWarded": 1,
    "RitualConcluded": 1,
    "ManaChannelled": 1,
    "ManaContributed": 1,
    "ManaSpent": 1,
    "MapDeclared": 1,
    "MapAmended": 1,
    "MapPublished": 1,
    "FeaturesShown": 1,
    "FeatureLearned": 1,
    "ClaimSet": 1,
    "ClaimLost": 1,
    "InfluenceSpent": 1,
    "InfluenceShifted": 1,
    "MechanismsSet": 1,
    "InfluenceGenerated": 1,
    "ActionAimed": 1,
    "InfiltrationAnnounced": 1,
    "TaxesCollected": 1,
    "FeatureOwned": 1,
    "FloorCleared": 1,
    "ThreatReduced": 1,
    "RuinCleared": 1,
    "FeatureRebuilt": 1,
    "ModuleBuilt": 1,
    "TownChanged": 1,
    "TownHarmed": 1,
    "BlightedTownChosen": 1,
    "WorldSeasonBegan": 1,
    "OutpostsReset": 1,
    "MercurialSwapped": 1,
    "SubtleRuled": 1,
    "ManaGardensUsed": 1,
    "MaintenanceDue": 1,
    "MaintenancePaid": 1,
    "StrongholdInoperable": 1,
    "TownsCleanedUp": 1,
    "IndustriesChanged": 1,
    "DurableHeld": 1,
    "AimsClosed": 1,
    "ControlChosen": 1,
    "WalletChanged": 1,
    "FavorSpent": 1,
    "InsightSpent": 1,
    "QuestionAnswered": 1,
    "TradeProposed": 1,
    "TradeAccepted": 1,
    "TradeClosed": 1,
    "DevelopmentBought": 1,
    "PerkGained": 1,
    "PerkNerfed": 1,
    "NerfSettled": 1,
    "PerkLost": 1,
    "AmbitionOffered": 1,
    "AmbitionMysteriesRecorded": 1,
    "AmbitionTaken": 1,
    "AmbitionDeclined": 1,
    "AmbitionTaskChanged": 1,
    "AmbitionTaskRevealed": 1,
    "AmbitionEnded": 1,
    "AmbitionClosed": 1,
    "PerkDefined": 1,
    "ArmyTypeDefined": 1,
    "ArmyPlaced": 1,
    "SupportBonusSet": 1,
    "ExperienceGained": 1,
    "ArmyDispersed": 1,
    "ArmyActionAimed": 1,
    "ArmyRestored": 1,
    "ArmyMoved": 1,
    "ArmyFeeDue": 1,
    "ArmyFeePaid": 1,
    "ArmyDeserted": 1,
    "TrainSucceeded": 1,
    "LevelUpRolled": 1,
    "ArmyLeveledUp": 1,
    "TrainDiscarded": 1,
    "ArmyArmed": 1,
    "ArmyDisbanded": 1,
    "SupportSettled": 1,
    "SupportUnpaid": 1,
    "ArmyRecovered": 1,
    "ArmySighted": 1,
    "ArmyDetected": 1,
    "ScarsKept": 1,
    # domain.platform.posts
    "ThreadOpened": 1,
    "PostMade": 1,
    "PostEdited": 1,
    "PostHidden": 1,
    **BATTLE_EVENT_VERSIONS,  # domain.powers.battle
}


def event_types() -> dict[str, type[Game.Event]]:
    """Every event type a Powers game records, by name: the class each is stored under.

    The library redefines every event class a subclass inherits on that subclass. The platform's events
    (explicit classes triggered through ``self.<Name>``) are recorded as the redefined
    ``domain.powers.game:Game.<Name>``, the topics they had before the platform existed. An ``@event``
    method records the class of the class that defines it, so the events of a feature mixin
    (``class Magic(PlatformGame)`` in ``domain/powers/magic.py``, a base of ``Game``) are stored as
    ``domain.powers.magic:Magic.<Name>``, and that class is the one that gets its version.
    """
    found: dict[str, type[Game.Event]] = {}
    for name, cls in vars(Game).items():
        if not (isinstance(cls, type) and issubclass(cls, Game.Event)) or name in ("Event", "Created"):
            continue
        owners = [k for k in Game.__mro__ if isinstance(vars(k).get(name), type)]
        origin = owners[-1]
        found[name] = cls if issubclass(PlatformGame, origin) else vars(origin)[name]
    return found


def _version_events() -> None:
    """Give each event class its version (an event missing here fails tests/domain/test_event_versions.py)."""
    for name, cls in event_types().items():
        if name not in EVENT_VERSIONS:
            continue
        declared = cls.__dict__.get("class_version")
        if declared is not None and declared != EVENT_VERSIONS[name]:
            raise TypeError(f"event {name} declares version {declared}, EVENT_VERSIONS says {EVENT_VERSIONS[name]}")
        cls.class_version = EVENT_VERSIONS[name]


_version_events()


fold = platform_fold  # a StateRestored (version 2) re-folds the game to its target version first


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


def _submission_digest(a: ActionState, converted: list[int]) -> str:
    if a.pool is None:
        raise AssertionError(f"action {a.id} is digested before it was rolled")
    return submission_digest(
        a.id, a.power, a.title, a.slot, a.skill, a.pool.roll_no, [x.face for x in a.pool.dice], converted, a.salt
    )


def _open_offer(offers: list[Consequence], consequence_id: str, on: str, closed: bool = False) -> Consequence:
    """The GM's consequence ``consequence_id`` on an action or a reaction, still open to accept (GM-3)."""
    c = next((c for c in offers if c.id == consequence_id), None)
    if c is None:
        raise NotFound(f"no consequence {consequence_id!r} on this {on}", field="consequence_id")
    if c.status != "proposed" or closed:
        raise RuleViolation("this consequence is no longer open", rule="GM-3", field="consequence_id")
    return c


def _apply_effects(p: PowerState, effects: list[dict]) -> None:
    """Fold an accepted consequence's structured effects onto the power that bears them (GM-3, P-ACT-2)."""
    for e in effects:
        if e["kind"] == "lose_actions":
            p.debt_next_month += e["count"]
        elif e["kind"] == "status" and "stacks" in e:
            p.statuses[e["name"]] = p.statuses.get(e["name"], 0) + e["stacks"]  # stacks add up ([003:985])
        elif e["kind"] == "status":  # recorded before stacks: a status lasted the longest "months" given
            p.statuses[e["name"]] = max(p.statuses.get(e["name"], 0), e["months"])


def _check_months(months: int) -> None:
    if months not in (2, 3):
        raise RuleViolation("a season lasts two or three months", rule="P-AMB-2", field="months_per_season")


def _check_parties(
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


def _check_items(items: Any, field: str) -> None:
    if items is not None and len(items) > limits.ITEMS:
        raise RuleViolation(f"{field} lists at most {limits.ITEMS} items", field=field)


def _stacks(effect: dict) -> int:
    """A status effect's stacks (``months`` in effects recorded before the field was named for what it is)."""
    return int(effect.get("stacks", effect.get("months", 0)))


def _check_extra(extra_actions: int) -> int:
    if extra_actions not in (0, 1):
        raise RuleViolation(
            "at most one action can be spent as an asset on a challenge", rule="P-AMB-30", field="extra_actions"
        )
    return extra_actions


def _tier(a: ActionState, s: GameState, successes: int) -> str | None:
    """The highest GM difficulty tier reached (GM-2 tiered difficulties, P-EX-1)."""
    reached = [int(k) for k in a.tiers if successes >= int(k)]
    return a.tiers[str(max(reached))] if reached else None
