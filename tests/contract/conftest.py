"""What every contract test runs over: every ruleset installed, found through the entry-point group
``emissary.rulesets`` (``domain.rulesets``), among them the fake one of its own package
(``tests/plugins/emissary-fake``), registered by no test. A test module takes the ``ruleset`` fixture (the
``Ruleset`` value), or ``registered(name)`` for a fixture of its own; ``games`` is an in-memory service (a module
may override it with one of its own settings), ``played`` a game of the ruleset played by its driver on it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Games
from domain.platform import ruleset as registry
from tests.contract.drivers import DRIVERS, Played

RULESETS = registry.names()


@contextlib.contextmanager
def registered(name: str) -> Iterator[registry.Ruleset]:
    """The ruleset registered under this name."""
    yield registry.get(name)


@contextlib.contextmanager
def swapped(ruleset: registry.Ruleset) -> Iterator[registry.Ruleset]:
    """This ruleset registered under its name for the while, in place of the one registered there, put back after."""
    before = registry.registered().get(ruleset.name)
    registry.unregister(ruleset.name)
    registry.register(ruleset)
    try:
        yield ruleset
    finally:
        registry.unregister(ruleset.name)
        if before is not None:
            registry.register(before)


@pytest.fixture(params=RULESETS)
def ruleset(request: pytest.FixtureRequest) -> Iterator[registry.Ruleset]:
    with registered(request.param) as found:
        yield found


@pytest.fixture
def games() -> Iterator[Games]:
    g = Games()
    yield g
    g.close()


@pytest.fixture
def played(games: Games, ruleset: registry.Ruleset) -> Played:
    return DRIVERS[ruleset.name].play(games)
