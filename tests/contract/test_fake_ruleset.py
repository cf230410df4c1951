"""A second ruleset, of under 120 lines and a package of its own (``tests/plugins/emissary-fake``), runs on the
platform and the registry alone (issues 11 and 26)."""

from __future__ import annotations

import ast
import importlib.metadata
from copy import deepcopy
from datetime import UTC, datetime
from pathlib import Path

import pytest
from emissary_fake import ruleset as fake_module
from emissary_fake.ruleset import FAKE, PLUGIN, Join, Post, Table

from application.service import Games
from domain.errors import RuleViolation
from domain.platform import ruleset as registry
from domain.platform.game import fold
from domain.platform.ruleset import RulesetNotInstalled
from tests.contract.conftest import swapped

SOURCE = Path(fake_module.__file__)
NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture
def table():
    with swapped(FAKE):  # put back after, as discovery registered it, though the test removes it
        yield FAKE


def test_the_fake_ruleset_is_found_through_its_entry_point_hosted_and_not_offered():
    import domain.rulesets as installed

    (point,) = [p for p in importlib.metadata.entry_points(group="emissary.rulesets") if p.name == "table"]
    assert point.load() is PLUGIN and PLUGIN.ruleset is FAKE and not PLUGIN.listed
    assert PLUGIN.api == "emissary_fake"  # its commands' routes and forms: declared.py (api.declare)
    assert registry.get("table") is FAKE and PLUGIN in installed.PLUGINS
    assert FAKE not in installed.INSTALLED and "table" in installed.UNLISTED


def test_the_fake_ruleset_is_short_and_imports_nothing_of_powers():
    text = SOURCE.read_text()
    assert len(text.splitlines()) < 120  # with its offers (issue 24)
    modules = {n.module for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ImportFrom)}
    assert "domain.platform.game" in modules and not [m for m in modules if m and m.startswith("domain.powers")]


def test_a_game_of_another_ruleset_is_created_loaded_and_replayed_through_its_registered_ruleset(table):
    games = Games()
    game_id, token, _ = games.create_game("Tea", ruleset="table")
    game = games.get_game(game_id)
    assert type(game) is Table and game.ruleset is FAKE and game.credential is not None and token
    game.join(Join("ann", "Ann"))
    game.set_timezone("ann", "Europe/Paris")  # the platform's command, on a seat of another ruleset
    game.post(Post("ann", "hello"))
    games.save(game)
    loaded = games.get_game(game_id)
    assert loaded.state == game.state and loaded.timezone_for("ann") == "Europe/Paris"
    assert loaded.state.sequence_for("ann") == 3 + 1  # TableCreated, Joined, Posted public; TimezoneSet its own
    topics = [r.topic for r in games.recorder.select_events(loaded.id)]
    assert "emissary_fake.ruleset:Table.TimezoneSet" in topics  # the platform's event, under this ruleset
    assert FAKE.view is not None and FAKE.view(loaded, "ann")["posts"] == [{"seat": "ann", "text": "hello"}]
    with pytest.raises(RuleViolation) as refused:
        loaded.post(Post("bob", "hi"))
    assert refused.value.rule == "TABLE-1" and refused.value.field == "seat"
    assert not loaded.collect_events()  # a refused command records nothing
    registry.unregister(FAKE.name)
    with pytest.raises(RulesetNotInstalled) as gone:
        games.get_game(game_id)
    assert "'table'" in gone.value.message and gone.value.field == "ruleset"


def test_the_platforms_rollback_checks_its_target_and_carries_the_seats_over_on_another_ruleset():
    """The platform's rollback helpers (``_check_rollback``, ``_restore``) serve every ruleset: a target
    that is not an earlier version, or a blank reason, is refused and records nothing; a rollback keeps
    what nobody can unsee (a seat's time zone, every viewer's sequence) and re-folds from the history."""
    game = Table.start("Tea")
    game.join(Join("ann", "Ann"))
    target, restored = game.version, deepcopy(game.state)
    game.set_timezone("ann", "Europe/Paris")
    game.post(Post("ann", "hello"))
    history = game.collect_events()
    for to_version, reason, field in ((game.version, "again", "to_version"), (0, "again", "to_version")):
        with pytest.raises(RuleViolation) as refused:
            game.rollback(to_version, deepcopy(restored), reason=reason, now=NOW, seed="s")
        assert refused.value.field == field and not game.collect_events()
    with pytest.raises(RuleViolation, match="reason the players will read"):
        game.rollback(target, deepcopy(restored), reason="  ", now=NOW, seed="s")
    assert not game.collect_events()
    before = game.state.sequence_for("ann")
    game.rollback(target, deepcopy(restored), reason=" a post was wrong ", now=NOW, seed="s")
    recorded = game.collect_events()
    assert [type(e).__name__ for e in recorded] == ["GameRolledBack", "StateRestored"]
    assert recorded[0].reason == "a post was wrong"
    assert recorded[1].carried["seats"]["ann"]["timezone"] == "Europe/Paris"
    assert game.state.posts == [] and game.timezone_for("ann") == "Europe/Paris"
    assert game.state.sequence_for("ann") > before  # sequences never go back
    assert fold(None, history + recorded).state == game.state
