"""What every contract test runs over: each registered ruleset and the fake one (``fake_ruleset.py``), which is
registered only while a test uses it. A test module takes the ``ruleset`` fixture (the ``Ruleset`` value), or
``registered(name)`` for a fixture of its own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from domain.platform import ruleset as registry
from tests.contract.fake_ruleset import FAKE

RULESETS = sorted({*registry.names(), FAKE.name})


@contextlib.contextmanager
def registered(name: str) -> Iterator[registry.Ruleset]:
    """The ruleset of this name, the fake one registered for the while (and removed after) if it is not yet."""
    added = name == FAKE.name and FAKE.name not in registry.names()
    if added:
        registry.register(FAKE)
    try:
        yield registry.get(name)
    finally:
        if added:
            registry.unregister(FAKE.name)


@pytest.fixture(params=RULESETS)
def ruleset(request: pytest.FixtureRequest) -> Iterator[registry.Ruleset]:
    with registered(request.param) as found:
        yield found
