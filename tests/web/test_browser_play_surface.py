"""Issue 17, "What was seen": each fix shown in a real (headless) Chromium driven by Playwright, at 1280 and
360 px. The server and the browser are the fixtures of ``test_browser_month`` (both stopped even when a test
fails); screenshots land in test-output/screenshots/."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from domain.powers import commands as pc
from tests.domain.helpers import seen, step_of
from tests.helpers import add_power
from tests.web.test_browser_month import browser, games, pytestmark, server, shot  # noqa: F401  (fixtures)


def rich_game(app, names=("Gandalf", "Rangers", "Gondor")):
    """A game in month 1 Planning with three powers, by the service; the GM's and the powers' tokens."""
    games = app.state.games  # noqa: F811 - the service of the app given, not the fixture
    gid, gm_token, _ = games.create_game("Middle-earth", "GM", "Europe/Paris")
    tokens = {}
    for name, cls, sub in zip(names, ("champion", "conspiracy", "city"), ("wizard", "circle", "sovereign")):
        pid, token, _ = add_power(games, gid, "gm", name, cls, sub)
        tokens[pid] = token
    for pid in tokens:
        games.send(gid, "gm", pc.GrantAsset(pid, "might", "skill", 2))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return gid, gm_token, tokens


def signed_in(chromium, base, gid, token, width=1280):
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    return page


def feed_lines(page) -> list[str]:
    """The feed's lines as they read; on a board, the feed is folded away, one step off (issue 28): opened first."""
    folded = page.locator("#fold-feed:not([open]) > summary")
    if folded.count():
        folded.click()
    return [t.strip() for t in page.locator("#feed ol.feed li").all_inner_texts()]


