"""The Lodge's page (issue 15): the board as the viewer may see it (L.4), its choices offered as lists, and
forms that post to the same service. A Mage's page never shows another Mage's unrevealed Spell Cards nor the
Evocation deck's order."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from application.service import Caller, new_token
from domain.lodge import ruleset as lr
from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame, CastSpell, PhysicalAction, PrepareSpells
from domain.platform.commands import ReissueLink

ANN = {"QUICK": "unravel", "I": "firebolt", "III": "oblivion"}  # oblivion stays face down
BOB = {"I": "mend", "III": "restoration"}  # restoration stays face down


@pytest.fixture
def site(app, games):
    """Ann (red) and Bob (blue) in the Actions phase of turn 1: Ann cast Firebolt on Bob; each keeps a
    Spell face down."""
    gid, gm_token, _ = games.create_game("Lodge", ruleset="lodge")
    gm = Caller.of("gm")
    games.run_many(gm, gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    tokens = {"gm": gm_token}
    for mage in ("ann", "bob"):
        token, token_hash = new_token()
        games.run(gm, gid, ReissueLink(mage, token_hash))
        tokens[mage] = token
    games.run(Caller.of("ann"), gid, PrepareSpells("ann", ANN))
    games.run(Caller.of("bob"), gid, PrepareSpells("bob", BOB))
    games.run(gm, gid, AdvancePhase("prepare"))
    games.run(Caller.of("ann"), gid, CastSpell("ann", "I", "bob"))
    return app, gid, tokens


def page(app, gid: str, token: str) -> tuple[TestClient, str]:
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    r = client.get(f"/play/{gid}")
    assert r.status_code == 200, r.text
    return client, r.text


def test_a_mage_page_hides_the_other_mages_face_down_spells_and_the_deck_order(site, games):
    app, gid, tokens = site
    game = games.get_game(gid, for_update=False)
    # The deck's order is a secret no view shows (that is the rule checked here), so it is read from the state.
    deck = list(game.state.deck)
    assert deck  # the Evocation deck was shuffled at the start
    bob = page(app, gid, tokens["bob"])[1].lower()  # a card by its id or its name (issue 28: the page names it)
    assert "firebolt" in bob  # Ann's revealed Spell is on the board for everyone
    assert "oblivion" not in bob and "unravel" not in bob  # Ann's face-down Spells are hers and the host's
    assert "restoration" in bob and "mend" in bob  # Bob sees his own
    assert "a face-down card" in bob
    order = [d if isinstance(d, str) else d.get("card", "") for d in deck]
    assert not any(f"{a}, {b}" in bob or f"{a} {b}" in bob for a, b in zip(order, order[1:], strict=False))
    assert not any(card in bob for card in set(order))  # no Evocation is summoned: no deck card is named at all
    assert f"evocation deck: {len(deck)} cards" in bob
    ann = page(app, gid, tokens["ann"])[1].lower()
    assert "restoration" not in ann and "oblivion" in ann
    host = page(app, gid, tokens["gm"])[1].lower()
    assert "oblivion" in host and "restoration" in host  # the host sees every Mage's sheet
    assert not any(card in host for card in set(order))  # nobody sees the deck order


def test_the_page_shows_rooms_cubes_and_choices_as_lists_and_its_forms_post_to_the_service(site, games):
    app, gid, tokens = site
    client, html = page(app, gid, tokens["bob"])
    assert 'id="room-library"' in html and 'id="sheet-ann"' in html
    assert html.count('<span class="cube">Ann</span>') == 2  # Firebolt's two cubes on Bob's track, by name
    cast = re.search(r'<form method="post" action="/play/[^"]+/cast" id="cast-I">(.*?)</form>', html, re.S)
    assert cast is not None  # Bob's Mend, with the legal targets as a list
    assert re.search(r'<select name="target">.*<option value="bob"', cast.group(1), re.S)
    # issue 28: a Spell that only heals selects its caster first, never the opponent; shown by name, not id
    assert '<option value="bob" selected>Bob</option>' in cast.group(1) and 'value="ann" selected' not in cast.group(1)
    csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
    # heal the first of Bob's cubes by its position: the form posts the list choice to the service
    r = client.post(
        f"/play/{gid}/cast",
        data={"csrf": csrf, "slot": "I", "target": "bob", "heal[]": ["0"]},
        follow_redirects=False,
        headers={"origin": "http://testserver"},
    )
    assert r.status_code == 303, r.text
    assert games.view(gid, "gm")["mages"]["bob"]["damage"] == ["ann"]
    after = client.get(f"/play/{gid}").text
    assert "Spell cast." in after
    r = client.post(
        f"/play/{gid}/cast",
        data={"csrf": csrf, "slot": "I", "target": "bob"},
        follow_redirects=False,
        headers={"origin": "http://testserver"},
    )
    assert "LH-7" in client.get(f"/play/{gid}").text  # the slot was cast this turn: refused, with its rule


def test_the_host_seats_a_mage_from_the_page_and_gets_their_link(app, games):
    gid, gm_token, _ = games.create_game("Lodge", ruleset="lodge")
    client, html = page(app, gid, gm_token)
    assert "Seat the Mage" in html
    csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
    r = client.post(
        f"/play/{gid}/add-mage",
        data={"csrf": csrf, "mage_id": "ann", "name": "Ann", "colour": "red"},
        follow_redirects=False,
        headers={"origin": "http://testserver"},
    )
    assert r.status_code == 303, r.text
    after = client.get(f"/play/{gid}").text
    assert 'id="sheet-ann"' in after and f"/signin/{gid}/" in after and "turns+" in after
    token = re.search(rf"/signin/{gid}/([A-Za-z0-9_-]+)", after).group(1)
    assert games.authenticate(gid, token) == "ann"  # the link shown signs Ann in


def test_a_choice_an_effect_waits_for_is_offered_as_a_list_to_its_chooser_and_answered_from_the_page(site, games):
    """L.3: Bob's Walk (Move 1), used without naming the Room, waits for Bob's choice; his page lists the Rooms
    (the default selected) and the form answers it. Ann's page does not show it."""
    app, gid, tokens = site
    games.run(Caller.of("bob"), gid, PhysicalAction("bob", "walk"))
    (choice,) = [p["choice"] for p in games.view(gid, "bob")["prompts"]]
    client, html = page(app, gid, tokens["bob"])
    form = re.search(rf'<form method="post" action="/play/[^"]+/answer" id="prompt-{choice}">(.*?)</form>', html, re.S)
    assert form is not None and "<button" in form.group(1), html
    options = re.findall(r'<option value="([^"]+)"', form.group(1))
    assert "library" in options and re.search(r'<option value="[^"]+" selected>', form.group(1))
    assert f'id="prompt-{choice}"' not in page(app, gid, tokens["ann"])[1]
    csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
    r = client.post(
        f"/play/{gid}/answer",
        data={"csrf": csrf, "choice_id": choice, "option": "library"},
        follow_redirects=False,
        headers={"origin": "http://testserver"},
    )
    assert r.status_code == 303, r.text
    after = games.view(gid, "gm")
    assert after["prompts"] == [] and after["mages"]["bob"]["room"] == "library"


