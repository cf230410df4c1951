"""A seat's notification preferences (issue 31, item 3) as a game event: set through the JSON API
(``PUT /games/{id}/notifications``) by the seat alone, refused naming the field with nothing recorded, shown to the
seat alone, and folded again as recorded."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from application.service import Caller
from domain import visibility as vis
from domain.errors import Forbidden, RuleViolation
from domain.platform.commands import SetNotifications
from tests.helpers import add_power
from tests.integration.helpers import bearer


def game(games):
    gid, _, _ = games.create_game("Quiet", timezone_name="Europe/Berlin")
    ana, ana_token, _ = add_power(games, gid, "gm", "Ana", "champion", "wizard")
    bo, _, _ = add_power(games, gid, "gm", "Bo", "champion", "adversary")
    return gid, ana, ana_token, bo


def prefs(games, gid: str, seat: str) -> dict:
    return games.read(gid, lambda g: g.preferences_of(seat))


def recorded(games, gid: str) -> list:
    return [e for e in games.iter_events(gid) if type(e).__name__ == "NotificationsSet"]


def test_a_seat_sets_its_preferences_through_the_api_and_only_it_sees_them(app, games):
    gid, ana, token, bo = game(games)
    client = TestClient(app)
    body = {"mail": {"post": "off", "results": "digest"}, "push": {"private": "off"}}
    r = client.put(f"/games/{gid}/notifications", headers=bearer(token), json={**body, "quiet_from": "22:30"})
    assert r.status_code == 422 and r.json()["field"] == "quiet_until"
    assert recorded(games, gid) == []
    r = client.put(
        f"/games/{gid}/notifications",
        headers=bearer(token),
        json={**body, "quiet_from": "22:30", "quiet_until": "07:00"},
    )
    assert r.status_code == 200, r.text
    mine = prefs(games, gid, ana)
    assert mine["mail"]["post"] == "off" and mine["mail"]["results"] == "digest" and mine["mail"]["phase"] == "now"
    assert mine["push"]["private"] == "off" and mine["push"]["post"] == "now"
    assert (mine["quiet_from"], mine["quiet_until"]) == ("22:30", "07:00")
    assert prefs(games, gid, bo)["mail"]["post"] == "now"  # another seat's are its own
    [event] = recorded(games, gid)
    assert event.audience == vis.seats([ana]) and event.actor == ana
    # the seat's own feed shows it; the other seat's does not
    assert "NotificationsSet" in [e["type"] for e in games.visible_events(gid, ana)]
    assert "NotificationsSet" not in [e["type"] for e in games.visible_events(gid, bo)]
    from domain.platform.feed import platform_line

    assert platform_line("NotificationsSet", {"seat": ana}, {ana: "Ana"}, "") == "Ana chose how their news comes."


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"mail": {"gossip": "off"}}, "mail.gossip"),
        ({"push": {"post": "sometimes"}}, "push.post"),
        ({"quiet_from": "25:00", "quiet_until": "07:00"}, "quiet_from"),
        ({"quiet_from": "22:00", "quiet_until": "7"}, "quiet_until"),
        ({"quiet_until": "07:00"}, "quiet_from"),
        ({"quiet_from": "07:00", "quiet_until": "07:00"}, "quiet_until"),
    ],
)
def test_bad_preferences_are_refused_naming_the_field_and_nothing_is_recorded(games, fields, field):
    gid, ana, _, _ = game(games)
    with pytest.raises(RuleViolation) as refused:
        games.run(Caller.of(ana), gid, SetNotifications(ana, **fields))
    assert refused.value.field == field
    assert recorded(games, gid) == []


def test_a_seat_sets_only_its_own_preferences(games):
    gid, ana, _, bo = game(games)
    with pytest.raises(Forbidden):
        games.run(Caller.of(bo), gid, SetNotifications(ana, mail={"post": "off"}))
    assert recorded(games, gid) == []


def test_preferences_fold_again_from_the_events_and_the_latest_wins(games):
    gid, ana, _, _ = game(games)
    games.run(Caller.of(ana), gid, SetNotifications(ana, mail={"post": "off"}, quiet_from="23:00", quiet_until="06:00"))
    games.run(Caller.of(ana), gid, SetNotifications(ana, push={"end": "digest"}))
    again = games.get_game(gid, for_update=False)
    assert again.preferences_of(ana)["mail"]["post"] == "now"  # a full choice each time: unnamed kinds come now
    assert again.preferences_of(ana)["push"]["end"] == "digest"
    assert again.preferences_of(ana)["quiet_from"] is None
