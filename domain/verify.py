"""Verify an export of a game's events: every roll the viewer could see, every sealed difficulty, the
submission digests, and that no event is missing from the chain.

Anyone can run it (``emissary verify export.jsonl`` or ``POST /verify``) on the events they were
shown: it needs no access to the server. When a month opens, ``SeedCommitted`` publishes the Merkle
root of the month's roll keys (domain.dice); each roll a viewer was shown carries its own key and
Merkle path, so the viewer checks at once that the faces come from the key and that the key is the
one committed for that roll number before the month's first roll. The month seed itself is revealed
to the GM only: the GM's export also checks the seed against its commitment and root, and every
key against the seed. Months committed before per-roll keys (no root) verify the old way, from
the revealed seed; a roll with neither a key nor a revealed seed is reported as pending.

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from domain import limits
from domain.dice import (
    commitment,
    derive_faces_legacy,
    derive_permutation_legacy,
    faces_from_key,
    key_under_root,
    permutation_from_key,
    roll_key,
    roll_tree,
    seal_difficulty,
)
from domain.errors import RuleViolation
from domain.powers.game import digest, submission_digest

HEX64 = r"^[0-9a-f]{64}$"
MAX_DICE = 10_000  # far above any pool; keeps a hostile export from asking for a billion dice
MAX_SEED_AUDITS = 256  # revealed seeds whose tree of roll keys is rebuilt (~10 ms each): ~100 seasons

NOT_CHECKED = [
    "texts that no digest covers (descriptions, names, announcements, consequence texts, reasons): "
    "an edit to them is not detected",
    "events you were not shown, and event times and actors",
    "an export rewritten consistently (renumbered and re-digested): compare the public resolution "
    "digests with another player's export",
    "rolls shown without their key (months committed before per-roll keys) until their seed is revealed "
    "(counted as pending); players do not get the month seed: it is revealed to the GM alone",
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
    key: str | None = Field(default=None, pattern=HEX64)
    path: list[str] | None = Field(default=None, max_length=64)


class _Details(_In):
    roll_no: int | None = Field(default=None, ge=0)
    commitment: str | None = None
    faces: list[int] | None = Field(default=None, max_length=MAX_DICE)
    salt: str | None = None
    key: str | None = Field(default=None, pattern=HEX64)
    path: list[str] | None = Field(default=None, max_length=64)
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


class _PostRoll(_In):
    """One ``[roll NdS]`` of a post (issue 16)."""

    roll_no: int = Field(ge=0)
    commitment: str | None = None
    sides: int = Field(ge=2, le=100)
    faces: list[Annotated[int, Field(ge=1, le=100)]] = Field(max_length=MAX_DICE)
    key: str | None = Field(None, pattern=HEX64)
    path: list[str] | None = Field(None, max_length=64)


# The events whose data the verifier reads, with the fields it reads.
SHAPES: dict[str, type[BaseModel]] = {
    "SeedCommitted": _data_model(
        "SeedCommitted",
        commitment=(str, ...),
        root=(str | None, Field(None, pattern=HEX64)),
        first_roll=(int | None, Field(None, ge=0)),
    ),
    "SeedRevealed": _data_model("SeedRevealed", seed=(str, Field(pattern=HEX64)), commitment=(str, ...)),
    "DiceRolled": _data_model("DiceRolled", action_id=(str, ...), pool=(_Pool, ...)),
    "ReactionDeclared": _data_model("ReactionDeclared", action_id=(str, ...), pool=(_Pool, ...)),
    "ShareRolled": _data_model("ShareRolled", action_id=(str, ...), pool=(_Pool, ...)),
    "ReactionUsed": _data_model("ReactionUsed", reaction_id=(str, ...), pool=(_Pool | None, None)),
    "ExtraDiceRolled": _data_model(
        "ExtraDiceRolled",
        roll_no=(int, Field(ge=0)),
        commitment=(str | None, None),
        sides=(int, Field(ge=2, le=100)),
        faces=(list[Annotated[int, Field(ge=1, le=100)]], Field(max_length=MAX_DICE)),
        key=(str | None, Field(None, pattern=HEX64)),
        path=(list[str] | None, Field(None, max_length=64)),
    ),
    "PostMade": _data_model("PostMade", rolls=(list[_PostRoll], Field([], max_length=16))),
    "ActionResolved": _data_model("ActionResolved", action_id=(str, ...), details=(_Details | None, None)),
    "ActionProvisional": _data_model("ActionProvisional", action_id=(str, ...), details=(_Details | None, None)),
    "TiesBroken": _data_model(
        "TiesBroken",
        tied=(list[str], Field(max_length=MAX_DICE)),
        order=(list[str], ...),
        roll_no=(int, Field(ge=0)),
        commitment=(str | None, None),
        key=(str | None, Field(None, pattern=HEX64)),
        path=(list[str] | None, Field(None, max_length=64)),
    ),
    "DifficultyCommitted": _data_model("DifficultyCommitted", action_id=(str, ...), commitment=(str, ...)),
    "DifficultyRevealed": _data_model(
        "DifficultyRevealed", action_id=(str, ...), value=(int, ...), nonce=(str, ...), commitment=(str | None, None)
    ),
    "ActionSubmitted": _data_model(
        "ActionSubmitted",
        action_id=(str, ...),
        power_id=(str, ...),
        title=(str, ...),
        slot=(str, ...),
        skill=(str | None, ...),
    ),
    "ConversionsLocked": _data_model(
        "ConversionsLocked", action_id=(str, ...), converted=(list[int], ...), digest=(str, ...)
    ),
    "ActionDiscarded": _data_model("ActionDiscarded", action_id=(str, ...)),
    "ResolutionPublished": _data_model(
        "ResolutionPublished", submissions=(list[str], ...), submissions_digest=(str, ...)
    ),
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
        raise InvalidExport(
            "the export is empty: it has one event per line, from GameCreated on", line=None, field="body"
        )
    return events


def check_event(raw: Any, number: int | None) -> dict:
    """One exported event, checked: an object with a ``type``, and the fields the verifier reads."""
    where = f"line {number}" if number is not None else "an event"
    if not isinstance(raw, dict):
        raise InvalidExport(
            f"{where} is not an event: an event is a JSON object with a type and data", line=number, field="event"
        )
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
    kind = raw.get("type")
    label = kind[:40] if isinstance(kind, str) else "?"
    return InvalidExport(f"{where} ({label}): {name or 'event'}: {first['msg']}", line=number, field=name or "event")


@dataclass
class Report:
    """What was checked, what did not match, and what this verifier does not check."""

    events_checked: int = 0
    rolls_verified: int = 0
    rolls_pending: int = 0
    tie_breaks_verified: int = 0
    difficulties_verified: int = 0
    seeds_verified: int = 0
    keys_verified: int = 0  # roll keys checked against their revealed seed (the GM's audit)
    submissions_verified: int = 0
    mismatches: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def as_dict(self) -> dict:
        return {
            "ok": self.ok,
            "events_checked": self.events_checked,
            "rolls_verified": self.rolls_verified,
            "rolls_pending": self.rolls_pending,
            "tie_breaks_verified": self.tie_breaks_verified,
            "difficulties_verified": self.difficulties_verified,
            "seeds_verified": self.seeds_verified,
            "keys_verified": self.keys_verified,
            "submissions_verified": self.submissions_verified,
            "mismatches": list(self.mismatches),
            "not_checked": list(self.not_checked),
        }


@dataclass
class _Month:
    """One committed seed: where it was committed, and (since per-roll keys) its root and first roll."""

    at: int
    root: str | None
    first_roll: int | None
    seed: str | None = None


def _rolls(event: dict) -> Iterable[tuple[int | None, str | None, list[int], str | None, list | None, int]]:
    """Each roll an event shows: number, seed commitment, faces, key, Merkle path and the dice's sides."""
    data = event.get("data", {})
    kind = event.get("type")
    if kind in ("DiceRolled", "ReactionDeclared", "ShareRolled", "ReactionUsed") and data.get("pool"):
        pool = data["pool"]
        yield (
            pool.get("roll_no"),
            pool.get("commitment"),
            [d["face"] for d in pool.get("dice", [])],
            pool.get("key"),
            pool.get("path"),
            6,
        )
    elif kind == "ExtraDiceRolled":  # P-DICE-13: d4, d10... outside challenges, from the same committed keys
        yield (
            data["roll_no"],
            data.get("commitment"),
            list(data["faces"]),
            data.get("key"),
            data.get("path"),
            data["sides"],
        )
    elif kind == "PostMade":  # issue 16: [roll NdS] in a post, from the same committed keys
        for r in data.get("rolls") or []:
            yield (r["roll_no"], r.get("commitment"), list(r["faces"]), r.get("key"), r.get("path"), r["sides"])
    elif kind in ("ActionResolved", "ActionProvisional"):
        details = data.get("details") or {}
        if details.get("roll_no") is not None and details.get("faces") is not None:
            yield (
                details["roll_no"],
                details.get("commitment"),
                list(details["faces"]),
                details.get("key"),
                details.get("path"),
                6,
            )


