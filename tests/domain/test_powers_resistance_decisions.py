"""Dice, resistance and the action economy: each decision of rules/ANALYSIS.md P.6 on them, shown through the typed
commands and the service (``Games.run``), with the dice given explicitly; and the campaign options of P-AMB-3,
P-AMB-4 and P-AMB-7 (PART X, 7), each value read by the rules."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from application.service import SYSTEM_CALLER, Caller, Games
from domain.dice import FixedRoller
from domain.errors import DomainError
from domain.platform.commands import CloseDueWindow, CloseWindow, GrantExtension, RequestExtension
from domain.powers import catalogue_commands as cc
from domain.powers import commands as pc
from domain.powers import magic, world
from tests.domain.helpers import NOW, seen, window_of
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power


class Table:
    """A Powers game run through the service, its dice given by the test (``run(who, command, *rolls)``) and its
    clock the test's (``later(hours)``)."""

    def __init__(self, *powers: tuple, options: dict | None = None) -> None:
        self.dice = FixedRoller()
        self.now = NOW
        self.games = Games(roller_factory=lambda game: self.dice, clock=lambda: self.now)
        self.gid, self.gm_token, _ = self.games.create_game("Resistance", "GM", options=options)
        self.tokens: dict[str, str] = {}
        for name, cls, sub, *opts in powers:
            pid, token, _ = add_power(self.games, self.gid, "gm", name, cls, sub, opts[0] if opts else None)
            assert pid == name.lower() and token is not None
            self.tokens[pid] = token

    def run(self, who: str, command, *rolls: list[int]) -> dict:
        self.dice.rolls.extend(list(r) for r in rolls)
        result = self.games.run(Caller.of(who), self.gid, command).result
        assert self.dice.rolls == [], f"rolls left unused: {self.dice.rolls}"
        return result

    def refused(self, who: str, command, rule: str | None, error: type[DomainError] = DomainError) -> DomainError:
        """The command is refused naming ``rule``, and nothing is recorded."""
        before = self.games.get_game(self.gid).version
        with pytest.raises(error) as info:
            self.games.run(Caller.of(who), self.gid, command)
        assert info.value.rule == rule, info.value.message
        assert self.games.get_game(self.gid).version == before
        return info.value

    def later(self, hours: float) -> None:
        self.now = NOW + timedelta(hours=hours)

    def asset(self, power: str, name: str, cls: str, rank: int, **kw) -> str:
        return self.run("gm", pc.GrantAsset(power, name, cls, rank, **kw))["asset_id"]

    def to_planning(self) -> None:
        self.run("gm", pc.Advance("setup"))
        self.run("gm", pc.Advance("tidings"))

    def act(self, power: str, faces: list[int] | None, **kw) -> str:
        kw.setdefault("title", f"{power}'s action")
        rolls = [faces] if faces else []
        return self.run(power, pc.SubmitAction(power_id=power, **kw), *rolls)["action_id"]

    def resolve(self) -> None:
        self.run("gm", pc.Advance("planning"))
        self.run("gm", pc.Resolve("resolution"))

    def resist(self, power: str, action_id: str, faces: list[int], assets: list[str], convert: int = 0) -> dict:
        picks = [{"asset_id": a} for a in assets]
        return self.run(power, pc.DeclareReaction(power, action_id, picks, convert), *([faces] if faces else []))

    def close_resistance(self) -> None:
        w = self.window("resistance")
        self.run("gm", CloseWindow(w, "resistance"))

    def window(self, kind: str) -> str:
        game = self.games.get_game(self.gid)
        w = game.open_window(kind)
        assert w is not None
        return w.id

    def view(self, who: str) -> dict:
        return self.games.view(self.gid, who)

    def events(self, who: str) -> list[dict]:
        return self.games.visible_events(self.gid, who)

    def seen(self, who: str) -> str:
        return json.dumps(self.view(who)) + json.dumps(self.events(who))

    def action(self, action_id: str) -> dict:
        return next(a for a in self.view("gm")["actions"] if a["action_id"] == action_id)


