"""The covenant game's worked examples (ANALYSIS A.5, A-EX-1..A-EX-14), each played through the typed commands
as ANALYSIS.md writes it, with explicit dice. Where the shipped house rules cannot reach a case (a score of 20
before the Yearly Reckoning, a covenant strong enough to deal a Town 9 or 10 damage, the Touch of the Artisan),
the test ships a package of its own (``options={"house": "custom", "house_package": ...}``), as a host would."""

from __future__ import annotations

import copy

import pytest

from domain.covenants import house
from domain.covenants.commands import (
    AddCovenant,
    AllocateDamage,
    BeginGame,
    Cast,
    Challenge,
    ChooseArt,
    Convert,
    DecideEvent,
    DrawEvent,
    Generate,
    Keep,
    Move,
    NoCounter,
    Pass,
    PayTax,
    ResolveCertamen,
    SealBid,
    Support,
)
from domain.errors import RuleViolation
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    generate_and_keep,
    move_all,
    pass_create,
    pass_main,
    pass_until,
    reckon,
    skip_season,
)


def refused(t, seat, command, rule) -> RuleViolation:
    """A refusal names its rule and records nothing."""
    before = events_of(t)
    with pytest.raises(RuleViolation, match=rule) as info:
        t.run(seat, command)
    assert events_of(t) == before
    return info.value


def card(t, card_id):
    for cov in t.view("gm")["covenants"].values():
        for c in cov["cards"]:
            if c["id"] == card_id:
                return c
    return None


def named(t, seat, name):
    return next(c for c in t.view("gm")["covenants"][seat]["cards"] if c["name"] == name)


def names(t, seat):
    return [c["name"] for c in t.view("gm")["covenants"][seat]["cards"]]


def covenants(t) -> dict:
    return t.view("cy")["covenants"]


def end_season(t) -> None:
    """The Main Phase is over: the first to move goes to End, and everyone supports everything."""
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)


SEMPIRIS = "Magus: Sempiris of House Flambeau"


def test_a_ex_1_sempiris_is_unique_and_once_discarded_is_fetched_back_from_the_discard_pile():
    """A-EX-1 [000:52] "if Player A creates/plays Sempiris, no player may generate another Sempiris (the roll results
    in no card) until the first one is discarded" and [000:174] "if a previously played card is discarded, it may be
    fetched from the discard pile": B's roll makes no card and uses B's turn; once Ann discards Sempiris, Bob's roll
    fetches it back, and the discard pile no longer holds it."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [3, 8, 1])  # ann and bob on Personnel squares
    d.push([15])
    sempiris = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", sempiris))
    d.push([15])
    assert t.run("bob", Generate("bob"))["card_id"] is None  # no card, and bob's turn is used
    assert t.turn() == ["cy"] and SEMPIRIS not in names(t, "bob")
    t.run("cy", Pass("cy"))
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, {"ann": [sempiris]})  # starved, so discarded (A-GEN-2: Discard is for a card just generated)
    assert [c["name"] for c in t.view("gm")["discard"]["cards"]] == [SEMPIRIS]
    assert "cards" not in t.view("bob")["discard"]  # face down ([000:8])
    move_all(t, [1, 3, 2])  # bob on Personnel again
    pass_until(t, "bob")
    d.push([15])
    back = t.run("bob", Generate("bob"))["card_id"]
    t.run("bob", Keep("bob", back))
    assert SEMPIRIS in names(t, "bob")
    pile = t.view("gm")["discard"]
    assert SEMPIRIS not in [c["name"] for c in pile["cards"]] and pile["count"] == len(pile["cards"]) == 0


def package(edit) -> dict:
    """The shipped house rules with a test's additions: a custom package a host could pin (A-AMB-1, H-14)."""
    data = copy.deepcopy(house.default_data())
    data["name"], data["version"] = "worked-examples", "1"
    edit(data)
    return {"house": "custom", "house_package": data}


def zemlus_and_arno(data: dict) -> None:
    """A-EX-10's two mages, on the Personnel table: Zemlus (Certamen 1; Cr, In, Co, Im) on face 17, Arno
    (Certamen 2; Pe, Im, Vi) on face 18."""
    sample = data["cards"][SEMPIRIS]
    data["cards"]["Magus: Zemlus"] = {**sample, "certamen": 1, "arts": ["Cr", "In", "Co", "Im"]}
    data["cards"]["Magus: Arno"] = {**sample, "certamen": 2, "arts": ["Pe", "Im", "Vi"]}
    data["generators"]["personnel"]["faces"].update({"17": "Magus: Zemlus", "18": "Magus: Arno"})


def zemlus_challenges_arno(d: Dice, arts: dict | None = None):
    """Ann keeps Zemlus, Bob keeps Arno (Personnel squares, faces 17 and 18); in the Main Phase Zemlus challenges
    Arno; the Resolve Certamen phase begins."""
    t = fixed_three(d, arts=arts, options=package(zemlus_and_arno))
    move_all(t, [3, 8, 1])
    kept = generate_and_keep(t, d, {"ann": 17, "bob": 18})
    zemlus, arno = kept["ann"], kept["bob"]
    cid = t.run("ann", Challenge("ann", zemlus, arno))["challenge_id"]
    t.notes.update(zemlus=zemlus, arno=arno, challenge=cid)
    return t


def choose_and_bid(t) -> None:
    cid = t.notes["challenge"]
    t.run("ann", ChooseArt("ann", cid, "Cr"))
    t.run("bob", ChooseArt("bob", cid, "Vi"))
    t.run("ann", SealBid("ann", cid, 2))
    t.run("bob", SealBid("bob", cid, 1))


