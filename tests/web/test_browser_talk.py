"""Two players and a GM talk through a month in a real (headless) Chromium, driven by Playwright (issue 16):
the GM's Tidings, a private negotiation by web and by email, a public conversation; each sees exactly their
share, and a third player sees none of the negotiation. Screenshots land in test-output/screenshots/."""

from __future__ import annotations

from api.mail_intake import MailIntake
from application.mail_addresses import talk_address
from domain.powers import commands as pc
from tests.helpers import add_power
from tests.web.test_browser_month import CHROMIUM, browser, games, pytestmark, server, settings, shot, unlabelled  # noqa: F401

assert CHROMIUM


def test_two_players_and_a_gm_negotiate_and_talk_over_a_month_by_web_and_by_email(server, browser, games, settings):  # noqa: F811
    base, app = server
    gid, gm_token, _ = games.create_game("Talk of the realm")
    tokens = {"gm": gm_token}
    for name, cls, sub in (("Ann", "champion", "wizard"), ("Bob", "conspiracy", "circle"), ("Cy", "city", "overlord")):
        pid, token, _ = add_power(games, gid, "gm", name, cls, sub)
        tokens[pid] = token
    pages = {}
    for who in ("gm", "ann", "bob", "cy"):
        page = browser.new_context(viewport={"width": 900, "height": 900}).new_page()
        page.goto(f"{base}/signin/{gid}/{tokens[who]}")
        pages[who] = page
    gm, ann, bob, cy = (pages[k] for k in ("gm", "ann", "bob", "cy"))

    # The season begins with the GM's Tidings, a narration post everyone reads.
    from application.service import Caller
    from domain.powers.commands import Advance

    games.run(Caller.of("gm"), gid, Advance(tidings="WINTER-TIDINGS: the passes close."))
    games.send(gid, "gm", pc.Advance())  # month 1 Planning
    cy.goto(f"{base}/play/{gid}/talk/narration")
    assert "WINTER-TIDINGS" in cy.content()

    # Ann opens a private thread with Bob and makes an offer on the web.
    ann.goto(f"{base}/play/{gid}/talk")
    assert unlabelled(ann) == []
    ann.get_by_label("Bob").check()
    ann.get_by_label("Title").fill("SECRET-PACT")
    ann.get_by_role("button", name="Open the thread").click()
    thread = ann.url.rsplit("/", 1)[-1]
    assert thread.startswith("thr-")
    ann.get_by_label("Text (Markdown; [roll 3d6] rolls dice)").fill("I offer **OFFER-GOLD** for the ford. [roll 2d6]")
    ann.get_by_role("button", name="Post").click()
    assert "<strong>OFFER-GOLD</strong>" in ann.content() and "[roll 2d6:" in ann.content()
    shot(ann, "talk-01-private-offer")

    # Bob sees what is new on his board, and answers by email, quoting Ann below.
    bob.goto(f"{base}/play/{gid}")
    assert "(2 new)" in bob.content()  # the Tidings and the offer
    address = talk_address(settings.mail_domain, settings.secret_key, games.get_game(gid), "bob", thread)
    reply = MailIntake(games, settings.mail_domain, settings.secret_key).receive(
        address, "<bob-1@example.org>", "ANSWER-BY-MAIL: agreed.\n\n> I offer OFFER-GOLD\n-- \nBob", None, "Re"
    )
    assert reply.accepted, reply.body
    ann.reload()
    assert "ANSWER-BY-MAIL" in ann.content() and "I offer OFFER-GOLD" not in ann.content().split("ANSWER-BY-MAIL")[1]

    # A public conversation at the table.
    cy.goto(f"{base}/play/{gid}/talk/table")
    cy.get_by_label("Text (Markdown; [roll 3d6] rolls dice)").fill("PUBLIC-GREETING from Cy")
    cy.get_by_role("button", name="Post").click()
    bob.goto(f"{base}/play/{gid}/talk/table")
    bob.get_by_label("Text (Markdown; [roll 3d6] rolls dice)").fill("PUBLIC-REPLY from Bob")
    bob.get_by_role("button", name="Post").click()

    # The month moves on; the GM reads every thread.
    games.send(gid, "gm", pc.Advance())  # Planning closes
    gm.goto(f"{base}/play/{gid}/talk/{thread}")
    assert "OFFER-GOLD" in gm.content() and "ANSWER-BY-MAIL" in gm.content()
    shot(gm, "talk-02-gm-reads-the-negotiation")

    share = {
        "ann": {"WINTER-TIDINGS", "OFFER-GOLD", "ANSWER-BY-MAIL", "PUBLIC-GREETING", "PUBLIC-REPLY", "SECRET-PACT"},
        "bob": {"WINTER-TIDINGS", "OFFER-GOLD", "ANSWER-BY-MAIL", "PUBLIC-GREETING", "PUBLIC-REPLY", "SECRET-PACT"},
        "cy": {"WINTER-TIDINGS", "PUBLIC-GREETING", "PUBLIC-REPLY"},
    }
    everything = set().union(*share.values())
    for who, sees in share.items():
        page = pages[who]
        html = ""
        for path in ("", "/talk", "/talk/table", "/talk/narration", f"/talk/{thread}", "/talk?q=OFFER"):
            page.goto(f"{base}/play/{gid}{path}")
            html += page.content()
        assert {m for m in everything if m in html} == sees, who
        assert (thread in html) == (who != "cy"), who
    shot(cy, "talk-03-cy-sees-only-the-table")