def _duel(options: dict | None = None) -> tuple[Table, str]:
    """Gandalf (a Wizard) duels the Balrog (a Circle here, so it may be mailed): his pool is might 3, the Staff
    (an item, 2) and an assured Demonhunting blade (2); he rolls [5, 4, 3, 1, 1] and converts two."""
    t = Table(("Gandalf", "champion", "wizard"), ("Balrog", "conspiracy", "circle"), options=options)
    might = t.asset("gandalf", "might", "skill", 3)
    staff = t.asset("gandalf", "Staff of Orthanc", "item", 2)
    blade = t.asset("gandalf", "Demonhunting blade", "consumable", 2, assured=True)
    t.asset("balrog", "might", "skill", 3, asset_id="balrog-might")
    t.to_planning()
    duel = t.act(
        "gandalf",
        [5, 4, 3, 1, 1],
        title="Duel the Balrog",
        skill="might",
        targets=["balrog"],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": might}, {"asset_id": staff}, {"asset_id": blade, "mode": "assured"}],
        convert=2,
    )
    return t, duel


# ---------------------------------------------------------------------- P-AMB-3: what a resister sees


def test_p_amb_3_by_default_a_resister_learns_the_pool_size_only():
    """P-AMB-3 "Default: the pool size only (the total ranks, counting GM-hidden assets), plus the actor's identity
    and what the action is." No asset of the pool, no assured flag, no dice, no consequence count."""
    t, duel = _duel()
    t.resolve()
    [notice] = t.view("balrog")["may_resist"]
    assert notice == {
        "action_id": duel,
        "power": "gandalf",
        "power_name": "Gandalf",
        "title": "Duel the Balrog",
        "skill": "might",
        "pool_size": 7,
        "status": "provisional",
    }
    seen = t.seen("balrog")
    for hidden in ("Staff of Orthanc", "Demonhunting blade", '"faces"', "PoolAssetsShown"):
        assert hidden not in seen
    t.refused("gm", pc.HideFromResisters(duel, []), "P-AMB-3")  # nothing to hide: the size counts every asset


def test_p_amb_3_the_campaign_option_lists_the_assets_the_gm_has_not_hidden_without_their_flags():
    """P-AMB-3 "A campaign option can also show the list of assets the resister is allowed to see, with
    assured/critical flags removed." The GM keeps the blade hidden (GM-19); the size still counts it."""
    t, duel = _duel({"resister_sees_assets": "assets"})
    blade = next(a["asset_id"] for a in t.view("gandalf")["me"]["assets"] if a["name"] == "Demonhunting blade")
    t.refused("gm", pc.HideFromResisters(duel, ["no-such-asset"]), "GM-19")
    t.refused("balrog", pc.HideFromResisters(duel, [blade]), None)  # the GM's alone
    t.run("gm", pc.HideFromResisters(duel, [blade]))
    t.resolve()
    t.refused("gm", pc.HideFromResisters(duel, []), "GM-19")  # shown when the Resolution was published
    [notice] = t.view("balrog")["may_resist"]
    assert notice["pool_size"] == 7
    assert notice["assets"] == [
        {"name": "might", "cls": "skill", "rank": 3},
        {"name": "Staff of Orthanc", "cls": "item", "rank": 2},
    ]
    shown = [e for e in t.events("balrog") if e["type"] == "PoolAssetsShown"]
    assert [e["data"]["assets"] for e in shown] == [notice["assets"]]
    assert "Demonhunting blade" not in t.seen("balrog")
    told = json.dumps([notice, shown])
    assert "assured" not in told and "critical" not in told and "mode" not in told
    assert not [e for e in t.events("gandalf") if e["type"] in ("PoolAssetsShown", "AssetsHiddenFromResisters")]


def test_p_amb_3_after_the_window_the_resister_sees_the_net_result():
    """P-AMB-3 "After the window closes, the resister sees the net result" ("targets of a resolved ↩️ action")."""
    t, duel = _duel()
    t.resolve()
    t.resist("balrog", duel, [6, 1, 1], ["balrog-might"])
    [shown] = t.view("balrog")["results_shown_to_me"]
    assert shown["result"] == {"success": True, "net": 4, "excess": 3}  # 1 + 2 converted + 2 assured - 1


# ---------------------------------------------------------------------- P-AMB-4: when a resister is told