def test_a_target_left_open_on_the_page_is_asked_as_a_list_and_answered_from_it(site, games):
    """LH-1 / L-DUMMY-1: Bob casts Mend choosing "ask me after casting"; his page lists the legal targets with
    the Dummy (the default, selected) and the deadline; an option outside them is refused with its rule; the
    form answers it. Ann's page shows neither the choice nor Bob's face-down card."""
    app, gid, tokens = site
    client, html = page(app, gid, tokens["bob"])
    csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
    post = {"follow_redirects": False, "headers": {"origin": "http://testserver"}}
    r = client.post(f"/play/{gid}/cast", data={"csrf": csrf, "slot": "I", "target": ""}, **post)
    assert r.status_code == 303, r.text
    (choice,) = [p["choice"] for p in games.view(gid, "bob")["prompts"]]
    html = client.get(f"/play/{gid}").text
    form = re.search(rf'<form method="post" action="/play/[^"]+/answer" id="prompt-{choice}">(.*?)</form>', html, re.S)
    assert form is not None, html
    assert re.findall(r'<option value="([^"]+)"', form.group(1)) == ["ann", "bob", "dummy"]
    assert '<option value="dummy" selected>' in form.group(1) and "<time datetime=" in form.group(1)
    ann_page = page(app, gid, tokens["ann"])[1]
    assert f'id="prompt-{choice}"' not in ann_page and "mend" not in ann_page.lower()
    client.post(f"/play/{gid}/answer", data={"csrf": csrf, "choice_id": choice, "option": "library"}, **post)
    assert "LH-1" in client.get(f"/play/{gid}").text
    assert games.view(gid, "bob")["prompts"]  # refused: still waiting
    r = client.post(f"/play/{gid}/answer", data={"csrf": csrf, "choice_id": choice, "option": "bob"}, **post)
    assert r.status_code == 303, r.text
    after = games.view(gid, "gm")
    assert after["prompts"] == [] and after["mages"]["bob"]["damage"] == []


