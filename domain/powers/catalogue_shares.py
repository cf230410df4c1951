"""Shared actions of the class catalogue: a mixin of ``Game`` (ANALYSIS.md P-DICE-11, P-AMB-29, P-AMB-43).

A declared collaborator spends one of its own actions and rolls its own pool into another power's action: the
successes add up (P-AMB-43), its consequences stay its own (the GM proposes them, the collaborator accepts them),
and a discarded action undoes them (P-AMB-29). A collaborator's once-a-season asset already used earlier in the
queue is undercut (P-ASSET-13). The shares are the month's, in ``GameState.catalogue["shares"]``.
"""

from __future__ import annotations

from copy import deepcopy
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.ids import GM
from domain.platform.game import PlatformGame
from domain.powers.actions import spend
from domain.powers.base import PoolData, pool_from
from domain.powers.catalogue_state import CatalogueEvent, ShareRecord, cat, record
from domain.powers.part import as_game

if TYPE_CHECKING:
    from domain.powers.state import ActionState, GameState


class Shares(PlatformGame):
    """Commands and events of shared actions (P-DICE-11)."""

    if TYPE_CHECKING:
        state: GameState

    def join_action(
        self,
        power_id: str,
        action_id: str,
        *,
        now: datetime,
        roller: Roller,
        assets: list[dict[str, Any]] | None = None,
        convert: int = 0,
        slot: str = "private",
        actor: str | None = None,
    ) -> dict[str, Any]:
        """A declared collaborator spends one of its own actions and rolls its own pool into a shared action
        (P-DICE-11): the successes add up (P-AMB-43); its consequences stay its own."""
        g = as_game(self)
        ps = g.power(power_id)
        a = g.action(action_id)
        g._check_planning(now, power_id)
        if power_id not in a.collaborators:
            raise RuleViolation(
                f"{ps.name} is not a declared collaborator of this action", rule="P-DICE-11", field="action_id"
            )
        if a.discarded:
            raise RuleViolation("this action was discarded", rule="P-DICE-10", field="action_id")
        if any(sh["power"] == power_id for sh in cat(self.state).get("shares", {}).get(action_id, [])):
            raise RuleViolation("you have already joined this action", rule="P-DICE-11", field="action_id")
        g.check_quota(power_id, slot, 1)
        pool = g._build_pool(
            power_id,
            list(assets or []),
            skill_tag=a.skill,
            extra_actions=0,
            roller=roller,
            is_reaction=False,
            dungeon=a.dungeon,
            where={"location": a.location, "against": list(a.targets)},
        )
        g._lock_conversions_now(pool, convert)
        record(
            self,
            ShareRolled,
            action_id=action_id,
            power_id=power_id,
            slot=slot,
            pool=pool,
            actor=actor or power_id,
            audience=g._audience(a),
        )
        t = g.tally(a, pool_from(pool))
        return {"action_id": action_id, "faces": [d["face"] for d in pool["dice"]], "successes": t.successes}

    def propose_share_consequence(
        self, action_id: str, power_id: str, consequence_id: str, text: str, effects: list[dict[str, Any]]
    ) -> None:
        """GM: the form a collaborator's own consequences take; each power answers for its own pool (P-DICE-11)."""
        g = as_game(self)
        a = g.action(action_id)
        share = share_of(self.state, action_id, power_id)
        if a.discarded or self.state.resolved:
            raise RuleViolation("this action can no longer take consequences", rule="GM-3")
        limits.check_text(consequence_id, "consequence_id", limits.IDENTIFIER)
        limits.check_text(text, "text", limits.CONSEQUENCE_TEXT, what="a consequence's text")
        if len(effects) > limits.ITEMS:
            raise RuleViolation(f"effects lists at most {limits.ITEMS} items", field="effects")
        for e in effects:
            g._check_effect(e)
        if any(c["id"] == consequence_id for c in share.get("consequences", [])):
            raise RuleViolation(f"consequence {consequence_id!r} already exists", field="consequence_id")
        record(
            self,
            ShareConsequenceProposed,
            action_id=action_id,
            power_id=power_id,
            consequence_id=consequence_id,
            text=text,
            effects=deepcopy(effects),
            actor=GM,
            audience=g._audience(a),
        )

    def accept_share_consequence(
        self, power_id: str, action_id: str, consequence_id: str, actor: str | None = None
    ) -> None:
        """A collaborator accepts the consequence of its own pool: its effects fall on it (P-DICE-11, P-ACT-2)."""
        g = as_game(self)
        a = g.action(action_id)
        share = share_of(self.state, action_id, power_id)
        c = next((c for c in share.get("consequences", []) if c["id"] == consequence_id), None)
        if c is None:
            raise NotFound(f"no consequence {consequence_id!r} on your part of this action", field="consequence_id")
        if c["status"] != "proposed" or a.discarded:
            raise RuleViolation("this consequence is no longer open", rule="GM-3", field="consequence_id")
        record(
            self,
            ShareConsequenceAccepted,
            action_id=action_id,
            power_id=power_id,
            consequence_id=consequence_id,
            actor=actor or power_id,
            audience=g._audience(a),
        )
        for e in c["effects"]:
            if e["kind"] == "disclose":  # P.4: what a consequence leaks goes to the power it names
                g._visibility_granted(
                    to=e["to"],
                    about=power_id,
                    text=e["text"],
                    action_id=action_id,
                    source="consequence",
                    actor=GM,
                    audience=vis.powers([e["to"]]),
                )

    def _undo_shares(self, action_id: str) -> None:
        """Fold: a discarded shared action applies no consequences, the collaborators' included (P-AMB-29); their
        actions stay spent. A disclosure cannot be unseen, so it stays."""
        for sh in cat(self.state).get("shares", {}).get(action_id, []):
            p = self.state.powers[sh["power"]]
            for c in sh.get("consequences", []):
                was, c["status"] = (
                    c["status"],
                    {"accepted": "undone", "proposed": "withdrawn"}.get(c["status"], c["status"]),
                )
                for e in c["effects"] if was == "accepted" else []:
                    if e["kind"] == "lose_actions":
                        p.debt_next_month = max(0, p.debt_next_month - e["count"])
                    elif e["kind"] == "status":
                        left = p.statuses.get(e["name"], 0) - e["stacks"]
                        p.statuses = {k: v for k, v in {**p.statuses, e["name"]: left}.items() if v > 0}

    def _shared_slots(self, power_id: str) -> tuple[int, int]:
        """Actions a collaborator spent joining others' actions this month (P-DICE-11)."""
        pub = priv = 0
        for shares in cat(self.state).get("shares", {}).values():
            for sh in shares:
                if sh["power"] == power_id:
                    if sh["slot"] == "public":
                        pub += 1
                    else:
                        priv += 1
        return pub, priv

    def _shared_tally(self, a: ActionState) -> tuple[int, int]:
        """The collaborators' successes and pool size added to an action (P-DICE-11 as P-AMB-43)."""
        g = as_game(self)
        successes = size = 0
        for sh in cat(self.state).get("shares", {}).get(a.id, []):
            t = g.tally(a, pool_from(sh["pool"]))
            successes += t.successes
            size += t.pool_size
        return successes, size

    def _shared_assets(self, action_id: str) -> list[dict[str, Any]]:
        """The collaborators' pool assets of an action, for the season ledger (P-ASSET-12)."""
        return shared_assets(self.state, action_id)