def test_p_amb_4_by_default_the_resister_is_told_when_the_resolution_is_published():
    """P-AMB-4 "Send the private notice when the Resolution is published, because the roll is locked and the
    window opens then." During Planning the target learns nothing of the action against it."""
    t, duel = _duel()
    assert t.view("balrog")["forewarned"] == [] and "Duel the Balrog" not in t.seen("balrog")
    t.resolve()
    told = [e for e in t.events("balrog") if e["type"] in ("ResistanceForewarned", "ResistanceOffered")]
    assert [(e["type"], e["data"]["action_id"], e["data"]["pool_size"]) for e in told] == [
        ("ResistanceOffered", duel, 7)
    ]


def test_p_amb_4_the_campaign_option_tells_the_resister_at_submission():
    """P-AMB-4 "A campaign option allows sending it at submission": once submitted with its roll locked, the
    action's actor, title and pool size go to its resister alone; a resister the GM adds later is told then."""
    t, duel = _duel({"notify_resister_at": "submission"})
    [told] = [e for e in t.events("balrog") if e["type"] == "ResistanceForewarned"]
    assert (told["data"]["power_name"], told["data"]["title"], told["data"]["pool_size"]) == (
        "Gandalf",
        "Duel the Balrog",
        7,
    )
    [notice] = t.view("balrog")["forewarned"]
    assert (notice["action_id"], notice["pool_size"], notice["status"]) == (duel, 7, "submitted")
    assert '"faces"' not in t.seen("balrog") and "Staff" not in t.seen("balrog")
    assert not [e for e in t.events("gandalf") if e["type"] == "ResistanceForewarned"]
    # A second target ruled by the GM after the roll is told at once; the Balrog is not told twice.
    add_power(t.games, t.gid, "gm", "Saruman", "champion", "paragon")
    t.run("gm", pc.SetRuling(duel, True, ["balrog", "saruman"]))
    assert [e["type"] for e in t.events("saruman")].count("ResistanceForewarned") == 1
    assert [e["type"] for e in t.events("balrog")].count("ResistanceForewarned") == 1
    t.resolve()
    assert t.view("balrog")["forewarned"] == [] and t.view("balrog")["may_resist"][0]["action_id"] == duel


# ---------------------------------------------------------------------- P-AMB-5: critical arithmetic


@pytest.mark.parametrize("mode, counted, convertible", [("rolled", 6, 2), ("rank", 9, 1)])
def test_p_amb_5_a_critical_asset_shows_its_rolled_and_its_multiplied_successes(mode, counted, convertible):
    """P-AMB-5 "Roll the asset's own dice; its successes, including the 3s and 4s the player chose to convert, × 3.
    Consequences are not multiplied. Show the player both the rolled and the multiplied numbers. Make ×3 of rank
    (an assured-like value) a campaign option." A critical rank-3 Palantir rolls [5, 3, 1] beside a skill's [4]: the
    player converts what counts (the Palantir's 3 first under ``rolled``, only the skill's 4 under ``rank``)."""
    t = Table(("Cult", "conspiracy", "cult"), options={"critical_mode": mode})
    palantir = t.asset("cult", "Palantir", "secret", 3, critical=True)
    lore = t.asset("cult", "lore", "skill", 1)
    t.to_planning()
    picks = [{"asset_id": palantir, "mode": "critical"}, {"asset_id": lore}]
    act = t.act("cult", [5, 3, 1, 4], skill="lore", assets=picks, roll=True)
    preview = {p["convert"]: (p["successes"], p["consequences"]) for p in t.view("cult")["my_actions"][0]["preview"]}
    assert max(preview) == convertible
    t.run("cult", pc.LockConversions(act, convert=1))
    mine = t.view("cult")["my_actions"][0]
    rolled = 2 if mode == "rolled" else 1  # the 5, and the converted 3 where the conversion went to it
    assert mine["critical"] == [{"asset_id": palantir, "name": "Palantir", "rolled": rolled, "counted": counted}]
    assert mine["consequences"] == 1  # never multiplied
    assert mine["successes"] == counted + (0 if mode == "rolled" else 1)


# ---------------------------------------------------------------------- P-AMB-6: a resister's consequences


