"""Verify an export, for every ruleset: what the platform guarantees to all (DESIGN "Promises are platform
properties"), and what a ruleset adds through its ``Ruleset.verify`` value.

An export is the JSON Lines of the events one viewer was shown (``GET /games/{id}/export``). Its first
event names the ruleset (``data.ruleset``; an export of an older shape without it is the game of the ruleset
whose verifier declares ``reads_unnamed``, Powers'):
``verify_export`` checks it with that ruleset's ``Verifier``, and a ruleset that is not registered is refused
naming it. Every ruleset's verifier makes the platform's checks:

- seeds: each revealed seed hashes to its commitment, gives the committed root of its roll keys, and was
  committed before it; every committed seed is revealed, or the report says why not (``seeds_unrevealed``:
  still in force, revealed to the GM alone, copied by a fork, superseded by a rollback), else a mismatch;
- rolls (a ruleset's own and a post's ``[roll NdS]``): each uses a seed committed before it, its key and
  Merkle path lead to that seed's root, its key derives from the seed once revealed, and its faces (or order)
  are what the key gives; a roll shown twice shows the same dice;
- nothing missing or reordered: the viewer's sequence numbers (``seq``) run 1, 2, 3... without a gap;
  in an export that shows event versions (the GM's, the host's) versions only increase and the roll numbers
  under each seed are gap-free from the seed's first roll.

A ruleset adds its own checks (``Verifier.checks``), the shapes of its events (``Verifier.shapes``) and the
rolls its events show (``Verifier.rolls``). The platform imports no ruleset: it finds one through the
registry. A malformed export is refused with ``InvalidExport``, naming the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from domain import limits
from domain.dice import (
    commitment,
    derive_faces_legacy,
    faces_from_key,
    key_under_root,
    roll_key,
    roll_tree,
)
from domain.errors import RuleViolation
from domain.platform import ruleset as registry

HEX64 = r"^[0-9a-f]{64}$"
MAX_DICE = 10_000  # far above any pool; keeps a hostile export from asking for a billion dice
MAX_SEED_AUDITS = 256  # revealed seeds whose tree of roll keys is rebuilt (~10 ms each): ~100 seasons

NOT_CHECKED = [
    "what an event says beyond the dice, seeds, sealed values and sequence it carries (texts, names, "
    "choices): an edit to them is not detected unless a check below covers it",
    "events you were not shown, and event times and actors",
    "an export cut short at its end: it looks like an export taken earlier",
    "an export renumbered consistently after an event was removed: compare with another viewer's export",
]
NOT_CHECKED_FOR_PLAYERS = "gaps in roll numbers and versions: only the GM's export shows every roll"


class InvalidExport(RuleViolation):
    """An export line that is not JSON, or not an event of the shape it claims (422)."""

    def __init__(self, message: str, *, line: int | None, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.line = line

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "line": self.line}


class In(BaseModel):
    """Base of the shapes the verifier reads: fields it does not read are let through."""

    model_config = ConfigDict(extra="allow")


def data_model(name: str, **fields_: Any) -> type[BaseModel]:
    """The shape of an event's ``data``: the fields a verifier reads, with their bounds."""
    return create_model(name, __base__=In, **fields_)


class _Event(In):
    seq: int | None = Field(default=None, ge=1)
    version: int | None = Field(default=None, ge=1)
    type: str
    data: dict[str, Any] = {}


class PostRoll(In):
    """One ``[roll NdS]`` of a post (issue 16); a ruleset's own single rolls have this shape too."""

    roll_no: int = Field(ge=0)
    commitment: str | None = None
    sides: int = Field(default=6, ge=2, le=100)
    faces: list[Annotated[int, Field(ge=1, le=100)]] = Field(max_length=MAX_DICE)
    key: str | None = Field(None, pattern=HEX64)
    path: list[str] | None = Field(None, max_length=64)


# The platform's events whose data the verifier reads, with the fields it reads.
SHAPES: dict[str, type[BaseModel]] = {
    "SeedCommitted": data_model(
        "SeedCommitted",
        commitment=(str, ...),
        root=(str | None, Field(None, pattern=HEX64)),
        first_roll=(int | None, Field(None, ge=0)),
    ),
    "SeedRevealed": data_model("SeedRevealed", seed=(str, Field(pattern=HEX64)), commitment=(str, ...)),
    "PostMade": data_model("PostMade", rolls=(list[PostRoll], Field([], max_length=16))),
}


