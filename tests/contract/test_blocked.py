"""A window whose default for silence a rule refuses blocks the game, on the record (issue 24, "No game can get
stuck"): the close (the workers' sweep, or the GM's or host's) keeps nothing of itself, a fresh transaction records
``GameBlocked`` (the rule, the seats), every board and the JSON view show it, the GM and any host are mailed, and the
sweep does not meet the same refusal again until something else is recorded.

Played on a tiny ruleset of its own (a gate that closes only once a seat holds its key), registered for each test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from types import MappingProxyType
from zoneinfo import ZoneInfo

import pytest
from eventsourcing.domain import event
from pydantic import BaseModel, ConfigDict

from application.service import SYSTEM_CALLER, Caller, Games
from domain import visibility as vis
from domain.errors import Forbidden, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform import ruleset as registry
from domain.platform.commands import CloseDueWindow, CloseWindow, Command, Context, MakePost, SetDeadline
from domain.platform.game import PlatformGame, fold
from domain.platform.roles import AUDITOR, HOST, OBSERVER, PLAYER, PRIVILEGES, WINDOWS, Roles
from domain.platform.ruleset import Ruleset, Step
from domain.platform.state import Seat, ViewerSequences, Window

START = datetime(2026, 12, 1, 12, tzinfo=timezone.utc)


@dataclass
class GateState(ViewerSequences):
    name: str
    ruleset: str
    rules_version: str
    timezone: str
    options: dict = field(default_factory=dict)
    seats: dict = field(default_factory=dict)
    credentials: dict = field(default_factory=dict)
    windows: dict = field(default_factory=dict)
    seen: dict = field(default_factory=dict)
    mail_replies: dict = field(default_factory=dict)
    key_holder: str | None = None
    through: bool = False


@dataclass(frozen=True)
class Join(Command):
    seat_id: str
    host: bool = False


@dataclass(frozen=True)
class OpenGate(Command):
    pass


@dataclass(frozen=True)
class TakeKey(Command):
    seat_id: str


class GateOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Gate(PlatformGame):
    """The gate's window closes by default only if a seat holds the key (GATE-1); else its default is refused."""

    @event("GateCreated")
    def __init__(self, name: str, ruleset: str, rules_version: str, timezone: str, actor: str, audience: list) -> None:
        self.state = GateState(name=name, ruleset=ruleset, rules_version=rules_version, timezone=timezone)

    @classmethod
    def start(cls, name: str, gm: str = "GM", tz: str = "UTC", options: dict | None = None) -> Gate:
        return cls(name=name, ruleset="gate", rules_version="gate-1", timezone=tz, actor=GM, audience=[vis.PUBLIC])

    def pending_in(self, w: Window) -> list[str]:
        return sorted(p for p, s in self.state.seats.items() if not s.ready)

    def _may_act_in(self, w: Window, power_id: str) -> bool:
        return power_id in self.pending_in(w)

    def expect_step(self, expected: str | None) -> None:
        if expected is not None and expected != "gate":
            raise RuleViolation(f"the game is at 'gate', not {expected!r}", rule="GATE-0", field="expected_step")

    def join(self, cmd: Join, ctx: Context) -> None:
        self._joined(seat_id=cmd.seat_id, host=cmd.host, actor=GM, audience=[vis.PUBLIC])

    @event("Joined")
    def _joined(self, seat_id: str, host: bool, actor: str, audience: list) -> None:
        self.state.seats[seat_id] = Seat(id=seat_id, name=seat_id.title(), roles=[HOST] if host else [])

    def open_gate(self, cmd: OpenGate, ctx: Context) -> None:
        closes = (ctx.now + timedelta(hours=1)).isoformat()
        self._window_opened(
            window_id="gate-1",
            kind="gate",
            opened_at=ctx.now.isoformat(),
            closes_at=closes,
            actor=SYSTEM,
            audience=[vis.PUBLIC],
        )

    def take_key(self, cmd: TakeKey, ctx: Context) -> None:
        self.seat(cmd.seat_id)
        self._key_taken(seat_id=cmd.seat_id, actor=cmd.seat_id, audience=[vis.PUBLIC])

    @event("KeyTaken")
    def _key_taken(self, seat_id: str, actor: str, audience: list) -> None:
        self.state.key_holder = seat_id

    def close_window(self, window_id: str, *, now: datetime, reason: str = "deadline", force: bool = False) -> bool:
        w = self.state.windows.get(window_id)
        if w is None or w.closed:
            return False
        # The close records before its default is refused: none of it may be kept.
        self._window_closed(
            window_id=window_id, reason=reason, closed_at=now.isoformat(), actor=SYSTEM, audience=[vis.PUBLIC]
        )
        if self.state.key_holder is None:
            raise RuleViolation("nobody holds the gate's key: the gate cannot close", rule="GATE-1", field="key")
        self._passed(actor=SYSTEM, audience=[vis.PUBLIC])
        return True

    @event("GatePassed")
    def _passed(self, actor: str, audience: list) -> None:
        self.state.through = True