def _check_roll(
    report: Report,
    where: str,
    what: str,
    month: _Month,
    roll_no: int,
    key: str | None,
    path: list | None,
    shown: list,
    from_key: Callable[[str], list],
    legacy: Callable[[str], list],
) -> bool | None:
    """Check one roll (faces or a tie-break order): True if verified, None if pending, False if it fails."""
    if month.root is None:  # a month committed before per-roll keys: only its seed can tell
        if month.seed is None:
            return None
        expected = legacy(month.seed)
        if expected != shown:
            report.mismatches.append(f"{where}: {what} {roll_no} is {shown}, but its seed gives {expected}")
            return False
        return True
    if key is None:
        if month.seed is None:
            return None
        key = roll_key(month.seed, roll_no)
    elif not key_under_root(month.root, month.first_roll or 0, roll_no, key, path or []):
        report.mismatches.append(f"{where}: {what} {roll_no}'s key and path do not lead to the month's committed root")
        return False
    elif month.seed is not None:
        if roll_key(month.seed, roll_no) != key:
            report.mismatches.append(f"{where}: {what} {roll_no}'s key does not derive from the revealed seed")
            return False
        report.keys_verified += 1
    expected = from_key(key)
    if expected != shown:
        report.mismatches.append(f"{where}: {what} {roll_no} is {shown}, but its key gives {expected}")
        return False
    return True