# ---------------------------------------------------------------------- reading an export


def _lines(text: str) -> list[tuple[int, Any]]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line)))
        except (ValueError, RecursionError) as err:
            raise InvalidExport(f"line {number} is not JSON ({err})", line=number, field="line") from None
    if not out:
        raise InvalidExport(
            "the export is empty: it has one event per line, from GameCreated on", line=None, field="body"
        )
    return out


def parse_export(text: str) -> list[dict[str, Any]]:
    """The events of a JSON Lines export, each checked against the shapes of the platform and of the ruleset
    its first event names; ``InvalidExport`` names the line and field (and an unknown ruleset)."""
    lines = _lines(text)
    first_line, first = lines[0]
    shapes = SHAPES
    if isinstance(first, dict):
        shapes = {**SHAPES, **verifier_for(first, first_line).shapes}
    return [check_event(raw, number, shapes) for number, raw in lines]


def check_event(raw: Any, number: int | None, shapes: Mapping[str, type[BaseModel]] = SHAPES) -> dict[str, Any]:
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
    shape = shapes.get(event.type)
    if shape is not None:
        try:
            shape.model_validate(event.data)
        except ValidationError as err:
            raise _invalid(err, where, raw, number, prefix="data") from None
    return raw


def _invalid(err: ValidationError, where: str, raw: dict[str, Any], number: int | None, prefix: str) -> InvalidExport:
    first = err.errors()[0]
    name = limits.field_name([prefix, *first["loc"]] if prefix else first["loc"])
    kind = raw.get("type")
    label = kind[:40] if isinstance(kind, str) else "?"
    return InvalidExport(f"{where} ({label}): {name or 'event'}: {first['msg']}", line=number, field=name or "event")


def ruleset_of(first: Any) -> Any:
    """The ruleset an export's first event names; for an export of an older shape that names none, the registered
    ruleset whose verifier reads such exports (``Verifier.reads_unnamed``), else None."""
    data = first.get("data") if isinstance(first, dict) else None
    name = data.get("ruleset") if isinstance(data, dict) else None
    if name is not None:
        return name
    unnamed = (r.name for r in registry.registered().values() if getattr(r.verify, "reads_unnamed", False))
    return next(unnamed, None)


def verifier_for(first: Any, line: int | None = 1) -> Verifier:
    """The verifier of the ruleset an export's first event names (the platform's alone if the ruleset declares
    none); an unregistered ruleset is refused naming it."""
    name = ruleset_of(first)
    try:
        found = registry.get(name) if isinstance(name, str) else None
    except registry.UnknownRuleset:
        found = None
    if found is None:
        shown = "no ruleset (as exports before rulesets did)" if name is None else f"ruleset {repr(name)[:60]}"
        raise InvalidExport(
            f"the export's first event names {shown}, which this service does not verify; it verifies "
            f"{', '.join(registry.names()) or 'none'}",
            line=line,
            field="data.ruleset",
        )
    verify = found.verify
    if verify is None:
        return replace(PLATFORM, ruleset=found.name)
    if not isinstance(verify, Verifier):  # a plain function: the platform's checks, then its mismatches
        return Verifier(ruleset=found.name, checks=(_adding(verify),))
    return verify if verify.ruleset else replace(verify, ruleset=found.name)


def _adding(verify: Callable[[list[dict[str, Any]]], Any]) -> Callable[[list[dict[str, Any]], Report], None]:
    def check(events: list[dict[str, Any]], report: Report) -> None:
        report.mismatches.extend(getattr(verify(events), "mismatches", []))

    return check


def verify_export(events: Iterable[dict[str, Any]]) -> Report:
    """Verify an export with the verifier of the ruleset its first event names (``POST /verify``,
    ``emissary verify``)."""
    events = list(events)
    if not events:
        raise InvalidExport(
            "the export is empty: it has one event per line, from GameCreated on", line=None, field="body"
        )
    report: Report = verifier_for(events[0])(events)
    _check_kinds(events, report.ruleset, report)
    return report


# ---------------------------------------------------------------------- the report


@dataclass
class Report:
    """What was checked, what did not match, why a seed is not revealed, and what is not checked.

    A ruleset's report may add counts of its own (a subclass with more integer fields)."""

    ruleset: str = ""
    events_checked: int = 0
    rolls_verified: int = 0
    rolls_pending: int = 0
    seeds_verified: int = 0
    keys_verified: int = 0  # roll keys checked against their revealed seed
    seeds_unrevealed: list[str] = field(default_factory=list)  # each committed seed not revealed here, and why
    mismatches: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, list) else value
        return out


