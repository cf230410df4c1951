"""No secret reaches a log (issue 24, item 8): every process of the production topology (API, SMTP server,
Celery worker and beat, projection runner) runs at DEBUG on the real PostgreSQL and Redis; sign-in links, mailed
sign-in links, web sessions, bearer calls, turns mailed to secret reply addresses and replies to a thread's address
go through them; then every process's log is searched for every token, reply address token part, thread address
proof and session id issued: none is found, though the logs show the traffic (with the secrets redacted)."""

from __future__ import annotations

import json
import logging
import re
import smtplib
import time
from email.message import EmailMessage

import httpx
import pytest

from application.mail_addresses import reply_address
from projections import logs
from tests.integration.helpers import bearer
from tests.integration.topology import Topology, free_port, wait_healthy
from tests.mail.sink import Sink

pytestmark = pytest.mark.integration

ANN, BOB = "ann@example.org", "bob@example.org"
DOMAIN = "emissary.local"
SESSION = re.compile(r"emissary_session=([^;]*)")
EMAIL_LINK = re.compile(r"/signin/email/([A-Za-z0-9_-]+)")
TALK = re.compile(r"talk\+[0-9a-f-]{36}\.[^.@\s]+\.[^.@\s]+\.([0-9a-f]+)@", re.IGNORECASE)
PROCESSES = ("api", "smtpd", "worker", "beat", "projector")
METRICS_KEY = "metrics-" + "Qm7Zp2Xw9Lk4" * 3  # issue 27: a scrape's key is a secret too


@pytest.fixture
def topology(pg_schema_url, tmp_path, private_redis, sink):
    port, smtpd_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    logdir = tmp_path / "logs"
    logdir.mkdir()
    topo = Topology(
        {
            "EMISSARY_DATABASE_URL": pg_schema_url,
            "EMISSARY_BROKER_URL": private_redis,
            "EMISSARY_DATA_DIR": str(tmp_path),
            "EMISSARY_PORT": str(port),
            "EMISSARY_PUBLIC_URL": base,
            "EMISSARY_SWEEP_SECONDS": "1",
            "EMISSARY_SMTP_PORT": str(sink.port),
            "EMISSARY_SMTPD_PORT": str(smtpd_port),
            "EMISSARY_MAIL_DOMAIN": DOMAIN,
            "EMISSARY_LOG_LEVEL": "DEBUG",  # the most a deployment may log: secrets are redacted at any level
            "EMISSARY_DB_POOL_SIZE": "1",
            "EMISSARY_DB_MAX_OVERFLOW": "2",
            "EMISSARY_READMODEL_POOL_SIZE": "2",
            "EMISSARY_METRICS_KEY": METRICS_KEY,
        },
        logdir,
    )
    try:  # every process, and its children, stopped whatever happens (a failed start included)
        # Two server processes, as deployed (each builds its app), and their access log on, as it may be.
        topo.start("api", "serve", "--port", str(port), "--workers", "2")
        topo.start("smtpd", "smtpd", "--port", str(smtpd_port))
        topo.start("worker", "worker", "--concurrency", "1")
        topo.start("beat", "beat", "--schedule", str(tmp_path / "beat-schedule"))
        topo.start("projector", "projector")
        try:
            wait_healthy(base, 60, topo.procs["api"])
        except RuntimeError:
            pytest.fail(topo.logs())
        yield base, smtpd_port, topo
    finally:
        topo.stop_all()


def send_mail(port: int, to: str, body: str, message_id: str) -> None:
    msg = EmailMessage()
    msg["From"] = ANN
    msg["To"] = to
    msg["Subject"] = "Turn"
    msg["Message-ID"] = message_id
    msg.set_content(body)
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.send_message(msg)


def wait_for(what, timeout: float, topo: Topology):
    deadline = time.time() + timeout
    while not (found := what()):
        assert time.time() < deadline, topo.logs()
        time.sleep(0.2)
    return found