def test_a_ex_10_certamen_a_tie_distractions_the_subtle_accomplice_a_default_and_a_second_challenge():
    """A-EX-10 "Zemlus (Certamen 1; Arts Cr, In, Co, Im) challenges Arno (Certamen 2; Arts Pe, Im, Vi) ...
    challenger picks Technique Cr; challenged picks Form Vi; sealed vis: Zemlus 2, Arno 1 / then: Zemlus = 1 + 1(Cr)
    + 0 + 2 = 4; Arno = 2 + 0 + 1(Vi) + 1 = 4 → tie → no winner; vis spent / variant: a third mage casts
    Distractions of Invisible Horrors on Arno → Arno = ⌈4/2⌉ = 2 → Zemlus wins / variant: Arno is inactive at
    resolution → Zemlus wins by default; no scores computed / variant: in the same season another of Arno's owner's
    mages is challenged → rejected". [000:554] Distractions "halve (rounded up) his final Certamen score"; [000:610]
    The Subtle Accomplice "Add the caster's Certamen rating to that of another mage in the same covenant engaged in
    Certamen. The caster may not be involved in a Certamen challenge in the same season." Arno's Magical Resistance
    (1, A-SPELL-4) takes a pawn from a rival's spell, so Cy boosts Distractions to 3 pawns ([000:88])."""
    arts = {"cy": ["Mu", "Im", "Re", "An", "Te"], "bob": ["Mu", "Vi", "Re", "An", "Te"]}
    # the tie; then the same season, Cy may not challenge another of Bob's mages
    d = Dice()
    t = zemlus_challenges_arno(d, arts)
    pass_until(t, "cy")
    refused(t, "cy", Challenge("cy", t.mage("cy"), t.mage("bob")), "A-CERT-1")  # Bob's mages: once a season
    pass_main(t)
    assert t.phase() == "certamen"
    choose_and_bid(t)
    out = t.run("ann", ResolveCertamen("ann", t.notes["challenge"]))
    assert out["scores"] == {"ann": 4, "bob": 4} and out["winner"] is None and out["winnings"] == {}
    assert covenants(t)["ann"]["vis"] == 4 - 2 and covenants(t)["bob"]["vis"] == 4 - 1  # spent whatever the result

    # Distractions of Invisible Horrors on Arno: 2 + 0 + 1 + 1 = 4, halved to 2
    d = Dice()
    t = zemlus_challenges_arno(d, arts)
    pass_main(t)
    choose_and_bid(t)
    refused(t, "cy", Cast("cy", t.mage("cy"), "Distractions of Invisible Horrors", t.mage("ann"), 3), "A-CERT")
    t.run("cy", Cast("cy", t.mage("cy"), "Distractions of Invisible Horrors", t.notes["arno"], 3))
    out = t.run("ann", ResolveCertamen("ann", t.notes["challenge"]))
    assert out["scores"] == {"ann": 4, "bob": 2} and out["winner"] == "ann"

    # The Subtle Accomplice: Bob's starting mage adds its rating (1) to Arno's: 5 against 4
    d = Dice()
    t = zemlus_challenges_arno(d, arts)
    pass_main(t)
    choose_and_bid(t)
    refused(t, "bob", Cast("bob", t.mage("bob"), "The Subtle Accomplice", t.notes["zemlus"], 1), "A-CERT")
    t.run("bob", Cast("bob", t.mage("bob"), "The Subtle Accomplice", t.notes["arno"], 1))
    out = t.run("ann", ResolveCertamen("ann", t.notes["challenge"]))
    assert out["scores"] == {"ann": 4, "bob": 5} and out["winner"] == "bob"
    # the caster may not be involved in a Certamen challenge in the same season (the next cycle's Main Phase)
    move_all(t, [4, 9, 2])
    pass_create(t)
    pass_until(t, "bob")
    refused(t, "bob", Challenge("bob", t.mage("bob"), t.mage("cy")), "A-CERT-1")

    # Arno inactive at resolution: Zemlus wins by default, no scores
    d = Dice()
    t = zemlus_challenges_arno(d, {"cy": ["Cr", "Au", "Re", "Mu", "An"]})
    t.run("bob", Pass("bob"))
    t.run("cy", Cast("cy", t.mage("cy"), "Arc of Lightning", t.notes["arno"], 3))  # 3 - MR 1 = 2 damage
    assert not card(t, t.notes["arno"])["active"]
    pass_main(t)
    out = t.run("ann", ResolveCertamen("ann", t.notes["challenge"]))
    assert out["winner"] == "ann" and out["by_default"] is True and "scores" not in out


