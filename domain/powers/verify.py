"""Powers' verifier, its ``Ruleset.verify``: what a Powers export adds to the platform's checks
(domain.platform.verify, whose ``verify_export`` dispatches here for an export whose first event names Powers).

The platform checks what every ruleset shares: seed commitments and reveals, each roll's key and Merkle
path under its seed's committed root and its faces, gap-free sequences, versions and roll numbers. When a
month opens, ``SeedCommitted`` publishes the Merkle root of the month's roll keys (domain.dice); each roll a
viewer was shown carries its own key and path. The month seed is revealed to the GM only (P.4): the GM's
export also checks the seed against its commitment and root, and every key against the seed. Months
committed before per-roll keys (no root) verify the old way, from the revealed seed; a roll with neither a
key nor a revealed seed is reported as pending. Powers adds:

- its rolls: dice pools, reactions, shares, extra dice (P-DICE-13) and tie-breaks (an order, not faces);
- sealed difficulties (GM-2): each revealed value and nonce hashes to the commitment recorded before the roll;
- submission digests (P.4): Resolution publishes a salted digest of every submission it consumed; whoever
  holds a submission's salt (its owner and collaborators, the GM; the table, with a public action's dice,
  once it has resolved) recomputes it from the dice and conversions they were shown and checks it is among
  those published;
- missing events: a locked submission or a roll whose submission or roll is absent.

What the report does not check is listed in its ``not_checked`` sentences. A malformed export is refused
with ``InvalidExport``, naming the line and the field.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, Field, model_validator

from domain.dice import derive_permutation_legacy, permutation_from_key, seal_difficulty
from domain.platform.game import digest
from domain.platform.verify import HEX64, MAX_DICE, In, Report, Roll, Verifier, data_model, dice
from domain.platform.verify import SHAPES as PLATFORM_SHAPES
from domain.powers.game import submission_digest

__all__ = ["NOT_CHECKED", "SHAPES", "PowersReport", "VERIFY_POWERS", "verify_events"]

NOT_CHECKED = [
    "texts that no digest covers (descriptions, names, announcements, consequence texts, reasons): "
    "an edit to them is not detected",
    "an export rewritten consistently (renumbered and re-digested): compare the public resolution "
    "digests with another player's export",
    "rolls shown without their key (months committed before per-roll keys) until their seed is revealed "
    "(counted as pending); players do not get the month seed: it is revealed to the GM alone",
]


class _Die(In):
    face: int = Field(ge=1, le=6)


class _Pool(In):
    roll_no: int = Field(ge=0)
    commitment: str | None = None
    dice: list[_Die] = Field(default=[], max_length=MAX_DICE)
    salt: str | None = None
    key: str | None = Field(default=None, pattern=HEX64)
    path: list[str] | None = Field(default=None, max_length=64)


class _Details(In):
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


# Powers' events whose data the verifier reads, with the fields it reads.
POWERS_SHAPES: dict[str, type[BaseModel]] = {
    "DiceRolled": data_model("DiceRolled", action_id=(str, ...), pool=(_Pool, ...)),
    "ReactionDeclared": data_model("ReactionDeclared", action_id=(str, ...), pool=(_Pool, ...)),
    "ShareRolled": data_model("ShareRolled", action_id=(str, ...), pool=(_Pool, ...)),
    "ReactionUsed": data_model("ReactionUsed", reaction_id=(str, ...), pool=(_Pool | None, None)),
    "ExtraDiceRolled": data_model(
        "ExtraDiceRolled",
        roll_no=(int, Field(ge=0)),
        commitment=(str | None, None),
        sides=(int, Field(ge=2, le=100)),
        faces=(list[Annotated[int, Field(ge=1, le=100)]], Field(max_length=MAX_DICE)),
        key=(str | None, Field(None, pattern=HEX64)),
        path=(list[str] | None, Field(None, max_length=64)),
    ),
    "ActionResolved": data_model("ActionResolved", action_id=(str, ...), details=(_Details | None, None)),
    "ActionProvisional": data_model("ActionProvisional", action_id=(str, ...), details=(_Details | None, None)),
    "TiesBroken": data_model(
        "TiesBroken",
        tied=(list[str], Field(max_length=MAX_DICE)),
        order=(list[str], ...),
        roll_no=(int, Field(ge=0)),
        commitment=(str | None, None),
        key=(str | None, Field(None, pattern=HEX64)),
        path=(list[str] | None, Field(None, max_length=64)),
    ),
    "DifficultyCommitted": data_model("DifficultyCommitted", action_id=(str, ...), commitment=(str, ...)),
    "DifficultyRevealed": data_model(
        "DifficultyRevealed", action_id=(str, ...), value=(int, ...), nonce=(str, ...), commitment=(str | None, None)
    ),
    "ActionSubmitted": data_model(
        "ActionSubmitted",
        action_id=(str, ...),
        power_id=(str, ...),
        title=(str, ...),
        slot=(str, ...),
        skill=(str | None, ...),
    ),
    "ConversionsLocked": data_model(
        "ConversionsLocked", action_id=(str, ...), converted=(list[int], ...), digest=(str, ...)
    ),
    "ActionDiscarded": data_model("ActionDiscarded", action_id=(str, ...)),
    "ResolutionPublished": data_model(
        "ResolutionPublished", submissions=(list[str], ...), submissions_digest=(str, ...)
    ),
}
SHAPES: dict[str, type[BaseModel]] = {**PLATFORM_SHAPES, **POWERS_SHAPES}


@dataclass
class PowersReport(Report):
    """The platform's report, with what Powers adds: tie-breaks, sealed difficulties, submission digests."""

    tie_breaks_verified: int = 0
    difficulties_verified: int = 0
    submissions_verified: int = 0


