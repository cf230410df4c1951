"""The installable web app and a seat's push page (issue 31, item 2): the manifest and the service worker are served
from our origin with their content types under the pages' security headers, every page links the manifest, and a
seat turns push on for a device from its page (the form the page's script fills in), lists its devices without
ever seeing an endpoint or a key, and removes one; a refusal names its field and records nothing."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application import push
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.push_service import Device

ORIGIN = {"Origin": "http://testserver"}


@pytest.fixture
def site(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, public_url="http://testserver", push_allow_private=True))
    try:
        games = app.state.games
        gid, gm_token, _ = games.create_game("Lighthouse")
        wiz, token, _ = add_power(games, gid, "gm", "Wiz", "champion", "wizard")
        yield app, gid, gm_token, token, app.state.projector.db, app.state.settings
    finally:
        close_app(app)


def signed_in(app, gid: str, token: str) -> TestClient:
    client = TestClient(app)
    assert client.get(f"/signin/{gid}/{token}", follow_redirects=False).status_code == 303
    return client


def csrf(client: TestClient, page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


def test_the_manifest_and_the_service_worker_are_served_from_our_origin(site):
    app, gid, *_ = site
    client = TestClient(app)
    manifest = client.get("/manifest.webmanifest")
    assert manifest.headers["content-type"] == "application/manifest+json"
    body = manifest.json()
    assert body["name"] == "Emissary" and body["start_url"] == "/me" and body["display"] == "standalone"
    for icon in body["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.headers["content-type"] == "image/png"
        size = int.from_bytes(got.content[16:20], "big")  # the PNG's width, from its header
        assert f"{size}x{size}" == icon["sizes"]
    worker = client.get("/sw.js")
    assert worker.headers["content-type"].startswith("text/javascript")
    assert worker.headers["cache-control"] == "no-cache"
    assert "script-src 'self'" in worker.headers["content-security-policy"]
    for handler in ('"push"', '"notificationclick"', "showNotification", "openWindow"):
        assert handler in worker.text
    page = client.get("/signin")
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page.text


def test_a_seat_turns_push_on_lists_and_removes_its_devices_from_its_page(site):
    app, gid, gm_token, token, db, settings = site
    client = signed_in(app, gid, token)
    page = f"/play/{gid}/push"
    shown = client.get(page)
    assert shown.status_code == 200
    assert f'data-key="{push.public_key(push.vapid(settings))}"' in shown.text
    assert "Push notifications need JavaScript" in shown.text and 'id="push-on" hidden' in shown.text
    assert f'href="/play/{gid}/push"' in client.get(f"/play/{gid}/contact").text  # Notifications links to it
    phone = Device("http://127.0.0.1:9/push/SECRET-ENDPOINT")
    sub = phone.subscription()
    form = {
        "csrf": csrf(client, page),
        "endpoint": sub["endpoint"],
        "p256dh": sub["keys"]["p256dh"],
        "auth": sub["keys"]["auth"],
        "label": "Pocket phone",
        "kinds[]": ["results", "mention"],
    }
    done = client.post(page, data=form, headers=ORIGIN)
    assert done.status_code == 200 and "Push is on for Pocket phone." in done.text
    (device,) = push.listing(db, gid, "wiz")
    assert device["label"] == "Pocket phone" and device["kinds"] == ["results", "mention"]
    assert "SECRET-ENDPOINT" not in done.text and sub["keys"]["p256dh"] not in done.text
    assert "results are published, a post that mentions me" in done.text
    gone = client.post(f"{page}/{device['id']}/remove", data={"csrf": csrf(client, page)}, headers=ORIGIN)
    assert "That device gets no more pushes." in gone.text and push.listing(db, gid, "wiz") == []


@pytest.mark.parametrize(
    "change, field, words",
    [
        ({"kinds[]": []}, "kinds", "kinds must list at least one of"),
        ({"p256dh": "bm90IGEga2V5"}, "keys.p256dh", "is not a P-256 public key"),
        ({"endpoint": ""}, "endpoint", "url must be an http or https address"),
    ],
)
def test_a_refused_device_names_its_field_on_the_page_and_records_nothing(site, change, field, words):
    app, gid, gm_token, token, db, settings = site
    client = signed_in(app, gid, token)
    page = f"/play/{gid}/push"
    sub = Device("http://127.0.0.1:9/push/x").subscription()
    form = {"csrf": csrf(client, page), "endpoint": sub["endpoint"], "p256dh": sub["keys"]["p256dh"]}
    form |= {"auth": sub["keys"]["auth"], "label": "Kept label", "kinds[]": ["move"], **change}
    shown = client.post(page, data=form, headers=ORIGIN)
    assert words in shown.text and 'role="alert"' in shown.text
    assert push.listing(db, gid, "wiz") == []
    if field == "kinds":
        assert 'value="Kept label"' in shown.text


def test_only_a_seat_has_a_push_page(site):
    app, gid, gm_token, *_ = site
    assert TestClient(app).get(f"/play/{gid}/push").status_code == 401
    gm = signed_in(app, gid, gm_token)
    refused = gm.get(f"/play/{gid}/push")
    assert refused.status_code == 403 and "only a seat of this game may have push notifications" in refused.text
