"""Verify an export of a game's events: every roll the viewer could see, and every sealed difficulty.

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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from domain.dice import commitment as hash_of
from domain.dice import (
    derive_faces_legacy, derive_permutation_legacy, faces_from_key, key_under_root, permutation_from_key, roll_key, roll_tree, seal_difficulty,
)
from domain.powers.game import digest, submission_digest


@dataclass
class Report:
    """What was checked and what did not match."""

    rolls_verified: int = 0
    rolls_pending: int = 0
    tie_breaks_verified: int = 0
    difficulties_verified: int = 0
    seeds_verified: int = 0
    keys_verified: int = 0  # roll keys checked against their revealed seed (the GM's audit)
    submissions_verified: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def as_dict(self) -> dict:
        return {"ok": self.ok, "rolls_verified": self.rolls_verified, "rolls_pending": self.rolls_pending,
                "tie_breaks_verified": self.tie_breaks_verified, "difficulties_verified": self.difficulties_verified,
                "seeds_verified": self.seeds_verified, "keys_verified": self.keys_verified,
                "submissions_verified": self.submissions_verified, "mismatches": list(self.mismatches)}


@dataclass
class _Month:
    """One committed seed: where it was committed, and (since per-roll keys) its root and first roll."""

    at: int
    root: str | None
    first_roll: int | None
    seed: str | None = None


def _rolls(event: dict) -> Iterable[tuple[int, str | None, list[int], str | None, list | None]]:
    data = event.get("data", {})
    kind = event.get("type")
    if kind in ("DiceRolled", "ReactionDeclared"):
        pool = data.get("pool") or {}
        yield (pool.get("roll_no"), pool.get("commitment"), [d["face"] for d in pool.get("dice", [])],
               pool.get("key"), pool.get("path"))
    elif kind in ("ActionResolved", "ActionProvisional"):
        details = data.get("details") or {}
        if details.get("roll_no") is not None and "faces" in details:
            yield (details["roll_no"], details.get("commitment"), list(details["faces"]), details.get("key"),
                   details.get("path"))


def _check_roll(report: Report, where: str, what: str, month: _Month, roll_no: int, key: str | None,
                path: list | None, shown: list, from_key: Callable[[str], list],
                legacy: Callable[[str], list]) -> bool | None:
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
        report.mismatches.append(f"{where}: {what} {roll_no}'s key and path do not lead to the month's committed "
                                 f"root")
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


def verify_events(events: Iterable[dict]) -> Report:
    """Recompute every visible roll and sealed difficulty in ``events`` (in the order they were recorded)."""
    events = list(events)
    report = Report()
    months: dict[str, _Month] = {}
    for i, e in enumerate(events):
        data = e.get("data", {})
        if e.get("type") == "SeedCommitted":
            months.setdefault(data["commitment"], _Month(at=i, root=data.get("root"),
                                                         first_roll=data.get("first_roll")))
        elif e.get("type") == "SeedRevealed":
            month = months.get(data["commitment"])
            if month is None:
                report.mismatches.append(f"event {e.get('seq')}: a seed was revealed that was never committed")
            elif hash_of(data["seed"]) != data["commitment"]:
                report.mismatches.append(f"event {e.get('seq')}: revealed seed does not hash to its commitment")
            elif month.root is not None and roll_tree(data["seed"], month.first_roll).root != month.root:
                report.mismatches.append(f"event {e.get('seq')}: revealed seed does not give the committed root "
                                         f"of the month's roll keys")
            else:
                month.seed = data["seed"]
                report.seeds_verified += 1
    seen_rolls: dict[int, tuple[str | None, list[int]]] = {}
    sealed: dict[str, tuple[str, int]] = {}
    rolled_at: dict[str, int] = {}
    for i, e in enumerate(events):
        data = e.get("data", {})
        where = f"event {e.get('seq')} ({e.get('type')})"
        for roll_no, commit, faces, key, path in _rolls(e):
            if roll_no is None:
                continue
            earlier = seen_rolls.get(roll_no)
            if earlier is not None and earlier != (commit, faces):
                report.mismatches.append(f"{where}: roll {roll_no} appears twice with different dice")
                continue
            if earlier is not None:
                continue
            seen_rolls[roll_no] = (commit, faces)
            month = months.get(commit)
            if month is None or month.at > i:
                report.mismatches.append(f"{where}: roll {roll_no} uses a seed not committed before it")
                continue
            n = len(faces)
            ok = _check_roll(report, where, "roll", month, roll_no, key, path, faces,
                             lambda k, n=n: faces_from_key(k, n),
                             lambda seed, r=roll_no, n=n: derive_faces_legacy(seed, r, n))
            if ok is None:
                report.rolls_pending += 1
            elif ok:
                report.rolls_verified += 1
        if e.get("type") == "TiesBroken":
            month = months.get(data.get("commitment"))
            tied = list(data["tied"])
            if month is None or month.at > i:
                report.mismatches.append(f"{where}: tie-break {data['roll_no']} uses a seed not committed before it")
            else:
                ok = _check_roll(report, where, "tie-break", month, data["roll_no"], data.get("key"), data.get("path"),
                                 list(data["order"]),
                                 lambda k: [tied[j] for j in permutation_from_key(k, len(tied))],
                                 lambda seed: [tied[j] for j in derive_permutation_legacy(seed, data["roll_no"],
                                                                                          len(tied))])
                if ok is None:
                    report.rolls_pending += 1
                elif ok:
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
