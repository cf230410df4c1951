"""Commands that can run twice: Idempotency-Key, expected steps, mail Message-IDs, token replacement.

On SQLite and PostgreSQL: the keys live in a table of the store, written in the same transaction as
the events they answer for."""

from __future__ import annotations

import uuid

import pytest

from api.mail_intake import MailIntake
from application.service import CommandKey, Games
from domain.powers import commands as pc
from projections.keys import KEYS_TABLE, KeyRow
from tests.helpers import add_power
from tests.integration.helpers import bearer


def planning_game(api) -> tuple[str, str, dict[str, str]]:
    r = api.post("/games", json={"name": "Twice"})
    game, gm = r.json()["game_id"], r.json()["gm_token"]
    tokens = {}
    for name in ("Alpha", "Beta"):
        r = api.post(
            f"/games/{game}/powers", json={"name": name, "cls": "conspiracy", "subclass": "circle"}, headers=bearer(gm)
        )
        tokens[r.json()["power_id"]] = r.json()["token"]
    for step in ("setup", "tidings"):
        assert api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": step}).status_code == 200
    return game, gm, tokens


def versions(api, game: str, gm: str) -> int:
    return len(api.get(f"/games/{game}/events", headers=bearer(gm), params={"limit": 5000}).json())


def test_a_retried_action_submission_returns_the_first_receipt_and_never_rolls_new_dice(api):
    game, gm, tok = planning_game(api)
    body = {"title": "Plot", "convert": 0}
    first = api.post(f"/games/{game}/actions", headers=bearer(tok["alpha"], "k-1"), json=body)
    assert first.status_code == 201, first.text
    before = versions(api, game, gm)
    again = api.post(f"/games/{game}/actions", headers=bearer(tok["alpha"], "k-1"), json=dict(reversed(body.items())))
    assert again.status_code == 201, again.text
    assert again.json()["replayed"] is True and first.json()["replayed"] is False
    assert {k: v for k, v in again.json().items() if k != "replayed"} == {
        k: v for k, v in first.json().items() if k != "replayed"
    }  # same action, same dice, same digest
    assert versions(api, game, gm) == before  # nothing new recorded
    mine = api.get(f"/games/{game}/view", headers=bearer(tok["alpha"])).json()["my_actions"]
    assert [a["action_id"] for a in mine] == [first.json()["result"]["action_id"]]
    # Without a key (or with a new one) the same body is a new command.
    assert api.post(f"/games/{game}/actions", headers=bearer(tok["alpha"], "k-2"), json=body).status_code == 201
    assert versions(api, game, gm) > before


def test_the_same_idempotency_key_with_a_different_request_is_refused_naming_the_header(api):
    game, gm, tok = planning_game(api)
    assert (
        api.post(
            f"/games/{game}/actions", headers=bearer(tok["alpha"], "k-1"), json={"title": "Plot", "convert": 0}
        ).status_code
        == 201
    )
    before = versions(api, game, gm)
    r = api.post(f"/games/{game}/actions", headers=bearer(tok["alpha"], "k-1"), json={"title": "Other", "convert": 0})
    assert r.status_code == 422 and r.json()["field"] == "Idempotency-Key", r.text
    r = api.post(f"/games/{game}/ready", headers=bearer(tok["alpha"], "k-1"), json={})
    assert r.status_code == 422 and r.json()["field"] == "Idempotency-Key", r.text
    assert versions(api, game, gm) == before
    # A key is the caller's own: another power's identical key is another command.
    assert (
        api.post(
            f"/games/{game}/actions", headers=bearer(tok["beta"], "k-1"), json={"title": "Plot", "convert": 0}
        ).json()["replayed"]
        is False
    )
    r = api.post(f"/games/{game}/actions", headers=bearer(tok["alpha"], "x" * 201), json={"title": "Long"})
    assert r.status_code == 422 and r.json()["field"] == "Idempotency-Key"