# ---------------------------------------------------------------------- rolls


@dataclass(frozen=True)
class Roll:
    """One roll an event shows: its number under a seed, the seed's commitment, what it shows (faces, or an
    order) and how its key gives that; the report field it counts in once verified."""

    roll_no: int | None
    commitment: str | None
    shown: list[Any]
    key: str | None
    path: list[Any] | None
    from_key: Callable[[str], list[Any]]
    legacy: Callable[[str], list[Any]] | None = None  # a month committed before per-roll keys: from the seed itself
    what: str = "roll"
    counts_in: str = "rolls_verified"


def dice(
    roll_no: int | None,
    commit: str | None,
    faces: list[int],
    key: str | None,
    path: list[Any] | None,
    sides: int = 6,
) -> Roll:
    """A roll of ``len(faces)`` dice of ``sides`` sides."""
    n = len(faces)
    return Roll(
        roll_no,
        commit,
        list(faces),
        key,
        path,
        from_key=lambda k: faces_from_key(k, n, sides),
        legacy=None if roll_no is None else (lambda seed: derive_faces_legacy(seed, roll_no, n, sides)),
    )


def post_rolls(event: dict[str, Any]) -> Iterable[Roll]:
    """The ``[roll NdS]`` of a post (issue 16), from the game's committed keys: every ruleset's posts."""
    if event.get("type") == "PostMade":
        for r in event.get("data", {}).get("rolls") or []:
            yield dice(r["roll_no"], r.get("commitment"), list(r["faces"]), r.get("key"), r.get("path"), r["sides"])


def _no_rolls(event: dict[str, Any]) -> Iterable[Roll]:
    return ()


@dataclass
class Seed:
    """One committed seed: where it was committed, its root and first roll, and (once revealed) the seed."""

    at: int
    seq: int | None
    root: str | None
    first_roll: int | None
    seed: str | None = None
    revealed: bool = False


# ---------------------------------------------------------------------- the verifier