def _check_chain(events: list[dict], report: Report) -> None:
    """Missing events: gaps in the viewer's sequence; in the GM's export, versions and roll numbers."""
    seqs = [s for s in (e.get("seq") for e in events) if s is not None]
    if seqs and len(seqs) == len(events):
        expected = 1
        for s in seqs:
            if s != expected:
                if s > expected:
                    gap = f"event {expected} is" if s - 1 == expected else f"events {expected} to {s - 1} are"
                    report.mismatches.append(f"{gap} missing from your sequence (event {s} follows {expected - 1})")
                else:
                    report.mismatches.append(f"event {s} appears out of order or twice (expected {expected})")
            expected = s + 1
    else:
        report.not_checked.append("gaps in the sequence: the export has no seq numbers")
    versions = [v for v in (e.get("version") for e in events) if v is not None]
    if not events or len(versions) < len(events):
        report.not_checked.append(NOT_CHECKED_FOR_PLAYERS)
        return
    for before, after in zip(versions, versions[1:]):
        if after <= before:
            report.mismatches.append(f"event version {after} comes after version {before}")
    by_seed: dict[str | None, set[int]] = {}
    for e in events:
        for roll_no, commit, *_ in _rolls(e):
            if roll_no is not None:
                by_seed.setdefault(commit, set()).add(roll_no)
        if e.get("type") == "TiesBroken":
            by_seed.setdefault(e["data"].get("commitment"), set()).add(e["data"]["roll_no"])
    for commit, numbers in by_seed.items():
        holes = sorted(set(range(min(numbers), max(numbers) + 1)) - numbers)
        if holes:
            report.mismatches.append(
                f"rolls {holes} under seed {str(commit)[:12]}… are missing: roll numbers are gap-free"
            )