def test_retried_setup_commands_return_their_first_ids_without_a_second_token(api):
    r1 = api.post("/games", json={"name": "Once"}, headers={"Idempotency-Key": "create-1"})
    r2 = api.post("/games", json={"name": "Once"}, headers={"Idempotency-Key": "create-1"})
    assert r1.status_code == r2.status_code == 201
    assert r2.json()["game_id"] == r1.json()["game_id"] and r2.json()["gm_token"] is None
    assert r2.json()["receipt"]["replayed"] is True
    game, gm = r1.json()["game_id"], r1.json()["gm_token"]
    body = {"name": "Alpha", "cls": "conspiracy", "subclass": "circle"}
    p1 = api.post(f"/games/{game}/powers", json=body, headers=bearer(gm, "add-1"))
    p2 = api.post(f"/games/{game}/powers", json=body, headers=bearer(gm, "add-1"))
    assert p1.json()["power_id"] == p2.json()["power_id"] == "alpha" and p2.json()["token"] is None
    view = api.get(f"/games/{game}/view", headers=bearer(gm)).json()
    assert [p["power_id"] for p in view["powers"]] == ["alpha"]


def test_a_command_that_moves_the_game_names_the_step_it_expects(api):
    game, gm, tok = planning_game(api)
    before = versions(api, game, gm)
    r = api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "tidings"})
    assert r.status_code == 409 and r.json()["field"] == "expected_step"
    assert "now at planning" in r.json()["message"]
    r = api.post(f"/games/{game}/advance", headers=bearer(gm), json={})
    assert r.status_code == 422 and r.json()["field"] == "expected_step"
    r = api.post(f"/games/{game}/resolve", headers=bearer(gm), json={"expected_step": "resolution"})
    assert r.status_code == 409 and "now at planning" in r.json()["message"]
    r = api.post(f"/games/{game}/windows/s1m1-planning/close", headers=bearer(gm), json={"expected_step": "battle"})
    assert r.status_code == 409 and r.json()["field"] == "expected_step"
    assert versions(api, game, gm) == before  # nothing recorded
    r = api.post(f"/games/{game}/windows/s1m1-planning/close", headers=bearer(gm), json={"expected_step": "planning"})
    assert r.status_code == 200 and r.json()["result"] == {"closed": True}


def test_replacing_a_seats_token_over_the_api_stops_the_old_one_at_once(api):
    game, gm, tok = planning_game(api)
    r = api.post(f"/games/{game}/seats/alpha/token", headers=bearer(tok["beta"]))
    assert r.status_code == 403 and r.json()["field"] == "authorization"
    r = api.post(f"/games/{game}/seats/alpha/token", headers=bearer(gm))
    assert r.status_code == 201, r.text
    new = r.json()["token"]
    assert new and new != tok["alpha"] and r.json()["seat"] == "alpha"
    assert api.get(f"/games/{game}/view", headers=bearer(tok["alpha"])).status_code == 401
    r = api.post(f"/games/{game}/actions", headers=bearer(tok["alpha"]), json={"title": "Sneak", "convert": 0})
    assert r.status_code == 401 and r.json()["field"] == "authorization"
    assert api.get(f"/games/{game}/view", headers=bearer(new)).json()["viewer"] == "alpha"
    assert api.get(f"/games/{game}/view", headers=bearer(tok["beta"])).status_code == 200
    r = api.post(f"/games/{game}/seats/nobody/token", headers=bearer(gm))
    assert r.status_code == 404


def test_the_token_route_answers_by_its_first_name_in_a_game_of_powers(api):
    """Powers' clients may still call ``/powers/{power_id}/token`` (api.powers.routes): the same replacement,
    answered as it always was, naming the power ``power_id``; a retry shows no token."""
    game, gm, tok = planning_game(api)
    r = api.post(f"/games/{game}/powers/beta/token", headers=bearer(tok["alpha"]))
    assert r.status_code == 403 and r.json()["field"] == "authorization"
    r = api.post(f"/games/{game}/powers/beta/token", headers=bearer(gm, "again"))
    assert r.status_code == 201 and set(r.json()) == {"power_id", "token", "receipt"} and r.json()["power_id"] == "beta"
    assert api.get(f"/games/{game}/view", headers=bearer(r.json()["token"])).json()["viewer"] == "beta"
    assert api.get(f"/games/{game}/view", headers=bearer(tok["beta"])).status_code == 401
    retried = api.post(f"/games/{game}/powers/beta/token", headers=bearer(gm, "again"))
    assert retried.status_code == 201 and retried.json()["token"] is None and retried.json()["power_id"] == "beta"
    assert api.post(f"/games/{game}/powers/nobody/token", headers=bearer(gm)).status_code == 404