def test_the_feed_reads_in_words_with_my_numbers_a_page_at_a_time(server, browser, games):  # noqa: F811
    """The feed names no internal event, numbers lines by the viewer's own event numbers (not by position,
    not the game's versions), and pages back past the newest 40 through "Older events"."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    for n in range(42):
        games.send(gid, "gm", pc.GrantAsset("gondor", f"beacon{n}", "agent", 1))
    games.send(gid, "gandalf", pc.SubmitAction("gandalf", title="Duel the Witch-king", skill="might"))
    gondor = signed_in(browser, base, gid, tokens["gondor"], width=360)
    lines = feed_lines(gondor)
    assert len(lines) == 40
    text = "\n".join(lines)
    assert not re.search(r"StepBegan|SeedCommitted|WindowOpened|AssetGranted|gm advanced", text)
    assert "Gondor gained the asset beacon41 (agent, rank 1)." in text
    assert "Duel the Witch-king" not in gondor.content()  # Gandalf's private action
    mine = games.visible_events(gid, "gondor", limit=1000)
    assert lines[0].startswith(f"#{mine[-1]['seq']} ")  # the newest, by Gondor's own number
    shot(gondor, "play17-01-feed-in-words-phone")
    gondor.get_by_role("link", name="Older events").click()
    older = feed_lines(gondor)
    assert older[0].startswith(f"#{mine[-41]['seq']} ") and older[-1].startswith("#1 ")
    assert "Season 1, month 1: Planning began." in "\n".join(lines + older)
    shot(gondor, "play17-02-feed-older-page")
    gm = signed_in(browser, base, gid, gm_token)
    gm_lines = feed_lines(gm)
    assert "Gandalf submitted “Duel the Witch-king” (private). by Gandalf" in "\n".join(gm_lines)
    assert gm_lines[0].startswith(f"#{games.visible_events(gid, 'gm', limit=1000)[-1]['seq']} ")


def in_language(tag: str, iso: str, zone: str) -> str:
    """A time as a viewer whose browser asks for ``tag`` reads it (``api.web.i18n.local_time``)."""
    from api.web import i18n

    token = i18n._locale.set(i18n.choose(tag, None))
    try:
        return i18n.local_time(iso, zone)
    finally:
        i18n._locale.reset(token)


def test_times_are_in_my_zone_and_the_audit_filters_are_choices_by_name(server, browser, games):  # noqa: F811
    """Receipts, the feed and the audit show times in the viewer's own zone in words, never raw UTC ISO; the
    audit's filters are selects of powers and event kinds by name, and a name typed in any case finds the same."""

    base, app = server
    gid, gm_token, tokens = rich_game(app)
    games.set_timezone(gid, "gondor", "gondor", "America/New_York")
    gondor = signed_in(browser, base, gid, tokens["gondor"], width=360)
    gondor.get_by_label("Title", exact=True).fill("Light the beacons")
    gondor.get_by_role("button", name="Submit and roll").click()
    receipt = gondor.locator("p.receipt")
    stamp = receipt.locator("time")
    iso = stamp.get_attribute("datetime")
    expected = in_language("en-US", iso, "America/New_York")  # Chromium asks for en-US
    assert stamp.inner_text() == expected and expected.endswith(("EST", "EDT"))
    assert "+00:00" not in receipt.inner_text()
    gondor.locator("#fold-feed > summary").click()  # the feed is folded away, one step off (issue 28 item 2)
    assert "(times in America/New_York)" in gondor.locator("#feed h2").inner_text()
    first = gondor.locator("#feed time").first
    assert first.inner_text() == in_language("en-US", first.get_attribute("datetime"), "America/New_York")
    shot(gondor, "play17-03-receipt-in-my-zone")

    gm = signed_in(browser, base, gid, gm_token)
    gm.goto(f"{base}/play/{gid}/audit")
    cells = gm.locator("tbody tr td:nth-child(4)").all_inner_texts()
    assert cells and all(c.endswith(("CET", "CEST")) and "+00:00" not in c for c in cells)
    gm.get_by_label("Seat (acting, shown or named)").select_option(label="Gandalf")
    with gm.expect_navigation():
        gm.get_by_role("button", name="Filter").click()
    assert "seat=gandalf" in gm.url
    by_choice = gm.locator("tbody tr").count()
    assert 0 < by_choice < len(cells)
    shot(gm, "play17-04-audit-filtered-by-name")
    for typed in ("Gandalf", "GANDALF", "gandalf"):
        gm.goto(f"{base}/play/{gid}/audit?seat={typed}")
        assert gm.locator("tbody tr").count() == by_choice, typed
    gm.goto(f"{base}/play/{gid}/audit?power=gandalf")  # the filter's first name, Powers' (api.powers.old_names)
    assert gm.locator("tbody tr").count() == by_choice
    gm.goto(f"{base}/play/{gid}/audit")
    gm.get_by_label("Event").select_option(label="Step began")
    with gm.expect_navigation():
        gm.get_by_role("button", name="Filter").click()
    kinds = gm.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert kinds and all(k.startswith("Step began") for k in kinds)
    gm.goto(f"{base}/play/{gid}/audit?type=stepbegan")
    assert gm.locator("tbody tr").count() == len(kinds)


