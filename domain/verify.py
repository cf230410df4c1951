"""Verify an export of a game's events: every roll the viewer could see, every sealed difficulty, the
submission digests, and that no event is missing from the chain.

Anyone can run it (``emissary verify export.jsonl`` or ``POST /verify``) on the events they were
shown: it needs no access to the server. Each roll names the commitment of the seed it came from;
once that seed is revealed, the roll is recomputed. A roll whose seed is not yet revealed is
reported as pending, not as a failure.

Resolution publishes a salted digest of every submission it consumed. Whoever holds a
submission's salt (its owner and collaborators, the GM; the table, with a public action's dice,
once it has resolved) recomputes the digest from the dice and conversions they were shown, and
checks it is among those published; without the salt a digest tells nothing.

Missing events are found three ways: the viewer's sequence numbers (``seq``) are gap-free; a
locked submission whose submission or roll is absent is reported; and in the GM's export (which
carries event versions and shows every roll) versions only increase and the roll numbers under each
seed are gap-free. What the report does not check is listed in its ``not_checked`` sentences.

A malformed export is refused with ``InvalidExport``, naming the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from domain.dice import commitment as hash_of
from domain.dice import derive_faces, derive_permutation, seal_difficulty
from domain import limits
from domain.errors import RuleViolation
from domain.powers.game import digest, submission_digest

HEX64 = r"^[0-9a-f]{64}$"
MAX_DICE = 10_000  # far above any pool; keeps a hostile export from asking for a billion dice

NOT_CHECKED = [
    "texts that no digest covers (descriptions, names, announcements, consequence texts, reasons): "
    "an edit to them is not detected",
    "events you were not shown, and event times and actors",
    "an export rewritten consistently (renumbered and re-digested): compare the public resolution "
    "digests with another player's export",
    "rolls whose seed is not revealed yet (counted as pending)",
]
NOT_CHECKED_FOR_PLAYERS = "gaps in roll numbers and versions: only the GM's export shows every roll"


class InvalidExport(RuleViolation):
    """An export line that is not JSON, or not an event of the shape it claims (422)."""

    def __init__(self, message: str, *, line: int | None, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.line = line

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "line": self.line}


class _In(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Die(_In):
    face: int = Field(ge=1, le=6)


class _Pool(_In):
    roll_no: int = Field(ge=0)
    commitment: str | None = None
    dice: list[_Die] = Field(default=[], max_length=MAX_DICE)
    salt: str | None = None


class _Details(_In):
    roll_no: int | None = Field(default=None, ge=0)
    commitment: str | None = None
    faces: list[int] | None = Field(default=None, max_length=MAX_DICE)
    salt: str | None = None
    power: str | None = None
    title: str | None = None
    slot: str | None = None
    skill: str | None = None
    converted: list[int] | None = Field(default=None, max_length=MAX_DICE)

    @model_validator(mode="before")
    @classmethod
    def _salted_details_are_whole(cls, data: Any) -> Any:
        # With a salt, the details carry everything the submission digest covers.
        if isinstance(data, dict) and data.get("salt") is not None:
            missing = [k for k in ("power", "title", "slot", "skill", "roll_no", "faces", "converted") if k not in data]
            if missing:
                raise ValueError(f"salted details also carry {', '.join(missing)}")
        return data


class _Event(_In):
    seq: int | None = Field(default=None, ge=1)
    version: int | None = Field(default=None, ge=1)
    type: str
    data: dict[str, Any] = {}


def _data_model(name: str, **fields: Any) -> type[BaseModel]:
    return create_model(name, __base__=_In, **fields)


# The events whose data the verifier reads, with the fields it reads.
SHAPES: dict[str, type[BaseModel]] = {
    "SeedCommitted": _data_model("SeedCommitted", commitment=(str, ...)),
    "SeedRevealed": _data_model("SeedRevealed", seed=(str, Field(pattern=HEX64)), commitment=(str, ...)),
    "DiceRolled": _data_model("DiceRolled", action_id=(str, ...), pool=(_Pool, ...)),
    "ReactionDeclared": _data_model("ReactionDeclared", action_id=(str, ...), pool=(_Pool, ...)),
    "ActionResolved": _data_model("ActionResolved", action_id=(str, ...), details=(_Details | None, None)),
    "ActionProvisional": _data_model("ActionProvisional", action_id=(str, ...), details=(_Details | None, None)),
    "TiesBroken": _data_model("TiesBroken", tied=(list[str], Field(max_length=MAX_DICE)), order=(list[str], ...),
                              roll_no=(int, Field(ge=0)), commitment=(str | None, None)),
    "DifficultyCommitted": _data_model("DifficultyCommitted", action_id=(str, ...), commitment=(str, ...)),
    "DifficultyRevealed": _data_model("DifficultyRevealed", action_id=(str, ...), value=(int, ...),
                                      nonce=(str, ...), commitment=(str | None, None)),
    "ActionSubmitted": _data_model("ActionSubmitted", action_id=(str, ...), power_id=(str, ...), title=(str, ...),
                                   slot=(str, ...), skill=(str | None, ...)),
    "ConversionsLocked": _data_model("ConversionsLocked", action_id=(str, ...), converted=(list[int], ...),
                                     digest=(str, ...)),
    "ActionDiscarded": _data_model("ActionDiscarded", action_id=(str, ...)),
    "ResolutionPublished": _data_model("ResolutionPublished", submissions=(list[str], ...),
                                       submissions_digest=(str, ...)),
}


def parse_export(text: str) -> list[dict]:
    """The events of a JSON Lines export, checked line by line; ``InvalidExport`` names the line and field."""
    events: list[dict] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError) as err:
            raise InvalidExport(f"line {number} is not JSON ({err})", line=number, field="line") from None
        events.append(check_event(raw, number))
    if not events:
        raise InvalidExport("the export is empty: it has one event per line, from GameCreated on", line=None,
                            field="body")
    return events


def check_event(raw: Any, number: int | None) -> dict:
    """One exported event, checked: an object with a ``type``, and the fields the verifier reads."""
    where = f"line {number}" if number is not None else "an event"
    if not isinstance(raw, dict):
        raise InvalidExport(f"{where} is not an event: an event is a JSON object with a type and data",
                            line=number, field="event")
    try:
        event = _Event.model_validate(raw)
    except ValidationError as err:
        raise _invalid(err, where, raw, number, prefix="") from None
    shape = SHAPES.get(event.type)
    if shape is not None:
        try:
            shape.model_validate(event.data)
        except ValidationError as err:
            raise _invalid(err, where, raw, number, prefix="data") from None
    return raw


def _invalid(err: ValidationError, where: str, raw: dict, number: int | None, prefix: str) -> InvalidExport:
    first = err.errors()[0]
    name = limits.field_name([prefix, *first["loc"]] if prefix else first["loc"])
    kind = raw.get("type") if isinstance(raw.get("type"), str) else "?"
    return InvalidExport(f"{where} ({kind[:40]}): {name or 'event'}: {first['msg']}", line=number,
                         field=name or "event")


@dataclass
class Report:
    """What was checked, what did not match, and what this verifier does not check."""

    events_checked: int = 0
    rolls_verified: int = 0
    rolls_pending: int = 0
    tie_breaks_verified: int = 0
    difficulties_verified: int = 0
    seeds_verified: int = 0
    submissions_verified: int = 0
    mismatches: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def as_dict(self) -> dict:
        return {"ok": self.ok, "events_checked": self.events_checked, "rolls_verified": self.rolls_verified,
                "rolls_pending": self.rolls_pending, "tie_breaks_verified": self.tie_breaks_verified,
                "difficulties_verified": self.difficulties_verified, "seeds_verified": self.seeds_verified,
                "submissions_verified": self.submissions_verified, "mismatches": list(self.mismatches),
                "not_checked": list(self.not_checked)}


def _rolls(event: dict) -> Iterable[tuple[int, str | None, list[int]]]:
    data = event.get("data", {})
    kind = event.get("type")
    if kind in ("DiceRolled", "ReactionDeclared"):
        pool = data.get("pool") or {}
        yield pool.get("roll_no"), pool.get("commitment"), [d["face"] for d in pool.get("dice", [])]
    elif kind in ("ActionResolved", "ActionProvisional"):
        details = data.get("details") or {}
        if details.get("roll_no") is not None and details.get("faces") is not None:
            yield details["roll_no"], details.get("commitment"), list(details["faces"])


def _check_chain(events: list[dict], report: Report) -> None:
    """Missing events: gaps in the viewer's sequence; in the GM's export, versions and roll numbers."""
    seqs = [e.get("seq") for e in events]
    if all(s is not None for s in seqs) and seqs:
        expected = 1
        for e, s in zip(events, seqs):
            if s != expected:
                if s > expected:
                    gap = f"event {expected} is" if s - 1 == expected else f"events {expected} to {s - 1} are"
                    report.mismatches.append(f"{gap} missing from your sequence (event {s} follows {expected - 1})")
                else:
                    report.mismatches.append(f"event {s} appears out of order or twice (expected {expected})")
            expected = s + 1
    else:
        report.not_checked.append("gaps in the sequence: the export has no seq numbers")
    versions = [e.get("version") for e in events]
    if not events or any(v is None for v in versions):
        report.not_checked.append(NOT_CHECKED_FOR_PLAYERS)
        return
    for before, after in zip(versions, versions[1:]):
        if after <= before:
            report.mismatches.append(f"event version {after} comes after version {before}")
    by_seed: dict[str | None, set[int]] = {}
    for e in events:
        for roll_no, commit, _ in _rolls(e):
            by_seed.setdefault(commit, set()).add(roll_no)
        if e.get("type") == "TiesBroken":
            by_seed.setdefault(e["data"].get("commitment"), set()).add(e["data"]["roll_no"])
    for commit, numbers in by_seed.items():
        holes = sorted(set(range(min(numbers), max(numbers) + 1)) - numbers)
        if holes:
            report.mismatches.append(f"rolls {holes} under seed {str(commit)[:12]}… are missing: roll numbers "
                                     "are gap-free")


def verify_events(events: Iterable[dict]) -> Report:
    """Recompute every visible roll, sealed difficulty and submission digest in ``events`` (in the order
    they were recorded), and look for missing events."""
    events = [check_event(e, i) for i, e in enumerate(events, start=1)]
    report = Report(events_checked=len(events), not_checked=list(NOT_CHECKED))
    _check_chain(events, report)
    committed_at: dict[str, int] = {}
    seeds: dict[str, str] = {}
    for i, e in enumerate(events):
        data = e.get("data", {})
        if e.get("type") == "SeedCommitted":
            committed_at.setdefault(data["commitment"], i)
        elif e.get("type") == "SeedRevealed":
            if data["commitment"] not in committed_at:
                report.mismatches.append(f"event {e.get('seq')}: a seed was revealed that was never committed")
            elif hash_of(data["seed"]) != data["commitment"]:
                report.mismatches.append(f"event {e.get('seq')}: revealed seed does not hash to its commitment")
            else:
                seeds[data["commitment"]] = data["seed"]
                report.seeds_verified += 1
    seen_rolls: dict[int, tuple[str | None, list[int]]] = {}
    sealed: dict[str, tuple[str, int]] = {}
    rolled_at: dict[str, int] = {}
    submitted: set[str] = set()
    rolled: set[str] = set()
    for i, e in enumerate(events):
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')} ({kind})"
        for roll_no, commit, faces in _rolls(e):
            if roll_no is None:
                continue
            earlier = seen_rolls.get(roll_no)
            if earlier is not None and earlier != (commit, faces):
                report.mismatches.append(f"{where}: roll {roll_no} appears twice with different dice")
                continue
            if earlier is not None:
                continue
            seen_rolls[roll_no] = (commit, faces)
            if commit not in committed_at or committed_at[commit] > i:
                report.mismatches.append(f"{where}: roll {roll_no} uses a seed not committed before it")
                continue
            seed = seeds.get(commit)
            if seed is None:
                report.rolls_pending += 1
            elif derive_faces(seed, roll_no, len(faces)) != faces:
                report.mismatches.append(f"{where}: roll {roll_no} is {faces}, but its seed gives "
                                         f"{derive_faces(seed, roll_no, len(faces))}")
            else:
                report.rolls_verified += 1
        if kind == "TiesBroken":
            seed = seeds.get(data.get("commitment"))
            if seed is None:
                report.rolls_pending += 1
            else:
                tied = list(data["tied"])
                order = [tied[k] for k in derive_permutation(seed, data["roll_no"], len(tied))]
                if order != list(data["order"]):
                    report.mismatches.append(f"{where}: tie-break {data['roll_no']} should be {order}")
                else:
                    report.tie_breaks_verified += 1
        if kind == "ActionSubmitted":
            submitted.add(data["action_id"])
        if kind == "DiceRolled":
            rolled_at.setdefault(data["action_id"], i)
            rolled.add(data["action_id"])
            if data["action_id"] not in submitted:
                report.mismatches.append(f"{where}: action {data['action_id']} was rolled but its submission is "
                                         "missing")
        if kind == "ConversionsLocked":
            missing = "submission" if data["action_id"] not in submitted else (
                "dice roll" if data["action_id"] not in rolled else None)
            if missing:
                report.mismatches.append(f"{where}: the conversions of {data['action_id']} were locked but its "
                                         f"{missing} is missing")
        if kind == "DifficultyCommitted":
            sealed[data["action_id"]] = (data["commitment"], i)
        if kind == "DifficultyRevealed":
            commit, at = sealed.get(data["action_id"], (data.get("commitment"), None))
            if seal_difficulty(data["value"], data["nonce"]) != commit:
                report.mismatches.append(f"{where}: difficulty {data['value']} does not match its sealed commitment")
            elif at is not None and rolled_at.get(data["action_id"], i) < at:
                report.mismatches.append(f"{where}: the difficulty was sealed after the roll")
            else:
                report.difficulties_verified += 1
    _verify_submissions(events, report)
    return report


def _verify_submissions(events: list[dict], report: Report) -> None:
    """Recompute every submission digest whose salt the viewer holds; each must be published."""
    actions: dict[str, dict] = {}
    checked: dict[str, tuple[str, str]] = {}  # action id -> (digest, where), not yet matched to a publication
    published: list[str] | None = None
    verified: set[str] = set()
    for e in events:
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')} ({kind})"
        a = actions.setdefault(data["action_id"], {}) if isinstance(data.get("action_id"), str) else {}
        if kind == "ActionSubmitted":
            a.update(power=data["power_id"], title=data["title"], slot=data["slot"], skill=data["skill"])
        elif kind == "DiceRolled":
            pool = data.get("pool") or {}
            a.update(roll_no=pool.get("roll_no"), faces=[d["face"] for d in pool.get("dice", [])])
            if pool.get("salt") is not None:
                a["salt"] = pool["salt"]
        elif kind == "ActionDiscarded":
            checked.pop(data["action_id"], None)
        elif kind == "GameRolledBack":
            checked.clear()  # the history after the rollback decides again what is published
        elif kind == "ConversionsLocked" and "salt" in a and "faces" in a and "title" in a:
            expected = submission_digest(data["action_id"], a["power"], a["title"], a["slot"], a["skill"],
                                         a["roll_no"], a["faces"], data["converted"], a["salt"])
            if expected != data["digest"]:
                report.mismatches.append(f"{where}: the submission digest does not match its dice and conversions")
            else:
                checked[data["action_id"]] = (expected, where)
        elif kind in ("ActionResolved", "ActionProvisional") and (data.get("details") or {}).get("salt"):
            d = data["details"]
            expected = submission_digest(data["action_id"], d["power"], d["title"], d["slot"], d["skill"],
                                         d["roll_no"], d["faces"], d["converted"], d["salt"])
            if published is not None and kind == "ActionResolved" and data["action_id"] not in checked:
                # A public action resolved after its window: its digest was published with the month.
                _check_published(report, verified, data["action_id"], expected, published, where)
            else:
                checked[data["action_id"]] = (expected, where)
        elif kind == "ResolutionPublished":
            published = list(data["submissions"])
            if digest(sorted(published)) != data["submissions_digest"]:
                report.mismatches.append(f"{where}: submissions_digest is not the digest of the submissions")
            for action_id, (expected, at) in checked.items():
                _check_published(report, verified, action_id, expected, published, at)
            checked.clear()
        elif kind == "StepBegan" and data.get("step") == "planning":
            published = None
            checked.clear()
    report.submissions_verified = len(verified)


def _check_published(report: Report, verified: set[str], action_id: str, expected: str, published: list[str],
                     where: str) -> None:
    if expected in published:
        verified.add(action_id)
    else:
        report.mismatches.append(f"{where}: this submission is missing from the published resolution")