@dataclass(frozen=True)
class Verifier:
    """The platform's checks, plus what one ruleset adds; a ruleset's ``verify`` value (called on the events
    of an export, it returns the report)."""

    ruleset: str = ""
    rolls: Callable[[dict[str, Any]], Iterable[Roll]] = _no_rolls  # the rolls the ruleset's own events show
    shapes: Mapping[str, type[BaseModel]] = field(default_factory=dict)  # its events' data the checks read
    checks: tuple[Callable[[list[dict[str, Any]], Any], None], ...] = ()  # its own checks, after the platform's
    report: type[Report] = Report
    not_checked: tuple[str, ...] = ()
    # who its revealed seeds go to: "everyone", or "gm" (a player's export then holds no reveal) with the rule
    reveals_to: str = "everyone"
    reveal_rule: str = ""
    reveals_superseded: bool = False  # whether a seed a rollback supersedes is revealed (else the report says so)
    reads_unnamed: bool = False  # whether an export whose first event names no ruleset (made before any did) is its

    def __call__(self, events: Iterable[dict[str, Any]]) -> Any:
        shapes = {**SHAPES, **self.shapes}
        events = [check_event(e, i, shapes) for i, e in enumerate(events, start=1)]
        report = self.report(
            ruleset=self.ruleset, events_checked=len(events), not_checked=[*NOT_CHECKED, *self.not_checked]
        )
        full = bool(events) and all(e.get("version") is not None for e in events)
        _check_sequence(events, report)
        seeds = _check_seeds(events, report)
        rolls = self._check_rolls(events, seeds, report)
        if full:
            _check_versions(events, report)
            _check_roll_numbers(rolls, seeds, report)
        else:
            report.not_checked.append(NOT_CHECKED_FOR_PLAYERS)
        self._explain_unrevealed(events, seeds, full, report)
        for check in self.checks:
            check(events, report)
        return report

    def all_rolls(self, event: dict[str, Any]) -> Iterable[Roll]:
        """Every roll an event shows: the ruleset's, and a post's."""
        yield from self.rolls(event)
        yield from post_rolls(event)

    def _check_rolls(
        self, events: list[dict[str, Any]], seeds: dict[str, Seed], report: Report
    ) -> list[tuple[int, Roll]]:
        """Check every roll against its seed; the rolls shown, with the index of the event showing each."""
        seen: dict[tuple[str | None, int, str], list[Any]] = {}
        shown: list[tuple[int, Roll]] = []
        for i, e in enumerate(events):
            where = f"event {e.get('seq')} ({e.get('type')})"
            for roll in self.all_rolls(e):
                if roll.roll_no is None:
                    continue
                shown.append((i, roll))
                ident = (roll.commitment, roll.roll_no, roll.what)
                earlier = seen.get(ident)
                if earlier is not None and earlier != roll.shown:
                    report.mismatches.append(f"{where}: {roll.what} {roll.roll_no} appears twice with different dice")
                    continue
                seed = seeds.get(roll.commitment) if roll.commitment is not None else None
                if seed is None or seed.at > i:
                    report.mismatches.append(f"{where}: {roll.what} {roll.roll_no} uses a seed not committed before it")
                    continue
                # every showing is checked (a roll moved onto another's number may show the same faces); each
                # roll counts once
                keys = report.keys_verified
                verdict = _check_roll(report, where, seed, roll)
                if earlier is not None:
                    report.keys_verified = keys
                else:
                    seen[ident] = roll.shown
                    if verdict is None:
                        report.rolls_pending += 1
                    elif verdict:
                        setattr(report, roll.counts_in, getattr(report, roll.counts_in) + 1)
        return shown

    def _explain_unrevealed(
        self, events: list[dict[str, Any]], seeds: dict[str, Seed], full: bool, report: Report
    ) -> None:
        """Every committed seed is revealed, or the report says why not; a seed with no reason is a mismatch."""
        commits = sorted(seeds.items(), key=lambda kv: kv[1].at)
        forks = [i for i, e in enumerate(events) if e.get("type") == "GameForked"]
        rollbacks = [(i, e.get("seq")) for i, e in enumerate(events) if e.get("type") == "GameRolledBack"]
        for n, (commit, seed) in enumerate(commits):
            if seed.revealed:
                continue
            label = f"seed {commit[:12]}… (committed at event {seed.seq})"
            following = commits[n + 1][1].at if n + 1 < len(commits) else len(events)
            if any(seed.at < f for f in forks):
                why = "copied with the source game's history by a fork: the source game reveals it"
            elif n + 1 == len(commits):
                why = "in force now: it is revealed when the phase it governs closes"
            elif self.reveals_to == "gm" and not full:
                why = f"revealed to the GM alone ({self.reveal_rule}): your rolls are checked from their keys"
            elif not self.reveals_superseded and (superseded := [s for i, s in rollbacks if seed.at < i <= following]):
                why = (
                    f"superseded by the rollback at event {superseded[0]} and never revealed: its rolls are "
                    "checked from their keys and paths only"
                )
            else:
                report.mismatches.append(f"{label} was never revealed, though a later seed was committed")
                continue
            report.seeds_unrevealed.append(f"{label}: {why}")


PLATFORM = Verifier()
"""The platform's checks alone: a ruleset that rolls and seals nothing of its own (the contract's fake one)."""


def _check_kinds(events: list[dict[str, Any]], ruleset: str, report: Report) -> None:
    """The export is one game of this ruleset as recorded: it begins with the event such a game begins with, and
    every event is one such a game records. Relabelled (or with its label removed), a tampered export would be
    checked by a verifier that reads none of its rolls, and pass."""
    try:
        found = registry.get(ruleset)
    except registry.UnknownRuleset:
        return
    begins, known = found.created_kinds(), found.event_kinds()
    if begins and events and events[0].get("type") not in begins:
        report.mismatches.insert(
            0,
            f"line 1: the export's first event is {str(events[0].get('type'))[:60]!r}, but a {ruleset!r} game "
            f"begins with {', '.join(sorted(begins))}: the export names the wrong ruleset, or is not whole",
        )
    for i, e in enumerate(events, start=1):
        if not known:
            break
        if e.get("type") not in known:
            report.mismatches.append(f"line {i}: {str(e.get('type'))[:60]!r} is no event of a {ruleset!r} game")


def _check_sequence(events: list[dict[str, Any]], report: Report) -> None:
    """Missing or reordered events: the viewer's sequence numbers run 1, 2, 3... without a gap."""
    seqs = [e.get("seq") for e in events]
    if not events or any(s is None for s in seqs):
        report.not_checked.append("gaps in the sequence: the export has no seq numbers")
        return
    expected = 1
    for s in seqs:
        assert s is not None
        if s > expected:
            gap = f"event {expected} is" if s - 1 == expected else f"events {expected} to {s - 1} are"
            report.mismatches.append(f"{gap} missing from your sequence (event {s} follows {expected - 1})")
        elif s < expected:
            report.mismatches.append(f"event {s} appears out of order or twice (expected {expected})")
        expected = s + 1