def test_destructive_actions_ask_first_without_javascript_and_a_rollback_is_announced(server, browser, games):  # noqa: F811
    """Close Planning, discard, roll back and fork each ask on a page of their own (JavaScript off), and do
    nothing until confirmed; rollback offers the latest earlier phase, not the earliest; after a rollback
    every player's board shows a banner with the GM's reason until the next phase begins."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    step = lambda: step_of(games.get_game(gid, for_update=False))  # noqa: E731
    gm = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900}).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gondor = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 800}).new_page()
    gondor.goto(f"{base}/signin/{gid}/{tokens['gondor']}")

    gondor.get_by_label("Title", exact=True).fill("Light the beacons")
    gondor.get_by_role("button", name="Submit and roll").click()
    gondor.get_by_role("button", name="Discard").click()
    assert "Discard this action?" in gondor.content()
    shot(gondor, "play17-05-confirm-discard")
    gondor.get_by_role("link", name="No, go back").click()
    assert games.view(gid, "gondor")["my_actions"][0]["discarded"] is False
    gondor.get_by_role("button", name="Discard").click()
    gondor.get_by_role("button", name="Yes, discard it").click()
    assert "Action discarded" in gondor.content() and games.view(gid, "gondor")["my_actions"][0]["discarded"]

    gm.get_by_role("button", name="Close Planning", exact=True).click()
    assert "Close Planning now?" in gm.content() and step() == "planning"
    shot(gm, "play17-06-confirm-close-planning")
    gm.get_by_role("link", name="No, go back").click()
    assert step() == "planning"
    gm.get_by_role("button", name="Close Planning", exact=True).click()
    gm.get_by_role("button", name="Yes, close Planning").click()
    assert step() == "resolution"
    gm.get_by_role("button", name="Resolve and publish").click()
    gm.goto(f"{base}/play/{gid}")
    assert step() == "battle"
    gm.get_by_role("button", name="End the month").click()
    assert step() == "planning" and seen(games.get_game(gid, for_update=False))["game"]["month"] == 2

    gm.get_by_role("link", name="History").click()  # the console's tabs (issue 17): rollback is under History
    rb = gm.locator("#rb-phase")
    offered = rb.locator("option").all_inner_texts()
    assert offered[0] == "Season 1: Tidings"
    chosen = rb.locator("option:checked").inner_text()
    assert chosen == offered[-2] != offered[0]  # the latest phase before month 2's Planning
    gm.locator("#fk-name").fill("Sandbox")
    gm.get_by_role("button", name="Fork", exact=True).click()
    assert "Fork a sandbox game from" in gm.content()
    gm.get_by_role("link", name="No, go back").click()  # back to the form, in the History tab
    gm.locator("#rb-phase").select_option(label="Season 1, month 1: Planning")
    gm.locator("#rb-reason").fill("Gondor's beacon was lost in the post")
    gm.get_by_role("button", name="Roll back", exact=True).click()
    assert "Roll the game back to the start of Season 1, month 1: Planning?" in gm.content()
    assert seen(games.get_game(gid, for_update=False))["game"]["month"] == 2  # nothing yet
    shot(gm, "play17-07-confirm-rollback")
    gm.get_by_role("button", name="Yes, roll back").click()
    assert seen(games.get_game(gid, for_update=False))["game"]["month"] == 1 and step() == "planning"
    for pid in tokens:
        page = signed_in(browser, base, gid, tokens[pid], width=360)
        banner = page.locator("#rolled-back")
        assert "rolled the game back to Season 1, month 1: Planning" in banner.inner_text()
        assert "Gondor's beacon was lost in the post" in banner.inner_text()
        if pid == "gondor":
            shot(page, "play17-08-rollback-banner")
    gm.goto(f"{base}/play/{gid}")
    gm.get_by_role("button", name="Close Planning", exact=True).click()
    gm.get_by_role("button", name="Yes, close Planning").click()
    gondor.goto(f"{base}/play/{gid}")
    assert gondor.locator("#rolled-back").count() == 0  # the next phase began


def test_an_earlier_phase_shows_how_it_ended_and_began_without_a_countdown(server, browser, games):  # noqa: F811
    """An earlier phase is shown as it ended (the actions submitted in it), or as it began on request, with
    no live countdown, the feed cut at that point, and every phase named in words."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    games.send(gid, "gondor", pc.SubmitAction("gondor", title="Light the beacons", slot="public", roll=False))
    for _ in range(3):  # close Planning, resolve, end the month: month 2 Planning
        if step_of(games.get_game(gid, for_update=False)) == "resolution":
            games.send(gid, "gm", pc.Resolve(announcement="The beacons are lit"))
        else:
            games.send(gid, "gm", pc.Advance())
    assert seen(games.get_game(gid, for_update=False))["game"]["month"] == 2
    gondor = signed_in(browser, base, gid, tokens["gondor"])
    assert gondor.locator("time[data-countdown]").count() == 1  # now: month 2's deadline, counting down
    gondor.locator("#fold-phase > summary").click()  # folded away, one step off (issue 28 item 2)
    options = gondor.locator("#phase option").all_inner_texts()
    assert "Season 1, month 1: Planning" in options and "Season 1: Tidings" in options
    assert not any(re.match(r"s\d", o) for o in options)
    gondor.locator("#phase").select_option(label="Season 1, month 1: Planning")
    gondor.get_by_role("button", name="Show").click()
    assert "as it ended" in gondor.locator(".past").inner_text()
    assert "Light the beacons" in gondor.locator("#actions").inner_text()  # not "None yet"
    assert gondor.locator("time[data-countdown]").count() == 0 and gondor.locator(".countdown").count() == 0
    feed = "\n".join(feed_lines(gondor))
    assert "Season 1, month 1: Planning began." in feed
    assert "Resolution began" not in feed and "The beacons are lit" not in feed  # cut at the phase's end
    assert "Up to the end of Season 1, month 1: Planning" in gondor.locator("#feed").inner_text()
    shot(gondor, "play17-09-earlier-phase-as-it-ended")
    gondor.get_by_role("link", name="See it as it began").click()
    assert "as it began" in gondor.locator(".past").inner_text()
    assert "None yet" in gondor.locator("#actions").inner_text()
    assert gondor.locator("time[data-countdown]").count() == 0 and gondor.locator(".countdown").count() == 0
    assert "was to close" in gondor.content()  # the deadline as it stood, not counting down
    shot(gondor, "play17-10-earlier-phase-as-it-began")


