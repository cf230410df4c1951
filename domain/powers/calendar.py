"""The calendar of a Powers game (P.1.1, P.1.2): its steps, the season's length, the Planning and Resistance windows,
readiness, and closing them through the platform's flow (their rules: ``domain.powers.windows``)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from domain import visibility as vis
from domain.dice import Roller
from domain.errors import Conflict, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform import flow
from domain.platform.commands import trial_context
from domain.platform.game import _at, _iso
from domain.powers.base import GameBase, PowersEvent
from domain.powers.battle import WINDOW_KIND as BATTLE_WINDOW
from domain.powers.magic import has_perk
from domain.powers.state import GameState, Window


def check_months(months: int) -> None:
    """A season lasts two or three months (GM-28, P-AMB-2)."""
    if months not in (2, 3):
        raise RuleViolation("a season lasts two or three months", rule="P-AMB-2", field="months_per_season")


class SeasonLengthSet(PowersEvent):
    months: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.months_per_season = self.months


class StepBegan(PowersEvent):
    step: str
    season: int
    month: int
    actor: str
    audience: list[str]

    def fold(self, game: GameBase) -> None:
        s = game.state
        if self.step == "tidings" and self.season != s.season:
            s.season_ledger = {}
        if self.step == "planning":
            s.actions = {}
            s.reactions = {}
            s.queue = []
            s.resolved = False
            game._catalogue_month_began()
            for p in s.powers.values():
                p.debt_this_month = p.debt_next_month
                p.debt_next_month = 0
                p.reactions_used = 0
                p.done_reacting = False
                p.ready = False
        if self.step == "tidings":
            for p in s.powers.values():
                p.extension_hours_used = 0.0
        s.step, s.season, s.month = self.step, self.season, self.month


class CleanupApplied(PowersEvent):
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        for p in s.powers.values():
            # [003:310] "Cleanup: Statuses tick down. Mana dissipates." Once a season, one stack each.
            p.statuses = {k: v - 1 for k, v in p.statuses.items() if v - 1 > 0}
            if not has_perk(s, p.id, "vessel_heart"):  # [003:909] Vessel Heart keeps it (P-MAG-1)
                p.mana = {}


class Calendar(GameBase):
    """The steps of the calendar and the windows of a month (a base of ``domain.powers.game.Game``)."""

    SeasonLengthSet = SeasonLengthSet
    StepBegan = StepBegan
    CleanupApplied = CleanupApplied

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

    def set_months(self, months: int) -> None:
        """GM-28: this season has 2 or 3 months, fixed before the final month's Battle closes."""
        check_months(months)
        if self.state.month > months or (self.state.month == months and self.state.step == "cleanup"):
            raise RuleViolation(
                f"month {self.state.month} has already begun; the season cannot be {months} months",
                rule="P-AMB-2",
                field="months",
            )
        self.trigger_event(self.SeasonLengthSet, months=months, actor=GM, audience=[vis.PUBLIC])

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
                phase=f"s{s.season}m{s.month}",
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
                self.trigger_event(self.CleanupApplied, actor=SYSTEM, audience=[vis.PUBLIC])
                self.trigger_event(
                    self.StepBegan, step="cleanup", season=s.season, month=s.month, actor=GM, audience=[vis.PUBLIC]
                )
        elif step == "cleanup":
            self._begin_tidings(tidings, post_id)
        return self.state.step

    def _begin_tidings(self, tidings: str = "", post_id: str = "") -> None:
        self.trigger_event(
            self.StepBegan, step="tidings", season=self.state.season + 1, month=0, actor=GM, audience=[vis.PUBLIC]
        )
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
        self._commit_seed(seed, f"s{s.season}m{month}")
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
        self.trigger_event(
            self.StepBegan, step="planning", season=s.season, month=month, actor=GM, audience=[vis.PUBLIC]
        )
        self._catalogue_month_opened()

    def planning_pending(self) -> list[str]:
        """Powers that may still act this Planning step: not ready, with actions left."""
        pending = []
        for p in self.state.powers.values():
            pub, priv = self.slots_used(p.id)
            left = p.public + p.private - p.debt_this_month - pub - priv
            if not p.ready and left > 0:
                pending.append(p.id)
        return sorted(pending)

    def _may_act_in(self, w: Window, power_id: str) -> bool:
        if w.kind == "planning":
            return True
        if w.kind == BATTLE_WINDOW:
            return self._battle_may_act(w, power_id)
        return power_id in self.pending_resisters()

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
        """Close a window as the platform does at its deadline or the GM's close (domain.platform.flow, the rules of
        domain.powers.windows); a no-op (False) if it is already closed, so workers may run it twice.

        Closing Planning converts missing actions into schemes; closing Resistance finalises the
        provisional actions in queue order with net successes (P-RES-4, P-RES-5) and begins Battle; closing a
        battle's step applies the GM's default to whoever has not acted, with ``roller`` (the month's dice if None).
        """
        self.expect_step(expected_step)
        w = self.state.windows.get(window_id)
        if w is None or w.closed:
            return False
        due = now >= _at(w.final_closes_at)
        if not (due or force or reason != "deadline"):
            raise RuleViolation(f"this window closes at {w.final_closes_at}", rule="P-RES-2", field="window_id")
        ctx = trial_context(self, SYSTEM, now)  # its closes draw no entropy and make no ids
        if roller is not None:
            ctx = dataclasses.replace(ctx, roller=lambda game: roller)
        return flow.close(self, window_id, ctx, reason=reason)
