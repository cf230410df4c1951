"""Resolution in Powers (P.1.4, P-RES-5): Planning closes and unused actions become schemes, the month's actions
are queued and resolved in order (undercut assets, sealed difficulties revealed, resistible actions left
provisional), and when the resistance window closes the provisional ones are finalised with net successes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from domain import limits
from domain import visibility as vis
from domain.dice import Roller, seal_difficulty
from domain.errors import RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.game import _iso, digest
from domain.powers import rules
from domain.powers.actions import action_digest, rolled
from domain.powers.base import GameBase, PowersEvent
from domain.powers.redecide import version_rules
from domain.powers.state import ActionState, Asset, GameState


def record_season_use(s: GameState, pool_assets: Sequence[Mapping[str, Any]], user: str) -> None:
    """P-ASSET-12: enter the once-a-season assets an action or reaction used into the season ledger."""
    for pa in pool_assets:
        if pa["cls"] in rules.ONCE_PER_SEASON and not pa.get("undercut"):
            s.season_ledger.setdefault(pa["asset_id"], user)


def resolution_details(a: ActionState, t: rules.Tally, difficulty: int) -> dict[str, Any]:
    """What Resolution shows of an action: its roll (faces, conversions, proof), pool, tally and difficulty."""
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


def tier(a: ActionState, s: GameState, successes: int) -> str | None:
    """The highest GM difficulty tier reached (GM-2 tiered difficulties, P-EX-1)."""
    reached = [int(k) for k in a.tiers if successes >= int(k)]
    return str(a.tiers[str(max(reached))]) if reached else None


class SchemesGranted(PowersEvent):
    power_id: str
    asset_ids: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        for asset_id in self.asset_ids:
            s.assets[asset_id] = Asset(id=asset_id, name="scheme", cls="scheme", rank=2, holders=[self.power_id])


class TiesBroken(PowersEvent):
    tied: list[str]
    order: list[str]
    roll_no: int
    commitment: str | None
    actor: str
    audience: list[str]
    key: str | None = None
    path: list[Any] | None = None

    def evolve(self, s: GameState) -> None:
        s.next_roll = self.roll_no + 1


class ResolutionQueueBuilt(PowersEvent):
    queue: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.queue = list(self.queue)


class AssetUndercut(PowersEvent):
    action_id: str
    asset_id: str
    name: str
    dice: list[int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        pool = rolled(s.actions[self.action_id])
        for pa in pool.assets:
            if pa.asset_id == self.asset_id:
                pa.undercut = True
        for i in self.dice:
            pool.dice[i].removed = True


class DifficultyRevealed(PowersEvent):
    action_id: str
    value: int
    nonce: str
    commitment: str
    tiers: dict[str, str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.actions[self.action_id]
        a.difficulty, a.tiers, a.revealed = self.value, dict(self.tiers), True


class ActionProvisional(PowersEvent):
    action_id: str
    successes: int
    difficulty: int
    details: dict[str, Any]
    actor: str
    audience: list[str]

    def fold(self, game: GameBase) -> None:
        s = game.state
        a = s.actions[self.action_id]
        a.status, a.successes, a.difficulty = "provisional", self.successes, self.difficulty
        game._mark_used(self.action_id)


class ResistanceOffered(PowersEvent):
    action_id: str
    power_id: str
    power_name: str
    title: str
    skill: str | None
    pool_size: int
    resisters: list[str]
    actor: str
    audience: list[str]


class ResistanceAnnounced(PowersEvent):
    action_id: str
    power_id: str
    power_name: str
    title: str
    skill: str | None
    pool_size: int
    actor: str
    audience: list[str]


class PoolAssetsShown(PowersEvent):
    action_id: str
    assets: list[dict[str, Any]]
    actor: str
    audience: list[str]


class ActionResolved(PowersEvent):
    action_id: str
    successes: int
    net: int
    difficulty: int
    success: bool
    excess: int
    resisted: int
    details: dict[str, Any]
    tier: str | None
    actor: str
    audience: list[str]

    def fold(self, game: GameBase) -> None:
        s = game.state
        a = s.actions[self.action_id]
        a.status, a.successes, a.net, a.difficulty = "resolved", self.successes, self.net, self.difficulty
        a.success, a.excess, a.resisted = self.success, self.excess, self.resisted
        game._mark_used(self.action_id)


class ResolutionPublished(PowersEvent):
    announcement: str
    submissions: list[str]
    submissions_digest: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.resolved = True


class Resolution(GameBase):
    """The month's resolution queue and its outcomes (a base of ``domain.powers.game.Game``)."""

    SchemesGranted = SchemesGranted
    TiesBroken = TiesBroken
    ResolutionQueueBuilt = ResolutionQueueBuilt
    AssetUndercut = AssetUndercut
    DifficultyRevealed = DifficultyRevealed
    ActionProvisional = ActionProvisional
    ResistanceOffered = ResistanceOffered
    ResistanceAnnounced = ResistanceAnnounced
    PoolAssetsShown = PoolAssetsShown
    ActionResolved = ActionResolved
    ResolutionPublished = ResolutionPublished

    def _close_planning(self, now: datetime, reason: str) -> None:
        w = self.open_window("planning")
        if w is not None:
            self._window_closed(window_id=w.id, reason=reason, closed_at=_iso(now), actor=SYSTEM, audience=[vis.PUBLIC])
        self._planning_closed(now)

    def _planning_closed(self, now: datetime) -> None:
        """What follows Planning's close: every submission locked, unused actions schemes ([003:26]), Resolution."""
        s = self.state
        for a in sorted(s.actions.values(), key=lambda a: (a.power, a.index)):
            # A discarded action is not resolved nor published: locking it would record an unpublished digest.
            if a.pool is not None and not a.pool.locked and not a.discarded:
                self.trigger_event(
                    self.ConversionsLocked,
                    action_id=a.id,
                    converted=[],
                    digest=action_digest(a, []),
                    actor=SYSTEM,
                    audience=self._audience(a),
                )
        for p in sorted(s.powers.values(), key=lambda p: p.id):
            pub, priv = self.slots_used(p.id)
            missing = max(0, p.public + p.private - p.debt_this_month - pub - priv)
            if missing:
                # [003:26] excess actions each convert into rank 2 schemes.
                ids = [f"scheme-s{s.season}m{s.month}-{p.id}-{i + 1}" for i in range(missing)]
                self.trigger_event(
                    self.SchemesGranted, power_id=p.id, asset_ids=ids, actor=SYSTEM, audience=vis.powers([p.id])
                )
        self.trigger_event(
            self.StepBegan, step="resolution", season=s.season, month=s.month, actor=SYSTEM, audience=[vis.PUBLIC]
        )

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
        self.trigger_event(
            self.ResolutionPublished,
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
        self.trigger_event(
            self.StepBegan, step="resistance", season=s.season, month=s.month, actor=SYSTEM, audience=[vis.PUBLIC]
        )
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
            self.trigger_event(
                self.TiesBroken,
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
        self.trigger_event(self.ResolutionQueueBuilt, queue=queue, actor=GM, audience=[vis.GM_ONLY])
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
                self.trigger_event(
                    self.AssetUndercut,
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
            self.trigger_event(
                self.DifficultyRevealed,
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
        details = resolution_details(a, t, difficulty)
        resisters = self.eligible_resisters(a)
        if a.resistible and resisters:
            self.trigger_event(
                self.ActionProvisional,
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
            self.trigger_event(
                self.ResistanceOffered, **notice, resisters=resisters, actor=SYSTEM, audience=vis.powers(resisters)
            )
            if public:
                self.trigger_event(self.ResistanceAnnounced, **notice, actor=SYSTEM, audience=[vis.PUBLIC])
            shown = self.resister_assets(a)
            if shown is not None:  # P-AMB-3's campaign option: to the resisters alone, even of a public action
                self.trigger_event(
                    self.PoolAssetsShown,
                    action_id=action_id,
                    assets=shown,
                    actor=SYSTEM,
                    audience=vis.powers(resisters),
                )
            return 1
        ok, excess = version_rules(self).outcome(t.successes, difficulty)  # P-DICE-4, as the version pinned decides it
        self.trigger_event(
            self.ActionResolved,
            action_id=action_id,
            successes=t.successes,
            net=t.successes,
            difficulty=difficulty,
            success=ok,
            excess=excess,
            resisted=0,
            details=details,
            tier=tier(a, s, t.successes),
            actor=SYSTEM,
            audience=[vis.PUBLIC] if public else self._audience(a),
        )
        self._conclude_ritual(action_id)
        self._world_resolved(action_id)
        self._after_resolved(a, {})
        self._armies_resolved(action_id)
        return 0

    def _mark_used(self, action_id: str) -> None:
        a = self.state.actions[action_id]
        self._record_season_use([vars(pa) for pa in (a.pool.assets if a.pool else [])], action_id)
        self._record_season_use(self._shared_assets(action_id), action_id)

    def _record_season_use(self, pool_assets: Sequence[Mapping[str, Any]], user: str) -> None:
        """Enter the once-a-season assets a pool used into the season ledger (``record_season_use``; the
        catalogue's shares fold through this)."""
        record_season_use(self.state, pool_assets, user)

    def _finalise(self, now: datetime) -> None:
        s = self.state
        for r in sorted(s.reactions.values(), key=lambda r: r.pool.roll_no):
            if not r.pool.locked:
                self.trigger_event(
                    self.ReactionConversionsLocked,
                    reaction_id=r.id,
                    converted=[],
                    actor=SYSTEM,
                    audience=vis.powers([r.power]),
                )
        for action_id in s.queue:
            a = s.actions[action_id]
            if a.status != "provisional":
                continue
            reactions = [r for r in s.reactions.values() if r.action_id == action_id]
            resist = {r.power: self.tally(a, r.pool).successes for r in reactions}
            ritual = self._ritual_resisted(a, resist)  # P-RES-6: a ritual is warded off, not reduced
            net, resisted = ritual or (self._net_after_resistance(a, resist), sum(resist.values()))
            ok, excess = version_rules(self).outcome(net, a.difficulty or 0)
            t = self.tally(a)
            public = self.is_public(a)
            # P.4: a public action becomes fully public; a private one is shown to its owner and the
            # targets of the resolved action (results only: no dice, no consequences).
            details = (
                resolution_details(a, t, a.difficulty or 0)
                if public
                else {"power": a.power, "title": a.title, "slot": a.slot}
            )
            audience = [vis.PUBLIC] if public else vis.powers([a.power, *a.collaborators, *self.eligible_resisters(a)])
            self.trigger_event(
                self.ActionResolved,
                action_id=action_id,
                successes=a.successes,
                net=net,
                difficulty=a.difficulty or 0,
                success=ok,
                excess=excess,
                resisted=resisted,
                details=details,
                tier=tier(a, s, net),
                actor=SYSTEM,
                audience=audience,
            )
            self._conclude_ritual(action_id)
            self._world_resolved(action_id)
            self._after_resolved(a, resist)
            self._armies_resolved(action_id)
        self.trigger_event(
            self.StepBegan, step="battle", season=s.season, month=s.month, actor=SYSTEM, audience=[vis.PUBLIC]
        )