def test_p_amb_6_a_resister_converts_threes_and_fours_and_the_gm_gives_its_consequences_their_form():
    """P-AMB-6 "Can a resister convert 3s and 4s and take consequences? Yes. The resister's consequences go through
    the GM consequence workflow too": the GM proposes their form, the resister accepts, its effects fall on it."""
    t, duel = _duel()
    t.resolve()
    rx = t.resist("balrog", duel, [6, 4, 3], ["balrog-might"], convert=2)
    assert (rx["successes"], rx["consequences"]) == (3, 2)
    effects = [
        {"kind": "lose_actions", "count": 1},
        {"kind": "status", "name": "Scorched", "stacks": 2},
        {"kind": "disclose", "to": "gandalf", "text": "The Balrog's lair is under Zirakzigil"},
    ]
    reaction = rx["reaction_id"]
    t.refused("balrog", pc.ProposeReactionConsequence(reaction, "Its lair is found", effects), None)
    bad = [{"kind": "lose_actions", "count": 9}]
    t.refused("gm", pc.ProposeReactionConsequence(reaction, "Too much", bad), "P-ACT-2")
    cid = t.run("gm", pc.ProposeReactionConsequence(reaction, "Its lair is found", effects))["consequence_id"]
    [mine] = t.view("balrog")["my_reactions"]
    assert mine["consequences"] == 2
    assert mine["consequence_offers"] == [
        {"id": cid, "text": "Its lair is found", "effects": effects, "status": "proposed"}
    ]
    assert "Its lair is found" not in t.seen("gandalf")  # the resister's dealings with the GM are its own
    assert pc.AcceptReactionConsequence(reaction, cid) in t.games.get_game(t.gid).ruleset.offers(
        t.games.get_game(t.gid), "balrog"
    )
    t.refused("gandalf", pc.AcceptReactionConsequence(reaction, cid), None)
    t.run("balrog", pc.AcceptReactionConsequence(reaction, cid))
    t.refused("balrog", pc.AcceptReactionConsequence(reaction, cid), "GM-3")
    me = t.view("balrog")["me"]
    assert (me["quota"]["lost_next_month"], me["statuses"]) == (1, {"Scorched": 2})
    assert [g["text"] for g in t.view("gandalf")["me"]["learned"]] == ["The Balrog's lair is under Zirakzigil"]
    # The window closed with the Balrog's reaction: the duel resolved on net successes all the same.
    assert t.action(duel)["result"]["net"] == 2  # 5 - 3


def test_p_amb_6_a_resister_accepts_its_consequence_by_mail():
    """P-AMB-6 by mail: ``accept <reaction> <consequence>``, as an actor accepts ``accept <action> <consequence>``;
    the reply to ``resist`` names the reaction and its consequences."""
    from tests.mail.test_feature_lines import _mail

    t, duel = _duel()
    t.resolve()
    t.dice.rolls.append([6, 4, 1])
    reply = _mail(t.games, t.gid, t.tokens["balrog"], f"resist {duel} with might convert 1")
    assert reply.accepted, reply.body
    reaction = seen(t.games.get_game(t.gid))["reactions"][0]["reaction_id"]
    assert f"Resisted (reaction {reaction}): roll" in reply.body and "1 consequence." in reply.body
    cid = t.run("gm", pc.ProposeReactionConsequence(reaction, "Wounded", [{"kind": "lose_actions", "count": 1}]))[
        "consequence_id"
    ]
    reply = _mail(t.games, t.gid, t.tokens["balrog"], f"accept {reaction} {cid}")
    assert reply.accepted, reply.body
    assert f"Accepted consequence {cid} on your reaction {reaction}." in reply.body
    assert t.view("balrog")["me"]["quota"]["lost_next_month"] == 1


# ---------------------------------------------------------------------- P-AMB-7: several resisters


def _infiltration(options: dict | None = None) -> tuple[Table, str]:
    """The Cult acts against two cities with 5 successes, difficulty 1; Gondor resists with 3, Rohan with 1."""
    t = Table(
        ("Cult", "conspiracy", "cult"), ("Gondor", "city", "sovereign"), ("Rohan", "city", "sovereign"), options=options
    )
    lore = t.asset("cult", "subtlety", "skill", 5)
    t.asset("gondor", "vigilance", "skill", 3, asset_id="gondor-v")
    t.asset("rohan", "vigilance", "skill", 3, asset_id="rohan-v")
    t.to_planning()
    act = t.act(
        "cult",
        [6, 6, 5, 5, 5],
        skill="subtlety",
        targets=["gondor", "rohan"],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": lore}],
    )
    return t, act


