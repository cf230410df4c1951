"""One guarded write path, and forks that are one transaction and private (issue 24, items 1 and 2; DESIGN
"Promises are platform properties").

For every registered ruleset and the fake one: every command it registers (and every platform command), sent
through the generic ``POST /games/{g}/commands`` as every role, answers as a rule, never as a server error, and
a refusal records nothing; commands only the platform issues are refused to every caller; the platform's bespoke
routes answer exactly as the generic route does for the same command and caller; a fork writes its copy and its
mark together or not at all, and is its forker's alone.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.service import Games, hash_token, new_token
from domain.ids import GM
from domain.platform import ruleset as registry
from domain.platform.commands import PLATFORM_COMMANDS
from domain.platform.game import PlatformGame
from projections.settings import Settings
from tests.contract.drivers import DRIVERS, Played
from tests.integration.helpers import close_app


@dataclasses.dataclass
class Table:
    client: TestClient
    games: Games
    played: Played
    tokens: dict[str, str]  # principal -> a bearer token of it

    def version(self) -> int:
        return self.games.get_game(self.played.game_id, for_update=False).version

    def headers(self, principal: str | None) -> dict[str, str]:
        return {} if principal is None else {"Authorization": f"Bearer {self.tokens[principal]}"}

    def generic(self, principal: str | None, command: str, args: dict) -> Any:
        return self.client.post(
            f"/games/{self.played.game_id}/commands",
            headers=self.headers(principal),
            json={"command": command, "args": args},
        )


@pytest.fixture
def table(ruleset: registry.Ruleset, tmp_path) -> Iterator[Table]:  # noqa: F811 - the fixture above
    app = create_app(Settings(data_dir=tmp_path / "data"))
    with TestClient(app) as client:
        games: Games = app.state.games
        played = DRIVERS[ruleset.name].play(games)
        game = games.get_game(played.game_id)
        tokens = {}
        for principal in played.viewers:  # a link for each principal, as the GM's console hands them out
            token, token_hash = new_token()
            game.issue_credential(principal, token_hash)
            tokens[principal] = token
        games.save(game)
        yield Table(client, games, played, tokens)
    close_app(app)


def _sample(hint: Any, name: str, seat: str) -> Any:
    """A value of a command field's type, as a client might send it (a seat's id where a field names a seat)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _sample(options[0], name, seat) if options else None
    if origin is typing.Literal:
        return typing.get_args(hint)[0]
    if origin is typing.Annotated:
        return _sample(typing.get_args(hint)[0], name, seat)
    if hint is bool:
        return False
    if hint is int:
        return 1
    if hint is float:
        return 1.0
    if hint is str:
        return seat if name in ("power_id", "seat", "seat_id", "mage", "to", "who", "covenant") else "x"
    if hint in (dt.datetime,):
        return "2030-01-01T00:00:00+00:00"
    if origin in (list, tuple, set, frozenset) or hint in (list, tuple):
        return []
    if origin is dict or hint is dict:
        return {}
    return None


def _args(cls: type, seat: str) -> dict:
    hints = typing.get_type_hints(cls, include_extras=True)
    return {f.name: _sample(hints[f.name], f.name, seat) for f in dataclasses.fields(cls) if f.init}


def test_every_command_through_the_generic_route_answers_as_a_rule_and_a_refusal_records_nothing(
    ruleset: registry.Ruleset,  # noqa: F811
    table: Table,
):
    """Every registered command, as every principal and as nobody: never a server error; a refusal (4xx) leaves
    the game's version as it was; a command only the platform issues is refused to every caller."""
    seats = [v for v in table.played.viewers if v != GM]
    callers: list[str | None] = [None, *table.played.viewers]
    for n, cls in enumerate((*ruleset.commands, *PLATFORM_COMMANDS)):
        for caller in callers if n < 10 else callers[1:]:  # nobody's failed sign-ins are rate-limited (429)
            before = table.version()
            answer = table.generic(caller, cls.__name__, _args(cls, caller if caller in seats else seats[0]))
            assert answer.status_code < 500, (cls.__name__, caller, answer.text)
            if answer.status_code >= 400:
                assert table.version() == before, (cls.__name__, caller, answer.text)
                assert answer.json()["message"], (cls.__name__, caller)
            if caller is None:
                assert answer.status_code == 401, (cls.__name__, answer.text)
            if getattr(cls, "system", False) and caller is not None:
                assert answer.status_code == 403, (cls.__name__, caller, answer.text)


PLATFORM_ONLY = {
    "MarkForked": {"source_game": "x", "source_version": 1, "name": "renamed", "reason": ""},
    "StateRestored": {"to_version": 1, "carried": {}},
    "SeedCommitted": {"commitment": "0" * 64},
    "CloseDueWindow": {"window_id": "w"},
    "QueueDueReminders": {"window_id": "w"},
}