def test_a_cert_3_a_familiars_arts_count_in_certamen_and_in_casting():
    """A-CERT-3 "Familiar Arts count as possessed ([000:66])": [000:66] "Any Arts listed on the Familiar card may be
    used by the Mage as long as the Familiar remains in play." Ann's mage (Cr, In, Co, Im, An) keeps the Cat
    ([000:409] "Arts: Me"): it casts Perception of the Enemy's Motives ([000:566] InMe, 2 pawns; a spell this
    package adds) and, in Certamen on Intellego and Mentem, scores 1 + 1 (In) + 1 (Me, the Cat's) = 3 against
    Bob's 1 + 0 + 0 = 1."""
    d = Dice()
    perception = {"arts": ["In", "Me"], "min_vis": 2, "max_vis": 2, "target": "being"}
    options = package(lambda data: data["spells"].update({"Perception of the Enemy's Motives": perception}))
    t = fixed_three(d, arts={"ann": ["Cr", "In", "Co", "Im", "An"]}, options=options)
    move_all(t, [5, 1, 2])  # Ann on Magic, Bob on Property
    d.push([6])
    cat = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", cat, attach_to=t.mage("ann")))
    generate_and_keep(t, d, {"bob": 7})
    villagers = next(c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"] if c["name"] == "Villagers")
    out = t.run("ann", Cast("ann", t.mage("ann"), "Perception of the Enemy's Motives", villagers, 2))
    assert out["magnitude"] == 2
    pass_until(t, "ann")
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    t.run("ann", ChooseArt("ann", cid, "In"))
    t.run("bob", ChooseArt("bob", cid, "Me"))
    t.run("ann", SealBid("ann", cid, 0))
    t.run("bob", SealBid("bob", cid, 0))
    out = t.run("ann", ResolveCertamen("ann", cid))
    assert out["scores"] == {"ann": 3, "bob": 1} and out["winner"] == "ann"


def year_two_spring_event(d: Dice, face: int, arts: dict | None = None, options: dict | None = None):
    """After a quiet year (gold and vis kept), Bob, on the Event square in Spring of year two, draws ``face``."""
    t = fixed_three(d, arts=arts, options={"yearly_consumes": False, **(options or {})})
    for _ in range(4):
        skip_season(t)
    move_all_to(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]
    d.push([face])
    t.run("bob", DrawEvent("bob"))
    return t


def move_all_to(t, squares: dict) -> None:
    for seat in list(t.turn()):
        t.run(seat, Move(seat, squares[seat]))


def test_a_ex_9_at_a_market_fair_the_seasons_provision_converts_to_gold_and_artisan_gold_to_seven_provision():
    """A-EX-9 "Market Fair: 4 provision → 2 gold; 2 gold → 1 vis / Touch of the Artisan on 2 gold (2 vis) → those 2
    gold convert to 14 provision at a Town/Market Fair". [000:632] "During the Main Phase, all covenants may convert
    resources they own at the following fixed rates: 2 provision points for 1 gold, 2 gold for 1 pawn vis"; [000:49]
    "any provisions generated during a season are lost at the end of that season": in the Main Phase a covenant owns
    this season's provision, which its cards make (A-RECK-1, counted at the Reckoning), so Ann's two Villagers' 4
    provision buy 2 gold; [000:590] Touch of the Artisan: "converted in Town or Market Fair at the rate of 1 gold = 7
    provision points. Expend one pawn vis per piece of gold, up to a maximum of two pawns." Ann's Reckoning then
    supports everything: 4 made - 4 converted ahead + 14 + 2 (a third, plain piece of gold) = 16, 3 paid."""
    d = Dice()
    t = year_two_spring_event(d, 1, arts={"ann": ["Mu", "Te", "Cr", "Co", "Vi"]})  # Market Fair
    assert t.phase() == "main" and "Market Fair" in t.view("cy")["events_in_play"]
    gold, vis = covenants(t)["ann"]["gold"], covenants(t)["ann"]["vis"]
    refused(t, "ann", Convert("ann", "provision", 6, "gold"), "A-ECON-1")  # the season makes 4
    assert t.run("ann", Convert("ann", "provision", 4, "gold")) == {"got": 2}
    assert covenants(t)["ann"]["gold"] == gold + 2
    refused(t, "ann", Convert("ann", "provision", 2, "gold"), "A-ECON-1")  # nothing left to convert
    assert t.run("ann", Convert("ann", "gold", 2, "vis")) == {"got": 1}
    assert covenants(t)["ann"]["vis"] == vis + 1
    pass_until(t, "ann")
    t.run("ann", Cast("ann", t.mage("ann"), "Touch of the Artisan", "ann", 2))
    assert t.run("ann", Convert("ann", "gold", 3, "provision")) == {"got": 14 + 2}  # the third piece: 1 for 2
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Support(t.turn()[0], []))
    out = t.run("ann", Support("ann", []))  # 4 made - 4 converted ahead + 16 = 16, 3 paid
    assert out["made"]["provision"] == 4 and out["paid"]["provision"] == 3 and out["after"]["provision"] == 13
    assert t.view("cy")["effects"] == []  # the enhanced gold is spent


def test_a_ex_9_no_conversion_to_or_from_provision_during_a_famine():
    """A-EX-9 "During Famine: any conversion to/from provision → rejected" ([000:661] "Provision points may not be
    converted to or from any other resource during a famine"), even where a Market Fair would allow it."""
    d = Dice()
    t = year_two_spring_event(d, 2)  # Famine
    assert t.phase() == "main" and "Famine" in t.view("cy")["events_in_play"]
    refused(t, "ann", Convert("ann", "provision", 2, "gold"), "A-ECON-1")
    refused(t, "ann", Convert("ann", "gold", 1, "provision"), "A-ECON-1")


def test_a_ex_9_tax_and_tithe_asks_at_least_two_gold_four_provision_equivalent():
    """A-EX-9 "Tax and Tithe 'at least two gold (four provision points equivalent)' ⇒ consistent with 1 gold = 2
    provision" ([000:667]; A-AMB-14: tax = ⌊(capacity/2 + gold)/4⌋, at least 2): a starting covenant (capacity 4
    provision, 4 gold) owes ⌊(2 + 4)/4⌋ = 1, so 2 gold."""
    d = Dice()
    t = fixed_three(d, options={"yearly_consumes": False})
    for _ in range(7):
        skip_season(t)
    move_all_to(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([3])  # Tax and Tithe, in Winter
    t.run("bob", DrawEvent("bob"))
    assert t.phase() == "main" and {seat: c["tax_owed"] for seat, c in covenants(t).items()} == {
        "ann": 2, "bob": 2, "cy": 2,
    }  # fmt: skip
    gold = covenants(t)["ann"]["gold"]
    pass_until(t, "ann")
    assert t.run("ann", PayTax("ann")) == {"paid": 2} and covenants(t)["ann"]["gold"] == gold - 2


def test_a_ex_5_a_might_boost_countered_after_the_battle_is_undone_and_the_battle_fought_unboosted():
    """A-EX-5 "given: a spell raising a being's Mundane Might is cast in the Main Phase; a mundane battle is due in
    the same phase / then: the battle resolution is deferred until every player confirms "no counter" (H-15) /
    when: the spell is countered after the battle was resolved / then: compensating events redistribute the battle
    damage using the un-boosted Might". [000:111] "any mundane battle should be delayed until all players agree that
    the spell can fully take effect—otherwise the damage from such a battle may have to be redistributed if the
    spell is countered"; A-AMB-15 "A counter emits compensating events". Bob does not agree (the host closes his
    turn: silence is no agreement), so the battle is fought with Ann's Grogs at Might 3; in the Main Phase's extra
    round (A-AMB-5, the same phase) Bob counters the boost: the battle's damage is undone and the battle fought again,
    Ann's Grogs at Might 2. Cy, who agreed, may not counter it."""
    from domain.platform.commands import CloseWindow
    from tests.domain.test_covenants_battles_played import boosted_battle, grogs

    d = Dice()
    t, spell = boosted_battle(d)
    assert t.phase() == "battle" and t.view("cy")["deferred"]["spells"] == [spell]
    t.run("cy", NoCounter("cy"))
    t.run("ann", NoCounter("ann"))
    (window,) = t.view("bob")["windows"]
    t.run("ann", CloseWindow(window["id"]))  # the host closes Bob's turn: he has not agreed
    assert t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 3}  # fought with the boost
    bob_grogs, ann_grogs = grogs(t, "bob")["id"], grogs(t, "ann")["id"]
    t.run("bob", AllocateDamage("bob", {bob_grogs: 3}))
    t.run("ann", AllocateDamage("ann", {ann_grogs: 2}))
    assert grogs(t, "bob")["damage"] == 3 and grogs(t, "ann")["damage"] == 2
    assert t.phase() == "main"  # the extra round, still the Main Phase
    refused(t, "cy", Cast("cy", t.mage("cy"), "Counterspell", spell, 2), "H-15")  # Cy agreed
    out = t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", spell, 2))
    assert out["countered"] is True
    assert grogs(t, "bob")["damage"] == 0 and grogs(t, "ann")["damage"] == 0  # compensated
    assert grogs(t, "bob")["active"] and grogs(t, "ann")["active"]
    pass_main(t)
    assert t.phase() == "battle" and t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 2}  # un-boosted
    t.run("bob", AllocateDamage("bob", {bob_grogs: 2}))
    t.run("ann", AllocateDamage("ann", {ann_grogs: 2}))
    assert grogs(t, "bob")["damage"] == 2 and grogs(t, "ann")["damage"] == 2
    assert t.phase() == "move"  # the Main Phase had its one extra round: none after the battle fought again (A-AMB-5)


