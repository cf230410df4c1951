"""The decisions of ANALYSIS.md P.6 on Powers' world, magic, catalogue and development, each shown through the
command path with explicit dice (issue 25). A decision already shown by a ``test_p_amb_<n>_`` test elsewhere (P-AMB-42:
tests/domain/test_conformance_magic.py) is not repeated here."""

from __future__ import annotations

from domain.powers import armies as ar
from domain.powers import catalogue_commands as cat
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import magic as m
from domain.powers import world
from tests.domain.test_conformance_armies import block
from tests.domain.test_powers_rules_as_written import Table, _claimed_town, _town_action


def _walk(t: Table, until: tuple[int, str]) -> list[tuple[int, int, str]]:
    """Advance (resolving each month) until (season, step); the (season, month, step) of each step on the way."""
    seen = []
    while True:
        g = t.games.view(t.gid, "gm")["game"]
        seen.append((g["season"], g["month"], g["step"]))
        if (g["season"], g["step"]) == until:
            return seen
        if g["step"] == "resolution":
            t.games.send(t.gid, "gm", pc.Resolve())
        else:
            t.advance()


def test_p_amb_2_a_season_has_the_two_or_three_months_the_gm_sets_and_tidings_opens_the_next_one():
    """P-AMB-2 — "M ∈ {2,3} per season, set by the GM (GM-28) and defaulting to 2. Tidings is the first step of
    season n+1 and follows Cleanup of season n." """
    t = Table(("City", "city", "sovereign"))
    assert t.games.view(t.gid, "gm")["game"]["months_per_season"] == 2
    for months in (1, 4):
        t.refused("gm", pc.SetMonths(months), "P-AMB-2")
    t.gm(pc.SetMonths(3))
    seen = _walk(t, (2, "tidings"))
    assert [(s, mo) for s, mo, step in seen if step == "planning"] == [(1, 1), (1, 2), (1, 3)]
    assert [step for _, _, step in seen[-2:]] == ["cleanup", "tidings"]  # season 2 opens after season 1's Cleanup


def test_p_amb_21_support_is_paid_in_coin_respect_or_fear_never_loyalty():
    """P-AMB-21 — [003:569] "pay one coin, loyalty, or fear": "Read it as coin, respect, or fear (the respect/fear
    pair used throughout)." Three units against a limit of 1 (a town of one) owe 2."""
    t = Table(("City", "city", "sovereign"), towns=[{"id": "derop", "hex": "0,0", "population": 1}])
    city = t.seats["City"]
    t.gm(world.SetClaim("derop", city))
    t.gm(ar.PlaceArmy("guard", "Guard", "0,0", 3, city, block=block(), loyal=True))
    t.gm(dev.AdjustResources(city, {"coin": 1}, "the treasury"))
    t.by("City", dev.ChooseControl(city, "respect"))
    t.advance()  # Tidings
    t.refused("City", ar.PaySupport(city, {"loyalty": 2}), "P-SUP-1")
    t.by("City", ar.PaySupport(city, {"coin": 1, "respect": 1}))
    wallet = t.games.view(t.gid, city)["development"]["mine"]["wallet"]
    assert (wallet["coin"], wallet["respect"]) == (0, 2)