def test_the_status_strip_shows_who_has_passed_to_everyone_and_the_live_fragment_follows(site, games):
    """Issue 17: the Lodge's strip says whose move it is and which Mages have passed (``Passed`` is public, L.4);
    once Bob passes, Ann's live fragment (what her board polls) says so, and it never shows Bob's face-down card."""
    app, gid, tokens = site
    ann, html = page(app, gid, tokens["ann"])
    strip = re.search(r'<section class="strip.*?</section>', html, re.S).group(0)
    assert "Your move." in strip and "Turn 1: Actions" in strip
    assert re.findall(r'seat-name">([^<]*)</span>: <span class="seat-word">([^<]*)<', strip) == [
        ("You", "still acting"),
        ("Bob", "still acting"),
    ]
    games.run(Caller.of("bob"), gid, lr.Pass("bob"))
    live = ann.get(f"/play/{gid}/live").text
    assert ("Bob", "passed") in re.findall(r'seat-name">([^<]*)</span>: <span class="seat-word">([^<]*)<', live)
    assert "restoration" not in live and 'hx-get="/play/' in live
    _, bob = page(app, gid, tokens["bob"])
    assert "Waiting on others." in bob and "Your move." not in bob


def test_phases_are_named_in_words_and_deadlines_are_in_the_viewers_zone_and_language(site, games):
    """Issue 17 ("phases named in words"; "every time in the viewer's zone and language"): the earlier-phase
    list and the "you are looking at" line name phases by their titles, and a deadline reads as a date in the
    viewer's zone, never a raw ISO time."""
    app, gid, tokens = site
    games.set_timezone(gid, "ann", "ann", "Europe/Berlin")
    client, ann = page(app, gid, tokens["ann"])
    options = re.findall(r'<option value="t1-[a-z-]+"[^>]*>([^<]*)</option>', ann)
    assert options and all(not o.startswith("t1-") for o in options), options
    deadline = re.search(r'closes <time datetime="([^"]+)">([^<]+)</time>', ann)
    assert (
        deadline and deadline.group(2).endswith(("CET", "CEST")) and not re.search(r"\d-\d\dT\d", deadline.group(2))
    ), deadline
    german = client.get(f"/play/{gid}", headers={"Accept-Language": "de-DE"}).text
    assert re.search(r'<time datetime="[^"]+">[A-Z][a-z]\., \d+\. [A-Z][a-z]+\.? 20\d\d, \d\d:\d\d CET', german)
    past = client.get(f"/play/{gid}", params={"phase": "t1-prepare"}).text
    assert "You are looking at <strong>t1-prepare" not in past and "You are looking at <strong>" in past
