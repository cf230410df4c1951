"""Issue 17, "What was seen": after a rollback a player saw only a feed line and the undone phase silently
vanished. The covenant table and the Lodge board now say it as Powers' board does: a banner naming who rolled
back (the auditor of a covenant game, which has no GM; the Lodge's host), the phase it returned to in words,
and the reason, until the next phase begins. Shown in Chromium at 1280 and 360 px, with axe finding nothing;
screenshots land in test-output/screenshots/."""

from __future__ import annotations

import json

from application.service import Caller, new_token
from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame, PrepareSpells
from domain.platform.commands import ReissueLink
from tests.covenants.play import Dice, fixed_three, move_all
from tests.web.axe import violations
from tests.web.test_browser_play_surface import browser, games, pytestmark, server, shot, signed_in  # noqa: F401

WIDTHS = (1280, 360)


def token_for(games, gid: str, seat: str) -> str:  # noqa: F811
    token, digest = new_token()
    games.run(Caller.of("gm"), gid, ReissueLink(seat, digest))
    return token


def banner_at_both_widths(browser, base, gid, token, name: str, found: dict) -> list[str]:  # noqa: F811
    """The banner's text at 1280 and 360 px (each a fresh page), with axe's findings and a screenshot of each."""
    texts = []
    for width in WIDTHS:
        page = signed_in(browser, base, gid, token, width=width)
        banner = page.locator("#rolled-back")
        texts.append(banner.inner_text() if banner.count() else "")
        wrong = violations(page)
        if wrong:
            found[f"{name}@{width}"] = wrong
        if page.evaluate("document.scrollingElement.scrollWidth") > width:
            found[f"{name}@{width} overflow"] = True
        shot(page, f"{name}-{width}")
        page.context.close()
    return texts


def test_the_covenant_table_tells_every_seat_the_auditor_rolled_back_and_why(server, browser, games):  # noqa: F811
    base, app = server
    t = fixed_three(Dice(), games=games)
    (move,) = [p["phase"] for p in games.recent_phases(t.game_id, 10)]
    move_all(t, [1, 3, 5])
    assert t.phase() == "create"
    games.rollback(t.game_id, "gm", "Bob's move was sent by mistake", phase=move)
    assert t.phase() == "move"
    found: dict = {}
    for seat in [*t.seats, "gm"]:
        token = token_for(games, t.game_id, seat)
        for text in banner_at_both_widths(browser, base, t.game_id, token, f"cov-rb-{seat}", found):
            assert "The auditor rolled the game back to Year 1, spring, cycle 1: Move." in text, (seat, text)
            assert "Their reason: “Bob's move was sent by mistake”" in text
    assert not found, json.dumps(found, indent=1)
    move_all(t, [1, 3, 5])  # the next phase begins: the table has moved on
    page = signed_in(browser, base, t.game_id, token_for(games, t.game_id, "ann"), width=360)
    assert page.locator("#whose-turn").count() == 1 and page.locator("#rolled-back").count() == 0


def test_the_lodge_board_tells_every_mage_the_host_rolled_back_and_why(server, browser, games):  # noqa: F811
    base, app = server
    gm = Caller.of("gm")
    gid, gm_token, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(gm, gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(Caller.of("ann"), gid, PrepareSpells("ann", {"QUICK": "unravel", "I": "firebolt", "III": "oblivion"}))
    games.run(Caller.of("bob"), gid, PrepareSpells("bob", {"I": "mend", "III": "restoration"}))
    games.run(gm, gid, AdvancePhase("prepare"))
    phase = lambda: games.view(gid, "gm")["game"]["phase"]  # noqa: E731
    assert phase() != "prepare"
    games.rollback(gid, "gm", "Ann meant to keep Oblivion for turn 2", phase="t1-prepare")
    assert phase() == "prepare"
    found: dict = {}
    tokens = {"gm": gm_token, "ann": token_for(games, gid, "ann"), "bob": token_for(games, gid, "bob")}
    for who, token in tokens.items():
        for text in banner_at_both_widths(browser, base, gid, token, f"lodge-rb-{who}", found):
            assert "The host rolled the game back to Turn 1: Prepare." in text, (who, text)
            assert "Their reason: “Ann meant to keep Oblivion for turn 2”" in text
    assert not found, json.dumps(found, indent=1)
    games.run(gm, gid, AdvancePhase("prepare"))  # the next phase begins: the banner goes
    page = signed_in(browser, base, gid, tokens["bob"], width=360)
    assert page.locator("#where").count() == 1 and page.locator("#rolled-back").count() == 0