def test_p_amb_25_a_feast_after_deaths_is_twice_one_more_than_the_rooted_ranks_and_feeds_double_each_season():
    """P-AMB-25 — "Feast: '+1 and then doubled'; Feed: 'doubled for each time'." Decision: "Feast D' = 2(D+1).
    Feed D = pop × 2^n (P-TOWN-2)." The rooted agents and the deaths are the GM's facts (GM-5)."""
    t, city, lore = _claimed_town(population=3)
    feast = t.act("City", "A feast for the guilds", location="0,0", slot="public")
    died = {"agents_died": True}
    t.refused("City", world.AimAction(feast, "town", town_id="derop", kind="feast", params=died), "P-TOWN-2")
    t.by("City", world.AimAction(feast, "town", town_id="derop", kind="feast"))
    quiet = _town_action(t, "A quiet supper", "feast")
    t.gm(
        world.AimAction(
            feast, "town", town_id="derop", kind="feast", params={"rooted_agent_ranks": 2, "agents_died": True}
        )
    )
    t.gm(world.AimAction(quiet, "town", town_id="derop", kind="feast", params={"rooted_agent_ranks": 2}))
    assert (t.mine("City", feast)["difficulty"], t.mine("City", quiet)["difficulty"]) == (6, 2)
    t.games.send(t.gid, city, pc.DiscardAction(feast))
    t.games.send(t.gid, city, pc.DiscardAction(quiet))
    fed = _town_action(t, "Feed the poor", "feed")
    t.roll("City", fed, [6, 6, 6, 1, 1], assets=[{"asset_id": lore}], convert=0)
    t.resolve()
    t.advance()  # Battle -> month 2 Planning
    again = _town_action(t, "Feed them again", "feed")
    assert t.mine("City", again)["difficulty"] == 4 * 2  # population 4, fed once this season


def test_p_amb_26_an_upgrade_costs_one_less_than_building_it_new():
    """P-AMB-26 — "Upgrade difficulty = (new complexity + other existing features) − 1." An Extended Guild
    (3 + 2 = 5) in a town with a Farm beside it: 5 + 1 − 1 = 5."""
    features = [{"id": "farm", "kind": "farm", "town": "derop"}, {"id": "guild", "kind": "guild", "town": "derop"}]
    t = Table(("City", "city", "sovereign"), towns=[{"id": "derop", "hex": "0,0", "population": 6}], features=features)
    city = t.seats["City"]
    t.gm(world.SetClaim("derop", city))
    t.to_planning()
    up = _town_action(t, "Widen the guild", "upgrade", feature_id="guild", upgrades=["extended"])
    assert t.mine("City", up)["difficulty"] == 5


def test_p_amb_27_halves_round_down_with_a_floor_of_one():
    """P-AMB-27 — "Round down, as the text does elsewhere ('always round down', [003:610]). Exception:
    costs/difficulties with a minimum of 1 when the base is ≥ 1." Workers, Unite! costs and is "½ the industry's
    complexity": a College (6) 3, a Guild (3) 1, a Farm (1) 1."""
    features = [{"id": k, "kind": k, "town": "derop"} for k in ("college", "guild", "farm")]
    t = Table(("Cult", "conspiracy", "cult"), towns=[{"id": "derop", "hex": "0,0", "population": 9}], features=features)
    cult = t.seats["Cult"]
    t.gm(world.SetClaim("derop", cult))
    t.games.send(t.gid, "gm", pc.SetInfluence(cult, "0,0", 9))
    t.to_planning()
    rated = {}
    for kind in ("college", "guild", "farm"):
        aid = t.act("Cult", f"Unite the {kind}", location="0,0")
        rated[kind] = t.by("Cult", world.AimAction(aid, "workers_unite", feature_id=kind))["difficulty"]
    assert rated == {"college": 3, "guild": 1, "farm": 1}
    assert t.me("Cult")["influence"] == {"0,0": 9 - 3 - 1 - 1}


def test_p_amb_28_since_the_last_time_counts_from_the_start_of_the_epic():
    """P-AMB-28 — "'Since the last time' counters (City Channel, Coming of Age, Mana Gardens) have no starting
    point": "Start counting at the start of the epic, as Coming of Age says explicitly." In season 1 one season has
    passed since the start: Coming of Age is 4 − 1 = 3."""
    t = Table(("City", "city", "sovereign"))
    city = t.seats["City"]
    charm = t.gm(pc.GrantAsset(city, "negotiation", "skill", 4))["asset_id"]
    t.to_planning()
    t.dice.rolls = [[6, 6, 6, 1]]
    out = t.by(
        "City",
        cat.SubmitClassAction(city, "coming_of_age", slot="public", assets=[{"asset_id": charm}], convert=0),
    )
    assert out["difficulty"] == 3