@pytest.mark.parametrize("mode", [None, "by_effect", "summed"])
def test_p_amb_7_an_outcome_that_concerns_everyone_sums_every_resister(mode):
    """P-AMB-7 "For an outcome that concerns everyone (claim or no claim), net = S − Σ S_resist_i" (either mode)."""
    t, act = _infiltration({"multi_resist_mode": mode} if mode else None)
    t.resolve()
    t.resist("gondor", act, [6, 5, 5], ["gondor-v"])
    t.resist("rohan", act, [5, 1, 1], ["rohan-v"])
    assert t.action(act)["result"] == {
        "successes": 5,
        "resisted": 4,
        "net": 1,
        "difficulty": 1,
        "success": True,
        "excess": 0,
    }


@pytest.mark.parametrize(
    "mode, gondor, rohan",
    [
        ("by_effect", {"resisted": 3, "net": 2, "excess": 1}, {"resisted": 1, "net": 4, "excess": 3}),
        ("summed", {"resisted": 4, "net": 1, "excess": 0}, {"resisted": 4, "net": 1, "excess": 0}),
    ],
)
def test_p_amb_7_an_effect_per_target_applies_each_resisters_successes_to_its_own_share(mode, gondor, rohan):
    """P-AMB-7 "For an effect on several targets, apply each resister's successes to that resister's share only, as
    Inquisition does" (the default, ``by_effect``); the campaign option ``summed`` adds every resister's successes
    against every share."""
    t, act = _infiltration({"multi_resist_mode": mode})
    t.run("gm", cc.RulePerTarget(act))
    t.resolve()
    t.resist("gondor", act, [6, 5, 5], ["gondor-v"])
    t.resist("rohan", act, [5, 1, 1], ["rohan-v"])
    per = {
        e["data"]["target"]: {k: e["data"]["result"][k] for k in ("resisted", "net", "excess")}
        for e in t.events("gm")
        if e["type"] == "TargetResult"
    }
    assert per == {"gondor": gondor, "rohan": rohan}
    assert t.action(act)["result"]["net"] == (5 if mode == "by_effect" else 1)


def test_p_amb_7_multi_resist_mode_is_validated():
    with pytest.raises(DomainError) as info:
        Table(options={"multi_resist_mode": "strongest"})
    assert info.value.field == "options.multi_resist_mode"


# ---------------------------------------------------------------------- P-AMB-8: ritual resistance


def test_p_amb_8_ritual_protection_is_each_resisters_own_and_the_ritual_is_not_reduced():
    """P-AMB-8 "Protected if S_resist ≥ ⌈difficulty/2⌉. Protection applies only to that resister. If not protected,
    the ritual still resolves on its own successes; no subtraction for rituals." A Curse of cost 2FF has
    difficulty 4: Gondor's 2 successes protect it, Rohan's 1 does not, and the Curse keeps its 4."""
    t = Table(("Wizard", "champion", "wizard"), ("Gondor", "city", "sovereign"), ("Rohan", "city", "sovereign"))
    lore = t.asset("wizard", "lore", "skill", 4)
    t.asset("gondor", "might", "skill", 2, asset_id="gondor-m")
    t.asset("rohan", "might", "skill", 2, asset_id="rohan-m")
    t.run("gm", magic.DefineSpell("curse", "Curse", "ritual", "2F"))
    t.run("gm", magic.TeachSpell("wizard", "curse"))
    conduit = t.run("gm", magic.SetConduit("wizard", "the wizard", "0,0"))["conduit_id"]
    t.to_planning()
    for element, n in (("F", 3), ("A", 1)):
        t.run("gm", magic.GrantMana("wizard", element, n))
    ritual = t.act("wizard", None, title="Curse the cities", targets=["gondor", "rohan"], resistible=True, roll=False)
    t.run("wizard", magic.CastSpell("wizard", "curse", conduit, action_id=ritual))
    t.run("wizard", pc.RollAction(ritual, [{"asset_id": lore}], convert=0), [6, 6, 6, 6])
    t.resolve()
    t.resist("gondor", ritual, [6, 5], ["gondor-m"])
    t.resist("rohan", ritual, [6, 1], ["rohan-m"])
    warded = {e["data"]["power_id"]: e["data"]["protected"] for e in t.events("gm") if e["type"] == "RitualWarded"}
    assert warded == {"gondor": True, "rohan": False}
    result = t.action(ritual)["result"]
    assert (result["successes"], result["resisted"], result["net"], result["success"]) == (4, 0, 4, True)


