"""Ambitions (P-AMBI-1, GM-11): the GM offers one, with ❓ task texts the GM alone knows until each is revealed;
its power takes it into a free slot (the name and score become public) or declines it, and may abandon it. The GM
confirms each task done or lost: N ❗ tasks done achieve it (its fame and reward), too few left fail it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers import development_rules as dr
from domain.powers.development_state import (
    Ambition,
    DevelopmentEvent,
    Task,
    active,
    open_task,
    own,
    record,
    task_dicts,
)

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def offer_ambition(
    game: Game,
    power_id: str,
    ambition_id: str,
    name: str,
    kind: str,
    fame: int,
    required: int,
    tasks: list[dict[str, Any]],
    *,
    type: str = "",
    reward: dict[str, int] | None = None,
    reward_text: str = "",
    compensation: dict[str, int] | None = None,
) -> None:
    """GM: offer (or write down a proposed) ambition (GM-11); ❓ task texts go to the GM alone."""
    game.power(power_id)
    limits.check_text(name, "name", limits.TITLE, required=True, what="an ambition's name")
    limits.check_text(type, "type", limits.IDENTIFIER, what="an ambition's type")
    limits.check_text(reward_text, "reward_text", limits.REASON, what="the reward")
    clean = _tasks(tasks)
    dr.check_ambition(kind, fame, required, clean)
    # The fame an ambition gives is its score; reward and compensation are resources ([003:190]-[003:208]).
    reward = dr.check_changes(reward, dr.RESOURCES, "reward", signed=False) if reward else {}
    compensation = dr.check_changes(compensation, dr.RESOURCES, "compensation", signed=False) if compensation else {}
    record(
        game,
        AmbitionOffered,
        ambition_id=ambition_id,
        power_id=power_id,
        name=name.strip(),
        kind=kind,
        type=type.strip(),
        fame=fame,
        required=required,
        tasks=[{**t, "text": None if t["mysterious"] else t["text"]} for t in clean],
        reward=reward,
        reward_text=reward_text.strip(),
        compensation=compensation,
        actor=GM,
        audience=own(power_id),
    )
    mysteries = {t["id"]: t["text"] for t in clean if t["mysterious"]}
    if mysteries:
        record(
            game, AmbitionMysteriesRecorded, ambition_id=ambition_id, texts=mysteries, actor=GM, audience=[vis.GM_ONLY]
        )


def _tasks(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An offered ambition's tasks, each with its id and text checked (P-AMBI-1)."""
    if not isinstance(tasks, list) or not 1 <= len(tasks) <= limits.ITEMS:
        raise RuleViolation(f"an ambition lists 1 to {limits.ITEMS} tasks", rule="P-AMBI-1", field="tasks")
    clean = []
    for i, t in enumerate(tasks):
        if not isinstance(t, dict):
            raise RuleViolation("each task is an object with its text", field=f"tasks.{i}")
        limits.check_text(t.get("text"), f"tasks.{i}.text", limits.TITLE, required=True, what="a task")
        clean.append(
            {
                "id": f"t{i + 1}",
                "text": t["text"].strip(),
                "central": bool(t.get("central")),
                "mysterious": bool(t.get("mysterious")),
            }
        )
    return clean


def ambition(game: Game, ambition_id: str, power_id: str | None = None) -> Ambition:
    """The ambition (the power's, if named), or NotFound."""
    a = game.state.development.ambitions.get(ambition_id)
    if a is None or (power_id is not None and a.power != power_id):
        raise NotFound(f"no ambition {ambition_id!r}" + (" of yours" if power_id else ""), field="ambition_id")
    return a


def accept_ambition(game: Game, power_id: str, ambition_id: str, actor: str | None = None) -> None:
    """Take an offered ambition, if a slot is free (P-AMBI-1); its name and score become public."""
    s = game.state
    a = ambition(game, ambition_id, power_id)
    if a.status != "offered":
        raise RuleViolation(f"this ambition is {a.status}, not offered", rule="P-AMBI-1", field="ambition_id")
    held = [x.kind for x in s.development.ambitions.values() if x.power == power_id and x.status == "active"]
    dr.check_slot(a.kind, game.power(power_id).subclass, held, starting=s.step == "setup")
    who = actor or power_id
    record(
        game,
        AmbitionTaken,
        ambition_id=ambition_id,
        power_id=power_id,
        name=a.name,
        kind=a.kind,
        fame=a.fame,
        actor=who,
        audience=[vis.PUBLIC],
    )
    if a.compensation:
        game._wallet_changed(
            power_id=power_id,
            changes=dict(a.compensation),
            reason=f"compensation for taking the ambition {a.name!r} ([003:190])",
            actor=SYSTEM,
            audience=own(power_id),
        )


def decline_ambition(game: Game, power_id: str, ambition_id: str, actor: str | None = None) -> None:
    a = ambition(game, ambition_id, power_id)
    if a.status != "offered":
        raise RuleViolation(f"this ambition is {a.status}, not offered", rule="P-AMBI-1", field="ambition_id")
    record(game, AmbitionDeclined, ambition_id=ambition_id, actor=actor or power_id, audience=own(power_id))


def abandon_ambition(game: Game, power_id: str, ambition_id: str, actor: str | None = None) -> None:
    """P-AMBI-1: a power may abandon an ambition at any time."""
    a = active(ambition(game, ambition_id, power_id))
    _end(game, a, "abandoned", "abandoned by its power", actor or power_id)