def test_p_amb_33_new_perks_and_upgrades_climb_one_price_ladder():
    """P-AMB-33 — "One counter per power, shared by new perks and upgrades." 5, then 7 for an upgrade, then 9."""
    t = Table(("Smaug", "champion", "dragon"))
    smaug = t.seats["Smaug"]
    t.gm(dev.GrantPerk(smaug, "Subtle Titan"))
    t.gm(dev.AwardFame(smaug, 21, "GM award"))
    t.advance()  # Tidings
    paid = [
        t.by("Smaug", dev.BuyDevelopment(smaug, kind, name))["price"]
        for kind, name in (("perk", "Warbacked"), ("upgrade", "Subtle Titan"), ("perk", "Monstrous"))
    ]
    assert paid == [5, 7, 9]


def test_p_amb_34_a_negotiation_with_an_npc_is_an_action_whose_target_is_no_power():
    """P-AMB-34 — "Elrond is a 'Sovereign city' example power but a 'Minor City' NPC in the example": "The
    Negotiation target must be an NPC or peripheral asset." The Rangers' talk with Elrond (P-EX-1) is an action
    (P-ACT-5), aimed at no power of the game: Elrond is not one."""
    t = Table(("Rangers", "conspiracy", "circle"))
    rangers = t.seats["Rangers"]
    talk = t.gm(pc.GrantAsset(rangers, "negotiation", "skill", 6))["asset_id"]
    t.to_planning()
    t.refused("Rangers", cat.TakeFreeAction(rangers, "negotiate_npc", talk), "P-ACT-5")
    t.dice.rolls = [[6, 6, 5, 3, 1, 1]]
    t.refused(
        "Rangers",
        pc.SubmitAction(rangers, "Win Elrond over", skill="negotiation", targets=["elrond"], convert=1),
        None,
    )  # no power "elrond" to target: Elrond is an NPC
    aid = t.act(
        "Rangers",
        "Win Elrond over",
        [6, 6, 5, 3, 1, 1],
        skill="negotiation",
        difficulty=2,
        assets=[{"asset_id": talk}],
        convert=1,
    )
    t.resolve()
    assert (t.mine("Rangers", aid)["result"]["successes"], t.mine("Rangers", aid)["result"]["excess"]) == (4, 2)


def test_p_amb_35_a_rituals_stated_difficulty_overrides_its_formula():
    """P-AMB-35 — "The ritual data model allows an explicit difficulty override; the formula is used only when the
    override is absent." A ritual of 1E is difficulty 2 × 1 = 2 by its formula, 6 when the GM states 6."""
    t = Table(("Wizard", "champion", "wizard"))
    wiz = t.seats["Wizard"]
    t.gm(m.DefineSpell("ward", "Ward", "ritual", "1E"))
    t.gm(m.DefineSpell("great-ward", "Great Ward", "ritual", "1E", difficulty=6))
    for spell in ("ward", "great-ward"):
        t.gm(m.TeachSpell(wiz, spell))
    staff = t.gm(m.SetConduit(wiz, "the wizard", "0,0"))["conduit_id"]
    t.to_planning()
    t.gm(m.GrantMana(wiz, "E", 3))
    rated = {}
    for spell in ("ward", "great-ward"):
        aid = t.act("Wizard", f"Raise the {spell}")
        t.by("Wizard", m.CastSpell(wiz, spell, staff, action_id=aid, pay=["E", "E"]))
        t.gm(m.GrantMana(wiz, "E", 2))
        rated[spell] = t.mine("Wizard", aid)["difficulty"]
    assert rated == {"ward": 2, "great-ward": 6}


def test_p_amb_37_a_power_that_stores_no_mana_spends_what_it_gains_during_an_action_in_that_action():
    """P-AMB-37 — "A power whose cap is 0 may still receive mana during an action and spend it within that same
    action. Any leftover is lost at the end of the action." The GM's grant to a Sovereign's store is refused; mana
    it gains during its action is the action's, spent there, and gone once the month is over."""
    t = Table(("City", "city", "sovereign"))
    city = t.seats["City"]
    t.to_planning()
    t.refused("gm", m.GrantMana(city, "F", 2), "P-MAG-1")
    rite = t.act("City", "Light the beacons", slot="public")
    t.gm(m.ChannelMana(rite, "F", 2))
    assert t.me("City")["mana"] == {}
    assert t.by("City", m.PayMana(city, rite, "F"))["pooled"] == {"channelled": {"F": 1}}
    t.resolve()
    t.advance()  # Battle -> month 2 Planning
    later = t.act("City", "Light them again", slot="public")
    t.refused("City", m.PayMana(city, later, "F"), "P-MAG-1")  # the leftover went with the first action