def csrf(client: httpx.Client, page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


def test_no_process_logs_a_token_a_reply_address_token_or_a_session_id(topology, sink):
    base, smtpd_port, topo = topology
    secrets: set[str] = set()
    sessions: set[str] = set()

    def keep_session(response: httpx.Response) -> None:
        for cookie in response.headers.get_list("set-cookie"):
            if (m := SESSION.search(cookie)) and m.group(1):
                sessions.add(m.group(1))

    hooks = {"response": [keep_session]}
    with httpx.Client(base_url=base, timeout=30) as http:
        r = http.post("/games", json={"name": "Logs"})
        gid, gm_token = r.json()["game_id"], r.json()["gm_token"]
        gm = bearer(gm_token)
        a = http.post(f"/games/{gid}/powers", headers=gm, json={"name": "A", "cls": "champion", "subclass": "dragon"})
        b = http.post(f"/games/{gid}/powers", headers=gm, json={"name": "B", "cls": "city", "subclass": "sovereign"})
        (pa, ta), (pb, tb) = ((p.json()["power_id"], p.json()["token"]) for p in (a, b))
        secrets |= {gm_token, ta, tb}
        for token, email in ((ta, ANN), (tb, BOB)):
            assert http.put(f"/games/{gid}/contact", headers=bearer(token), json={"email": email}).status_code == 200
        # A client that also puts its token in the query string, and one whose token was replaced.
        http.get(f"/games/{gid}/view", params={"token": ta}, headers=bearer(ta))
        old_b = tb
        tb = http.post(f"/games/{gid}/seats/{pb}/token", headers=gm).json()["token"]
        secrets.add(tb)
        assert http.get(f"/games/{gid}/view", headers=bearer(old_b)).status_code == 401
        # Prometheus scrapes with its key (issue 27); without it, refused.
        assert http.get("/metrics").status_code == 401
        assert "emissary_commands_total" in http.get("/metrics", headers=bearer(METRICS_KEY)).text
        http.get(f"/games/{gid}/view", headers={**bearer(ta), "X-Request-ID": "logged-request-1"})

    # The web: a seat's sign-in link, then its pages under the session it opened.
    with httpx.Client(base_url=base, timeout=30, event_hooks=hooks, follow_redirects=True) as web:
        assert web.get(f"/signin/{gid}/{ta}").status_code == 200
        assert web.get(f"/play/{gid}").status_code == 200
        web.get("/me")
    # A person signing in by a mailed link (the API mails it through the sink).
    with httpx.Client(base_url=base, timeout=30, event_hooks=hooks, follow_redirects=True) as person:
        assert person.post("/signin", data={"email": BOB, "csrf": csrf(person, "/signin")}).status_code == 200
        link = wait_for(lambda: [m for m in sink.to(BOB) if EMAIL_LINK.search(Sink.text(m))], 30, topo)
        email_token = EMAIL_LINK.search(Sink.text(link[0])).group(1)
        secrets.add(email_token)
        page = f"/signin/email/{email_token}"
        assert person.post(page, data={"csrf": csrf(person, page)}).status_code == 200
        assert person.get("/me").status_code == 200

    # Turns by mail: to a seat's reply address (answered to its contact), to a replaced one (refused at RCPT).
    send_mail(smtpd_port, reply_address(DOMAIN, gid, ta), "say: hello from the table", "<log-1@example.org>")
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send_mail(smtpd_port, reply_address(DOMAIN, gid, old_b), "say: hello", "<log-2@example.org>")
    wait_for(lambda: [m for m in sink.to(ANN) if "] Recorded: " in m["Subject"]], 30, topo)
    # The table post is notified to B by the worker, with B's thread reply address; B answers to it.
    notice = wait_for(lambda: [m for m in sink.to(BOB) if m["Reply-To"] and TALK.search(m["Reply-To"])], 60, topo)
    talk = notice[0]["Reply-To"]
    secrets.add(TALK.search(talk).group(1))
    send_mail(smtpd_port, talk, "Well met.", "<log-3@example.org>")
    wait_for(lambda: [m for m in sink.to(BOB) if "] Posted: " in m["Subject"]], 30, topo)

    assert len(sessions) >= 3 and len(secrets) == 6  # GM, A, B before and after its new link, mailed link, thread
    topo.stop_all()  # every line written before the logs are read
    found = []
    for name in PROCESSES:
        text = topo.log(name)
        assert text, f"{name} logged nothing"
        assert "--- Logging error ---" not in text, text  # a redacted record is still written as its handler wants
        assert [line for line in text.splitlines() if line.strip() and not line.startswith("{")] == [], name
        for secret in secrets | sessions | {METRICS_KEY}:
            for part in (secret, secret[:12], secret[-12:]):  # a token's part, such as a prefix, is a leak too
                if part in text:
                    found.append((name, part, text[max(text.index(part) - 120, 0) : text.index(part) + 40]))
    assert found == []
    # ... though the logs did see the traffic: the signed-in paths and the mail, with the secrets redacted.
    api_log, smtpd_log = topo.log("api"), topo.log("smtpd")
    assert f"/signin/{gid}/[redacted]" in api_log and "/signin/email/[redacted]" in api_log
    assert "token=[redacted]" in api_log
    # Issue 27: every process logs JSON lines (test_json_logs.py), the API's each with its request's id and game's id.
    lines = [json.loads(line) for line in api_log.splitlines() if line.strip()]
    assert lines and all({"at", "level", "logger", "message"} <= set(line) for line in lines)
    mine = [line for line in lines if line.get("request_id") == "logged-request-1"]
    assert mine and all(line["game_id"] == gid for line in mine), mine
    assert smtpd_log.count("mail answered message=") >= 2


def test_a_record_is_redacted_where_it_is_made_whatever_handler_writes_it():
    """The redaction is the log record's, not a handler's: a handler added later (as uvicorn and Celery add theirs)
    writes no secret either, whether it is in the message, its arguments (bytes too) or a traceback."""
    import io

    logs.install()
    game, token = "0b9c5e4e-7f1c-4d8e-9a53-3c0f4c8f9f10", "Sx4dD9aQ0pLm2Zr7Tt1uVw8yXb3cEe5f"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    logger = logging.getLogger("tests.logs")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        logger.info("%r recip: %s", ("127.0.0.1", 5000), f"<turns+{game}.{token}@{DOMAIN}>")
        logger.debug("%r >> %r", ("127.0.0.1", 5000), f"RCPT TO:<turns+{game}.{token}@{DOMAIN}>".encode())
        logger.info('%s - "%s %s HTTP/%s" %d', "1.2.3.4", "GET", f"/signin/{game}/{token}?x=1", "1.1", 303)
        logger.info("headers %s", {"authorization": f"Bearer {token}", "cookie": f"emissary_session={token}"})
        logger.info("turns+%s.%s@%s", game, token, DOMAIN)  # a secret made of several arguments
        try:
            raise ValueError(f"no such address turns+{game}.{token}@{DOMAIN}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    text = out.getvalue()
    assert token not in text and token[:12] not in text
    assert text.count(f"turns+{game}.[redacted]") == 4 and f"/signin/{game}/[redacted]" in text


def test_uvicorn_writes_a_redacted_access_line_as_it_writes_any_other():
    """uvicorn's access formatter unpacks a record's arguments: a token in a path's query string is redacted in its
    argument, and the line is written once, whole, with nothing else changed."""
    from uvicorn.logging import AccessFormatter

    logs.install()
    token = "Sx4dD9aQ0pLm2Zr7Tt1uVw8yXb3cEe5f"
    record = logging.getLogger("uvicorn.access").makeRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("1.2.3.4:5", "GET", f"/games/g/view?token={token}&after=3", "1.1", 200),
        None,
    )
    line = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False).format(record)
    assert line == '1.2.3.4:5 - "GET /games/g/view?token=[redacted]&after=3 HTTP/1.1" 200 OK'
