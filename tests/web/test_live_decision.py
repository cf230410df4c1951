"""Issue 28 item 6, "Live updates refresh the open decision as well": what a board polls
(``GET /play/{game}/live?decision=<version>``) carries the viewer's open decision (its headline and the forms to
act on now) out of band when it is no longer the version the page holds, and nothing of it while it is; on every
ruleset with a board. It is drawn from the viewer's own view as the board is, so another seat's hidden decision
never reaches it (P.4, L.4, A.4). The fake ruleset (tests/plugins) has no board: its live answer carries none."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from application.service import Caller, new_token
from domain.covenants.commands import Move
from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame, PrepareSpells
from domain.platform.commands import ReissueLink
from domain.powers import commands as pc
from tests.covenants.play import Dice, fixed_three, play_to_a_sealed_bid
from tests.web.test_browser_play_surface import rich_game

REGION = re.compile(r'<div id="open-decision" class="open-decision" data-decision="(\w*)"( hx-swap-oob="true")?>')


def signed_in(app, gid: str, seat: str) -> TestClient:
    """A browser signed in to ``seat`` by a new link (the GM reissues it)."""
    token, digest = new_token()
    app.state.games.run(Caller.of("gm"), gid, ReissueLink(seat, digest))
    client = TestClient(app)
    assert client.get(f"/signin/{gid}/{token}").status_code == 200
    return client


def served(client: TestClient, gid: str) -> tuple[str, str]:
    """The board's open decision: its version, as the region and the strip's poll both carry it, and its markup."""
    html = client.get(f"/play/{gid}").text
    found = REGION.search(html)
    assert found and not found.group(2), "the board serves its open decision in place"
    version = found.group(1)
    assert re.fullmatch(r"[0-9a-f]{16}", version)
    assert re.search(rf'hx-get="/play/{gid}/live(\?feed=1&amp;|\?)decision={version}"', html), "the strip polls with it"
    return version, region_of(html)


def region_of(html: str) -> str:
    """The region's markup without its wrapper (the live answer's carries hx-swap-oob)."""
    start = REGION.search(html)
    assert start, "no open decision here"
    depth, i = 1, start.end()
    for tag in re.finditer(r"<(/?)div\b[^>]*>", html[i:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return html[i : i + tag.start()]
    raise AssertionError("the region is not closed")


def live(client: TestClient, gid: str, version: str) -> str:
    r = client.get(f"/play/{gid}/live", params={"feed": "1", "decision": version})
    assert r.status_code == 200 and 'id="status-strip"' in r.text
    return r.text


def carried(client: TestClient, gid: str, version: str) -> str | None:
    """The open decision the live answer carries out of band for a page holding ``version`` (None: none)."""
    html = live(client, gid, version)
    found = REGION.search(html)
    if found is None:
        return None
    assert found.group(2), "out of band"
    assert re.search(rf'hx-get="/play/{gid}/live\?feed=1&amp;decision={found.group(1)}"', html), "the next poll"
    return region_of(html)


def changes(client: TestClient, gid: str, act) -> tuple[str, str]:
    """The region's version before and after ``act``: unchanged, the live answer carries nothing; changed, it
    carries the new region, the one the board now serves, and nothing once the page holds it."""
    before, _ = served(client, gid)
    assert carried(client, gid, before) is None
    assert carried(client, gid, before) is None  # the version is the same each time it is drawn
    act()
    sent = carried(client, gid, before)
    assert sent is not None
    after, board = served(client, gid)
    assert after != before and sent == board
    assert carried(client, gid, after) is None
    return before, after


def test_issue28_powers_a_powers_decision_is_carried_when_the_gm_closes_planning_and_not_before(app, games):
    """P-ACT-1: in Planning a power composes its actions; once the GM moves the game on, its live answer carries
    the new headline (Resolution) without the compose form; the console's own decision (its next step) too."""
    gid, _, tokens = rich_game(app)
    gondor, gm = signed_in(app, gid, "gondor"), signed_in(app, gid, "gm")
    assert "Compose an action" in served(gondor, gid)[1] and "Close Planning" in served(gm, gid)[1]
    gm_before, _ = served(gm, gid)
    changes(gondor, gid, lambda: games.send(gid, "gm", pc.Advance()))
    now = served(gondor, gid)[1]
    assert "Compose an action" not in now and "Season 1, month 1: Resolution" in now
    assert "Resolve and publish" in carried(gm, gid, gm_before)


def test_issue28_powers_gm_2_a_difficulty_set_on_a_proposal_puts_the_roll_before_its_power(app, games):
    """GM-2: Rangers proposed an action; once the GM sets its difficulty, Rangers' live answer carries the roll
    form; Gondor's, untouched, carries nothing."""
    gid, _, _ = rich_game(app)
    rangers, gondor = signed_in(app, gid, "rangers"), signed_in(app, gid, "gondor")
    games.send(gid, "rangers", pc.SubmitAction("rangers", title="Spy on Minas Tirith", slot="private", roll=False))
    unchanged, _ = served(gondor, gid)
    proposal = games.view(gid, "rangers")["my_actions"][0]["action_id"]
    assert "Roll now" not in served(rangers, gid)[1]
    changes(rangers, gid, lambda: games.send(gid, "gm", pc.SetDifficulty(proposal, 2)))
    assert "Roll now" in served(rangers, gid)[1]
    assert carried(gondor, gid, unchanged) is None