def test_every_new_link_stays_listed_with_copy_until_dismissed_and_fits_a_phone(server, browser, games):  # noqa: F811
    """The console keeps each new seat's sign-in link listed (a read-only field, selectable without
    JavaScript, and a Copy button with it) until the GM dismisses it; at 360 px nothing overflows."""
    base, app = server
    gid, gm_token, _ = games.create_game("Links", "GM", "UTC")
    gm = signed_in(browser, base, gid, gm_token, width=360)
    gm.get_by_role("link", name="Powers and links").click()  # the console's tabs (issue 17)
    for name, kind in (("Gandalf", "champion:wizard"), ("Rangers", "conspiracy:circle"), ("Gondor", "city:sovereign")):
        gm.locator("#pname").fill(name)
        gm.locator("#pkind").select_option(kind)
        gm.get_by_role("button", name="Add", exact=True).click()
    fields = {n: gm.get_by_label(f"Sign-in link for {n}") for n in ("Gandalf", "Rangers", "Gondor")}
    for name, field in fields.items():
        assert field.get_attribute("readonly") is not None and f"/signin/{gid}/" in field.input_value(), name
    assert gm.evaluate("document.documentElement.scrollWidth") <= 360
    shot(gm, "play17-11-links-kept-phone")
    copy = gm.locator('#links button[data-copy="link-rangers"]')
    assert copy.is_visible() and copy.inner_text() == "Copy"
    copy.click()
    expect(copy).to_have_text("Copied")  # the clipboard answers asynchronously: wait for the label
    gm.reload()  # still listed on the next page
    assert gm.get_by_label("Sign-in link for Gandalf").count() == 1
    gm.get_by_role("button", name="Dismiss the link for Rangers").click()
    assert gm.get_by_label("Sign-in link for Rangers").count() == 0
    assert (
        gm.get_by_label("Sign-in link for Gondor").count() == 1
        and gm.get_by_label("Sign-in link for Gandalf").count() == 1
    )
    gondor_link = gm.get_by_label("Sign-in link for Gondor").input_value()
    player = browser.new_context().new_page()
    player.goto(gondor_link)
    assert "Gondor" in player.title()
    # Without JavaScript: no Copy button, the link is in a field to select and copy.
    plain = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 800}).new_page()
    plain.goto(f"{base}/signin/{gid}/{gm_token}")
    assert plain.locator("#links").count() == 0  # this browser was shown no links
    plain.get_by_role("link", name="Powers and links").click()  # the console's tabs work without JavaScript
    plain.locator("#pname").fill("Rohan")
    plain.get_by_role("button", name="Add", exact=True).click()
    field = plain.get_by_label("Sign-in link for Rohan")
    assert field.is_visible() and field.get_attribute("readonly") is not None and "/signin/" in field.input_value()
    assert not plain.locator('button[data-copy="link-rohan"]').is_visible()  # no script: select the text
    assert plain.evaluate("document.documentElement.scrollWidth") <= 360
    shot(plain, "play17-12-link-without-javascript")