GATE_ROLES = Roles(
    declared=(HOST, PLAYER, OBSERVER, AUDITOR),
    organiser=AUDITOR,
    seated=PLAYER,
    grants=MappingProxyType({HOST: frozenset({WINDOWS}), AUDITOR: PRIVILEGES}),
)
GATE = Ruleset(
    name="gate", version="gate-1", options=GateOptions, steps=(Step("gate", opens=("gate",)),), aggregate=Gate,
    start=Gate.start, commands={Join: Gate.join, OpenGate: Gate.open_gate, TakeKey: Gate.take_key}, fold=fold,
    roles=GATE_ROLES,  # it rolls and seals nothing: the platform's checks alone verify its exports
    view=lambda game, viewer: {
        "seats": sorted(game.state.seats),
        "windows": [{"id": w.id, "kind": w.kind, "closed": w.closed} for w in game.state.windows.values()],
    },
)  # fmt: skip


@pytest.fixture
def clock():
    now = [START]
    yield now


@pytest.fixture
def games(clock):
    registry.register(GATE)
    g = Games(clock=lambda: clock[0], snapshot_interval=5)
    yield g
    g.close()
    registry.unregister(GATE.name)


@pytest.fixture
def gate(games: Games, clock) -> str:
    """A gate with Ann (a host) and Bob; its window is open and nobody holds the key."""
    game_id, _, _ = games.create_game("Gate", ruleset="gate")
    games.run_many(Caller.of(GM), game_id, [Join("ann", host=True), Join("bob"), OpenGate()])
    return game_id


def kinds(games: Games, game_id: str, after: int = 0) -> list[str]:
    game = games.get_game(game_id, for_update=False)
    return [type(e).__name__ for e in games.events.get(game.id, gt=after)]


def test_a_refused_default_at_the_deadline_is_recorded_as_blocked_not_raised(games, gate, clock):
    before = games.get_game(gate, for_update=False).version
    clock[0] += timedelta(hours=2)
    assert games.close_due_window(gate, "gate-1") is False  # no exception reaches the sweep
    assert kinds(games, gate, before) == ["GameBlocked"]  # nothing of the failed close (no WindowClosed) is kept
    assert games.view(gate, GM)["windows"] == [{"id": "gate-1", "kind": "gate", "closed": False}]
    game = games.get_game(gate, for_update=False)
    (block,) = game.blocks_for(GM)
    assert block["window_id"] == "gate-1"
    assert {k: block[k] for k in ("rule", "seats")} == {"rule": "GATE-1", "seats": ["ann", "bob"]}
    assert "nobody holds the gate's key" in block["reason"]
    blocked = game.blocked_at("gate-1")
    assert blocked is not None and {k: blocked[k] for k in ("rule", "seats", "reason", "at")} == {
        k: block[k] for k in ("rule", "seats", "reason", "at")
    }