@pytest.mark.parametrize("name", sorted(PLATFORM_ONLY))
def test_no_caller_can_send_what_only_the_platform_issues(ruleset, table: Table, name: str):  # noqa: F811
    """Fork marks, restores, seed commits and the workers' closes are the platform's: refused to the GM and every
    seat, recording nothing (issue 24: a MarkForked on a live game renamed it and replaced its sealed seed)."""
    for caller in table.played.viewers:
        before = table.version()
        answer = table.generic(caller, name, PLATFORM_ONLY[name])
        assert answer.status_code in (403, 422), (name, caller, answer.text)
        assert answer.json()["field"] == "command", (name, caller, answer.text)
        assert table.version() == before


def _normal(answer: Any) -> tuple[int, str | None]:
    """A refusal as the contract compares it: its status and the field it names (the generic route prefixes a
    command's fields with ``args.``)."""
    if answer.status_code < 400:
        return answer.status_code // 100 * 100, None
    field = answer.json().get("field") or ""
    return answer.status_code, field.removeprefix("args.").removeprefix("body.")


def _bespoke_cases(table: Table) -> list[tuple[str, dict, str, str, dict]]:
    """(command, args, method, path, body) pairs: a platform command, and its bespoke route's request."""
    g = table.played.game_id
    game = table.games.get_game(g, for_update=False)
    seat = next(v for v in table.played.viewers if v != GM)
    window = next(iter(game.state.windows), "no-such-window")
    return [
        ("RollBack", {"reason": "r", "version": 2}, "POST", f"/games/{g}/rollback", {"reason": "r", "version": 2}),
        (
            "RollBack",
            {"reason": "r", "version": 999999},
            "POST",
            f"/games/{g}/rollback",
            {"reason": "r", "version": 999999},
        ),
        (
            "RollBack",
            {"reason": "r", "phase": "nope"},
            "POST",
            f"/games/{g}/rollback",
            {"reason": "r", "phase": "nope"},
        ),
        ("Fork", {"name": "", "version": 2}, "POST", f"/games/{g}/fork", {"name": "", "version": 2}),
        ("Fork", {"name": "f", "phase": "nope"}, "POST", f"/games/{g}/fork", {"name": "f", "phase": "nope"}),
        (
            "SetTimezone",
            {"power_id": seat, "timezone": "Mars/Base"},
            "PUT",
            f"/games/{g}/timezone",
            {"power_id": seat, "timezone": "Mars/Base"},
        ),
        (
            "SetTimezone",
            {"power_id": seat, "timezone": "Europe/Paris"},
            "PUT",
            f"/games/{g}/timezone",
            {"power_id": seat, "timezone": "Europe/Paris"},
        ),
        ("GrantVisibility", {"to": seat, "text": "seen"}, "POST", f"/games/{g}/grants", {"to": seat, "text": "seen"}),
        (
            "GrantVisibility",
            {"to": "nobody", "text": "seen"},
            "POST",
            f"/games/{g}/grants",
            {"to": "nobody", "text": "seen"},
        ),
        (
            "CloseWindow",
            {"window_id": "no-such-window", "expected_step": "x"},
            "POST",
            f"/games/{g}/windows/no-such-window/close",
            {"expected_step": "x"},
        ),
        (
            "SetDeadline",
            {"window_id": window, "closes_at": "2001-01-01T00:00:00+00:00"},
            "PUT",
            f"/games/{g}/windows/{window}/deadline",
            {"closes_at": "2001-01-01T00:00:00+00:00"},
        ),
        (
            "RequestExtension",
            {"power_id": seat, "hours": 1.0, "window_id": "no-such-window"},
            "POST",
            f"/games/{g}/windows/no-such-window/extensions",
            {"power_id": seat, "hours": 1.0},
        ),
        (
            "SetContact",
            {"power_id": seat, "email": None, "mode": "off"},
            "PUT",
            f"/games/{g}/contact",
            {"power_id": seat, "email": None, "mode": "off"},
        ),
        ("OpenThread", {"seats": ["nobody"]}, "POST", f"/games/{g}/threads", {"seats": ["nobody"]}),
        (
            "HidePost",
            {"post_id": "no-such-post", "reason": "r"},
            "POST",
            f"/games/{g}/posts/no-such-post/hide",
            {"reason": "r"},
        ),
        ("EditPost", {"post_id": "no-such-post", "text": "t"}, "PUT", f"/games/{g}/posts/no-such-post", {"text": "t"}),
    ]


def test_the_bespoke_routes_answer_as_the_generic_route_for_the_same_command_and_caller(
    ruleset: registry.Ruleset,  # noqa: F811
    table: Table,
):
    """Each platform command with a route of its own, as every principal: the bespoke route and the generic route
    give the same answer (its status, and the field a refusal names) in the same state. A rollback to a version
    that begins no phase was accepted by the generic route only (issue 24)."""
    for command, args, method, path, body in _bespoke_cases(table):
        for caller in table.played.viewers:
            before = table.version()
            generic = table.generic(caller, command, args)
            if generic.status_code < 400:
                continue  # accepted: the state moved, so the bespoke route meets another state (below, refusals)
            bespoke = table.client.request(method, path, headers=table.headers(caller), json=body)
            assert _normal(bespoke) == _normal(generic), (command, args, caller, generic.text, bespoke.text)
            assert table.version() == before, (command, caller)


