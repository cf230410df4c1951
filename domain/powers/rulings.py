"""The GM's rulings on the month's actions in Powers: difficulties, open or sealed (GM-1, GM-2), who may resist
(GM-6), what resisters are shown (GM-19, P-AMB-3, P-AMB-4), and the consequences offered and accepted on actions
and reactions (GM-3, P-AMB-6)."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from domain import limits
from domain import visibility as vis
from domain.dice import seal_difficulty
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers.actions import check_items
from domain.powers.base import GameBase, PowersEvent
from domain.powers.state import ActionState, Consequence, GameState, PowerState

CONSEQUENCE_KINDS = ("lose_actions", "status", "disclose", "note")


def open_offer(offers: list[Consequence], consequence_id: str, on: str, closed: bool = False) -> Consequence:
    """The GM's consequence ``consequence_id`` on an action or a reaction, still open to accept (GM-3)."""
    c = next((c for c in offers if c.id == consequence_id), None)
    if c is None:
        raise NotFound(f"no consequence {consequence_id!r} on this {on}", field="consequence_id")
    if c.status != "proposed" or closed:
        raise RuleViolation("this consequence is no longer open", rule="GM-3", field="consequence_id")
    return c


def apply_effects(p: PowerState, effects: list[dict[str, Any]]) -> None:
    """Fold an accepted consequence's structured effects onto the power that bears them (GM-3, P-ACT-2)."""
    for e in effects:
        if e["kind"] == "lose_actions":
            p.debt_next_month += e["count"]
        elif e["kind"] == "status" and "stacks" in e:
            p.statuses[e["name"]] = p.statuses.get(e["name"], 0) + e["stacks"]  # stacks add up ([003:985])
        elif e["kind"] == "status":  # recorded before stacks: a status lasted the longest "months" given
            p.statuses[e["name"]] = max(p.statuses.get(e["name"], 0), e["months"])


class DifficultyDeclared(PowersEvent):
    action_id: str
    value: int
    tiers: dict[str, str]
    after_roll: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.actions[self.action_id]
        if self.after_roll and self.actor == GM:
            # What the roll faced is the difficulty before the GM's first ruling after it.
            rolled = a.changed_after_roll["from"] if a.changed_after_roll else a.difficulty
            a.changed_after_roll = None if rolled == self.value else {"from": rolled, "to": self.value}
        a.difficulty, a.tiers, a.sealed = self.value, dict(self.tiers), None
        s.sealed_difficulties.pop(self.action_id, None)


