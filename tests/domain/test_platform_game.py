"""The platform's part of the game aggregate (domain/platform/game.py) under Powers' ``Game``: stored events
keep their topics, and the platform's events fold and count as they did inside ``Game``."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from eventsourcing.utils import get_topic, resolve_topic

from domain import visibility as vis
from domain.errors import RuleViolation
from domain.platform.game import PlatformGame
from domain.powers.base import PowersEvent
from domain.powers.game import Game, event_types
from tests.domain.helpers import game_in_planning

FIXTURE = Path(__file__).parents[1] / "fixtures" / "events_2026_11" / "games.json"
PLATFORM_EVENTS = {
    "CredentialIssued",
    "CredentialsRevoked",
    "SeedSealed",
    "SeedCommitted",
    "SeedRevealed",
    "SeedCleared",
    "WindowOpened",
    "WindowClosed",
    "DeadlineSet",
    "ExtensionRequested",
    "ExtensionGranted",
    "ExtensionRefused",
    "ReadyDeclared",
    "RemindersQueued",
    "VisibilityGranted",
    "TimezoneSet",
    "MailTurnRecorded",
    "ContactSet",
    "GameRolledBack",
    "GameForked",
}


def test_game_is_a_platform_game_and_the_platform_defines_its_seat_window_seed_and_rewind_events():
    assert issubclass(Game, PlatformGame)
    assert {n for n in PLATFORM_EVENTS if n in vars(PlatformGame)} == PLATFORM_EVENTS
    assert "ActionSubmitted" not in vars(PlatformGame) and "StepBegan" not in vars(PlatformGame)


def test_every_event_is_still_recorded_under_its_topic_in_domain_powers_game():
    topics = {name: get_topic(cls) for name, cls in event_types().items()}
    # A feature mixin's own ``@event`` events (``class Development(PlatformGame)``, a base of Game) are stored under
    # the mixin's class, as event_types() says; every other event under Game, as before the mixins: the platform's,
    # and the month's (``PowersEvent``s, which a sub-domain's mixin names and records through ``self.<Name>``).
    mixins = [k for k in Game.__mro__[1:] if issubclass(k, PlatformGame) and k is not PlatformGame]
    own = {
        name: f"{k.__module__}:{k.__qualname__}.{name}"
        for k in mixins
        for name in event_types()
        if name in vars(k) and not hasattr(PlatformGame, name) and not issubclass(vars(k)[name], PowersEvent)
    }
    assert topics == {name: own.get(name, f"domain.powers.game:Game.{name}") for name in event_types()}
    assert PLATFORM_EVENTS <= set(topics) and not PLATFORM_EVENTS & set(own)
    assert "WalletChanged" in own and "SpellCast" in own and "ActionSubmitted" not in own
    assert "WalletChanged" in own and "MapDeclared" in own and "ActionSubmitted" not in own
    assert "StepBegan" not in own and "ReactionDeclared" not in own and "PowerAdded" not in own


def test_every_topic_in_the_november_2026_fixture_resolves_to_an_event_of_the_game():
    games = json.loads(FIXTURE.read_text())
    stored = {r["topic"] for g in games["games"] for r in g["events"]}
    assert {t.rsplit(".", 1)[-1] for t in stored} & PLATFORM_EVENTS
    for topic in stored:
        cls = resolve_topic(topic)
        assert get_topic(cls) == topic


def test_a_platform_event_folds_and_counts_in_its_viewers_sequences():
    game = Game.start("g", "gm")
    before = dict(game.state.seen)
    game.issue_credential("gm", "hash")
    assert game.state.credentials == {"hash": "gm"}
    assert game.state.seen == before  # sealed: counted in nobody's sequence
    game.add_power("rangers", "Rangers", "conspiracy", "circle")
    game.set_timezone("rangers", "Europe/Paris")
    assert game.timezone_for("rangers") == "Europe/Paris"
    # PowerAdded is public; TimezoneSet is the power's own; the GM sees both
    assert game.state.seen == {"gm": before["gm"] + 2, "public": before["public"] + 1, vis.power("rangers"): 1}
    assert isinstance(game.pending_events[-1], Game.TimezoneSet)


def test_the_aggregate_refuses_a_time_zone_that_is_not_an_iana_zone_whichever_channel_sent_it():
    """The platform's ``set_timezone`` (HTTP, the web form and mail all reach it) and a game's creation check
    the zone itself: a refusal names the field ``timezone`` and records nothing."""
    with pytest.raises(RuleViolation, match="IANA") as created:
        Game.start("Tea", "GM", timezone="Mars/Olympus")
    assert created.value.field == "timezone"
    g = game_in_planning(("rangers", "conspiracy", "circle"))
    g.collect_events()
    before = copy.deepcopy(g.state)
    for name in ("Mars/Olympus", "", "../../etc/passwd", "x" * 65):
        with pytest.raises(RuleViolation, match="time zone") as refused:
            g.set_timezone("rangers", name)
        assert refused.value.field == "timezone"
        assert g.collect_events() == [] and g.state == before
    g.set_timezone("rangers", "Europe/Paris")
    assert g.timezone_for("rangers") == "Europe/Paris"