def complete_task(game: Game, ambition_id: str, task_id: str, fame: int | None = None) -> None:
    """GM confirms a task done (GM-11). A ❓ task after it is revealed to its power; N ❗ tasks done
    achieve the ambition: its fame (``fame``: a share, when powers split it, [003:192]) and reward."""
    a = active(ambition(game, ambition_id))
    t = open_task(a, task_id)
    if t.mysterious and not t.revealed:
        raise RuleViolation("a ❓ task is done only once it is revealed", rule="P-AMBI-1", field="task_id")
    if fame is not None and (isinstance(fame, bool) or not 0 <= fame <= a.fame):
        raise RuleViolation(f"a share of this ambition's fame is 0 to {a.fame}", rule="P-AMBI-1", field="fame")
    record(
        game,
        AmbitionTaskChanged,
        ambition_id=ambition_id,
        task_id=task_id,
        status="done",
        reason="",
        actor=GM,
        audience=own(a.power),
    )
    index = a.tasks.index(t)
    if index + 1 < len(a.tasks):
        nxt = a.tasks[index + 1]
        if nxt.mysterious and not nxt.revealed:
            record(
                game,
                AmbitionTaskRevealed,
                ambition_id=ambition_id,
                task_id=nxt.id,
                text=nxt.text,
                actor=SYSTEM,
                audience=own(a.power),
            )
    if dr.ambition_outcome(a.required, task_dicts(a)) == "achieved":
        share = a.fame if fame is None else fame
        gained = dr.fame_reward(game.power(a.power).subclass, share)
        _end(game, a, "achieved", f"{a.required} ❗ task{'s' if a.required > 1 else ''} done", GM, fame=gained)
        changes = {**({"fame": gained} if gained else {}), **a.reward}
        if changes:
            game._wallet_changed(
                power_id=a.power,
                changes=changes,
                reason=f"ambition achieved: {a.name}",
                actor=SYSTEM,
                audience=own(a.power),
            )
    else:
        _fail_if_impossible(game, a)


def lose_task(game: Game, ambition_id: str, task_id: str, reason: str) -> None:
    """GM: a task can no longer be done by this power (another power did it without substantial help,
    or it became impossible; GM-11). The ambition fails when too few ❗ tasks are left (P-AMBI-1)."""
    a = active(ambition(game, ambition_id))
    open_task(a, task_id)
    limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
    record(
        game,
        AmbitionTaskChanged,
        ambition_id=ambition_id,
        task_id=task_id,
        status="lost",
        reason=reason.strip(),
        actor=GM,
        audience=own(a.power),
    )
    _fail_if_impossible(game, a)


def _fail_if_impossible(game: Game, a: Ambition) -> None:
    if dr.ambition_outcome(a.required, task_dicts(a)) == "failed":
        _end(game, a, "failed", f"fewer than {a.required} ❗ tasks can still be done", SYSTEM)


def _end(game: Game, a: Ambition, outcome: str, reason: str, actor: str, fame: int = 0) -> None:
    record(
        game,
        AmbitionEnded,
        ambition_id=a.id,
        outcome=outcome,
        reason=reason,
        fame=fame,
        actor=actor,
        audience=own(a.power),
    )
    # The table knew the ambition was held: it learns it is no longer, not how it ended (P.4).
    record(game, AmbitionClosed, ambition_id=a.id, power_id=a.power, actor=SYSTEM, audience=[vis.PUBLIC])


# ---------------------------------------------------------------------- events


class AmbitionOffered(DevelopmentEvent):
    ambition_id: str
    power_id: str
    name: str
    kind: str
    type: str
    fame: int
    required: int
    tasks: list[dict[str, Any]]
    reward: dict[str, int]
    reward_text: str
    compensation: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.development.ambitions[self.ambition_id] = Ambition(
            id=self.ambition_id,
            power=self.power_id,
            name=self.name,
            kind=self.kind,
            type=self.type,
            fame=self.fame,
            required=self.required,
            tasks=[
                Task(t["id"], t["text"], t["central"], t["mysterious"], revealed=not t["mysterious"])
                for t in self.tasks
            ],
            reward=dict(self.reward),
            reward_text=self.reward_text,
            compensation=dict(self.compensation),
        )


class AmbitionMysteriesRecorded(DevelopmentEvent):
    ambition_id: str
    texts: dict[str, str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        for t in s.development.ambitions[self.ambition_id].tasks:
            if t.id in self.texts:
                t.text = self.texts[t.id]


class AmbitionTaken(DevelopmentEvent):
    ambition_id: str
    power_id: str
    name: str
    kind: str
    fame: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.development.ambitions[self.ambition_id].status = "active"


class AmbitionDeclined(DevelopmentEvent):
    ambition_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.development.ambitions[self.ambition_id].status = "declined"


class AmbitionTaskChanged(DevelopmentEvent):
    ambition_id: str
    task_id: str
    status: str
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.development.ambitions[self.ambition_id]
        next(t for t in a.tasks if t.id == self.task_id).status = self.status


class AmbitionTaskRevealed(DevelopmentEvent):
    ambition_id: str
    task_id: str
    text: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        t = next(t for t in s.development.ambitions[self.ambition_id].tasks if t.id == self.task_id)
        t.revealed, t.text = True, self.text


class AmbitionEnded(DevelopmentEvent):
    ambition_id: str
    outcome: str
    reason: str
    fame: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        a = s.development.ambitions[self.ambition_id]
        a.status, a.fame_awarded = self.outcome, self.fame


class AmbitionClosed(DevelopmentEvent):
    ambition_id: str
    power_id: str
    actor: str
    audience: list[str]
