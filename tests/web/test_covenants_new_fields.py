"""The covenant commands' later fields on the web table (api/covenants/web.py, templates/table.html): a Grimoire's
spell, the Mouse before a generation or event roll, the gold and vis kept at the Winter Reckoning, and the host
seating a covenant with points already earned. Each is played through the form the page offers, without
JavaScript; a refused form names its field or rule and changes nothing."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from application.service import Caller
from domain.covenants.commands import AddCovenant, Cast, Discard, Generate, Keep, Move
from domain.covenants.house import default_data
from tests.covenants.play import (
    Dice,
    Table,
    fixed_three,
    generate_and_keep,
    move_all,
    pass_create,
    pass_main,
    reckon,
    skip_season,
)
from tests.domain.test_covenants_leftovers import HAIL, PE_CO, bobs_three, card
from tests.domain.test_covenants_rules_as_written import GRIMOIRE, end_season
from tests.web.test_covenants_forms import Seats


def _refused(w: Seats, seat: str, form: str, data: dict) -> str:
    """Post a form the seat's page offers with values it should refuse; the alert the page shows."""
    page = w.page(seat)
    assert f'action="/play/{w.t.game_id}/{form}"' in page, f"{seat}'s page offers no {form} form"
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    html = w.client(seat).post(f"/play/{w.t.game_id}/{form}", data={**data, "csrf": csrf}, follow_redirects=True)
    alert = re.search(r'<p class="error" role="alert">(.*?)</p>', html.text, re.S)
    assert alert is not None, f"the {form} form was not refused"
    return alert.group(1)


def _cards(t: Table, seat: str) -> dict[str, dict]:
    return {c["id"]: c for c in t.view("gm")["covenants"][seat]["cards"]}


def _version(t: Table) -> int:
    return t.games.get_game(t.game_id).version


