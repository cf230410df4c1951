"""Issue 17, "What was seen": in a real (headless) Chromium at 1280 and 360 px, the result of an action whose
difficulty the GM changed after the roll says so on the acting power's board and on the GM's console, with
no accessibility violation (axe) and nothing wider than a phone. The server and the browser are the fixtures
of ``test_browser_month``; screenshots land in test-output/screenshots/."""

from __future__ import annotations

from domain.powers import commands as pc
from tests.web.axe import violations
from tests.web.test_browser_month import SHOTS, browser, games, pytestmark, server, shot  # noqa: F401  (fixtures)
from tests.web.test_browser_play_surface import rich_game, signed_in

SAID = "The GM changed the difficulty from 1 to 3 after the roll."


def test_the_result_says_the_difficulty_was_changed_after_the_roll(server, browser, games):  # noqa: F811
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    might = games.view(gid, "gandalf")["me"]["assets"][0]["asset_id"]
    action = games.send(
        gid,
        "gandalf",
        pc.SubmitAction("gandalf", title="Duel the Witch-king", difficulty=1, assets=[{"asset_id": might}], convert=0),
    ).result["action_id"]
    games.send(gid, "gm", pc.SetDifficulty(action, 3))
    games.send(gid, "gm", pc.Advance())  # Planning closes
    games.send(gid, "gm", pc.Resolve(announcement="The beacons are lit"))
    for width in (1280, 360):
        gandalf = signed_in(browser, base, gid, tokens["gandalf"], width=width)
        result = gandalf.locator(f"#action-{action} p.result").inner_text()
        assert result.startswith("Result: ") and "against difficulty 3" in result and result.endswith(SAID), result
        assert violations(gandalf) == []
        assert gandalf.evaluate("document.scrollingElement.scrollWidth") <= width
        shot(gandalf, f"play17-difficulty-changed-after-roll-board-{width}")
        card = SHOTS / f"play17-difficulty-changed-after-roll-card-{width}.png"
        gandalf.locator(f"#action-{action}").screenshot(path=str(card))  # the card alone, readable
        gm = signed_in(browser, base, gid, gm_token, width=width)
        assert SAID in gm.locator(f"#gm-action-{action}").inner_text()
        assert violations(gm) == []
        shot(gm, f"play17-difficulty-changed-after-roll-console-{width}")
    gondor = signed_in(browser, base, gid, tokens["gondor"], width=360)
    assert SAID not in gondor.content()  # the ruling was Gandalf's and the GM's (P.4)
