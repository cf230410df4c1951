"""Issue 28 item 7 in a real (headless) Chromium, at 1280 and 360 px, with and without JavaScript, and by keyboard
alone: a mention highlights the seat named, by its name, and tells it "mentions you"; Reply quotes the post in the
form; Preview shows the draft as it would post, keeps the text and records nothing; the reply names what it answers
and links to it; a hidden post is a placeholder with its reason ("Hidden by the GM: ..."), never its words. axe finds
nothing and no page overflows sideways."""

from __future__ import annotations

import re

import pytest

from application.service import Caller
from domain.platform.commands import HidePost, MakePost
from tests.helpers import add_power
from tests.web.axe import violations
from tests.web.test_browser_signin import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401


def table(games):  # noqa: F811
    """Ann, Bob and Cy at the table of a Powers game: Ann names Bob (by his id, which the page shows as his name);
    Cy's post the GM hid."""
    gid, _, _ = games.create_game("Talk of the realm")
    tokens = {}
    for name in ("Ann", "Bob", "Cy"):
        seat, token, _ = add_power(games, gid, "gm", f"{name} of the Vale", "champion", "wizard")
        tokens[name] = (seat, token)
    ann, bob, cy = (tokens[n][0] for n in ("Ann", "Bob", "Cy"))
    games.run(Caller.of(ann), gid, MakePost("table", f"Hold the FORD-MARKER, @{bob.upper()}."))
    said = games.run(Caller.of(cy), gid, MakePost("table", "RUDE-MARKER words")).result["post_id"]
    games.run(Caller.of("gm"), gid, HidePost(said, "off-topic"))
    return gid, tokens


def posts_made(games, gid: str) -> list:  # noqa: F811
    return [e for e in games.iter_events(gid) if type(e).__name__ == "PostMade"]


def opened(browser, base, gid, token, *, width: int, js: bool = True):  # noqa: F811
    page = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    page.goto(f"{base}/play/{gid}/talk/table")
    return page


def fits(page, width: int, js: bool) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if js:
        assert unlabelled(page) == [] and violations(page) == []


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_mention_quote_preview_reply_and_a_hidden_posts_placeholder(server, browser, games, width, js):  # noqa: F811
    base, app = server
    gid, tokens = table(games)
    bob, token = tokens["Bob"]
    page = opened(browser, base, gid, token, width=width, js=js)
    first = page.locator("li.post").nth(0)
    assert first.locator("mark.mention").inner_text() == "@Bob of the Vale"  # the seat in words, not its id
    assert "mentions you" in first.locator(".byline").inner_text()
    hidden = page.locator("li.post").nth(1)
    assert hidden.locator(".hidden-note").inner_text() == "Hidden by the GM: off-topic"
    assert "RUDE-MARKER" not in page.content()
    fits(page, width, js)
    shot(page, f"posts-mention-placeholder-{width}{'' if js else '-nojs'}")

    first.get_by_role("link", name="Reply").click()
    page.wait_for_load_state()
    draft = page.get_by_label(re.compile("^Text"))
    assert draft.input_value().startswith("> Hold the FORD-MARKER") and "RUDE-MARKER" not in page.content()
    draft.fill(draft.input_value() + "Agreed, **BRIDGE-ANSWER**, @" + tokens["Ann"][0])
    before = len(posts_made(games, gid))
    page.get_by_role("button", name="Preview").click()
    page.wait_for_load_state()
    shown = page.locator("section.preview")
    assert shown.locator("blockquote").inner_text().startswith("Hold the FORD-MARKER")
    assert shown.locator("strong").inner_text() == "BRIDGE-ANSWER"
    assert shown.locator("mark.mention").all_inner_texts() == ["@Ann of the Vale"]  # not Bob, quoted, nor the author
    assert "BRIDGE-ANSWER" in page.get_by_label(re.compile("^Text")).input_value()  # the draft is kept
    assert len(posts_made(games, gid)) == before  # nothing recorded
    fits(page, width, js)
    shot(page, f"posts-preview-{width}{'' if js else '-nojs'}")

    page.get_by_role("button", name="Post", exact=True).click()
    page.wait_for_load_state()
    assert len(posts_made(games, gid)) == before + 1
    assert posts_made(games, gid)[-1].mentions == [tokens["Ann"][0]]
    reply = page.locator("li.post").filter(has_text="BRIDGE-ANSWER")
    link = reply.get_by_role("link", name="in reply to Ann of the Vale")
    fits(page, width, js)
    link.click()
    page.wait_for_load_state()
    assert re.search(r"/talk/table\?before=\d+#post-1$", page.url), page.url


def test_reply_preview_and_post_by_keyboard_alone(server, browser, games):  # noqa: F811
    base, app = server
    gid, tokens = table(games)
    _, token = tokens["Bob"]
    page = opened(browser, base, gid, token, width=360)

    def tab_to(check: str, limit: int = 120) -> None:
        for _ in range(limit):
            if page.evaluate(check):
                return
            page.keyboard.press("Tab")
        raise AssertionError(f"never reached by Tab: {check}")

    tab_to("document.activeElement.textContent === 'Reply'")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    tab_to("document.activeElement.id === 'text'")
    page.keyboard.press("Control+End")
    page.keyboard.type("KEYBOARD-ANSWER")
    tab_to("document.activeElement.textContent === 'Preview'")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "KEYBOARD-ANSWER" in page.locator("section.preview").inner_text()
    tab_to("document.activeElement.textContent === 'Post' && document.activeElement.tagName === 'BUTTON'")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    [*_, made] = posts_made(games, gid)  # Bob, quoting the post that named him, names nobody
    assert made.text.endswith("KEYBOARD-ANSWER") and made.reply_to is not None and made.mentions == []
