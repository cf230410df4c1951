"""Rules changes replayed (issue 29 item 3): a game's history re-decided under another installed version of its
ruleset, in a scratch copy, and the difference it makes, event by event; then, if the GM or host adopts it from a
phase, the game carries on under that version.

A replay starts from the game as it stood just before the first event replayed (folded afresh from the store) and
runs two copies side by side over the recorded events: one folds them as recorded, the other folds each as the
other version decides it (``Ruleset.redecide(game, event)``: the fields the version's rules decide otherwise, from
the same committed dice the event carries, and the rule ids that decided them). Nothing new is rolled; nothing of
either copy is saved. Where the two copies part, the views are compared after each event until they meet again: a
difference names the event (its version and kind), the result fields it changes (before, after), the paths of the
GM's view that change, the scores among them, and the rule ids involved.

Adopting a version from a phase records ``RulesAdopted`` (sealed, as a rollback's ``StateRestored``): the version
adopted, the phase and version it counts from, and the amended fields of each event re-decided. Its fold (``refold``,
called by ``domain.platform.game.fold``) re-folds the stored events from that version with those amendments (recorded
data, not the rules' code: a game folds alike whatever is installed later) and pins the game at the new version:
every command after it is decided by the new version (``PlatformGame.ruleset`` reads ``state.rules_version``), and a
snapshot taken after it holds the amended state. The events before it stay as recorded: viewing or rolling back to
an earlier version shows the game as it was then, under the version it was played with. Each viewer is told in a
``RulesChangeTold`` of its own: the GM and hosts the whole difference, each seat the changes to events it may see and
to its own view.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from copy import copy, deepcopy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from eventsourcing.domain import Aggregate

from domain import visibility as vis
from domain.errors import Forbidden, RuleViolation
from domain.ids import GM
from domain.platform.roles import WINDOWS

if TYPE_CHECKING:
    from domain.platform.ruleset import Ruleset

PATHS = 40  # the paths of a view one difference lists at most (the rest are counted)
SCORES = re.compile(r"score|power_points")  # the paths of a view that hold a score (the Lodge's: Power Points)
ENVELOPE = frozenset({"originator_id", "originator_version", "timestamp", "actor", "audience", "originator_topic"})


@dataclass
class Difference:
    """What replaying under another version changes at one event."""

    version: int
    kind: str
    audience: list[str]
    rules: list[str] = field(default_factory=list)
    result: dict[str, dict[str, Any]] = field(default_factory=dict)  # field -> {"before", "after"}
    state: list[dict[str, Any]] = field(default_factory=list)  # {"path", "before", "after"} of the GM's view
    more: int = 0  # paths changed beyond those listed

    def as_dict(self) -> dict[str, Any]:
        scores = [d for d in self.state if SCORES.search(d["path"])]
        return {
            "version": self.version,
            "type": self.kind,
            "rules": self.rules,
            "result": self.result,
            "state": self.state,
            "scores": scores,
            "more": self.more,
        }


def require_replayer(game: Any, principal: str) -> None:
    """Who may close a step (the GM; a host) may replay a rules change and adopt it; anyone else is refused."""
    if game.may(principal, WINDOWS):
        return
    holders = " or the ".join("GM" if r == GM else r for r in game.ruleset.roles.holders(WINDOWS)) or "nobody"
    raise Forbidden(f"only the {holders} may replay or adopt a rules change", field="authorization")


def amended(event: Any, changes: Mapping[str, Any] | None) -> Any:
    """The event with these fields as another version decided them (the same event if none)."""
    if not changes:
        return event
    out = copy(event)
    for name, value in changes.items():
        object.__setattr__(out, name, deepcopy(value))
    return out


def flat(value: Any, path: str = "") -> dict[str, Any]:
    """A view as ``path -> leaf`` (``a.b.0``), to compare two views path by path."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k in value:
            out.update(flat(value[k], f"{path}.{k}" if path else str(k)))
        return out or {path: {}}
    if isinstance(value, list | tuple):
        out = {}
        for i, v in enumerate(value):
            out.update(flat(v, f"{path}.{i}" if path else str(i)))
        return out or {path: []}
    return {path: value}


def compare(before: Any, after: Any) -> list[dict[str, Any]]:
    """The paths whose values differ between two views, in order."""
    a, b = flat(before), flat(after)
    return [{"path": p, "before": a.get(p), "after": b.get(p)} for p in sorted(set(a) | set(b)) if a.get(p) != b.get(p)]