def test_the_sweep_does_not_meet_the_same_refusal_again_and_again(games, gate, clock):
    clock[0] += timedelta(hours=2)
    games.close_due_window(gate, "gate-1")
    recorded = games.recorder.max_notification_id()
    for _ in range(3):  # later sweeps: no-ops that record nothing and raise nothing
        clock[0] += timedelta(minutes=5)
        assert games.close_due_window(gate, "gate-1") is False
    receipt = games.run(SYSTEM_CALLER, gate, CloseDueWindow("gate-1"))
    assert receipt.result["blocked"]["rule"] == "GATE-1" and receipt.events == []
    assert games.recorder.max_notification_id() == recorded


def test_a_change_to_the_game_lets_the_next_close_try_again(games, gate, clock):
    clock[0] += timedelta(hours=2)
    games.close_due_window(gate, "gate-1")
    games.run(Caller.of("bob"), gate, TakeKey("bob"))  # the table moves: the default may now be legal
    before = games.get_game(gate, for_update=False).version
    assert games.close_due_window(gate, "gate-1") is True
    assert kinds(games, gate, before) == ["WindowClosed", "GatePassed"]
    assert games.view(gate, GM)["windows"] == [{"id": "gate-1", "kind": "gate", "closed": True}]


def test_an_unrelated_event_lets_the_sweep_try_once_more_and_a_second_block_is_recorded_once(games, gate, clock):
    clock[0] += timedelta(hours=2)
    games.close_due_window(gate, "gate-1")
    games.run(Caller.of("ann"), gate, MakePost("table", "anyone seen the key?"))
    before = games.get_game(gate, for_update=False).version
    assert games.close_due_window(gate, "gate-1") is False
    assert games.close_due_window(gate, "gate-1") is False
    assert kinds(games, gate, before) == ["GameBlocked"]


def test_the_gms_and_the_hosts_close_meet_the_block_and_a_player_is_still_refused(games, gate, clock):
    receipt = games.run(Caller.of(GM), gate, CloseWindow("gate-1"))  # the auditor closes now: blocked, not raised
    assert receipt.result["closed"] is False and receipt.result["blocked"]["rule"] == "GATE-1"
    assert receipt.events == ["GameBlocked"]
    again = games.run(Caller.of("ann"), gate, CloseWindow("gate-1"))  # the host: the same block, nothing new
    assert again.events == [] and again.result["blocked"]["rule"] == "GATE-1"
    with pytest.raises(Forbidden):  # a player may not close windows, block or not
        games.run(Caller.of("bob"), gate, CloseWindow("gate-1"))
    with pytest.raises(Forbidden):  # nor send the workers' command
        games.run(Caller.of(GM), gate, CloseDueWindow("gate-1"))
    with pytest.raises(RuleViolation) as wrong_step:  # a close sent for another step is refused as before
        games.run(Caller.of(GM), gate, CloseWindow("gate-1", expected_step="elsewhere"))
    assert wrong_step.value.rule == "GATE-0"


def test_a_new_deadline_clears_the_block(games, gate, clock):
    games.run(Caller.of(GM), gate, CloseWindow("gate-1"))
    assert games.get_game(gate, for_update=False).blocks_for(GM) != []  # the close blocked
    games.run(Caller.of(GM), gate, SetDeadline("gate-1", clock[0] + timedelta(hours=5)))
    assert games.get_game(gate, for_update=False).blocks_for(GM) == []