def test_forms_offer_only_what_is_possible_and_keep_what_was_typed(server, browser, games):  # noqa: F811
    """A refused action keeps what was typed; a Wizard is offered no public slot; a proposal has no "Roll
    now" until its difficulty is set, then offers assured use; "actions left" goes after Planning; the
    resistance form lists only the assets that apply (one row for identical schemes); the waiver is
    confirmed; "Go to Battle" is not offered while the resistance window is open."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    games.send(gid, "gm", pc.GrantAsset("gondor", "subtlety", "skill", 1))
    games.send(gid, "gm", pc.GrantAsset("rangers", "Old map", "item", 1, assured=True))
    gandalf = signed_in(browser, base, gid, tokens["gandalf"], width=360)
    assert gandalf.get_by_label(re.compile(r"^Public")).count() == 0  # a Wizard takes no public actions
    assert gandalf.get_by_label("Private (5 left)").is_checked()
    gandalf.get_by_label("Title", exact=True).fill("Scry the tower")
    gandalf.get_by_label("What you do").fill("Look into the palantir")
    gandalf.get_by_label("Skill tag").select_option("lore")
    gandalf.get_by_role("group", name=re.compile("^Targets")).get_by_label("Gondor").check()
    gandalf.locator("#compose input[name='asset[]']").first.check()
    gandalf.get_by_role("button", name="Submit and roll").click()
    assert "P-ASSET-3" in gandalf.locator("#compose").inner_text()
    assert gandalf.get_by_label("Title", exact=True).input_value() == "Scry the tower"
    assert gandalf.get_by_label("What you do").input_value() == "Look into the palantir"
    assert gandalf.get_by_label("Skill tag").input_value() == "lore"
    assert gandalf.get_by_role("group", name=re.compile("^Targets")).get_by_label("Gondor").is_checked()
    assert gandalf.locator("#compose input[name='asset[]']").first.is_checked()
    shot(gandalf, "play17-13-refused-form-keeps-input")

    rangers = signed_in(browser, base, gid, tokens["rangers"])
    rangers.get_by_label("Title", exact=True).fill("Spy on Minas Tirith")
    rangers.get_by_label("Propose only: the GM sets the difficulty first, then I roll").check()
    rangers.get_by_role("button", name="Submit and roll").click()
    card = rangers.locator("article", has_text="Spy on Minas Tirith")
    assert "Waiting for the GM to set the difficulty" in card.inner_text()
    assert card.get_by_role("button", name="Roll now").count() == 0
    proposal = games.view(gid, "rangers")["my_actions"][0]["action_id"]
    games.send(gid, "gm", pc.SetDifficulty(proposal, 2))
    rangers.reload()
    card = rangers.locator("article", has_text="Spy on Minas Tirith")
    assert card.get_by_role("button", name="Roll now").count() == 1
    options = card.locator("select[name^='mode-']").locator("option").all_inner_texts()
    assert options == ["rolled", "assured"]

    games.send(
        gid,
        "gandalf",
        pc.SubmitAction(
            "gandalf",
            title="Duel the Witch-king",
            skill="might",
            targets=["gondor"],
            resistible=True,
            difficulty=1,
            assets=[{"asset_id": games.view(gid, "gandalf")["me"]["assets"][0]["asset_id"]}],
            convert=0,
        ),
    )
    games.send(gid, "gm", pc.Advance())  # Planning closes: unused actions become schemes
    games.send(gid, "gm", pc.Resolve(announcement="The beacons are lit"))
    gondor = signed_in(browser, base, gid, tokens["gondor"], width=360)
    assert "Actions left this month" not in gondor.locator("#sheet").locator("..").inner_text()
    resist = gondor.locator("#resistance")
    offered = resist.locator("input[name='asset[]']").evaluate_all("els => els.map(e => e.parentElement.innerText)")
    assert sorted(o.strip() for o in offered) == ["might (skill, rank 2)", "scheme (scheme, rank 2)"], offered
    assert len([a for a in games.view(gid, "gondor")["me"]["assets"] if a["cls"] == "scheme"]) == 4
    shot(gondor, "play17-14-resistance-only-assets-that-apply")
    gm = signed_in(browser, base, gid, gm_token)
    assert gm.get_by_role("button", name="Go to Battle").count() == 0
    assert "Battle begins when the resistance window closes" in gm.content()
    gondor.get_by_role("button", name="Waive my reaction").click()
    assert "You waived your reaction." in gondor.content()
    shot(gondor, "play17-15-waived")


def test_results_read_in_words_and_the_resolution_is_on_every_board(server, browser, games):  # noqa: F811
    """The GM's announcement is on every board and the console (and in the feed); an action with no
    difficulty reads "Done", never "success — 0 successes, net 0 against 0"; a resisted one says how many
    successes resistance took away, naming the resister when the action had one target."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    might = {p: games.view(gid, p)["me"]["assets"][0]["asset_id"] for p in tokens}
    sure = {
        p: games.send(gid, "gm", pc.GrantAsset(p, "Sure hand", "item", 1, assured=True)).result["asset_id"]
        for p in tokens
    }
    games.send(
        gid,
        "gandalf",
        pc.SubmitAction(
            "gandalf",
            title="Duel the Witch-king",
            skill="might",
            targets=["gondor"],
            resistible=True,
            difficulty=1,
            assets=[{"asset_id": might["gandalf"]}, {"asset_id": sure["gandalf"], "mode": "assured"}],
            convert=0,
        ),
    )
    games.send(gid, "rangers", pc.SubmitAction("rangers", title="Keep watch", convert=0))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement="The beacons are lit! Rohan answers."))
    games.send(
        gid,
        "gondor",
        pc.DeclareReaction(
            "gondor",
            games.view(gid, "gandalf")["my_actions"][0]["action_id"],
            [{"asset_id": might["gondor"]}, {"asset_id": sure["gondor"], "mode": "assured"}],
            0,
        ),
    )
    assert step_of(games.get_game(gid, for_update=False)) == "battle"
    for pid, token in [*tokens.items(), ("gm", gm_token)]:
        page = signed_in(browser, base, gid, token, width=360)
        assert "The beacons are lit! Rohan answers." in page.locator("#announcement").inner_text(), pid
        assert "The GM published the resolution: The beacons are lit! Rohan answers." in "\n".join(feed_lines(page))
        if pid == "rangers":
            result = page.locator("#actions p.result").inner_text()
            assert result == "Result: Done (no difficulty was set): 0 successes.", result
            shot(page, "play17-16-announcement-and-result")
        if pid == "gandalf":
            result = page.locator("#actions p.result").inner_text()
            assert re.fullmatch(
                r"Result: (Succeeded|Failed): \d+ success(es)?(, [1-9]\d* taken away by Gondor's resistance, net \d+) "
                r"against difficulty 1( \(\d+ to spare\))?\.",
                result,
            ), result
            assert "net 0 against 0" not in page.content()