def shared_assets(state: GameState, action_id: str) -> list[dict[str, Any]]:
    """The collaborators' pool assets of an action, for the season ledger (P-ASSET-12)."""
    out: list[dict[str, Any]] = []
    for sh in cat(state).get("shares", {}).get(action_id, []):
        out.extend(dict(pa) for pa in sh["pool"]["assets"])
    return out


def share_of(state: GameState, action_id: str, power_id: str) -> ShareRecord:
    """A collaborator's part of a shared action (a copy), or NotFound (P-DICE-11)."""
    for sh in cat(state).get("shares", {}).get(action_id, []):
        if sh["power"] == power_id:
            return sh.copy()
    raise NotFound(f"{power_id!r} has not joined action {action_id!r}", rule="P-DICE-11", field="power_id")


# ---------------------------------------------------------------------- events


class ShareRolled(CatalogueEvent):
    action_id: str
    power_id: str
    slot: str
    pool: PoolData
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        cat(s).setdefault("shares", {}).setdefault(self.action_id, []).append(
            {"power": self.power_id, "slot": self.slot, "pool": deepcopy(self.pool)}
        )
        s.next_roll = self.pool["roll_no"] + 1
        s.powers[self.power_id].commands += 1
        spend(s, self.pool["assets"])


class ShareConsequenceProposed(CatalogueEvent):
    action_id: str
    power_id: str
    consequence_id: str
    text: str
    effects: list[dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        for sh in cat(s)["shares"][self.action_id]:
            if sh["power"] == self.power_id:
                sh.setdefault("consequences", []).append(
                    {
                        "id": self.consequence_id,
                        "text": self.text,
                        "effects": deepcopy(self.effects),
                        "status": "proposed",
                    }
                )


class ShareConsequenceAccepted(CatalogueEvent):
    action_id: str
    power_id: str
    consequence_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        p = s.powers[self.power_id]
        for sh in cat(s)["shares"][self.action_id]:
            for c in sh.get("consequences", []) if sh["power"] == self.power_id else []:
                if c["id"] != self.consequence_id:
                    continue
                c["status"] = "accepted"
                for e in c["effects"]:
                    if e["kind"] == "lose_actions":
                        p.debt_next_month += e["count"]
                    elif e["kind"] == "status":
                        p.statuses[e["name"]] = p.statuses.get(e["name"], 0) + e["stacks"]


class ShareUndercut(CatalogueEvent):
    action_id: str
    share: int
    asset_id: str
    name: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        sh = cat(s)["shares"][self.action_id][self.share]
        for pa in sh["pool"]["assets"]:
            if pa["asset_id"] == self.asset_id:
                pa["undercut"] = True
        for d in sh["pool"]["dice"]:
            if d["asset"] == self.asset_id:
                d["removed"] = True