def test_a_spell_1_a_grimoire_is_kept_on_a_mage_teaching_a_spell_through_the_form(app, games):
    """A-SPELL-1 [000:437] Book (Grimoire): "Play a single Spell on this Book ... When a Mage, Book and Spell are
    grouped for the first time, place three counters on this Book": the Keep form offers the mage to attach the
    Grimoire to and the spells it may teach; a spell none of whose Arts the mage has is refused naming A-SPELL-1
    and changes nothing; Sphere of Flame is kept, three counters on the book."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Cr", "Au", "Re", "Ig", "Pe"]}, games=games)
    mage = t.mage("ann")
    move_all(t, [5, 1, 2])
    d.push([4])
    book = t.run("ann", Generate("ann"))["card_id"]
    assert _cards(t, "ann")[book]["name"] == GRIMOIRE
    w = Seats(app, t)
    page = w.page("ann")
    assert '<select name="spell">' in page and "<option>Sphere of Flame</option>" in page
    assert f'<option value="{mage}">Starting Mage ({mage})</option>' in page
    before = _version(t)
    alert = _refused(
        w, "ann", "keep", {"card_id": book, "attach_to": mage, "spell": "Distractions of Invisible Horrors"}
    )
    assert "(A-SPELL-1)" in alert and _version(t) == before and _cards(t, "ann")[book]["pending"]
    w.post("ann", "keep", {"card_id": book, "attach_to": mage, "spell": "Sphere of Flame"})
    kept = _cards(t, "ann")[book]
    assert (kept["attached_to"], kept["spells"], kept["counters"]) == (mage, ["Sphere of Flame"], 3)


def test_a_gen_1_the_mouse_changes_the_event_draw_through_the_form(app, games):
    """A-GEN-1 step 4 [000:405] "you may add or subtract up to 2 to any single Resource or Event card generation
    dice roll once per season": on the Event square, Ann's draw form offers her Mouse's change; a change that is
    not a number is refused naming the field and changes nothing; -2 turns the Riots (12) into the Hedge Mage
    Attack (10)."""
    d = Dice()
    t = fixed_three(d, games=games)
    move_all(t, [5, 1, 2])
    mouse = generate_and_keep(t, d, {"ann": 5})["ann"]  # Familiar: Mouse
    end_season(t)
    for _ in range(3):
        skip_season(t)
    assert mouse in _cards(t, "ann")
    move_all(t, [9, 1, 2])
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["ann"]
    w = Seats(app, t)
    assert '<option value="-2">-2</option>' in w.page("ann")
    before = _version(t)
    assert "mouse must be a whole number" in _refused(w, "ann", "draw", {"mouse": "lots"})
    assert _version(t) == before
    d.push([12])
    w.post("ann", "draw", {"mouse": "-2"})
    assert t.view("gm")["pending_event"]["event"] == "Hedge Mage Attack"


def test_a_gen_1_the_mouse_changes_the_generation_roll_through_the_form(app, games):
    """A-GEN-1 step 4: before the roll, the generate form offers the Mouse's change: 3 - 2 = 1 makes a Sword
    instead of the Leather Shield; a covenant without a Mouse is offered none."""
    d = Dice()
    t = fixed_three(d, games=games)
    move_all(t, [5, 1, 2])
    d.push([5])  # Familiar: Mouse
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    move_all(t, [4, 1, 2])  # Ann on the Item square (d6)
    w = Seats(app, t)
    assert 'name="mouse"' in w.page("ann")
    d.push([3])
    w.post("ann", "generate", {"mouse": "-2"})
    (card,) = [c for c in _cards(t, "ann").values() if c["pending"]]
    assert card["name"].endswith("Sword")
    assert f'action="/play/{t.game_id}/mouse"' not in w.page("ann")  # the Mouse is used once a season (A-AMB-6)
    t.run("ann", Discard("ann", card["id"]))
    assert 'name="mouse"' not in w.page(t.turn()[0])  # Bob and Cy hold no Mouse


def test_a_amb_9_gold_and_vis_are_kept_unconverted_at_the_winter_reckoning_through_the_form(app, games):
    """A-AMB-9 "The player may choose to keep some unconverted; leftover provision is lost anyway.": the support
    form asks what to keep only at the Winter Reckoning; keeping more than she holds is refused naming A-AMB-9, an
    amount that is not a number naming the field, neither changing anything; Ann keeps 2 gold and 1 vis and
    scores 1 + 3 = 4 where Bob, who kept nothing, scores 6."""
    t = fixed_three(Dice(), games=games)
    w = Seats(app, t)
    for _ in range(2):
        skip_season(t)
    for season in ("autumn", "winter"):
        move_all(t, [1, 2, 3])
        pass_create(t)
        pass_main(t)
        t.run("ann", Move("ann", 10))
        assert t.phase() == "reckoning" and t.view("ann")["game"]["season"] == season
        if season == "autumn":
            assert 'action="/play/{}/support"'.format(t.game_id) in w.page("ann")
            assert 'name="keep_gold"' not in w.page("ann")
            reckon(t)
    assert 'name="keep_gold"' in w.page("ann") and 'name="keep_vis"' in w.page("ann")
    before = _version(t)
    assert "(A-AMB-9)" in _refused(w, "ann", "support", {"keep_gold": "5"})  # she holds 4
    assert "keep_vis must be a whole number" in _refused(w, "ann", "support", {"keep_vis": "one"})
    assert _version(t) == before
    w.post("ann", "support", {"keep_gold": "2", "keep_vis": "1"})
    reckon(t)
    v = t.view("cy")["covenants"]
    assert (v["ann"]["score"], v["ann"]["gold"], v["ann"]["vis"]) == (4, 2, 1)
    assert (v["bob"]["score"], v["bob"]["gold"], v["bob"]["vis"]) == (6, 0, 0)


def test_a_ex_11_the_host_seats_a_covenant_with_points_already_earned_through_the_form(app, games):
    """A-EX-11 (H-14, the host's ruling): a covenant may be seated with the points it already earned. Before the
    game the host's page offers a form to seat a covenant (its seat, name, covenant, starting score, the
    starting mage's Arts); a score the game's target has reached is refused naming A-RECK-5, a score that is not
    a number or a missing name naming the field, none changing anything; once every seat is filled the host
    begins the game."""
    game_id, _, _ = games.create_game("Tribunal", ruleset="covenants", options={"players": 3})
    games.run(Caller.of("gm"), game_id, AddCovenant("ann", "Ann", "Fengheld", host=True))
    t = Table(games, game_id, ["ann"])
    w = Seats(app, t)
    page = w.page("ann")
    assert '<input name="score" type="number" min="0" max="24" value="0">' in page
    assert 'action="/play/{}/begin"'.format(game_id) not in page  # two seats are still empty
    before = _version(t)
    bob = {"seat_id": "bob", "name": "Bob", "covenant": "Crintera"}
    assert "(A-RECK-5)" in _refused(w, "ann", "seat", {**bob, "score": "25"})
    assert "score must be a whole number" in _refused(w, "ann", "seat", {**bob, "score": "many"})
    assert "fill in name" in _refused(w, "ann", "seat", {**bob, "name": " "})
    assert _version(t) == before and list(t.view("gm")["covenants"]) == ["ann"]
    w.post("ann", "seat", {**bob, "score": "3", "arts[]": ["Pe", "Im", "Vi", "Re", "Mu"]})
    w.post("ann", "seat", {"seat_id": "cy", "name": "Cy", "covenant": "Valnastium"})
    v = t.view("gm")["covenants"]
    assert (v["bob"]["score"], v["bob"]["covenant"], v["cy"]["score"]) == (3, "Crintera", 0)
    assert 'action="/play/{}/seat"'.format(game_id) not in w.page("bob")  # only the host (or the auditor) seats
    w.post("ann", "begin")
    assert t.phase() == "move"


def test_a_amb_17_a_spell_of_several_targets_is_cast_on_the_targets_chosen_in_the_form(app, games):
    """A-AMB-17 ([000:574] "For each pawn of vis expended, up to a maximum of three, choose a target"): where the
    house package has such a spell, the cast form offers further targets; Ann's Hail of 2 pawns reaches Bob's
    Villagers and Grogs (MR 0: strength 2), 1 damage each. One target chosen twice is refused naming A-AMB-17 and
    changes nothing."""
    data = default_data()
    data["spells"] = {**data["spells"], "Hail of Stones": HAIL}
    options = {"house": "custom", "house_package": data}
    t = fixed_three(Dice(), arts={"ann": PE_CO, "bob": PE_CO}, options=options, games=games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    _, villagers, grogs = bobs_three(t)
    w = Seats(app, t)
    assert '<select name="more_targets[]" multiple size="4">' in w.page("ann")
    cast = {"mage_id": t.mage("ann"), "spell": "Hail of Stones", "target": villagers, "vis": "2"}
    before = _version(t)
    assert "(A-AMB-17)" in _refused(w, "ann", "cast", {**cast, "more_targets[]": [villagers]})
    assert _version(t) == before
    w.post("ann", "cast", {**cast, "more_targets[]": [grogs]})
    assert [card(t, "bob", n)["damage"] for n in ("Villagers", "Grogs")] == [1, 1]


def test_a_amb_17_the_house_package_without_such_a_spell_offers_no_further_targets(app, games):
    """A-AMB-17: the default house package ships no spell of several targets, so the cast form asks for one."""
    t = fixed_three(Dice(), games=games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    page = Seats(app, t).page(t.turn()[0])
    assert 'action="/play/{}/cast"'.format(t.game_id) in page and "more_targets" not in page


def test_a_spell_5_a_spell_is_countered_through_the_forms_at_turn_or_not(app, games):
    """A-SPELL-5 [000:105] (a counter undoes the spell's consequences) and A-SPELL-8 (a counterspell is cast in any
    phase): once Ann's Hail has hit Bob's Villagers and Grogs, Bob, now at turn, finds it among his cast form's
    targets, and Cy, not at turn, is offered a cast form of her own with the Counterspell aimed at it; her 3 pawns
    exceed its strength of 2 and the damage goes from Bob's beings."""
    data = default_data()
    data["spells"] = {**data["spells"], "Hail of Stones": HAIL}
    options = {"house": "custom", "house_package": data}
    arts = {"ann": PE_CO, "bob": PE_CO, "cy": PE_CO}
    t = fixed_three(Dice(), arts=arts, options=options, games=games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    _, villagers, grogs = bobs_three(t)
    w = Seats(app, t)
    assert 'action="/play/{}/cast"'.format(t.game_id) not in w.page("cy")  # nothing to counter yet
    out = t.run("ann", Cast("ann", t.mage("ann"), "Hail of Stones", villagers, 2, more_targets=[grogs]))
    assert [card(t, "bob", n)["damage"] for n in ("Villagers", "Grogs")] == [1, 1] and t.turn()[0] == "bob"
    aimed = f'<option value="{out["spell_id"]}">Hail of Stones ({out["spell_id"]})</option>'
    assert aimed in w.page("bob")
    page = w.page("cy")
    assert "<option>Counterspell</option>" in page and aimed in page
    w.post("cy", "cast", {"mage_id": t.mage("cy"), "spell": "Counterspell", "target": out["spell_id"], "vis": "3"})
    assert [card(t, "bob", n)["damage"] for n in ("Villagers", "Grogs")] == [0, 0]


def test_a_ex_11_the_auditor_who_started_the_game_on_the_web_seats_the_covenants_and_begins_it(app, games):
    """A-EX-11, A-ORDER-2: the browser that started a covenant game (its auditor) is offered the seating form: it
    seats the host and a player with the points they already earned and begins the game, all without JavaScript."""
    client = TestClient(app)
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/new?ruleset=covenants").text).group(1)
    started = client.post(
        "/new",
        data={"csrf": csrf, "ruleset": "covenants", "name": "Tribunal", "timezone": "UTC", "options.players": "2"},
        follow_redirects=True,
    )
    game_id = re.search(r"/play/([0-9a-f-]+)", str(started.url)).group(1)
    assert f'action="/play/{game_id}/seat"' in started.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', started.text).group(1)  # a new session's
    for seat, host, score in (("ann", "yes", "2"), ("bob", "", "5")):
        form = {"csrf": csrf, "seat_id": seat, "name": seat.title(), "covenant": "Fengheld", "host": host}
        answer = client.post(f"/play/{game_id}/seat", data={**form, "score": score}, follow_redirects=True)
        page = answer.text
        assert answer.status_code == 200 and 'role="alert"' not in page
    assert f'action="/play/{game_id}/begin"' in page
    client.post(f"/play/{game_id}/begin", data={"csrf": csrf}, follow_redirects=True)
    v = games.view(game_id, "gm")
    assert v["game"]["phase"] == "move" and {s: c["score"] for s, c in v["covenants"].items()} == {"ann": 2, "bob": 5}
    assert "host" in v["covenants"]["ann"]["roles"]