def test_p_amb_38_saboteurs_cost_two_more_for_each_use_this_season_by_that_power():
    """P-AMB-38 — "Saboteurs: 'Difficulty: 2, increased by a further 2 until the end of the season'": "Cumulative:
    +2 per earlier use this season, per power." """
    t = Table(("Cause", "conspiracy", "cause"), ("Rebels", "conspiracy", "cause"))
    cause, rebels = t.seats["Cause"], t.seats["Rebels"]
    for pid in (cause, rebels):
        t.games.send(t.gid, "gm", pc.SetInfluence(pid, "0,0", 9))
    t.to_planning()

    def sabotage(name: str, slot: str = "private") -> int:
        pid = t.seats[name]
        out = t.by(name, cat.SubmitClassAction(pid, "saboteurs", {"hex": "0,0"}, slot=slot, location="0,0", roll=False))
        return int(out["difficulty"])

    assert [sabotage("Cause"), sabotage("Cause"), sabotage("Rebels"), sabotage("Cause", "public")] == [2, 4, 2, 6]


def test_p_amb_10_an_adversary_has_the_immunity_the_gm_records_none_by_default_and_a_duel_cannot_slay_through_it():
    """P-AMB-10 — "A minor adversary with an immunity, against [003:15] 'they don't have any immunity effects'":
    "Immunities are data on each adversary. The minor-adversary default is none, and the GM may override."
    [003:54] "Non-Minor Champions have an immunity ability that makes them difficult to attack directly, while this
    immunity applies they cannot be killed by a duel." In P-EX-2 "Gandalf already knows how to bypass the balrogs
    immunity to physical force"; Saruman does not."""
    t = Table(("Gandalf", "champion", "wizard"), ("Saruman", "champion", "wizard"), ("Balrog", "champion", "adversary"))
    gandalf, saruman, balrog = (t.seats[n] for n in ("Gandalf", "Saruman", "Balrog"))
    might = {n: t.gm(pc.GrantAsset(t.seats[n], "might", "skill", 2))["asset_id"] for n in ("Gandalf", "Saruman")}
    t.to_planning()

    def duel(name: str) -> str:
        t.dice.rolls = [[6, 6]]
        return str(
            t.by(name, cat.SubmitDuel(t.seats[name], balrog, "3,0", assets=[{"asset_id": might[name]}], convert=0))[
                "action_id"
            ]
        )

    def outcomes(*duels: tuple[str, str]) -> list[dict]:
        t.resolve()
        t.gm(pc.WaiveReactions(balrog))  # the GM plays the adversary (GM-10)
        return [t.games.view(t.gid, t.seats[n])["catalogue"]["class_actions"][aid]["outcome"] for n, aid in duels]

    assert outcomes(("Gandalf", duel("Gandalf"))) == [{"success": True, "target": balrog, "defeated": True}]
    t.advance()  # month 2 Planning
    t.refused("Gandalf", cat.SetImmunity(balrog, "physical force"), None)  # the GM's to record
    t.gm(cat.SetImmunity(balrog, "physical force", bypassed_by=[gandalf]))
    assert t.games.view(t.gid, saruman)["catalogue"]["immunities"] == {}  # the GM's and the Balrog's to know
    assert t.games.view(t.gid, gandalf)["catalogue"]["immunities"] == {balrog: "physical force"}
    slain, held = outcomes(("Gandalf", duel("Gandalf")), ("Saruman", duel("Saruman")))
    assert (slain["defeated"], slain["immunity_held"]) == (True, False)
    assert (held["defeated"], held["immunity_held"]) == (True, True)  # defeated, but it cannot be killed
