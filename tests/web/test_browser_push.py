"""Push to phones in a real (headless) Chromium (issue 31, item 2), at 1280 and 360 px, with and without JavaScript.

What is real: the page, its script and the service worker (``/sw.js``) that Chromium registers for the whole site;
Chromium's ``pushManager.subscribe``, which the page calls; the server's push, a real Web Push request encrypted
for the device and VAPID-signed, sent to a push service on loopback; the message the device decrypts from it,
delivered into the registered service worker by Chromium's own push delivery (DevTools Protocol
``ServiceWorker.deliverPushMessage``); the notification the worker shows; its click handler.

What is stood in, and why: no push service can be reached from our machines, and Chromium cannot subscribe
without one (a Playwright context is an incognito profile, where Chromium refuses the Push API outright; a
persistent profile waits for Google's push service, which is out of reach). So after the page's own attempt,
which the page reports, the test puts a stand-in device's subscription (its keys made by the test, its endpoint
the loopback push service) in the page's hidden fields, as the script would, and submits the page's form; the
push service's part is played by ``tests.push_service``, and the device's by the test, which decrypts the push
and hands the plaintext to Chromium. A headless Chromium shows no notification one could click, and opens no
window without a user's gesture: the click is a ``notificationclick`` event dispatched in the worker, with the
browser's opening of a window (``Clients.openWindow``) recorded instead of performed. Screenshots land in
test-output/screenshots/."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone

import pytest
import uvicorn

from application import push
from application.service import Caller
from domain.platform.commands import MakePost
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.topology import free_port
from tests.push_service import Device
from tests.web.axe import violations
from tests.web.test_browser_month import ARGS, CHROMIUM, SHOTS, pytestmark, shot, unlabelled  # noqa: F401
from tests.webhook_receiver import Receiver


@pytest.fixture
def service():
    r = Receiver().start()
    try:
        yield r
    finally:
        r.stop()


@pytest.fixture
def server(tmp_path):
    from api.app import create_app

    port = free_port()
    settings = Settings(data_dir=tmp_path, public_url=f"http://127.0.0.1:{port}", push_allow_private=True)
    app = create_app(settings)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        while not srv.started:
            if not thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", app.state.games, app.state.projector.db, settings
    finally:
        srv.should_exit = True
        thread.join(10)
        app.state.projector.db.close()
        app.state.games.close()


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def seated(games) -> tuple[str, str, str, str]:
    gid, _, _ = games.create_game("Lighthouse")
    wiz, token, _ = add_power(games, gid, "gm", "Wiz", "champion", "wizard")
    sov, _, _ = add_power(games, gid, "gm", "Sov", "city", "sovereign")
    return gid, wiz, token, sov


def pushed(games, db, settings) -> list[str]:
    """The sweep's part for push, inline: new ledger rows, each delivered; their statuses."""
    from workers.push import collect, deliver

    return [deliver(db, settings, row) for row in collect(db, games, datetime.now(timezone.utc))]


def registration_id(cdp, page) -> str:
    """The id DevTools gives the site's service worker registration."""
    found: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    for _ in range(50):
        live = [r for r in found if not r["isDeleted"]]
        if live:
            return live[0]["registrationId"]
        page.wait_for_timeout(100)
    raise AssertionError("no service worker registration")


NOTES = (
    "navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(n => [n.title, n.body, n.data]))"
)
CLICK = """() => self.registration.getNotifications().then(ns => {
  Clients.prototype.openWindow = function (url) { self.opened = url; return Promise.resolve(null); };
  Clients.prototype.matchAll = function () { return Promise.resolve([]); };
  self.dispatchEvent(new NotificationEvent("notificationclick", {notification: ns[0]}));
  return new Promise(done => setTimeout(done, 200)).then(() => self.opened);
})"""