def _rolls(event: dict[str, Any]) -> Iterable[Roll]:
    """Each roll a Powers event shows (a post's are the platform's)."""
    data = event.get("data", {})
    kind = event.get("type")
    if kind in ("DiceRolled", "ReactionDeclared", "ShareRolled", "ReactionUsed") and data.get("pool"):
        pool = data["pool"]
        faces = [d["face"] for d in pool.get("dice", [])]
        yield dice(pool.get("roll_no"), pool.get("commitment"), faces, pool.get("key"), pool.get("path"))
    elif kind == "ExtraDiceRolled":  # P-DICE-13: d4, d10... outside challenges, from the same committed keys
        yield dice(
            data["roll_no"],
            data.get("commitment"),
            list(data["faces"]),
            data.get("key"),
            data.get("path"),
            data["sides"],
        )
    elif kind in ("ActionResolved", "ActionProvisional"):
        details = data.get("details") or {}
        if details.get("roll_no") is not None and details.get("faces") is not None:
            yield dice(
                details["roll_no"],
                details.get("commitment"),
                list(details["faces"]),
                details.get("key"),
                details.get("path"),
            )
    elif kind == "TiesBroken":  # P-DICE-2: an order of the tied, from a roll's key
        tied, roll_no = list(data["tied"]), data["roll_no"]
        yield Roll(
            roll_no,
            data.get("commitment"),
            list(data["order"]),
            data.get("key"),
            data.get("path"),
            from_key=lambda k: [tied[j] for j in permutation_from_key(k, len(tied))],
            legacy=lambda seed: [tied[j] for j in derive_permutation_legacy(seed, roll_no, len(tied))],
            what="tie-break",
            counts_in="tie_breaks_verified",
        )


def _check_submissions_present(events: list[dict[str, Any]], report: PowersReport) -> None:
    """A roll or a locked conversion whose submission (or roll) is missing from the export (P.4)."""
    submitted: set[str] = set()
    rolled: set[str] = set()
    for e in events:
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')} ({kind})"
        if kind == "ActionSubmitted":
            submitted.add(data["action_id"])
        elif kind == "DiceRolled":
            rolled.add(data["action_id"])
            if data["action_id"] not in submitted:
                report.mismatches.append(
                    f"{where}: action {data['action_id']} was rolled but its submission is missing"
                )
        elif kind == "ConversionsLocked":
            missing = (
                "submission"
                if data["action_id"] not in submitted
                else ("dice roll" if data["action_id"] not in rolled else None)
            )
            if missing:
                report.mismatches.append(
                    f"{where}: the conversions of {data['action_id']} were locked but its {missing} is missing"
                )


def _check_difficulties(events: list[dict[str, Any]], report: PowersReport) -> None:
    """Each revealed difficulty opens the commitment sealed before its roll (GM-2)."""
    sealed: dict[str, tuple[str, int]] = {}
    rolled_at: dict[str, int] = {}
    for i, e in enumerate(events):
        data = e.get("data", {})
        kind = e.get("type")
        where = f"event {e.get('seq')} ({kind})"
        if kind == "DiceRolled":
            rolled_at.setdefault(data["action_id"], i)
        elif kind == "DifficultyCommitted":
            sealed[data["action_id"]] = (data["commitment"], i)
        elif kind == "DifficultyRevealed":
            commit, at = sealed.get(data["action_id"], (data.get("commitment"), None))
            if seal_difficulty(data["value"], data["nonce"]) != commit:
                report.mismatches.append(f"{where}: difficulty {data['value']} does not match its sealed commitment")
            elif at is not None and rolled_at.get(data["action_id"], i) < at:
                report.mismatches.append(f"{where}: the difficulty was sealed after the roll")
            else:
                report.difficulties_verified += 1


def _verify_submissions(events: list[dict[str, Any]], report: PowersReport) -> None:
    """Recompute every submission digest whose salt the viewer holds; each must be published."""
    actions: dict[str, dict[str, Any]] = {}
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
    report: PowersReport, verified: set[str], action_id: str, expected: str, published: list[str], where: str
) -> None:
    if expected in published:
        verified.add(action_id)
    else:
        report.mismatches.append(f"{where}: this submission is missing from the published resolution")


VERIFY_POWERS = Verifier(
    ruleset="powers",
    rolls=_rolls,
    shapes=POWERS_SHAPES,
    checks=(_check_submissions_present, _check_difficulties, _verify_submissions),
    report=PowersReport,
    not_checked=tuple(NOT_CHECKED),
    reveals_to="gm",
    reveal_rule="P.4",
    reveals_superseded=True,  # a rollback reveals the seed it supersedes to the GM (P.4)
    reads_unnamed=True,  # exports made before rulesets name none in their first event: they are Powers games
)
"""Powers' ``Ruleset.verify``: the platform's checks, Powers' rolls and tie-breaks, sealed difficulties and
submission digests."""


def verify_events(events: Iterable[dict[str, Any]]) -> PowersReport:
    """Verify a Powers export (the events one viewer was shown, in the order they were recorded)."""
    report: PowersReport = VERIFY_POWERS(events)
    return report