# ---------------------------------------------------------------------- P-AMB-9, P-AMB-11: net and excess


def test_p_amb_9_net_successes_meet_the_printed_difficulty_not_a_total_difficulty():
    """P-AMB-9 "Gandalf: 'total difficulty of 5' against the rule 1 + 3 = 4. Follow the rules: net successes
    compared with the printed difficulty." With 4 successes resisted by 3, the duel of difficulty 1 succeeds
    (net 1 ≥ 1), where the example's "total difficulty" of 5 would have failed it."""
    t = Table(("Gandalf", "champion", "wizard"), ("Balrog", "conspiracy", "circle"))
    might = t.asset("gandalf", "might", "skill", 4)
    t.asset("balrog", "might", "skill", 3, asset_id="balrog-might")
    t.to_planning()
    duel = t.act(
        "gandalf", [6, 6, 5, 5], skill="might", targets=["balrog"], resistible=True, difficulty=1,
        assets=[{"asset_id": might}],
    )  # fmt: skip
    t.resolve()
    t.resist("balrog", duel, [6, 5, 5], ["balrog-might"])
    result = t.action(duel)["result"]
    assert (result["successes"], result["resisted"], result["net"], result["difficulty"]) == (4, 3, 1, 1)
    assert (result["success"], result["excess"]) == (True, 0)


def test_p_amb_11_excess_successes_are_counted_after_resistance():
    """P-AMB-11 "excess = max(0, net − difficulty), with net computed after resistance": 6 successes resisted by 2
    against difficulty 2 leave an excess of 2, not 4; resisted by 6, an excess of 0, never negative."""
    for resist_faces, net, excess, success in (([6, 6, 1], 4, 2, True), ([6, 6, 6, 6, 6, 6], 0, 0, False)):
        t = Table(("Cult", "conspiracy", "cult"), ("Gondor", "city", "sovereign"))
        lore = t.asset("cult", "lore", "skill", 6)
        t.asset("gondor", "lore", "skill", len(resist_faces), asset_id="gondor-l")
        t.to_planning()
        act = t.act(
            "cult", [6, 6, 6, 6, 6, 6], skill="lore", targets=["gondor"], resistible=True, difficulty=2,
            assets=[{"asset_id": lore}],
        )  # fmt: skip
        t.resolve()
        t.resist("gondor", act, resist_faces, ["gondor-l"])
        result = t.action(act)["result"]
        assert (result["net"], result["excess"], result["success"]) == (net, excess, success)


# ---------------------------------------------------------------------- P-AMB-30, P-AMB-31, P-AMB-32: actions


def test_p_amb_30_at_most_one_action_is_spent_as_an_asset_on_a_challenge():
    """P-AMB-30 "At most one action-asset per power per challenge": one extra action is an assured rank-1 asset
    that costs a slot; two are refused, naming the decision, and record nothing."""
    t = Table(("Cult", "conspiracy", "cult"))
    t.to_planning()
    t.refused("cult", pc.SubmitAction("cult", "Two extra", extra_actions=2, convert=0), "P-AMB-30")
    act = t.act("cult", None, title="One extra", extra_actions=1, convert=0)
    assert t.action(act)["successes"] == 1 and t.view("cult")["me"]["used"] == {"public": 0, "private": 2}


