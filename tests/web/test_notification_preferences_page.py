"""Issue 31 item 3: the one place for a seat's preferences is its Notifications page (``/play/<game>/contact``): per
channel and kind of news, quiet hours in its zone, recorded as the seat's own ``SetNotifications``; a refusal names
the field, keeps what was chosen and records nothing; the game's webhooks are listed as the GM set them, read only,
never with a URL's path (a chat's token)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from application import webhooks
from domain.ids import GM
from tests.web.test_own_contact import app, games, post, table  # noqa: F401


@pytest.fixture
def ann(app, table):  # noqa: F811
    with TestClient(app) as client:
        client.get(f"/signin/{table['game']}/{table['ann_token']}")
        yield client


def recorded(games, gid: str) -> list:  # noqa: F811
    return [e for e in games.iter_events(gid) if type(e).__name__ == "NotificationsSet"]


def page_of(table) -> str:  # noqa: F811
    return f"/play/{table['game']}/contact"


def test_a_seat_chooses_per_channel_and_kind_and_its_quiet_hours(ann, games, table):  # noqa: F811
    gid, me = table["game"], table["ann"]
    shown = ann.get(page_of(table)).text
    assert 'name="mail.post"' in shown and 'name="push.deadline"' in shown and "Europe/Paris" in shown
    r = post(
        ann,
        f"/play/{gid}/notifications",
        {"mail.post": "off", "push.results": "digest", "quiet_from": "22:00", "quiet_until": "07:30"},
        page_of(table),
    )
    assert r.status_code == 303 and r.headers["location"].endswith("/contact#prefs")
    [event] = recorded(games, gid)
    assert event.seat == me and event.mail == {"post": "off"} and event.push == {"results": "digest"}
    assert (event.quiet_from, event.quiet_until) == ("22:00", "07:30")
    again = ann.get(page_of(table)).text
    assert 'value="22:00"' in again and 'value="07:30"' in again
    assert '<select id="pref-mail-post" name="mail.post"' in again
    mail_post = again.split('id="pref-mail-post"', 1)[1].split("</select>", 1)[0]
    assert '<option value="off" selected>' in mail_post


@pytest.mark.parametrize(
    ("data", "field"),
    [({"quiet_from": "22:00"}, "quiet_until"), ({"mail.post": "sometimes"}, "mail.post")],
)
def test_a_refusal_names_the_field_keeps_the_choices_and_records_nothing(ann, games, table, data, field):  # noqa: F811
    gid = table["game"]
    r = post(ann, f"/play/{gid}/notifications", {"push.end": "off", **data}, page_of(table))
    assert r.status_code == 303
    shown = ann.get(page_of(table)).text
    assert 'role="alert"' in shown and recorded(games, gid) == []
    if field.startswith("quiet"):
        assert f'id="err-prefs-{field}"' in shown and 'value="22:00"' in shown
    push_end = shown.split('id="pref-push-end"', 1)[1].split("</select>", 1)[0]
    assert '<option value="off" selected>' in push_end  # what was chosen is kept


@pytest.fixture
def db(app):  # noqa: F811
    """The read models' database, where a game's webhooks are kept."""
    return app.state.projector.db


def test_the_games_webhooks_are_listed_read_only_without_their_path(db, ann, games, table):  # noqa: F811
    key = str(games.get_game(table["game"], for_update=False).id)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(webhooks, "resolve", lambda host, port: ["93.184.216.34"])
        webhooks.add(
            db, key, GM, "https://chat.example.org/hooks/SECRET-TOKEN-PATH", "slack", ["results", "end"],
            allow_private=False,
        )  # fmt: skip
    shown = ann.get(page_of(table)).text
    section = shown.split('id="hooks"', 1)[1]
    assert "https://chat.example.org/…" in section and "slack" in section and "results are published" in section
    assert "SECRET-TOKEN-PATH" not in shown
    assert "/remove" not in section and "<form" not in section.split("</section>", 1)[0]


def test_only_a_seat_sets_preferences(app, table, games):  # noqa: F811
    with TestClient(app) as stranger:
        r = stranger.get(page_of(table))
        assert r.status_code == 401
    assert recorded(games, table["game"]) == []