def test_the_key_and_the_events_are_written_in_one_transaction(store_settings):
    """A key row with events that conflict is not kept; events with a key already used are not kept."""
    from api.compose import build_games

    games = build_games(store_settings)
    try:
        gid, _, _ = games.create_game("Atomic")
        game = games.get_game(gid)
        stored = games.events.mapper.to_stored_event
        game.set_months(3)
        clash = stored(next(iter(games.events.get(game.id, lte=1))))  # version 1 is taken
        row = KeyRow(gid, "gm", "atomic-1", "f", "{}")
        with pytest.raises(Exception, match="(?i)unique|duplicate|already"):
            games.recorder.insert_events([clash], command_key=row)
        assert games.recorder.select_command_key(gid, "gm", "atomic-1") is None
        games.recorder.insert_events([], command_key=row)
        fresh = stored(game.collect_events()[0])
        with pytest.raises(Exception, match="(?i)unique|duplicate|already"):
            games.recorder.insert_events([fresh], command_key=row)
        assert games.get_game(gid).version == game.version - 1  # the event went with the refused key
        if store_settings.is_postgres:
            schema = store_settings.database_url.split("schema=")[1]
            with games.recorder.datastore.get_connection() as conn:
                tables = {
                    r["table_name"]
                    for r in conn.execute(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
                    )
                }
            assert {KEYS_TABLE, "emissary_events"} <= tables
    finally:
        games.close()


def mail_game(games: Games) -> tuple[str, str, str]:
    gid, _, _ = games.create_game("By mail")
    pid, token, _ = add_power(games, gid, "gm", "Alpha", "conspiracy", "circle")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return gid, pid, token


def test_a_mail_message_id_is_remembered_without_limit_and_answered_with_its_first_reply():
    games = Games()
    gid, pid, token = mail_game(games)
    intake = MailIntake(games)
    to = intake.address_for(gid, token)
    first = intake.receive(to, "<plot@x>", "action: Plot\n  convert: 0")
    assert first.accepted, first.body
    for n in range(501):  # more than the 500 Message-IDs the aggregate used to remember
        assert intake.receive(to, f"<tz-{n}@x>", "timezone Europe/Paris").accepted
    before = games.get_game(gid).version
    again = intake.receive(to, "<plot@x>", "action: Plot\n  convert: 0")
    assert again.accepted and again.body == first.body
    assert games.get_game(gid).version == before
    assert len(games.view(gid, pid)["my_actions"]) == 1
    assert not [e for e in games.iter_events(gid) if type(e).__name__ == "MailTurnRecorded"]


def test_stored_mail_turn_recorded_events_still_replay_and_still_answer_their_mail(store_settings):
    """Games recorded before keys moved beside the events keep their MailTurnRecorded events."""
    from api.compose import build_games

    games = build_games(store_settings)
    try:
        gid, pid, token = mail_game(games)
        game = games.get_game(gid)
        game._mail_turn_recorded(
            message_id="<old@x>", principal=pid, reply="The reply it got.", actor=pid, audience=[f"power:{pid}"]
        )
        games.save(game)
    finally:
        games.close()
    games = build_games(store_settings)  # a fresh process: the event folds from the store
    try:
        # the stored reply is the game's own idempotency record, which no view or event read shows
        assert games.get_game(gid).state.mail_replies["<old@x>"]["reply"] == "The reply it got."
        before = games.get_game(gid).version
        reply = MailIntake(games).receive(MailIntake(games).address_for(gid, token), "<old@x>", "ready")
        assert reply.body == "The reply it got." and games.get_game(gid).version == before
    finally:
        games.close()


def test_a_key_is_scoped_to_its_game_and_caller():
    games = Games()
    gid, pid, _ = mail_game(games)
    other, _, _ = mail_game(games)
    key = CommandKey(str(uuid.uuid4()), "same")
    a = games.set_timezone(gid, pid, pid, "Europe/Paris", key=key)
    assert a.sequence == len(games.visible_events(gid, pid))
    assert games.set_timezone(gid, pid, pid, "Europe/Paris", key=key).replayed
    assert not games.set_timezone(other, pid, pid, "Europe/Paris", key=key).replayed
    assert not games.send(gid, "gm", pc.SetMonths(3), key).replayed