def test_a_refused_fork_writes_nothing(ruleset: registry.Ruleset, table: Table, monkeypatch):  # noqa: F811
    """A fork is one transaction (issue 24, item 2): refused before, or failing after, the copy is made, nothing
    reaches the store (a refused fork used to leave an orphan copy holding the source's sealed seed)."""
    games, g = table.games, table.played.game_id
    stored = games.recorder.max_notification_id()
    assert table.generic(GM, "Fork", {"name": " ", "version": 2}).status_code == 422
    for seat in (v for v in table.played.viewers if v != GM):
        assert table.generic(seat, "Fork", {"name": "mine", "version": 2}).status_code == 403
    assert games.recorder.max_notification_id() == stored

    def broken(self, *args, **kwargs):
        raise RuntimeError("the store went away after the copy was made")

    monkeypatch.setattr(PlatformGame, "mark_forked", broken)
    with pytest.raises(RuntimeError):
        games.fork(g, GM, "sandbox", version=2)
    assert games.recorder.max_notification_id() == stored


def test_a_fork_is_the_forkers_sandbox(ruleset: registry.Ruleset, table: Table):  # noqa: F811
    """No other seat's link opens a fork, no seat's contact is copied into it, and its forker's link opens it
    (issue 24, item 2: a GM's fork reached the players)."""
    games, g = table.games, table.played.game_id
    seats = [v for v in table.played.viewers if v != GM]
    for seat in seats:
        games.set_contact(g, seat, seat, f"{seat}@example.org", "immediate")
    latest = games.get_game(g, for_update=False).version  # every seat and contact is in the copy
    answer = table.client.post(
        f"/games/{g}/fork", headers=table.headers(GM), json={"name": "sandbox", "version": latest}
    )
    assert answer.status_code == 201, answer.text
    fork_id = answer.json()["game_id"]
    assert table.client.get(f"/games/{fork_id}/view", headers=table.headers(GM)).status_code == 200
    fork = games.get_game(fork_id, for_update=False)
    for seat in seats:
        assert table.client.get(f"/games/{fork_id}/view", headers=table.headers(seat)).status_code == 401, seat
        assert fork.credential(hash_token(table.tokens[seat])) is None
        assert seat in fork.seats and fork.seats[seat].email is None, seat
    # the source is untouched: its seats still sign in and keep their contacts
    source = games.get_game(g, for_update=False)
    assert all(source.seats[s].email == f"{s}@example.org" for s in seats)
    assert table.client.get(f"/games/{g}/view", headers=table.headers(seats[0])).status_code == 200
    # the GM invites a seat into the sandbox by giving it a link there
    token, _ = games.reissue_link(fork_id, GM, seats[0])
    assert table.client.get(f"/games/{fork_id}/view", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_a_fork_rolls_back_no_further_than_its_own_start(ruleset: registry.Ruleset, table: Table):  # noqa: F811
    """Rolled back into its copied history, a fork lost its mark and its privacy (its name, ``forked_from`` and the
    players' contacts came back: review of issue 24). A fork's rollback stops at its own start."""
    games, g = table.games, table.played.game_id
    seat = next(v for v in table.played.viewers if v != GM)
    games.set_contact(g, seat, seat, f"{seat}@example.org", "immediate")
    fork_id, _ = games.fork(g, GM, "sandbox", version=games.get_game(g, for_update=False).version)
    starts = [p["version"] for p in games.phases(fork_id) if p["version"] > 1]
    assert starts
    for version in starts:
        answer = table.client.post(
            f"/games/{fork_id}/commands",
            headers=table.headers(GM),
            json={"command": "RollBack", "args": {"reason": "back", "version": version}},
        )
        assert answer.status_code == 422 and "its own start" in answer.json()["message"], answer.text
    fork = games.get_game(fork_id, for_update=False)
    assert fork.state.forked_from is not None and fork.seats[seat].email is None


def test_a_rollback_to_a_version_that_begins_no_phase_is_refused_whichever_route_sends_it(
    ruleset: registry.Ruleset,  # noqa: F811
    table: Table,
):
    """The generic route answered 200 for a rollback to the middle of a phase, where the rollback route answered 422
    (issue 24): the guard is the handler's now, so both refuse it naming ``version``, and record nothing."""
    games, g = table.games, table.played.game_id
    game = games.get_game(g, for_update=False)
    starts = {p["version"] for p in games.phases(g)}
    middle = max(v for v in range(2, game.version) if v not in starts)
    before = table.version()
    generic = table.generic(GM, "RollBack", {"reason": "r", "version": middle})
    bespoke = table.client.post(
        f"/games/{g}/rollback", headers=table.headers(GM), json={"reason": "r", "version": middle}
    )
    for answer in (generic, bespoke):
        assert answer.status_code == 422, answer.text
        assert "start of a phase" in answer.json()["message"]
    assert _normal(generic) == _normal(bespoke) == (422, "version")
    assert table.version() == before
