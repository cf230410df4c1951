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
    # a credential's hash is a secret no view shows, and the raw counts per audience are what is checked here
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


def _load_stored(topic_suffix: str) -> list:
    """Every event of the November 2026 fixture stored under this event name, decoded by the library's mapper
    (which upcasts an older shape to its class's version)."""
    from eventsourcing.persistence import DatetimeAsISO, JSONTranscoder, Mapper, StoredEvent, UUIDAsHex

    transcoder = JSONTranscoder()
    transcoder.register(UUIDAsHex())
    transcoder.register(DatetimeAsISO())
    mapper = Mapper(transcoder=transcoder)
    return [
        mapper.to_domain_event(
            StoredEvent(
                originator_id=r["originator_id"],
                originator_version=r["originator_version"],
                topic=r["topic"],
                state=r["state"].encode(),
            )
        )
        for g in json.loads(FIXTURE.read_text())["games"]
        for r in g["events"]
        if r["topic"].endswith("." + topic_suffix)
    ]


@pytest.mark.parametrize(
    "name", ["ContactSet", "TimezoneSet", "ReadyDeclared", "ExtensionRequested", "ExtensionGranted", "ExtensionRefused"]
)
def test_a_stored_event_that_named_its_seat_power_id_loads_with_seat(name):
    """Issue 26: the platform speaks seats. An event stored at version 1 (``power_id``) is upcast as it loads."""
    raw = [
        json.loads(r["state"])
        for g in json.loads(FIXTURE.read_text())["games"]
        for r in g["events"]
        if r["topic"].endswith("." + name)
    ]
    loaded = _load_stored(name)
    assert loaded and all(type(e).__name__ == name for e in loaded) and getattr(Game, name).class_version == 2
    assert [e.seat for e in loaded] == [d["power_id"] for d in raw]  # as stored at version 1
    assert not any(hasattr(e, "power_id") for e in loaded)


def test_a_stored_seed_event_with_season_and_month_loads_with_its_phase_label():
    committed, revealed = _load_stored("SeedCommitted"), _load_stored("SeedRevealed")
    assert committed and revealed
    for e in committed + revealed:
        assert not hasattr(e, "season") and not hasattr(e, "month")
        assert e.phase.startswith("s") and "m" in e.phase  # Powers' old label, s<season>m<month>
    assert committed[0].phase == "s1m1" and committed[0].commitment


def test_an_old_shape_event_folds_into_the_new_state():
    """A version 1 ``TimezoneSet`` (``power_id``) folds onto a game as a version 2 one does."""
    game = game_in_planning(("alpha", "conspiracy", "circle"))
    stored = {"power_id": "alpha", "timezone": "Asia/Tokyo", "actor": "alpha", "audience": ["power:alpha"]}
    Game.TimezoneSet.upcast_v1_v2(stored)
    assert stored == {"seat": "alpha", "timezone": "Asia/Tokyo", "actor": "alpha", "audience": ["power:alpha"]}
    event = Game.TimezoneSet(
        originator_id=game.id,
        originator_version=game.version + 1,
        timestamp=Game.TimezoneSet.create_timestamp(),
        **stored,
    )
    event.mutate(game)
    assert game.timezone_for("alpha") == "Asia/Tokyo"