def redecided(ruleset: Ruleset, game: Any, event: Any) -> tuple[dict[str, Any], list[str]] | None:
    """The fields of ``event`` the ruleset's version decides otherwise, given the game just before it, and the rule
    ids that decided them; None where it stands as recorded."""
    if ruleset.redecide is None or game is None:
        return None
    found = ruleset.redecide(game, event)
    if not found:
        return None
    fields, rules = found
    changes = {k: v for k, v in fields.items() if k not in ENVELOPE and getattr(event, k, None) != v}
    return (changes, list(rules)) if changes else None


def view_of(ruleset: Ruleset, game: Any, viewer: str) -> Any:
    try:
        return ruleset.view(game, viewer) if ruleset.view is not None and game is not None else None
    except Exception:  # noqa: BLE001 - a view a state cannot give compares as none
        return None


@dataclass
class Replayed:
    """A replay's outcome: the copy under the new version, the one as recorded, and the differences."""

    scratch: Any
    recorded: Any
    differences: list[Difference]
    amendments: dict[int, dict[str, Any]]  # event version -> the fields re-decided
    final: list[dict[str, Any]] = field(default_factory=list)  # the GM's view at the end: the paths that differ


def replay(
    base: Any,
    events: Iterable[Any],
    ruleset: Ruleset,
    folder: Callable[[Any, list[Any]], Any],
) -> Replayed:
    """Replay ``events`` (from just after ``base``, the game then, or None from the start) under ``ruleset``: two
    copies folded side by side with ``folder(game, events)`` (``fold`` with the store's history), the one as
    recorded, the other as ``ruleset`` re-decides each event; a difference where they part."""
    scratch, recorded = deepcopy(base), deepcopy(base)
    out: list[Difference] = []
    amendments: dict[int, dict[str, Any]] = {}
    apart: list[dict[str, Any]] = []  # where the two copies' views differ now
    for e in events:
        found = redecided(ruleset, scratch, e)
        changes, rules = found if found is not None else ({}, [])
        scratch = folder(scratch, [amended(e, changes)])
        recorded = folder(recorded, [e])
        if not changes and not apart:
            continue
        if changes:
            amendments[e.originator_version] = changes
        paths = compare(view_of(ruleset, recorded, GM), view_of(ruleset, scratch, GM))
        moved = [p for p in paths if p not in apart]  # what this event changes, not what an earlier one did
        apart = paths
        if changes or moved:
            d = Difference(e.originator_version, type(e).__name__, list(e.audience), rules)
            d.result = {k: {"before": getattr(e, k, None), "after": v} for k, v in changes.items()}
            d.state, d.more = moved[:PATHS], max(0, len(moved) - PATHS)
            out.append(d)
    return Replayed(scratch, recorded, out, amendments, apart[:PATHS])


def for_viewer(differences: Sequence[Difference], viewer: str) -> list[dict[str, Any]]:
    """The differences a viewer may be told of: the result changes of the events it may see (their state paths are
    the GM's view's, so they are left out; so is the event's game version, which would tell a seat how many events
    it was not shown); the GM and hosts get them whole (``as_dict``)."""
    return [
        {"type": d.kind, "rules": d.rules, "result": d.result}
        for d in differences
        if d.result and vis.can_see(d.audience, viewer)
    ]


def refold(
    base: Any,
    events: Sequence[Any],
    amendments: Mapping[str, Mapping[str, Any]],
    folder: Callable[[Any, list[Any]], Any],
) -> Any:
    """The game folded from ``base`` over ``events``, each with the fields an adoption amended (``RulesAdopted``'s
    ``amended``: event version, as text, -> fields)."""
    game = deepcopy(base)
    for e in events:
        game = folder(game, [amended(e, amendments.get(str(e.originator_version)))])
    return game


def check_from(game: Any, from_version: int) -> None:
    """A rules change is adopted from a version of this game's history (a phase's start); else RuleViolation."""
    if not 1 <= from_version <= game.version:
        raise RuleViolation(f"adopt from a phase of this game (version 1 to {game.version})", field="from_phase")


def _upcast_told(state: dict[str, Any]) -> None:
    """A ``RulesChangeTold`` of version 1 numbered no result it amended (its derivations explain them as recorded),
    and was a seat's or the GM's own line (observers were told none)."""
    state["amended"] = []
    state["public"] = False