def seated(d: Dice, scores: dict, arts: dict | None = None, options: dict | None = None):
    """Three covenants seated by the host with the scores they begin with (a campaign carried on, H-14), the dice
    from ``d``; Ann starts (the draw shows 1)."""
    from application.service import Caller, Games
    from tests.covenants.play import ARTS, Table

    arts = {**ARTS, **(arts or {})}
    games = Games(roller_factory=lambda game: d)
    d.rolls.insert(0, [1])
    game_id, _, _ = games.create_game("Tribunal", ruleset="covenants", options={"players": 3, **(options or {})})
    games.run_many(
        Caller.of("gm"),
        game_id,
        [
            AddCovenant("ann", "Ann", "Fengheld", host=True, arts=arts["ann"], score=scores.get("ann", 0)),
            AddCovenant("bob", "Bob", "Crintera", arts=arts["bob"], score=scores.get("bob", 0)),
            AddCovenant("cy", "Cy", "Valnastium", arts=arts["cy"], score=scores.get("cy", 0)),
        ],
    )
    games.run(Caller.of("gm"), game_id, BeginGame())
    return Table(games, game_id, ["ann", "bob", "cy"])


def villagers_make(n: int):
    def edit(data: dict) -> None:
        data["cards"]["Villagers"]["production"] = {"provision": n}

    return edit


def year_reckoned(t) -> dict:
    events = t.games.visible_events(t.game_id, "cy", limit=10**6)
    return [e for e in events if e["type"] == "YearReckoned"][-1]["data"]


def test_a_ex_11_yearly_reckoning_with_tribute_reaches_25_and_ends_the_game():
    """A-EX-11 "given: Winter surplus P=9, G=5, V=2; score 20; permanent tribute 1 to the lord / then: raw = ⌊9/4⌋ +
    ⌊5/2⌋ + 2 = 2 + 2 + 2 = 6; after tribute 5; score 25 → ≥25 → game ends; highest score wins". A-RECK-3..5,
    A-AMB-9. The host seats Ann with 12 points (H-14); a package whose Villagers make 6 provision gives each covenant
    a surplus of 12 - 3 = 9; year one adds ⌊9/4⌋ + ⌊4/2⌋ + 4 = 8 (gold and vis kept: yearly_consumes off), so Ann
    has 20. In Winter of year two she keeps a Mine (+1 gold: 5), casts a 2-pawn spell (vis 2) and leaves the Tax
    and Tithe unpaid ([000:667]: "a permanent tribute of 1 point owed to the lord")."""
    d = Dice()
    options = {**package(villagers_make(6)), "yearly_consumes": False}
    t = seated(d, {"ann": 12}, arts={"ann": ["Re", "Au", "Cr", "Co", "Vi"]}, options=options)
    assert covenants(t)["ann"]["score"] == 12
    for _ in range(4):
        skip_season(t)
    assert year_reckoned(t)["points"] == {"ann": 8, "bob": 8, "cy": 8} and covenants(t)["ann"]["score"] == 20
    for _ in range(3):
        skip_season(t)
    assert t.view("cy")["game"]["season"] == "winter"
    move_all_to(t, {"ann": 1, "bob": 9, "cy": 2})
    mine = generate_and_keep(t, d, {"ann": 12})["ann"]  # a Mine
    assert card(t, mine)["name"] == "Mine"
    d.push([3])  # Tax and Tithe
    t.run("bob", DrawEvent("bob"))
    assert covenants(t)["ann"]["tax_owed"] == 2
    pass_until(t, "ann")
    t.run("ann", Cast("ann", t.mage("ann"), "Levitate on Wings of Air", t.mage("ann"), 2))
    end_season(t)  # nobody pays the tax: a permanent tribute of 1 to the lord each
    year = year_reckoned(t)
    assert year["points"]["ann"] == 6 and year["scores"]["ann"] == 25  # 6 - 1 tribute
    v = t.view("cy")
    assert v["game"]["phase"] == "over" and v["covenants"]["ann"]["tribute"] == [
        {"to": None, "points": 1, "permanent": True}
    ]
    assert v["game"]["winners"] == ["ann"] and year["winners"] == ["ann"]  # the highest score wins