def test_p_amb_31_a_shared_asset_goes_to_the_action_earlier_in_resolution_order_and_only_the_loser_is_told():
    """P-AMB-31 "The one earlier in resolution order (P.1.4). Report the undercut only to the loser." A champion's
    1st action goes before a city's: the shared guild's dice are the Dragon's; the city loses its [5, 3]."""
    t = Table(("Dragon", "champion", "dragon"), ("Gondor", "city", "sovereign"))
    guild = t.asset("dragon", "Guild of masons", "agent", 2)
    t.run("gm", pc.GrantAsset("gondor", "Guild of masons", "agent", 2, asset_id=guild))
    skill = t.asset("gondor", "craft", "skill", 1)
    t.to_planning()
    city = t.act("gondor", [5, 3, 6], slot="public", assets=[{"asset_id": guild}, {"asset_id": skill}], convert=1)
    wiz = t.act("dragon", [6, 5], slot="public", assets=[{"asset_id": guild}])
    t.resolve()
    assert t.view("gm")["queue"] == [wiz, city]
    assert (t.action(wiz)["successes"], t.action(city)["successes"], t.action(city)["consequences"]) == (2, 1, 0)
    undercut = [e for e in t.events("gondor") if e["type"] == "AssetUndercut"]
    assert [e["data"]["action_id"] for e in undercut] == [city]
    assert not [e for e in t.events("dragon") if e["type"] == "AssetUndercut"]


def test_p_amb_32_each_action_is_labelled_with_its_slot_and_a_stronghold_makes_it_private():
    """P-AMB-32 "The power labels each action with its slot type at submission, and the counts must match the class
    quota (P-ACT-1). Exception: an action located in a stronghold is private whichever slot it uses.\""""
    t = Table(("Dragon", "champion", "dragon"), ("Gondor", "city", "sovereign"))
    lair = {"id": "lair", "kind": "stronghold", "hex": "3,0", "controller": "dragon"}
    t.run("gm", world.DeclareMap(hexes=HEXES, features=[lair]))
    t.run("gm", pc.Advance("setup"))
    t.run("gm", cc_adjust("dragon"))
    t.run("dragon", world.PayMaintenance("dragon", "lair"))
    t.run("gm", pc.Advance("tidings"))
    t.refused("dragon", pc.SubmitAction("dragon", "Hide", slot="private", convert=0), "P-ACT-1")  # all public
    t.refused("dragon", pc.SubmitAction("dragon", "Sneak", slot="secret", convert=0), "P-ACT-1")
    inside = t.act("dragon", None, title="Hoard the gold", slot="public", location="3,0", convert=0)
    t.act("dragon", None, title="Burn the fields", slot="public", location="2,0", convert=0)
    assert t.view("dragon")["me"]["used"] == {"public": 2, "private": 0}  # it still counts against its slot
    t.resolve()
    public = [a["title"] for a in t.view("gondor")["public_actions"]]
    assert public == ["Burn the fields"] and "Hoard the gold" not in t.seen("gondor")
    assert t.action(inside)["status"] == "resolved"


def cc_adjust(power: str):
    from domain.powers import development

    return development.AdjustResources(power, {"coin": 2}, "a hoard to pay the lair's upkeep")


# ---------------------------------------------------------------------- P-AMB-39: the reaction window


def test_p_amb_39_the_reaction_window_closes_early_once_every_resister_acted_or_waived():
    """P-AMB-39 "Close early once every eligible power has acted or waived." Two targets: the window stays open
    after the first resists, and closes when the second waives; the action resolves on the net."""
    t, act = _infiltration()
    t.resolve()
    t.resist("gondor", act, [6, 5, 5], ["gondor-v"])
    assert t.view("gm")["game"]["step"] == "resistance"
    t.run("rohan", pc.WaiveReactions("rohan"))
    assert t.view("gm")["game"]["step"] == "battle"
    assert t.action(act)["result"]["net"] == 2


def test_p_amb_39_silence_is_a_waiver_and_extensions_are_per_power():
    """P-AMB-39 "Silence = waive ... Extensions are per power." Rohan's extension keeps the window open for Rohan
    alone; Gondor's silence waives, and a late reaction is refused (P-RES-2)."""
    t, act = _infiltration()
    t.resolve()
    window = t.window("resistance")
    t.run("rohan", RequestExtension("rohan", 12.0, reason="travelling"))
    request = next(iter(window_of(t.games.get_game(t.gid), window)["requests"]))
    t.run("gm", GrantExtension(request))
    t.later(25)
    t.refused("gondor", pc.DeclareReaction("gondor", act, [{"asset_id": "gondor-v"}], 0), "P-RES-2")
    t.resist("rohan", act, [5, 1, 1], ["rohan-v"])
    assert t.view("gm")["game"]["step"] == "resistance"  # Gondor neither resisted nor waived in words
    t.later(36)
    t.games.run(SYSTEM_CALLER, t.gid, CloseDueWindow(window))  # the worker, at Rohan's extended deadline
    assert t.action(act)["result"] == {
        "successes": 5,
        "resisted": 1,
        "net": 4,
        "difficulty": 1,
        "success": True,
        "excess": 3,
    }


