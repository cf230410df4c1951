"""Verify an export of a game's events: every roll the viewer could see, and every sealed difficulty.

Anyone can run it (``emissary verify export.jsonl`` or ``POST /verify``) on the events they were
shown: it needs no access to the server. Each roll names the commitment of the seed it came from;
once that seed is revealed, the roll is recomputed. A roll whose seed is not yet revealed is
reported as pending, not as a failure.

Resolution publishes a salted digest of every submission it consumed. Whoever holds a
submission's salt (its owner and collaborators, the GM; the table, with a public action's dice,
once it has resolved) recomputes the digest from the dice and conversions they were shown, and
checks it is among those published; without the salt a digest tells nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from domain.dice import commitment as hash_of
from domain.dice import derive_faces, derive_permutation, seal_difficulty
from domain.powers.game import digest, submission_digest


@dataclass
class Report:
    """What was checked and what did not match."""

    rolls_verified: int = 0
    rolls_pending: int = 0
    tie_breaks_verified: int = 0
    difficulties_verified: int = 0
    seeds_verified: int = 0
    submissions_verified: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def as_dict(self) -> dict:
        return {"ok": self.ok, "rolls_verified": self.rolls_verified, "rolls_pending": self.rolls_pending,
                "tie_breaks_verified": self.tie_breaks_verified, "difficulties_verified": self.difficulties_verified,
                "seeds_verified": self.seeds_verified, "submissions_verified": self.submissions_verified,
                "mismatches": list(self.mismatches)}


def _rolls(event: dict) -> Iterable[tuple[int, str | None, list[int]]]:
    data = event.get("data", {})
    kind = event.get("type")
    if kind in ("DiceRolled", "ReactionDeclared"):
        pool = data.get("pool") or {}
        yield pool.get("roll_no"), pool.get("commitment"), [d["face"] for d in pool.get("dice", [])]
    elif kind in ("ActionResolved", "ActionProvisional"):
        details = data.get("details") or {}
        if details.get("roll_no") is not None and "faces" in details:
            yield details["roll_no"], details.get("commitment"), list(details["faces"])


def verify_events(events: Iterable[dict]) -> Report:
    """Recompute every visible roll and sealed difficulty in ``events`` (in the order they were recorded)."""
    events = list(events)
    report = Report()
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
    for i, e in enumerate(events):
        data = e.get("data", {})
        where = f"event {e.get('seq')} ({e.get('type')})"
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
        if e.get("type") == "TiesBroken":
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
        if e.get("type") == "DiceRolled":
            rolled_at.setdefault(data["action_id"], i)
        if e.get("type") == "DifficultyCommitted":
            sealed[data["action_id"]] = (data["commitment"], i)
        if e.get("type") == "DifficultyRevealed":
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