def test_a_ex_11_variants_no_points_less_tribute_and_tribute_owed_to_a_covenant():
    """A-EX-11 "variant: raw 0 and tribute 1 → score 19 / variant: tribute owed to covenant C → C's score +1"
    (A-RECK-4: "Tribute owed to another covenant is added to that player's score"). Ann, seated with 14 points,
    has 20 after year one (⌊1/4⌋ + ⌊4/2⌋ + 4 = 6; the conversion spends her gold and vis, A-AMB-9); in Winter of year
    two she has a surplus of 1 provision and nothing else, and owes the lord 1 (the Tax and Tithe unpaid): 19. Cy
    loses a Certamen to Bob (the house winnings: a tribute of 1, [000:155]), so Bob gains it."""
    d = Dice()
    t = seated(d, {"ann": 14})
    for _ in range(4):
        skip_season(t)
    assert covenants(t)["ann"]["score"] == 20 and covenants(t)["ann"]["gold"] == covenants(t)["ann"]["vis"] == 0
    for _ in range(3):
        skip_season(t)
    assert t.turn()[0] == "bob"  # the lowest score starts
    move_all_to(t, {"bob": 9, "cy": 1, "ann": 2})
    pass_create(t)
    d.push([3])  # Tax and Tithe
    t.run("bob", DrawEvent("bob"))
    t.run("bob", Pass("bob"))
    cid = t.run("cy", Challenge("cy", t.mage("cy"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    t.run("cy", ChooseArt("cy", cid, "Re"))
    t.run("bob", ChooseArt("bob", cid, "Im"))
    t.run("cy", SealBid("cy", cid, 0))
    t.run("bob", SealBid("bob", cid, 0))
    out = t.run(t.turn()[0], ResolveCertamen(t.turn()[0], cid))  # on the turn of the first of them (A-AMB-7)
    assert out["winner"] == "bob" and out["winnings"] == {"tribute": 1, "from": "cy", "to": "bob"}
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    year = year_reckoned(t)
    assert year["points"] == {"ann": 0, "bob": 0, "cy": 0}
    assert year["scores"] == {"ann": 19, "bob": 6 - 1 + 1, "cy": 6 - 1 - 1}


def test_a_reck_5_a_covenant_is_seated_with_fewer_points_than_win():
    """H-14 (the host seats a covenant with the points it carries) within A-RECK-5: a score that would already win
    is refused, naming the field, and records nothing."""
    from application.service import Caller, Games

    games = Games(roller_factory=lambda game: Dice())
    game_id, _, _ = games.create_game("Tribunal", ruleset="covenants", options={"players": 2})
    for bad in (-1, 25):
        with pytest.raises(RuleViolation, match="A-RECK-5"):
            games.run(Caller.of("gm"), game_id, AddCovenant("ann", "Ann", "Fengheld", host=True, score=bad))
    assert games.view(game_id, "gm")["covenants"] == {}


def grogs_fight_with(might: int):
    def edit(data: dict) -> None:
        data["cards"]["Grogs"]["might"] = might

    return edit


def riots_against_ann(might: int):
    """Year one: Ann builds up to a Town (two more Villagers and an Expansion in Spring, the Town in Summer; [000:47]
    it takes the four Villagers); in Spring of year two Bob, on the Event square, plays Riots at her; at the end of
    the Main Phase her Grogs (Mundane Might ``might``, a package of the test's) fight the Town (Might 5)."""
    d = Dice()
    t = fixed_three(d, options={**package(grogs_fight_with(might)), "yearly_consumes": False})
    for squares, face in (({"ann": 1, "bob": 2, "cy": 3}, 1), ({"ann": 2, "bob": 3, "cy": 4}, 2),
                          ({"ann": 6, "bob": 7, "cy": 8}, 1)):  # fmt: skip
        move_all_to(t, squares)
        generate_and_keep(t, d, {"ann": face})  # Villagers, Improve Covenant (Expansion/Minor), Villagers
        pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    move_all_to(t, {"ann": 1, "bob": 2, "cy": 3})
    town = generate_and_keep(t, d, {"ann": 19})["ann"]  # the Town: 3 gold, and the four Villagers go
    end_season(t)
    skip_season(t)
    skip_season(t)
    assert "villagers" not in [c["kind"] for c in covenants(t)["ann"]["cards"]]
    move_all_to(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([12])  # Riots (directed)
    t.run("bob", DrawEvent("bob"))
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    pass_main(t)
    assert t.phase() == "battle" and t.view("cy")["battle"]["dealt"] == {"ann": might, "Riots": 5}
    t.run("ann", AllocateDamage("ann", {named(t, "ann", "Grogs")["id"]: 5}))
    return t, town


@pytest.mark.parametrize("might", [9, 10])
def test_a_ex_13_riots_nine_or_more_damage_discards_the_town_and_the_event(might):
    """A-EX-13 "damage 10+ → Town and event discarded / damage 9 → UNDEFINED (A-AMB-13)"; A-AMB-13 "Read 'in excess
    of 9' as ≥ 9. While Riots is in effect, Riots' thresholds override the Town's 5-damage structure limit."
    [000:778] "if the Town has received damage in excess of 9 points, it and this event are discarded"."""
    t, town = riots_against_ann(might)
    assert card(t, town) is None and "Town" in [c["name"] for c in t.view("gm")["discard"]["cards"]]
    pass_main(t)  # the Main Phase's extra round (A-AMB-5)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, {"ann": [named(t, "ann", "Grogs")["id"], t.mage("ann")]})  # no Town: nothing feeds them
    assert "Riots" not in t.view("cy")["events_in_play"]


@pytest.mark.parametrize("might", [4, 8])
def test_a_ex_13_riots_four_to_eight_damage_discards_the_event_and_the_town_reverts(might):
    """A-EX-13 "damage 4..8 → event discarded, Town reverts to normal" ([000:780] "If the Town received damage
    between 4 and 8 points (inclusive), this event is discarded and the Town reverts back to normal")."""
    t, town = riots_against_ann(might)
    assert card(t, town)["active"] and card(t, town)["damage"] == 0
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    assert "Riots" not in t.view("cy")["events_in_play"]


def test_a_ex_13_riots_under_four_damage_rotates_the_town_which_makes_nothing_and_fights_again():
    """A-EX-13 "damage 3 → Town inactive, no provision this season, fights again next season with the damage kept"
    ([000:781] "it is made inactive (rotated) and does not produce provision points this season. The Town unrotates
    at the beginning of the next season and engages in battle again, retaining its damage amounts")."""
    t, town = riots_against_ann(3)
    assert not card(t, town)["active"] and card(t, town)["damage"] == 3
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Support(t.turn()[0], []))
    refused(t, "ann", Support("ann", []), "A-RECK-1")  # the Town makes nothing: her mage and Grogs go unfed
    out = t.run("ann", Support("ann", [named(t, "ann", "Grogs")["id"], t.mage("ann")]))
    assert out["made"]["provision"] == 0
    reckon(t)
    assert card(t, town)["active"] and card(t, town)["damage"] == 3  # unrotated, the damage kept
    move_all_to(t, {seat: sq for seat, sq in zip(t.turn(), (1, 2, 3), strict=True)})
    pass_create(t)
    pass_main(t)  # the Riots fight again: nobody of Ann's is left to fight, so the Town takes nothing more
    assert not card(t, town)["active"] and card(t, town)["damage"] == 3
    assert "Riots" in t.view("cy")["events_in_play"]


def test_a_ex_2_a_year_spell_cast_in_springs_main_phase_ends_as_the_next_springs_first_main_phase_begins():
    """A-EX-2 [000:72] "a spell with a year duration played in the Main Phase of Spring counts that Spring as its
    first season and ends at the beginning of the Main Phase of the next Spring": Incantation of the Stone Warrior
    (ritual, "for one year") on Bob's Grogs turns them Te from Spring of year one through the Create/Play phase of
    Spring of year two; they are Co again as its (first) Main Phase begins."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Mu", "Co", "Vi", "Re", "Au"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = named(t, "bob", "Grogs")["id"]
    t.run("ann", Cast("ann", t.mage("ann"), "Incantation of the Stone Warrior", grogs, 3))
    assert card(t, grogs)["substance"] == "Te"
    end_season(t)
    for season in ("autumn", "winter", "spring"):
        skip_season(t)
        assert t.view("gm")["game"]["season"] == season and card(t, grogs)["substance"] == "Te"
    move_all(t, [1, 2, 3])
    pass_create(t)
    assert t.phase() == "main" and card(t, grogs)["substance"] == "Co" and t.view("gm")["effects"] == []


def aegis_year(d: Dice, arts: dict, aegis_vis: int):
    """Year one: Ann keeps an Equinox Vis Source (the pawns of her spells to come), Bob a Livestock; at the Winter
    Reckoning Bob casts Aegis of the Hearth with ``aegis_vis`` pawns."""
    t = fixed_three(d, arts=arts, options={"yearly_consumes": False})
    move_all_to(t, {"ann": 1, "bob": 6, "cy": 2})
    kept = generate_and_keep(t, d, {"ann": 15, "bob": 7})  # Equinox Vis Source, Livestock
    end_season(t)
    skip_season(t)
    skip_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    assert t.phase() == "reckoning" and t.view("gm")["game"]["season"] == "winter"
    t.run("bob", Cast("bob", t.mage("bob"), "Aegis of the Hearth", "bob", aegis_vis))  # Winter Reckoning
    reckon(t)
    return t, kept["bob"]


def test_a_ex_3_aegis_worth_one_point_and_magical_resistance():
    """A-EX-3 "rival covenant R has Aegis of the Hearth cast with 3 vis → aegis 1 / case1: Pestilence of the Flock
    (min 1 pawn, "1 damage per pawn") on R's Livestock (no MR), vis 1 → strength 0 → FAIL (vis spent) / case2: same
    with vis 2 → strength 1 → Livestock takes 1 damage → inactive; caster's covenant marked (aggression) / case3: Arc
    of Lightning (Spring/Summer only) on R's mage (MR 1) with vis 4 → strength 4-1-1 = 2 → 2 damage / case4: Arc of
    Lightning on own-covenant Grogs with vis 2 → no Aegis/MR reduction → 2 damage; harmful → marked ([000:98])".
    A-SPELL-4: s = vis − aegis (rival) − MR (rival); the spell fails below its minimum. Case 4 is played in year one
    Case 1 is played in Spring of year two, case 2 in its Summer (a mage casts a regular spell once a season), then
    case 4 (its Grogs struck, Ann's covenant can no longer keep its Vis Source, so it comes last)."""
    d = Dice()
    arts = {"ann": ["Cr", "Au", "Pe", "An", "Vi"], "bob": ["Re", "Vi", "Pe", "Im", "Mu"],
            "cy": ["Cr", "Au", "Re", "Mu", "An"]}  # fmt: skip
    t, livestock = aegis_year(d, arts, 3)
    assert [e["aegis"] for e in t.view("cy")["effects"] if e["spell"] == "Aegis of the Hearth"] == [1]
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_until(t, "ann")
    vis = covenants(t)["ann"]["vis"]
    out = t.run("ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", livestock, 1))  # case 1
    assert out["strength"] == 0 and out["magnitude"] is None and card(t, livestock)["damage"] == 0
    assert covenants(t)["ann"]["vis"] == vis - 1  # spent
    pass_until(t, "cy")
    out = t.run("cy", Cast("cy", t.mage("cy"), "Arc of Lightning", t.mage("bob"), 4))  # case 3: 4 - 1 - 1
    assert out["strength"] == 2 and card(t, t.mage("bob"))["damage"] == 2
    end_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_until(t, "ann")
    out = t.run("ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", livestock, 2))  # case 2
    assert out["strength"] == 1 and card(t, livestock)["damage"] == 1 and not card(t, livestock)["active"]
    assert out["marked"] and covenants(t)["ann"]["marked"]
    pass_until(t, "ann")
    own = named(t, "ann", "Grogs")["id"]
    out = t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", own, 2))  # case 4: no Aegis, no MR
    assert out["strength"] == 2 and card(t, own)["damage"] == 2 and out["marked"]  # harmful: marks


def test_a_ex_3_case_5_an_aegis_cast_with_two_pawns_is_worth_nothing():
    """A-EX-3 "case5: Aegis cast with exactly 2 vis → aegis 0 (formula "1 per pawn beyond the initial 2")"
    (A-AMB-18: clamp(vis − 2, 0, 3)): a Pestilence of 1 pawn then reaches Bob's Livestock whole."""
    d = Dice()
    arts = {"ann": ["Cr", "Au", "Pe", "An", "Vi"], "bob": ["Re", "Vi", "Pe", "Im", "Mu"]}
    t, livestock = aegis_year(d, arts, 2)
    assert [e["aegis"] for e in t.view("cy")["effects"] if e["spell"] == "Aegis of the Hearth"] == [0]
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_until(t, "ann")
    out = t.run("ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", livestock, 1))
    assert out["strength"] == 1 and card(t, livestock)["damage"] == 1


def test_a_ex_4_damage_stays_after_a_substance_change_and_a_later_co_spell_is_illegal():
    """A-EX-4 "Mage X deals 1 damage to Grogs G (Animate Co) / when: later in the phase Mage Y casts Incantation of
    the Stone Warrior on G (→ Animate Te) / then: G keeps its 1 damage / when: the substance change happened on a
    preceding turn and X now casts a Co-only damage spell on G / then: the cast is rejected (illegal target)"
    ([000:112]; A-SPELL-7). X cast its regular spell this season already, so the later cast is a third mage's, on a
    later turn, as the example's "X now" allows."""
    d = Dice()
    arts = {"ann": ["Cr", "Ig", "Vi", "An", "Au"], "bob": ["Mu", "Co", "Vi", "Re", "Pe"],
            "cy": ["Cr", "Ig", "Re", "Mu", "An"]}  # fmt: skip
    t = fixed_three(d, arts=arts)
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = named(t, "cy", "Grogs")["id"]
    t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs, 1))
    t.run("bob", Cast("bob", t.mage("bob"), "Incantation of the Stone Warrior", grogs, 3))
    assert card(t, grogs)["damage"] == 1 and card(t, grogs)["substance"] == "Te"
    assert refused(t, "cy", Cast("cy", t.mage("cy"), "Sphere of Flame", grogs, 1), "A-SPELL-7").field == "target"