def _check_versions(events: list[dict[str, Any]], report: Report) -> None:
    """In an export that shows versions (the GM's), versions only increase."""
    versions = [e["version"] for e in events]
    for before, after in zip(versions, versions[1:]):
        if after <= before:
            report.mismatches.append(f"event version {after} comes after version {before}")


def _check_seeds(events: list[dict[str, Any]], report: Report) -> dict[str, Seed]:
    """Every committed seed, in order; each reveal hashes to a commitment made before it and gives its root."""
    seeds: dict[str, Seed] = {}
    audits = skipped = 0
    for i, e in enumerate(events):
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')}"
        if kind == "SeedCommitted":
            seeds.setdefault(
                data["commitment"],
                Seed(at=i, seq=e.get("seq"), root=data.get("root"), first_roll=data.get("first_roll")),
            )
        elif kind == "SeedRevealed":
            seed = seeds.get(data["commitment"])
            if seed is None:
                report.mismatches.append(f"{where}: a seed was revealed that was never committed before it")
            elif commitment(data["seed"]) != data["commitment"]:
                report.mismatches.append(f"{where}: revealed seed does not hash to its commitment")
            elif seed.seed is not None:
                continue  # the same seed revealed again (a rollback's audit): it was checked once
            elif seed.root is not None and audits >= MAX_SEED_AUDITS:
                seed.revealed = True
                skipped += 1
            elif seed.root is not None and (
                seed.first_roll is None or roll_tree(data["seed"], seed.first_roll).root != seed.root
            ):
                report.mismatches.append(
                    f"{where}: revealed seed does not give the committed root of the month's roll keys"
                )
            else:
                seed.seed = data["seed"]
                seed.revealed = True
                report.seeds_verified += 1
            audits += seed is not None and seed.root is not None
    if skipped:
        report.not_checked.append(
            f"{skipped} revealed seeds after the first {MAX_SEED_AUDITS}: their rolls are checked from their keys only"
        )
    return seeds


def _check_roll(report: Report, where: str, seed: Seed, roll: Roll) -> bool | None:
    """Check one roll: True if verified, None if pending (no key and no revealed seed), False if it fails."""
    n = roll.roll_no
    assert n is not None
    if seed.root is None:  # a month committed before per-roll keys: only its seed can tell
        if seed.seed is None or roll.legacy is None:
            return None
        expected = roll.legacy(seed.seed)
        if expected != roll.shown:
            report.mismatches.append(f"{where}: {roll.what} {n} is {roll.shown}, but its seed gives {expected}")
            return False
        return True
    key = roll.key
    if key is None:
        if seed.seed is None:
            return None
        key = roll_key(seed.seed, n)
    elif not key_under_root(seed.root, seed.first_roll or 0, n, key, roll.path or []):
        report.mismatches.append(f"{where}: {roll.what} {n}'s key and path do not lead to the month's committed root")
        return False
    elif seed.seed is not None:
        if roll_key(seed.seed, n) != key:
            report.mismatches.append(f"{where}: {roll.what} {n}'s key does not derive from the revealed seed")
            return False
        report.keys_verified += 1
    expected = roll.from_key(key)
    if expected != roll.shown:
        report.mismatches.append(f"{where}: {roll.what} {n} is {roll.shown}, but its key gives {expected}")
        return False
    return True


def _check_roll_numbers(rolls: list[tuple[int, Roll]], seeds: dict[str, Seed], report: Report) -> None:
    """In the GM's export (every roll shown), the roll numbers under each seed are gap-free."""
    by_seed: dict[str | None, set[int]] = {}
    for _, roll in rolls:
        if roll.roll_no is not None:
            by_seed.setdefault(roll.commitment, set()).add(roll.roll_no)
    for commit, numbers in by_seed.items():
        seed = seeds.get(commit) if commit is not None else None
        first = seed.first_roll if seed is not None and seed.first_roll is not None else min(numbers)
        holes = sorted(set(range(min(first, min(numbers)), max(numbers) + 1)) - numbers)
        if holes:
            report.mismatches.append(
                f"rolls {holes} under seed {str(commit)[:12]}… are missing: roll numbers are gap-free"
            )