def test_every_die_is_drawn_with_words_and_the_preview_needs_no_javascript(server, browser, games):  # noqa: F811
    """Assured dice are drawn (as many dice as the pool's size), each die says in words what it counts for,
    a legend explains them, and the conversion choices are counted by the server (JavaScript off); the count
    shown for a choice is the one the action gets when it is confirmed."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    games.send(gid, "gm", pc.GrantAsset("gandalf", "Staff", "item", 2, assured=True))
    gandalf = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 800}).new_page()
    gandalf.goto(f"{base}/signin/{gid}/{tokens['gandalf']}")
    gandalf.get_by_label("Title", exact=True).fill("Light the Staff")
    boxes = gandalf.locator("#compose input[name='asset[]']")
    boxes.nth(0).check()
    boxes.nth(1).check()
    gandalf.locator("#compose select[name^='mode-']").select_option("assured")
    gandalf.get_by_role("button", name="Submit and roll").click()
    card = gandalf.locator("#actions article").first
    assert "Pool size 4" in card.inner_text()
    dice = card.locator("ul.dice li")
    assert dice.count() == 4 and card.locator("ul.dice li.assured").count() == 2
    words = [t.split("\n")[-1] for t in dice.all_inner_texts()]
    assert all(w in ("success", "may convert", "no success", "assured") for w in words), words
    assert "Assured: a success without a roll." in card.locator(".legend").inner_text()
    choices = card.locator("ul.preview li").all_inner_texts()
    convertible = words.count("may convert")
    assert len(choices) == convertible + 1
    base_successes = words.count("success") + 2
    assert choices[0] == f"Convert 0: {base_successes} success{'es' if base_successes != 1 else ''}, 0 consequences"
    shot(gandalf, "play17-17-dice-drawn-with-words")
    card.locator("input[name=convert]").fill(str(convertible))
    card.get_by_role("button", name="Confirm conversions").click()
    action = games.view(gid, "gandalf")["my_actions"][0]
    expected = choices[-1].split(": ", 1)[1]
    assert expected.startswith(f"{action['successes']} success") and f"{action['consequences']} consequence" in expected