def verify_events(events: Iterable[dict]) -> Report:
    """Recompute every visible roll, sealed difficulty and submission digest in ``events`` (in the order
    they were recorded), and look for missing events."""
    events = [check_event(e, i) for i, e in enumerate(events, start=1)]
    report = Report(events_checked=len(events), not_checked=list(NOT_CHECKED))
    _check_chain(events, report)
    months: dict[str, _Month] = {}
    audits = skipped = 0
    for i, e in enumerate(events):
        data = e.get("data", {})
        if e.get("type") == "SeedCommitted":
            months.setdefault(
                data["commitment"], _Month(at=i, root=data.get("root"), first_roll=data.get("first_roll"))
            )
        elif e.get("type") == "SeedRevealed":
            month = months.get(data["commitment"])
            if month is None:
                report.mismatches.append(f"event {e.get('seq')}: a seed was revealed that was never committed")
            elif commitment(data["seed"]) != data["commitment"]:
                report.mismatches.append(f"event {e.get('seq')}: revealed seed does not hash to its commitment")
            elif month.root is not None and audits >= MAX_SEED_AUDITS:
                skipped += 1
            elif month.root is not None and (
                month.first_roll is None or roll_tree(data["seed"], month.first_roll).root != month.root
            ):
                report.mismatches.append(
                    f"event {e.get('seq')}: revealed seed does not give the committed root of the month's roll keys"
                )
            else:
                month.seed = data["seed"]
                report.seeds_verified += 1
            audits += month is not None and month.root is not None
    if skipped:
        report.not_checked.append(
            f"{skipped} revealed seeds after the first {MAX_SEED_AUDITS}: their rolls are checked from their keys only"
        )
    seen_rolls: dict[int, tuple[str | None, list[int]]] = {}
    sealed: dict[str, tuple[str, int]] = {}
    rolled_at: dict[str, int] = {}
    submitted: set[str] = set()
    rolled: set[str] = set()
    for i, e in enumerate(events):
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')} ({kind})"
        for roll_no, commit, faces, key, path, sides in _rolls(e):
            if roll_no is None:
                continue
            earlier = seen_rolls.get(roll_no)
            if earlier is not None and earlier != (commit, faces):
                report.mismatches.append(f"{where}: roll {roll_no} appears twice with different dice")
                continue
            if earlier is not None:
                continue
            seen_rolls[roll_no] = (commit, faces)
            month = months.get(commit) if commit is not None else None
            if month is None or month.at > i:
                report.mismatches.append(f"{where}: roll {roll_no} uses a seed not committed before it")
                continue
            n = len(faces)
            ok = _check_roll(
                report,
                where,
                "roll",
                month,
                roll_no,
                key,
                path,
                faces,
                lambda k: faces_from_key(k, n, sides),
                lambda seed: derive_faces_legacy(seed, roll_no, n, sides),
            )
            if ok is None:
                report.rolls_pending += 1
            elif ok:
                report.rolls_verified += 1
        if kind == "TiesBroken":
            month = months.get(data.get("commitment"))
            tied = list(data["tied"])
            if month is None or month.at > i:
                report.mismatches.append(f"{where}: tie-break {data['roll_no']} uses a seed not committed before it")
            else:
                ok = _check_roll(
                    report,
                    where,
                    "tie-break",
                    month,
                    data["roll_no"],
                    data.get("key"),
                    data.get("path"),
                    list(data["order"]),
                    lambda k: [tied[j] for j in permutation_from_key(k, len(tied))],
                    lambda seed: [tied[j] for j in derive_permutation_legacy(seed, data["roll_no"], len(tied))],
                )
                if ok is None:
                    report.rolls_pending += 1
                elif ok:
                    report.tie_breaks_verified += 1
        if kind == "ActionSubmitted":
            submitted.add(data["action_id"])
        if kind == "DiceRolled":
            rolled_at.setdefault(data["action_id"], i)
            rolled.add(data["action_id"])
            if data["action_id"] not in submitted:
                report.mismatches.append(
                    f"{where}: action {data['action_id']} was rolled but its submission is missing"
                )
        if kind == "ConversionsLocked":
            missing = (
                "submission"
                if data["action_id"] not in submitted
                else ("dice roll" if data["action_id"] not in rolled else None)
            )
            if missing:
                report.mismatches.append(
                    f"{where}: the conversions of {data['action_id']} were locked but its {missing} is missing"
                )
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
            published = None  # a publication it superseded proves nothing about what is resolved next
        elif kind == "ConversionsLocked" and "salt" in a and "faces" in a and "title" in a:
            expected = submission_digest(
                data["action_id"],
                a["power"],
                a["title"],
                a["slot"],
                a["skill"],
                a["roll_no"],
                a["faces"],
                data["converted"],
                a["salt"],
            )
            if expected != data["digest"]:
                report.mismatches.append(f"{where}: the submission digest does not match its dice and conversions")
            else:
                checked[data["action_id"]] = (expected, where)
        elif kind in ("ActionResolved", "ActionProvisional") and (data.get("details") or {}).get("salt"):
            d = data["details"]
            expected = submission_digest(
                data["action_id"],
                d["power"],
                d["title"],
                d["slot"],
                d["skill"],
                d["roll_no"],
                d["faces"],
                d["converted"],
                d["salt"],
            )
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


def _check_published(
    report: Report, verified: set[str], action_id: str, expected: str, published: list[str], where: str
) -> None:
    if expected in published:
        verified.add(action_id)
    else:
        report.mismatches.append(f"{where}: this submission is missing from the published resolution")