class DifficultyRecorded(PowersEvent):
    action_id: str
    value: int
    nonce: str
    tiers: dict[str, str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.sealed_difficulties[self.action_id] = {"value": self.value, "nonce": self.nonce, "tiers": dict(self.tiers)}


class DifficultyCommitted(PowersEvent):
    action_id: str
    commitment: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.actions[self.action_id]
        a.sealed = self.commitment
        a.difficulty = None


class AssetsHiddenFromResisters(PowersEvent):
    action_id: str
    asset_ids: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.actions[self.action_id].hidden_from_resisters = list(self.asset_ids)


class RulingIssued(PowersEvent):
    action_id: str
    resistible: bool
    targets: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.actions[self.action_id]
        a.resistible, a.targets = self.resistible, list(self.targets)


class ResistanceForewarned(PowersEvent):
    action_id: str
    power_id: str
    power_name: str
    title: str
    skill: str | None
    pool_size: int
    resisters: list[str]
    actor: str
    audience: list[str]


def _accept(consequences: list[Consequence], consequence_id: str, power: PowerState) -> None:
    """A proposed consequence of an action or a reaction is accepted: its effects apply to its owner."""
    c = next(c for c in consequences if c.id == consequence_id)
    c.status = "accepted"
    apply_effects(power, c.effects)


class ConsequenceProposed(PowersEvent):
    action_id: str
    consequence_id: str
    text: str
    effects: list[dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.actions[self.action_id].consequences.append(
            Consequence(id=self.consequence_id, text=self.text, effects=deepcopy(self.effects))
        )


class ConsequenceAccepted(PowersEvent):
    action_id: str
    consequence_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.actions[self.action_id]
        _accept(a.consequences, self.consequence_id, s.powers[a.power])


class ReactionConsequenceProposed(PowersEvent):
    reaction_id: str
    consequence_id: str
    text: str
    effects: list[dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.reactions[self.reaction_id].consequences.append(
            Consequence(id=self.consequence_id, text=self.text, effects=deepcopy(self.effects))
        )


class ReactionConsequenceAccepted(PowersEvent):
    reaction_id: str
    consequence_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        r = s.reactions[self.reaction_id]
        _accept(r.consequences, self.consequence_id, s.powers[r.power])


class Rulings(GameBase):
    """The GM's rulings and consequences on the month's actions (a base of ``domain.powers.game.Game``)."""

    DifficultyDeclared = DifficultyDeclared
    DifficultyRecorded = DifficultyRecorded
    DifficultyCommitted = DifficultyCommitted
    AssetsHiddenFromResisters = AssetsHiddenFromResisters
    RulingIssued = RulingIssued
    ResistanceForewarned = ResistanceForewarned
    ConsequenceProposed = ConsequenceProposed
    ConsequenceAccepted = ConsequenceAccepted
    ReactionConsequenceProposed = ReactionConsequenceProposed
    ReactionConsequenceAccepted = ReactionConsequenceAccepted

    def _difficulty_declared(
        self, action_id: str, value: int, tiers: dict[str, str], after_roll: bool, actor: str, audience: list[str]
    ) -> None:
        """Record DifficultyDeclared (the other parts of the game record it through this)."""
        self.trigger_event(
            self.DifficultyDeclared,
            action_id=action_id,
            value=value,
            tiers=tiers,
            after_roll=after_roll,
            actor=actor,
            audience=audience,
        )

    def _ruling_issued(
        self, action_id: str, resistible: bool, targets: list[str], actor: str, audience: list[str]
    ) -> None:
        """Record RulingIssued (the other parts of the game record it through this)."""
        self.trigger_event(
            self.RulingIssued,
            action_id=action_id,
            resistible=resistible,
            targets=targets,
            actor=actor,
            audience=audience,
        )

    def set_difficulty(
        self, action_id: str, value: int, *, sealed: bool = False, nonce: str = "", tiers: dict[Any, Any] | None = None
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
        check_items(list(tiers or {}), "tiers")
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
            self.trigger_event(
                self.DifficultyRecorded,
                action_id=action_id,
                value=value,
                nonce=nonce,
                tiers=tiers,
                actor=GM,
                audience=[vis.GM_ONLY],
            )
            self.trigger_event(
                self.DifficultyCommitted,
                action_id=action_id,
                commitment=seal_difficulty(value, nonce),
                actor=GM,
                audience=self._audience(a),
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

    def set_ruling(self, action_id: str, *, resistible: bool, resisters: list[str]) -> None:
        """The GM rules whether an action can be resisted and by whom (GM-6)."""
        a = self.action(action_id)
        if self.state.resolved:
            raise RuleViolation("this month is already resolved", rule="GM-6")
        check_items(resisters, "resisters")
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
        check_items(asset_ids, "asset_ids")
        in_pool = {pa["asset_id"] for pa in self._pool_assets(a)}
        unknown = [x for x in asset_ids if x not in in_pool]
        if unknown:
            raise RuleViolation(
                f"{', '.join(map(str, unknown))} {'is' if len(unknown) == 1 else 'are'} not in this action's pool",
                rule="GM-19",
                field="asset_ids",
            )
        self.trigger_event(
            self.AssetsHiddenFromResisters,
            action_id=action_id,
            asset_ids=sorted(set(asset_ids)),
            actor=GM,
            audience=[vis.GM_ONLY],
        )

    def _pool_assets(self, a: ActionState) -> list[dict[str, Any]]:
        """Every asset of an action's pool, its collaborators' too (P-DICE-11)."""
        own = [vars(pa) for pa in a.pool.assets] if a.pool else []
        return [*own, *self._shared_assets(a.id)]

    def resister_assets(self, a: ActionState) -> list[dict[str, Any]] | None:
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

    def _forewarn(self, a: ActionState, already: list[str]) -> None:
        """P-AMB-4 under ``notify_resister_at: "submission"``: once an action is submitted with its roll locked,
        each power that may resist it (and was not told yet) learns who acts, the action and the pool size
        (P-AMB-3), privately; by default they learn it when the Resolution is published (``resolve``)."""
        if self.state.options.get("notify_resister_at") != "submission" or a.pool is None or not a.pool.locked:
            return
        told = [p for p in self.eligible_resisters(a) if p not in already]
        if a.discarded or not told:
            return
        self.trigger_event(
            self.ResistanceForewarned,
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

    def propose_consequence(
        self, action_id: str, consequence_id: str, text: str, effects: list[dict[str, Any]]
    ) -> None:
        """The GM offers the form the consequences take (GM-3); the player accepts it or discards the action."""
        a = self.action(action_id)
        if a.pool is None or not a.pool.locked:
            raise RuleViolation("consequences are offered once the conversions are locked", rule="GM-3")
        if a.discarded or self.state.resolved:
            raise RuleViolation("this action can no longer take consequences", rule="GM-3")
        self._check_offer(a.consequences, consequence_id, text, effects)
        self.trigger_event(
            self.ConsequenceProposed,
            action_id=action_id,
            consequence_id=consequence_id,
            text=text,
            effects=deepcopy(effects),
            actor=GM,
            audience=self._audience(a),
        )

    def _check_offer(
        self, offers: list[Consequence], consequence_id: str, text: str, effects: list[dict[str, Any]]
    ) -> None:
        """A consequence the GM offers on an action or a reaction (GM-3, P-AMB-6): a new id, a text, and structured
        effects the aggregate knows how to apply."""
        limits.check_text(consequence_id, "consequence_id", limits.IDENTIFIER)
        limits.check_text(text, "text", limits.CONSEQUENCE_TEXT, what="a consequence's text")
        check_items(effects, "effects")
        for e in effects:
            self._check_effect(e)
        if any(c.id == consequence_id for c in offers):
            raise RuleViolation(f"consequence {consequence_id!r} already exists", rule="GM-3", field="consequence_id")

    def _check_effect(self, e: object) -> None:
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

    def accept_consequence(self, action_id: str, consequence_id: str, actor: str | None = None) -> None:
        """The player accepts the GM's consequence; its structured effects apply (GM-3, P-ACT-2)."""
        a = self.action(action_id)
        c = open_offer(a.consequences, consequence_id, "action", closed=a.discarded)
        self.trigger_event(
            self.ConsequenceAccepted,
            action_id=action_id,
            consequence_id=consequence_id,
            actor=actor or a.power,
            audience=self._audience(a),
        )
        self._disclose(c.effects, a.power, action_id)

    def _disclose(self, effects: list[dict[str, Any]], about: str, action_id: str) -> None:
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

    def propose_reaction_consequence(
        self, reaction_id: str, consequence_id: str, text: str, effects: list[dict[str, Any]]
    ) -> None:
        """The GM offers the form a resister's consequences take, as for an actor's (GM-3): a resister rolls "as if
        it was its own challenge", so its converted 3s and 4s are consequences too (P-AMB-6, P-RES-4)."""
        r = self.reaction(reaction_id)
        if not r.pool.locked:
            raise RuleViolation("consequences are offered once the conversions are locked", rule="P-AMB-6")
        self._check_offer(r.consequences, consequence_id, text, effects)
        self.trigger_event(
            self.ReactionConsequenceProposed,
            reaction_id=reaction_id,
            consequence_id=consequence_id,
            text=text,
            effects=deepcopy(effects),
            actor=GM,
            audience=vis.powers([r.power]),
        )

    def accept_reaction_consequence(self, reaction_id: str, consequence_id: str, actor: str | None = None) -> None:
        """The resister accepts the GM's consequence; its effects fall on the resister (P-AMB-6, GM-3, P-ACT-2)."""
        r = self.reaction(reaction_id)
        c = open_offer(r.consequences, consequence_id, "reaction")
        self.trigger_event(
            self.ReactionConsequenceAccepted,
            reaction_id=reaction_id,
            consequence_id=consequence_id,
            actor=actor or r.power,
            audience=vis.powers([r.power]),
        )
        self._disclose(c.effects, r.power, r.action_id)