@pytest.mark.parametrize("width", [1280, 360])
def test_a_seat_opts_in_from_chromium_and_its_service_worker_shows_the_push_and_opens_the_board(
    server, browser, service, width
):
    base, games, db, settings = server
    gid, wiz, token, sov = seated(games)
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.grant_permissions(["notifications"], origin=base)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{base}/signin/{gid}/{token}")
    page.goto(f"{base}/play/{gid}/contact")
    page.get_by_role("link", name="Push notifications on this phone or computer").click()
    page.wait_for_url(f"**/play/{gid}/push")
    assert not page.get_by_text("Push notifications need JavaScript").is_visible()
    assert unlabelled(page) == [] and violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.get_by_label("A name for this device").fill("Test phone")
    page.get_by_role("button", name="Turn push on for this device").click()
    status = page.get_by_role("status")
    status.filter(has_text="push").wait_for()
    # Chromium registered the site's service worker for the whole site, and tried to subscribe (see above).
    worker = context.service_workers[0] if context.service_workers else context.wait_for_event("serviceworker")
    assert worker.url == f"{base}/sw.js"
    assert page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)") == f"{base}/"
    # Here it cannot (no push service is reachable: see above); the page says so.
    assert "The browser could not subscribe to push" in status.inner_text()
    assert violations(page) == []
    shot(page, f"push-refused-{width}")
    phone = Device(service.url(f"/push/{width}"))
    sub = phone.subscription()
    page.evaluate(
        "([e, p, a]) => { const f = document.getElementById('push'); f.elements.endpoint.value = e;"
        " f.elements.p256dh.value = p; f.elements.auth.value = a; f.requestSubmit(); }",
        [sub["endpoint"], sub["keys"]["p256dh"], sub["keys"]["auth"]],
    )
    page.wait_for_url(f"**/play/{gid}/push")
    page.get_by_text("Push is on for Test phone.").wait_for()
    devices = page.locator("ul.devices li")
    assert devices.count() == 1 and "Test phone" in devices.inner_text()
    assert violations(page) == []
    shot(page, f"push-on-{width}")

    games.run(Caller.of(sov), gid, MakePost("table", "A light on the water, @Wiz."))
    assert pushed(games, db, settings) == ["sent"]
    (request,) = service.requests(f"/push/{width}")
    message = phone.decrypt(request)
    assert message["title"] == "Lighthouse: Sov mentioned you in The table" and "@Wiz" in message["body"]  # a mention

    cdp = context.new_cdp_session(page)
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": base, "registrationId": registration_id(cdp, page), "data": json.dumps(message)},
    )
    for _ in range(200):  # up to 20 s: the service worker shows it when the browser gets to it (a loaded machine)
        notes = page.evaluate(NOTES)
        if notes:
            break
        page.wait_for_timeout(100)
    assert notes == [[message["title"], message["body"], {"url": f"{base}/play/{gid}"}]]
    assert worker.evaluate(CLICK) == f"{base}/play/{gid}"  # the click opens the seat's board
    assert page.evaluate(NOTES) == []  # and closes the notification
    page.goto(f"{base}/play/{gid}")
    assert page.get_by_role("link", name="Notifications").is_visible()  # the seat's own board


def test_without_javascript_the_page_says_push_needs_it_and_the_devices_list_still_works(server, browser):
    base, games, db, settings = server
    gid, wiz, token, sov = seated(games)
    phone = Device("http://127.0.0.1:9/push/nojs").subscription()
    push.subscribe(
        db,
        gid,
        wiz,
        phone["endpoint"],
        phone["keys"]["p256dh"],
        phone["keys"]["auth"],
        "Old tablet",
        ["move"],
        allow_private=True,
        after=0,
    )
    for width in (1280, 360):
        # The page as a browser without JavaScript shows it, checked by axe (which needs JavaScript to run: here
        # only the page's push script is withheld) ...
        shown = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        shown.route("**/static/push.js", lambda route: route.abort())
        shown.goto(f"{base}/signin/{gid}/{token}")
        shown.goto(f"{base}/play/{gid}/push")
        assert shown.get_by_text("Push notifications need JavaScript").is_visible()
        assert not shown.get_by_role("button", name="Turn push on for this device").is_visible()
        assert unlabelled(shown) == [] and violations(shown) == []
        assert shown.evaluate("document.documentElement.scrollWidth") <= width
        shot(shown, f"push-nojs-{width}")
        # ... and in a browser that runs none, where the list of devices still works.
        page = browser.new_context(java_script_enabled=False, viewport={"width": width, "height": 900}).new_page()
        page.set_default_timeout(20_000)
        page.goto(f"{base}/signin/{gid}/{token}")
        page.goto(f"{base}/play/{gid}/push")
        assert page.get_by_text("Push notifications need JavaScript").is_visible()
        assert not page.get_by_role("button", name="Turn push on for this device").is_visible()
    page.get_by_role("button", name="Remove Old tablet").click()
    page.get_by_text("That device gets no more pushes.").wait_for()
    assert push.listing(db, gid, wiz) == []