def test_a_ex_6_targeting_yourself():
    """A-EX-6 "Mage casts Levitate on Wings of Air on itself → allowed / Incantation of the Stone Warrior on itself →
    allowed ("turn itself into stone") / Enhance Resistance on itself → rejected (raises its own MR) / The Subtle
    Accomplice targeting itself → rejected" ([000:113]; A-SPELL-6)."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Re", "Au", "Mu", "Co", "Vi"], "bob": ["Mu", "Vi", "Pe", "Im", "Re"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    me = t.mage("ann")
    refused(t, "ann", Cast("ann", me, "Enhance Resistance", me, 2), "A-SPELL-6")
    t.run("ann", Cast("ann", me, "Levitate on Wings of Air", me, 1))
    cid = t.run("bob", Challenge("bob", t.mage("bob"), t.mage("cy")))["challenge_id"]
    t.run("cy", Pass("cy"))
    t.run("ann", Cast("ann", me, "Incantation of the Stone Warrior", me, 3))
    assert card(t, me)["substance"] == "Te"
    pass_main(t)
    assert t.phase() == "certamen" and cid
    refused(t, "bob", Cast("bob", t.mage("bob"), "The Subtle Accomplice", t.mage("bob"), 1), "A-SPELL-6")


def test_a_ex_7_season_of_chaos_an_even_roll_chooses_a_rival_and_both_covenants_are_marked():
    """A-EX-7 "given: Season of Chaos in play; Player A rolls 4 (even) → chooses B; B declines to pay 4 gold / then:
    at Main Phase end the mundane battle A vs B resolves; the grogs of both deal damage → both covenants marked /
    given: A rolls 3 (odd) → no battle obligation for A" ([000:98], [000:691])."""
    from domain.covenants.commands import AvertBattle, ChooseRival, RollChaos

    d = Dice()
    t = year_two_spring_event(d, 6)  # Season of Chaos
    assert t.phase() == "chaos" and t.turn()[0] == "bob"
    d.push([4])
    assert t.run("bob", RollChaos("bob")) == {"face": 4, "must_choose_rival": True}
    t.run("bob", ChooseRival("bob", "ann"))
    t.run("ann", AvertBattle("ann", False))
    d.push([3])
    assert t.run("cy", RollChaos("cy"))["must_choose_rival"] is False
    d.push([1])
    t.run("ann", RollChaos("ann"))
    pass_main(t)
    assert t.phase() == "battle" and t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 2}
    t.run("bob", AllocateDamage("bob", {named(t, "bob", "Grogs")["id"]: 2}))
    t.run("ann", AllocateDamage("ann", {named(t, "ann", "Grogs")["id"]: 2}))
    v = t.view("cy")["covenants"]
    assert v["ann"]["marked"] and v["bob"]["marked"] and not v["cy"]["marked"]