def test_issue28_lodge_a_mages_decision_is_carried_when_the_host_ends_the_phase(app, games):
    """L.2: the host ends Prepare; each Mage's live answer carries the Actions phase's choices."""
    gid, _, _ = games.create_game("Lodge", ruleset="lodge")
    gm = Caller.of("gm")
    games.run_many(gm, gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    ann = signed_in(app, gid, "ann")
    host = signed_in(app, gid, "gm")
    host_before, _ = served(host, gid)
    games.run(Caller.of("ann"), gid, PrepareSpells("ann", {"I": "firebolt"}))
    games.run(Caller.of("bob"), gid, PrepareSpells("bob", {"I": "mend"}))
    changes(ann, gid, lambda: games.run(gm, gid, AdvancePhase("prepare")))
    assert "Turn 1: Actions" in served(ann, gid)[1] and "Cast Firebolt from slot I" in served(ann, gid)[1]
    assert "Turn 1: Actions" in carried(host, gid, host_before)


def test_issue28_covenants_a_seats_decision_is_carried_when_the_seat_before_it_moves(app, games):
    """A.1.2: only the seat at turn is offered its move; when Bob has moved, Cy's live answer carries Cy's own
    (Bob starts: the draw's face 2), and the auditor's headline stays as it was."""
    t = fixed_three(Dice(), starting_face=2, games=games)
    first, second = t.turn()[0], t.turn()[1]
    client = signed_in(app, t.game_id, second)
    assert "Your move." not in served(client, t.game_id)[1]
    changes(client, t.game_id, lambda: t.run(first, Move(first, t.view(first)["me"]["legal_moves"][0])))
    assert "Your move." in served(client, t.game_id)[1]


def test_issue28_the_fake_ruleset_has_no_board_and_its_live_answer_no_decision(app, games):
    """The fake ruleset (tests/plugins) has no pages: its live answer is the strip alone, decision or not."""
    from emissary_fake.ruleset import Join

    gid, _, _ = games.create_game("Tea", ruleset="table")
    games.run(Caller.of("gm"), gid, Join("ann", "Ann"))
    ann = signed_in(app, gid, "ann")
    assert carried(ann, gid, "0123456789abcdef") is None and carried(ann, gid, "") is None


# Another seat's hidden decision never reaches a seat's live answer: a stale version makes it carry the region.
STALE = "0000000000000000"


def test_issue28_powers_no_live_decision_carries_another_powers_private_action(app, games):
    """P.4: Gandalf's private action is Gandalf's and the GM's: it is in their live decisions and nobody else's."""
    gid, _, _ = rich_game(app)
    games.send(gid, "gandalf", pc.SubmitAction("gandalf", title="PRIVATE-GANDALF-PLOT", slot="private"))
    for seat, sees in (("gandalf", True), ("gm", False), ("gondor", False), ("rangers", False)):
        region = carried(signed_in(app, gid, seat), gid, STALE)
        assert region is not None and ("PRIVATE-GANDALF-PLOT" in region) is sees, seat
    # the console's decision is its calendar: the plot is in the GM's console elsewhere, never a power's
    assert "PRIVATE-GANDALF-PLOT" in signed_in(app, gid, "gm").get(f"/play/{gid}").text


def test_issue28_lodge_no_live_decision_carries_another_mages_face_down_spell(app, games):
    """L.4: a Mage's face-down Spells are hers (and the host's): her live decision offers to cast them; the other
    Mage's never names them."""
    gid, _, _ = games.create_game("Lodge", ruleset="lodge")
    gm = Caller.of("gm")
    games.run_many(gm, gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(Caller.of("ann"), gid, PrepareSpells("ann", {"QUICK": "unravel", "I": "firebolt", "III": "oblivion"}))
    games.run(Caller.of("bob"), gid, PrepareSpells("bob", {"I": "mend", "III": "restoration"}))
    games.run(gm, gid, AdvancePhase("prepare"))
    ann = carried(signed_in(app, gid, "ann"), gid, STALE).lower()
    bob = carried(signed_in(app, gid, "bob"), gid, STALE).lower()
    assert "cast unravel" in ann and "cast firebolt" in ann and "cast mend" in bob  # what each may cast now
    assert not any(card in bob for card in ("unravel", "firebolt", "oblivion"))
    assert "restoration" not in ann and "mend" not in ann


@pytest.mark.parametrize("seat", ["bob", "cy"])
def test_issue28_covenants_no_live_decision_carries_another_seats_sealed_bid(app, games, seat):
    """A.4: Ann's sealed bid (its vis and nonce) is in Ann's live decision; no other seat's."""
    t = play_to_a_sealed_bid(games)
    nonce = t.notes["ann_nonce"]
    assert nonce in carried(signed_in(app, t.game_id, "ann"), t.game_id, STALE)
    other = carried(signed_in(app, t.game_id, seat), t.game_id, STALE)
    assert "sealed bids from: ann" in other
    assert nonce not in other and "your sealed bid" not in other and "the bids (auditor)" not in other
