"""What the event-topic tests share (tests/domain/test_*_event_topics.py): a ruleset's stored topics (topic -> fields,
as its code recorded them before issue 26 split its aggregate) must each resolve to a class the library folds, with
the same fields or those its upcasters give, and a game played now records only those topics."""

from __future__ import annotations

import dataclasses
import uuid

import eventsourcing.domain as esd
from eventsourcing.utils import get_topic, resolve_topic

from domain.platform import ruleset as registry
from tests.contract.test_liveness import PLANS, Play

ENVELOPE = {"originator_id", "originator_version", "timestamp"}


def fields_of(cls: type) -> list[str]:
    return sorted(f.name for f in dataclasses.fields(cls) if f.name not in ENVELOPE)


def upcast(cls: type, fields: list[str], pinned_at: int = 1) -> list[str]:
    """The fields of a stored shape (at class_version ``pinned_at``) once the library's upcasters bring it to its
    class's version."""
    stored: dict = dict.fromkeys(fields, 0)
    for v in range(pinned_at, getattr(cls, "class_version", 1)):
        getattr(cls, f"upcast_v{v}_v{v + 1}")(stored)
    return sorted(stored)


def folds(cls: type) -> bool:
    """A decorated method's event folds only as the class the library calls the method for (``decorated_funcs``),
    not as its redefinition on a subclass (which raises KeyError inside the library when folded)."""
    return not issubclass(cls, esd.DecoratedFuncCaller) or cls in esd.decorated_funcs


def changed_shapes(stored: dict[str, list[str]], pinned_at: dict[str, int]) -> list[str]:
    """Check that every stored topic resolves to its class, which folds, with the stored fields or their upcast;
    the names of the shapes changed since (through upcasters)."""
    changed = []
    for topic, fields in stored.items():
        cls = resolve_topic(topic)
        assert folds(cls), f"{topic} resolves to {cls}, which the library cannot fold"
        assert get_topic(cls) == topic, topic
        now = upcast(cls, fields, pinned_at.get(cls.__name__, 1))
        assert fields_of(cls) == now, topic
        changed += [cls.__name__] if now != sorted(fields) else []
    return sorted(changed)


def decorated_topics(package: str) -> set[str]:
    """The topics the ``@event`` methods of a ruleset's package record."""
    return {get_topic(c) for c in esd.decorated_func_callers.values() if c.__module__.startswith(package + ".")}


def played_topics(ruleset: str, seeds: int = 2) -> set[str]:
    """The topics seeded random legal play of the ruleset records (tests/contract/test_liveness.py)."""
    plan = PLANS[ruleset]
    topics: set[str] = set()
    for seed in range(seeds):
        game = Play(registry.get(ruleset), plan, seed)
        try:
            assert game.run().broken is None
            topics |= {r.topic for r in game.games.recorder.select_events(uuid.UUID(game.table.game_id))}
        finally:
            game.games.close()
    return topics