def test_a_ex_8_season_track_legality():
    """A-EX-8 "start: all at 0 (Begin), first moves of the season / P1 → 9 (Event): ok; P2 → 9: rejected (occupied);
    P2 → 10: rejected (first move > Event); P2 → 8: ok / next cycle: P1 (on 9) → only legal move is 10 → all tokens →
    10 → RECKONING (P2 does not move; remaining phases skipped)" (A-TRACK-1, A-AMB-4)."""
    d = Dice()
    t = fixed_three(d)
    t.run("ann", Move("ann", 9))
    refused(t, "bob", Move("bob", 9), "A-TRACK-1")
    refused(t, "bob", Move("bob", 10), "A-TRACK-1")
    t.run("bob", Move("bob", 8))
    t.run("cy", Move("cy", 1))
    pass_create(t)
    pass_main(t)
    assert t.view("ann")["me"]["legal_moves"] == [10]
    t.run("ann", Move("ann", 10))
    v = t.view("gm")
    assert v["game"]["phase"] == "reckoning" and {c["square"] for c in v["covenants"].values()} == {10}


def test_a_ex_12_a_covenant_fights_the_wave_of_bandits_and_loses_its_mine_and_its_gold():
    """A-EX-12 "given: covenant with Grogs A (MM 2, Sword +1), Grogs B (MM 2, Leather Shield +1 capacity), 1 Mine,
    gold 3 (none in Treasury); Wave of Bandits (MM 4); player chooses to fight / then: covenant deals 2+1+2 = 5 →
    Bandits damage 5 ≥ 4 → Bandits discarded at season end / Bandits deal 4 → must fill capacities first: A ≤ 2,
    B ≤ 3 (e.g. A 2, B 2) → both damaged → both inactive / active Grogs = 0 < required 1 for 1 Mine → Mine
    discarded immediately ([000:51], A-AMB-11) / at season end no active Grogs → lose all 3 gold outside a Treasury
    ([000:683])". Year one: Ann's starting Grogs (B) gets a Leather Shield (1 gold), and a Mine makes her a gold at
    the Winter Reckoning; Spring of year two: she keeps Grogs A and a Sword for it (1 gold): 3 gold."""
    from domain.covenants.commands import FaceBandits

    d = Dice()
    t = fixed_three(d, options={"yearly_consumes": False})
    grogs_b = named(t, "ann", "Grogs")["id"]
    move_all_to(t, {"ann": 4, "bob": 1, "cy": 2})
    d.push([3])
    shield = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", shield, attach_to=grogs_b))
    pass_create(t)
    end_season(t)
    skip_season(t)
    skip_season(t)
    move_all_to(t, {"ann": 1, "bob": 2, "cy": 3})
    mine = generate_and_keep(t, d, {"ann": 12})["ann"]
    end_season(t)
    assert covenants(t)["ann"]["gold"] == 4 and t.turn()[0] == "bob"
    move_all_to(t, {"bob": 1, "cy": 2, "ann": 3})
    grogs_a = generate_and_keep(t, d, {"ann": 1})["ann"]
    pass_main(t)
    move_all_to(t, {"bob": 5, "cy": 6, "ann": 4})
    pass_until(t, "ann")
    d.push([1])
    sword = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", sword, attach_to=grogs_a))
    pass_main(t)
    move_all_to(t, {"bob": 9, "cy": 7, "ann": 8})
    pass_create(t)
    d.push([5])  # Wave of Bandits
    t.run("bob", DrawEvent("bob"))
    pass_main(t)
    assert t.phase() == "bandits" and covenants(t)["ann"]["gold"] == 3
    t.run("bob", FaceBandits("bob", fight=False))
    t.run("cy", FaceBandits("cy", fight=False))
    refused(t, "ann", FaceBandits("ann", fight=True, allocation={grogs_a: 3, grogs_b: 1}), "A-BAT-1")  # A: 2 at most
    assert t.run("ann", FaceBandits("ann", fight=True, allocation={grogs_a: 2, grogs_b: 2}))["dealt"] == 5
    assert not card(t, grogs_a)["active"] and not card(t, grogs_b)["active"]
    assert card(t, mine) is None  # no active Grogs to guard it
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, {"ann": [grogs_a, grogs_b]})
    assert covenants(t)["ann"]["gold"] == 0  # all 3 lost
    assert "Wave of Bandits" not in t.view("cy")["events_in_play"]  # beaten: discarded at the season's end