class Told(NamedTuple):
    """What one viewer (or every observer: ``public``) is told of an adoption: its line's audience, the changes it
    may see, and the results re-decided among the events it was shown (by its own numbers)."""

    audience: list[str]
    changes: list[dict[str, Any]]
    amended: list[dict[str, Any]]
    public: bool = False


def numbered(
    events: Iterable[Any], differences: Sequence[Difference], viewers: Iterable[str]
) -> dict[str, list[dict[str, Any]]]:
    """Each viewer's re-decided results (a difference with a result) among the events it may see, each by the
    viewer's own number for its event: the events it may see counted in order, as its timeline numbers them (an
    observer's: the public ones). Nothing a viewer was not shown is named; the game's versions are not."""
    redecided = {d.version: d for d in differences if d.result}
    viewers = list(viewers)
    counts = dict.fromkeys(viewers, 0)
    out: dict[str, list[dict[str, Any]]] = {v: [] for v in viewers}
    last = max(redecided, default=0)
    for e in events:
        if e.originator_version > last:
            break
        for v in viewers:
            if vis.can_see(e.audience, v):
                counts[v] += 1
                d = redecided.get(e.originator_version)
                if d is not None:
                    out[v].append({"seq": counts[v], "type": d.kind, "rules": d.rules, "result": d.result})
    return out


class RulesChanges:
    """The rules-change half of ``PlatformGame`` (a mixin: its events become the platform's)."""

    if TYPE_CHECKING:  # the aggregate supplies these (domain.platform.game.PlatformGame)
        state: Any
        trigger_event: Any

    class RulesAdopted(Aggregate.Event):
        """The game adopts another version of its ruleset from ``from_version`` (the start of ``from_phase``): its
        state becomes the events since folded with ``amended`` (``fold`` re-folds them), pinned at ``rules_version``.
        Sealed: the amended results reach each viewer in its own ``RulesChangeTold``."""

        rules_version: str
        previous_version: str
        from_phase: str
        from_version: int
        amended: dict[str, dict[str, Any]]
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            base = game.__dict__.get("_refolded", {}).get("adopted")
            if base is None:
                raise RuntimeError(
                    f"RulesAdopted at version {self.originator_version} needs the game re-folded from version "
                    f"{self.from_version}: fold the events with domain.platform.game.fold"
                )
            game.state = deepcopy(base)  # the game's base event then counts it in its viewers' sequences
            game.state.rules_version = self.rules_version

    class RulesChangeTold(Aggregate.Event):
        """One viewer told of a rules change adopted: the version, the phase it counts from, and the changes it may
        see (the GM and hosts: the whole difference). Version 2 (issue 29): ``amended``, each result the adoption
        re-decided that this viewer was shown, by the viewer's own number for its event (``seq``: a derivation
        explains it as re-decided), with its kind, rule ids and fields (before, after); ``public``, the line every
        observer is told (the public audience, numbered as an observer numbers its events: every seat sees it too,
        beside its own line, which its derivations read first)."""

        class_version = 2
        upcast_v1_v2 = staticmethod(_upcast_told)

        rules_version: str
        previous_version: str
        from_phase: str
        changes: list[dict[str, Any]]
        actor: str
        audience: list[str]  # the game's base event counts it in this viewer's sequence
        amended: list[dict[str, Any]]
        public: bool

    def adopt_rules(
        self,
        rules_version: str,
        from_phase: str,
        from_version: int,
        replayed: Replayed,
        told: Mapping[str, Told],
        by: str,
    ) -> None:
        """Record the adoption onto the replayed state, then tell each viewer (``told``: viewer -> its ``Told``; the
        observers' line last, after every seat's own)."""
        previous = self.state.rules_version
        amended = {str(v): changes for v, changes in replayed.amendments.items()}
        self.__dict__["_refolded"] = {"adopted": replayed.scratch.state}
        try:
            self.trigger_event(
                self.RulesAdopted,
                rules_version=rules_version,
                previous_version=previous,
                from_phase=from_phase,
                from_version=from_version,
                amended=amended,
                actor=by,
                audience=[vis.SEALED],
            )
        finally:
            self.__dict__.pop("_refolded", None)
        for t in told.values():
            self.trigger_event(
                self.RulesChangeTold,
                rules_version=rules_version,
                previous_version=previous,
                from_phase=from_phase,
                changes=t.changes,
                actor=by,
                audience=t.audience,
                amended=t.amended,
                public=t.public,
            )