# ---------------------------------------------------------------------- P-AMB-43: shared actions


def test_p_amb_43_a_shared_action_sums_every_participants_successes_each_keeping_its_own_consequences():
    """P-AMB-43 "Yes: Σ successes of all participants, each keeping their own consequences (P-DICE-11)." The Cult
    rolls [6, 3] converting its 3, the Circle joins with [5, 4] converting its 4: 4 successes against
    difficulty 4; one consequence each."""
    t = Table(("Cult", "conspiracy", "cult"), ("Circle", "conspiracy", "circle"))
    mine = t.asset("cult", "lore", "skill", 2)
    theirs = t.asset("circle", "lore", "skill", 2)
    t.to_planning()
    act = t.act(
        "cult", [6, 3], skill="lore", difficulty=4, collaborators=["circle"], assets=[{"asset_id": mine}], convert=1
    )
    t.run("circle", cc.JoinAction("circle", act, [{"asset_id": theirs}], convert=1), [5, 4])
    cid = t.run("gm", cc.ProposeShareConsequence(act, "circle", "Exposed"))["consequence_id"]
    t.refused("cult", cc.AcceptShareConsequence("circle", act, cid), None)  # the Circle answers for its own pool
    t.resolve()
    result = t.action(act)["result"]
    assert (result["successes"], result["success"]) == (4, True)
    assert t.action(act)["consequences"] == 1  # the Cult's own
    [share] = [a for a in t.view("circle")["shared_with_me"] if a["action_id"] == act]
    assert share["successes"] == 4


# ---------------------------------------------------------------------- P-AMB-45: what Resolution publishes


def test_p_amb_45_a_public_resistible_action_is_published_in_full_only_when_the_window_closes():
    """P-AMB-45 "For ↩️-able actions (public or private), Resolution publishes only the actor, the action, and the
    pool size ... The full dice, consequences and result are published when the reaction window closes, to the
    public for a public action. Actions that cannot be resisted are published in full at Resolution.\""""
    t = Table(("Dragon", "champion", "dragon"), ("Gondor", "city", "sovereign"), ("Rohan", "city", "sovereign"))
    might = t.asset("dragon", "might", "skill", 3)
    t.asset("gondor", "might", "skill", 1, asset_id="gondor-m")
    t.to_planning()
    attack = t.act(
        "dragon", [6, 4, 1], title="Burn Osgiliath", slot="public", skill="might", targets=["gondor"],
        resistible=True, difficulty=1, assets=[{"asset_id": might}], convert=1,
    )  # fmt: skip
    t.act("dragon", [], title="Roar", slot="public", convert=0)
    t.resolve()
    table = {a["title"]: a for a in t.view("rohan")["public_actions"]}
    assert set(table["Burn Osgiliath"]) == {"action_id", "power", "power_name", "title", "skill", "pool_size", "status"}
    # The table is told the actor, the action and the pool size; the offer to resist is the target's alone (P-AMB-4).
    told = {
        who: [e["type"] for e in t.events(who) if e["data"].get("action_id") == attack] for who in ("rohan", "gondor")
    }
    assert told == {"rohan": ["ResistanceAnnounced"], "gondor": ["ResistanceOffered", "ResistanceAnnounced"]}
    assert table["Roar"]["result"] is not None  # not resistible: published in full at Resolution
    t.resist("gondor", attack, [5], ["gondor-m"])
    burned = next(a for a in t.view("rohan")["public_actions"] if a["title"] == "Burn Osgiliath")
    assert burned["pool"]["dice"] and burned["consequences"] == 1
    assert burned["result"] == {"successes": 2, "resisted": 1, "net": 1, "difficulty": 1, "success": True, "excess": 0}