def test_a_ex_14_random_arts_for_a_starting_mage():
    """A-EX-14 "d6: [6, 2, 2, 4] → 6 reroll; 2 → In; 2 duplicate → reroll; 4 → Pe ⇒ {In, Pe} / d20: [3, 4, 20, 11] →
    ⌈3/2⌉=2 Aq; ⌈4/2⌉=2 Aq duplicate → reroll; 20 → Vi; 11 → Ig ⇒ {Aq, Vi, Ig}" (A-GEN-4, A-AMB-16): the host seats
    Ann without Arts, and the game rolls them with these dice, each roll recorded."""
    d = Dice().push([6], [2], [2], [4], [3], [4], [20], [11])  # after the starting-player draw
    t = fixed_three(d, arts={"ann": []})
    assert card(t, t.mage("ann"))["arts"] == ["In", "Pe", "Aq", "Vi", "Ig"]
    rolled = [e["data"]["faces"][0] for e in t.games.visible_events(t.game_id, "bob") if e["type"] == "DieRolled"]
    assert rolled == [1, 6, 2, 2, 4, 3, 4, 20, 11]


def test_a_ex_1_an_event_discarded_and_drawn_again_is_fetched_from_the_discard_pile():
    """A-EX-1 with A-AMB-21 "All Event cards are unique ... In the discard pile → it may be fetched and played
    again ([000:174])": Bob discards the Riots he drew (Ann has no Town); drawn again the next season, it leaves the
    discard pile."""
    d = Dice()
    t = year_two_spring_event(d, 12)  # Riots (directed)
    t.run("bob", DecideEvent("bob", "discard"))
    assert [c["name"] for c in t.view("gm")["discard"]["cards"]] == ["Riots"]
    end_season(t)
    move_all_to(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([12])
    assert t.run("bob", DrawEvent("bob"))["event"] == "Riots"
    assert t.view("gm")["discard"] == {"count": 0, "cards": []}


def test_a_ex_5_a_boost_countered_while_its_unagreed_battle_is_allocated_is_fought_again_unboosted():
    """A-EX-5 and A-SPELL-5 ("A spell can be countered at any point in the phase it was cast"): Bob, who did not
    agree, counters the boost while the covenants are allocating the battle's damage; the battle begins again with
    Ann's Grogs at Might 2 (A-AMB-15)."""
    from domain.platform.commands import CloseWindow
    from tests.domain.test_covenants_battles_played import boosted_battle, grogs

    d = Dice()
    t, spell = boosted_battle(d)
    t.run("cy", NoCounter("cy"))
    t.run("ann", NoCounter("ann"))
    (window,) = t.view("bob")["windows"]
    t.run("ann", CloseWindow(window["id"]))
    assert t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 3}
    assert t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", spell, 2))["countered"] is True
    assert t.phase() == "battle" and t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 2}
    t.run("bob", AllocateDamage("bob", {grogs(t, "bob")["id"]: 2}))
    t.run("ann", AllocateDamage("ann", {grogs(t, "ann")["id"]: 2}))
    assert grogs(t, "bob")["damage"] == 2 and grogs(t, "ann")["damage"] == 2
