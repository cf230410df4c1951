"""A ruleset is a value the platform looks up by name (DESIGN "Rulesets on one platform").

A ruleset declares its name and version, its option schema (a pydantic model: unknown or ill-typed
options are refused when a game is created), its steps as data, its commands, the view for a
viewer, its mail grammar, its notification texts and the verifier of what it rolls or seals. A
game records the name and version of its ruleset when it is created (``GameCreated``) and is loaded
through the ruleset registered under that name.

The registry is a plain mapping filled when a ruleset's module is imported (``register``); the
platform never imports a ruleset.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate
from pydantic import BaseModel

from domain.errors import DomainError, RuleViolation
from domain.platform import flow
from domain.platform.flow import WindowRule
from domain.platform.roles import WITH_GM, Roles

if TYPE_CHECKING:
    from domain.platform.commands import Command, Context
    from domain.platform.game import PlatformGame


@dataclass(frozen=True)
class Step:
    """One step of a ruleset's calendar, as data: the windows it opens, what closes them, what runs on entry.

    ``windows`` are what the platform runs (``domain.platform.flow.WindowRule``: whom each kind of window waits on,
    what closes it early, whether a seat may declare itself ready in it, each silent seat's default, what follows);
    ``on_entry(game, now)`` is what happens when the step is entered (opening its window...), which the platform runs
    (``domain.platform.flow.enter``); ``opens``, ``closes_on`` and ``entry`` say the same in words, for the calendar
    a viewer reads."""

    name: str
    opens: tuple[str, ...] = ()
    closes_on: tuple[str, ...] = ()
    entry: str = ""
    windows: tuple[WindowRule, ...] = ()
    on_entry: Callable[[Any, datetime], None] | None = None


@dataclass(frozen=True)
class Ruleset:
    """What one kind of game adds to the platform. Fields are values or callables the platform calls."""

    name: str
    version: str
    options: type[BaseModel]
    steps: tuple[Step, ...]
    aggregate: type  # the game aggregate class of this ruleset
    start: Callable[..., Any]  # creates a game: start(name, gm_name, timezone, options), options by its own model
    commands: Mapping[type, Callable[..., Any]] = field(default_factory=dict)  # command class -> handler
    state_types: tuple[type, ...] = ()  # the dataclasses its state holds (snapshots of its games encode them)
    view: Callable[[Any, str], dict[str, Any]] | None = None  # view(game, viewer)
    mail_grammar: Callable[..., Any] | None = None  # read(text, html, seat) -> domain.mailturns.Turn
    # notify(event kind, payload) -> the subject and text its viewers are mailed; a notify that takes a third argument
    # is given the seats' public names by id as each mail is worded (issue 28), so it names seats by name
    notify: Callable[..., dict[str, Any] | None] | None = None
    verify: Callable[..., Any] | None = None  # verify(events) -> report
    # derive(a viewer's events) -> {result id: derivation}: how each result it published came about, from those events
    # alone (issue 29, domain.platform.explain); None: the platform's derivations alone (a post's dice)
    derive: Callable[[Any], dict[str, dict[str, Any]]] | None = None
    # result_scope(phase) -> the group of phases whose events a result published in that phase is derived from (Powers:
    # its month); the explain endpoint reads a viewer's events a group at a time, newest first, and stops at the
    # result's. None: the whole game is one group
    result_scope: Callable[[str], str] | None = None
    fold: Callable[[Any, Any], Any] | None = None  # fold(game or None, stored events) -> game
    # phase_of(event) -> the phase the event begins ({"phase": name, "step": ...}), or None: the phase list,
    # the history view and rollback (which returns to the start of a phase) read phases through it
    phase_of: Callable[[Any], dict[str, Any] | None] = lambda event: None
    # seat_of(event) -> the seat the event adds to the table, or None: the read models start that seat's timeline
    # and show it the events it may see from then on
    seat_of: Callable[[Any], str | None] = lambda event: None
    # the kinds of event phase_of and seat_of may answer for (None: any); the read models decode only these for
    # them, not every event they project
    marks: frozenset[str] | None = None
    # what phase_of labels a phase with beside its name and step (Powers: its season and month), each with its
    # value at setup: the phase lists show a phase with the labels phase_of gave it, setup with these
    phase_labels: Mapping[str, Any] = field(default_factory=dict)
    # the fields of its events, beside the platform's (``seat``, ``to``, ``about``), that name a seat: the audit's
    # seat filter finds the events that name the seat in one of them
    seat_fields: frozenset[str] = frozenset()
    # describe(event kind, payload, seat names) -> the event in plain words for a viewer who may see it, or None
    # (the platform's words then, domain.platform.feed); built only from the payload and the public names
    describe: Callable[[str, Mapping[str, Any], Mapping[str, str]], str | None] | None = None
    # feed_names(game) -> the public names a feed line may use beside the seats' (the covenant game: each card held
    # at the table, by its id), given to ``describe`` with the seats' names; None: the seats' names alone
    feed_names: Callable[[Any], Mapping[str, str]] | None = None
    # phase_title(phase name) -> the phase in words ("Season 1, month 2: Planning"), or None (its name then)
    phase_title: Callable[[str], str | None] | None = None
    # event kind -> what a game's webhooks announce it as, "results" or "end" (issue 31): only public events of
    # these kinds are announced, in the words ``describe`` gives them
    announces: Mapping[str, str] = field(default_factory=dict)
    # offers(game, principal) -> the commands ``principal`` (a seat, "gm" or a host) may send now, each fully
    # formed, in a stable order: what its board, forms and mail offer it, and what seeded random play picks among
    # (the contract suite: every command offered is accepted, and a seat offered nothing is waiting on others)
    offers: Callable[[Any, str], list[Any]] | None = None
    loads: frozenset[str] = frozenset()  # earlier versions whose games this one still loads (besides its own)
    # redecide(game, event) -> (fields, rule ids) or None: the event as this version's rules decide it, given the game
    # just before it and the same committed dice (the fields that differ from the recorded ones, and the rules that
    # decided them); None: the event stands as recorded. A rules change replayed (issue 29, domain.platform.replay)
    # re-decides each recorded event with it; a version's decisions differ, its events fold alike
    redecide: Callable[[Any, Any], tuple[Mapping[str, Any], list[str]] | None] | None = None
    changes: str = ""  # what this version changes, in words (a rules change's replay shows it)
    description: str = ""
    roles: Roles = WITH_GM  # the roles at its table and what each may do (domain.platform.roles)

    def handler(self, command: Any) -> Callable[..., Any]:
        """The handler of a command: the ruleset's own, else the platform's (every ruleset gets those),
        else UnknownCommand naming the command."""
        from domain.platform.commands import PLATFORM_COMMANDS

        found = self.commands.get(type(command)) or PLATFORM_COMMANDS.get(type(command))
        if found is None:
            raise UnknownCommand(f"{self.name!r} games take no command {type(command).__name__}", field="command")
        return found

    def run(self, game: PlatformGame, command: Command, ctx: Context) -> Any:
        """Run a command through its handler, then the flow its steps declare, as far as the command asks it
        (``domain.platform.flow.check_after``: one of the ruleset's own, or a seat's readiness): every window the
        command left over closes, what follows is entered, and each window the state wants open opens
        (``domain.platform.flow.settle``; a close runs it itself)."""
        result = self.handler(command)(game, command, ctx)
        if any(step.windows for step in self.steps):
            flow.settle(game, ctx, command=command)
        return result

    def event_kinds(self) -> frozenset[str]:
        """The names of every event a game of this ruleset records (its own and the platform's)."""
        return _event_kinds(self.aggregate)

    def created_kinds(self) -> frozenset[str]:
        """The names of the event a game of this ruleset begins with (an export's first line)."""
        return _event_kinds(self.aggregate, created=True)

    def step(self, name: str) -> Step:
        """The step of this name, or KeyError."""
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(name)


@functools.cache
def _event_kinds(aggregate: type, created: bool = False) -> frozenset[str]:
    base = Aggregate.Created if created else Aggregate.Event
    found = {k for k in dir(aggregate) if isinstance(v := getattr(aggregate, k, None), type) and issubclass(v, base)}
    return frozenset(found - {"Event", "Created"})


class UnknownRuleset(RuleViolation):
    """No ruleset is registered under this name (422: a game is created with a registered ruleset)."""


class UnknownCommand(RuleViolation):
    """This ruleset has no handler for the command sent (422)."""


class RulesetNotInstalled(DomainError):
    """A stored game's ruleset is not registered in this service: the game cannot be loaded (501)."""

    status = 501


_REGISTRY: dict[str, Ruleset] = {}
_VERSIONS: dict[str, dict[str, Ruleset]] = {}  # name -> version -> every installed version (issue 29)


def register(ruleset: Ruleset) -> Ruleset:
    """Register a ruleset under its name; registering the same value again is a no-op, another one under a
    name already taken is refused."""
    known = _REGISTRY.get(ruleset.name)
    if known is not None and known is not ruleset:
        raise ValueError(f"a ruleset named {ruleset.name!r} is already registered")
    _REGISTRY[ruleset.name] = ruleset
    _VERSIONS.setdefault(ruleset.name, {})[ruleset.version] = ruleset
    return ruleset


def register_version(ruleset: Ruleset) -> Ruleset:
    """Install another version of a registered ruleset beside it (a plugin's ``versions``): its games load under it,
    and a game's history can be replayed under it (``domain.platform.replay``); the registered one stays the version
    new games are created with."""
    if ruleset.name not in _REGISTRY:
        raise ValueError(f"register ruleset {ruleset.name!r} before another version of it")
    known = _VERSIONS[ruleset.name].get(ruleset.version)
    if known is not None and known is not ruleset:
        raise ValueError(f"version {ruleset.version!r} of {ruleset.name!r} is already installed")
    _VERSIONS[ruleset.name][ruleset.version] = ruleset
    return ruleset


def unregister(name: str) -> None:
    """Remove a ruleset (tests register fakes and remove them); the versions installed beside it stay."""
    gone = _REGISTRY.pop(name, None)
    if gone is not None and _VERSIONS.get(name, {}).get(gone.version) is gone:
        del _VERSIONS[name][gone.version]


def unregister_version(name: str, rules_version: str) -> None:
    """Remove a version installed beside a registered ruleset (tests install one and remove it)."""
    found = _VERSIONS.get(name, {}).get(rules_version)
    if found is not None and _REGISTRY.get(name) is not found:
        del _VERSIONS[name][rules_version]


def installed_versions(name: str) -> list[str]:
    """Every installed version of the ruleset of this name (the registered one and any installed beside it), sorted;
    UnknownRuleset if none is registered."""
    get(name)
    return sorted(_VERSIONS.get(name, {}))


def version(name: str, rules_version: str) -> Ruleset:
    """The installed version ``rules_version`` of the ruleset ``name``; UnknownRuleset naming the field and the
    installed versions if it is not installed."""
    found = _VERSIONS.get(name, {}).get(rules_version) if isinstance(rules_version, str) else None
    if found is None:
        known = ", ".join(installed_versions(name))
        raise UnknownRuleset(
            f"{name!r} version {rules_version!r} is not installed here; the installed versions are: {known}",
            field="version",
        )
    return found


def names() -> list[str]:
    """The names of the registered rulesets, sorted."""
    return sorted(_REGISTRY)


def registered() -> Mapping[str, Ruleset]:
    """The registry, read-only."""
    return MappingProxyType(_REGISTRY)


def get(name: str) -> Ruleset:
    """The ruleset registered under ``name``, or UnknownRuleset naming the field and the registered ones."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownRuleset(
            f"no ruleset named {name!r}; the registered rulesets are: {', '.join(names()) or 'none'}", field="ruleset"
        ) from None


def for_game(ruleset: str, rules_version: str) -> Ruleset:
    """The ruleset a stored game was created with, if it loads games pinned at that version; else
    RulesetNotInstalled saying why the game cannot be loaded."""
    try:
        found = get(ruleset)
    except UnknownRuleset as err:
        raise RulesetNotInstalled(
            f"this game was created with ruleset {ruleset!r} version {rules_version!r}, "
            f"which is not installed here ({err.message})",
            field="ruleset",
        ) from None
    exact = _VERSIONS.get(ruleset, {}).get(rules_version) if rules_version != found.version else None
    if exact is not None:  # a version installed beside the registered one: its games load under it
        return exact
    if rules_version != found.version and rules_version not in found.loads:
        known = ", ".join(sorted({*installed_versions(ruleset), *found.loads}))
        raise RulesetNotInstalled(
            f"this game is pinned at {ruleset!r} version {rules_version!r}; the installed "
            f"{ruleset!r} loads games of version {known}",
            field="rules_version",
        )
    return found