def test_the_json_view_and_the_status_strip_show_the_block_and_only_those_told_read_why(games, gate, clock):
    from api.web.status import status_strip

    assert "blocked" not in games.view(gate, "bob")  # nothing blocked: the view is as the ruleset makes it
    clock[0] += timedelta(hours=2)
    games.close_due_window(gate, "gate-1")
    games.run(Caller.of(GM), gate, Join("cy"))  # cy joins after the block: the window does not wait on her
    game = games.get_game(gate, for_update=False)
    # The window waits on two seats: the refusal's words may name one's holdings, so only the GM and the host (ann)
    # read them; bob, waited on with ann, does not.
    for viewer, told in (("gm", True), ("ann", True), ("bob", False), ("cy", False)):
        [shown] = games.view(gate, viewer)["blocked"]
        assert (shown["window_id"], shown["rule"], shown["seats"]) == ("gate-1", "GATE-1", ["ann", "bob"])
        assert (shown["reason"] is not None) is told, viewer
        strip = status_strip(game, viewer, games.view(gate, viewer), ZoneInfo("UTC"), [])
        [line] = strip["blocked"]
        assert "GATE-1" in line["text"] and "Ann, Bob" in line["text"], line
        assert ("nobody holds the gate's key" in (line["reason"] or "")) is told


def test_the_board_page_draws_the_block_in_the_status_strip():
    from api.web.kit import templates

    strip = {
        "status": ("gm", "Waiting on the host."),
        "blocked": [{"text": "Blocked: rule GATE-1 (Ann, Bob).", "reason": "no key", "iso": "x", "local": "y"}],
        "deadlines": [],
        "timeline": {"recent": [], "current": "Gate", "steps": []},
        "seats": [],
    }
    html = templates.env.get_template("status_strip.html").render(strip=strip, strip_live=None, game_id="g")
    assert 'class="strip-blocked"' in html and "Blocked: rule GATE-1 (Ann, Bob)." in html and "no key" in html


def test_the_gm_and_every_host_are_mailed_about_the_block(games, gate, clock):
    from projections.db import ReadModelDB
    from projections.projector import Projector
    from projections.settings import Settings

    projector = Projector(games, ReadModelDB(Settings(database_url="memory")))
    clock[0] += timedelta(hours=2)
    games.close_due_window(gate, "gate-1")
    projector.catch_up()
    told = [(r["recipient"], r["body"]["subject"]) for r in projector.outbox(gate) if r["kind"] == "blocked"]
    assert sorted(told) == [("ann", "Game blocked: gate-1 cannot close"), ("gm", "Game blocked: gate-1 cannot close")]
    body = next(r["body"] for r in projector.outbox(gate, "ann") if r["kind"] == "blocked")
    assert "GATE-1" in body["text"] and "nobody holds the gate's key" in body["text"]


def test_a_powers_console_and_board_show_a_block_recorded_on_planning(tmp_path, monkeypatch):
    """Every board draws the platform's strip: a Powers game whose Planning default is refused (planted here, as
    the rules never refuse it) shows the block on the GM's console and on a power's board, each as it may read it."""
    from fastapi.testclient import TestClient

    from api.app import create_app
    from domain.powers.game import Game
    from projections.settings import Settings
    from tests.integration.helpers import close_app
    from tests.web.test_browser_play_surface import rich_game

    def refuse(self, now):
        raise RuleViolation("PLANTED: the schemes cannot be granted", rule="P-TEST-1")

    monkeypatch.setattr(Game, "_planning_closed", refuse)  # what Planning's window rule runs at its close
    app = create_app(Settings(data_dir=tmp_path))
    try:
        games = app.state.games
        gid, gm_token, tokens = rich_game(app)
        window = next(w.id for w in games.get_game(gid, for_update=False).state.windows.values() if not w.closed)
        receipt = games.close_window(gid, GM, window, "planning")
        assert receipt.result["blocked"]["rule"] == "P-TEST-1" and receipt.events == ["GameBlocked"]
        for who, token in (("gm", gm_token), *tokens.items()):
            with TestClient(app) as client:
                client.get(f"/signin/{gid}/{token}")
                page = client.get(f"/play/{gid}").text
            assert 'class="strip-blocked"' in page and "P-TEST-1" in page, who
            assert ("PLANTED" in page) is (who == "gm" or receipt.result["blocked"]["seats"] == [who]), who
    finally:
        close_app(app)
