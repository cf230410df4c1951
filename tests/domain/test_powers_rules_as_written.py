"""Powers' world, magic and catalogue rules as the text writes them (issue 25), each through the command path with
explicit dice: the limits hold over a whole action, a difficulty is worked out when the action's turn in the queue
comes, mana never outlasts a power's storage, and a spell or an item in a pool is paid for and wielded."""

from __future__ import annotations

from typing import Any

import pytest

from application.service import Caller, Games
from domain.dice import FixedRoller
from domain.errors import DomainError
from domain.powers import catalogue_commands as cat
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import magic as m
from domain.powers import world
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power

GM = Caller.of("gm")


class Table:
    """A Powers game on the small world map, run through the service with the dice each test gives."""

    def __init__(
        self, *powers: tuple[str, str, str], towns: list[dict] = (), features: list[dict] = (), months: int = 2
    ) -> None:
        self.dice = FixedRoller()
        self.games = Games(roller_factory=lambda game: self.dice)
        self.gid = self.games.create_game("Rules as written", "GM", options={"months_per_season": months})[0]
        self.seats = {name: add_power(self.games, self.gid, "gm", name, cls, sub)[0] for name, cls, sub in powers}
        self.gm(world.DeclareMap(hexes=HEXES, towns=list(towns), features=list(features)))

    def gm(self, command: Any) -> Any:
        return self.games.run(GM, self.gid, command).result

    def by(self, name: str, command: Any) -> Any:
        return self.games.run(Caller.of(self.seats[name]), self.gid, command).result

    def refused(self, name: str, command: Any, rule: str) -> DomainError:
        before = len(self.games.visible_events(self.gid, "gm"))
        with pytest.raises(DomainError) as err:
            self.games.run(Caller.of(self.seats[name]) if name != "gm" else GM, self.gid, command)
        assert err.value.rule == rule, err.value
        assert len(self.games.visible_events(self.gid, "gm")) == before  # a refusal records nothing
        return err.value

    def advance(self, steps: int = 1) -> None:
        for _ in range(steps):
            self.games.send(self.gid, "gm", pc.Advance())

    def to_planning(self) -> None:
        """Setup -> Tidings -> month 1 Planning."""
        self.advance(2)
        assert self.step == "planning"

    def act(self, name: str, title: str, faces: list[int] | None = None, **draft: Any) -> str:
        """Submit an action; rolled now with ``faces`` when given, else only proposed."""
        if faces is not None:
            self.dice.rolls = [faces]
        pid = self.seats[name]
        receipt = self.games.send(self.gid, pid, pc.SubmitAction(pid, title=title, roll=faces is not None, **draft))
        return str(receipt.result["action_id"])

    def roll(self, name: str, action_id: str, faces: list[int], **pool: Any) -> None:
        self.dice.rolls = [faces]
        self.games.send(self.gid, self.seats[name], pc.RollAction(action_id, **pool))

    def resolve(self) -> None:
        """Planning -> Resolution -> resolved (and the resistance window closed if nothing waits on it)."""
        self.advance()
        self.games.send(self.gid, "gm", pc.Resolve())

    def mine(self, name: str, action_id: str) -> dict:
        view = self.games.view(self.gid, self.seats[name])
        return next(a for a in view["my_actions"] if a["action_id"] == action_id)

    def me(self, name: str) -> dict:
        return dict(self.games.view(self.gid, self.seats[name])["me"])

    def town(self, town_id: str) -> dict:
        return next(t for t in self.games.view(self.gid, "gm")["map"]["towns"] if t["id"] == town_id)

    @property
    def step(self) -> str:
        return str(self.games.view(self.gid, "gm")["game"]["step"])


# ---------------------------------------------------------------------- P-INFL-2


def test_p_infl_2_a_neighbouring_hex_gives_one_influence_to_an_action_however_many_times_it_spends():
    """P-INFL-2 — "An action may take any amount from its own hex and at most 1 from each neighbouring hex."
    [003:1108] "When you spend influence, you may remove any amount of influence from the hex where the action is
    occurring and up to one from each surrounding hex." The limit is the action's, over all it spends."""
    t = Table(("Cult", "conspiracy", "cult"))
    cult = t.seats["Cult"]
    for hex_id in ("0,0", "1,0"):
        t.games.send(t.gid, "gm", pc.SetInfluence(cult, hex_id, 3))
    t.to_planning()
    whispers = t.act("Cult", "Whispers", location="0,0")
    t.by("Cult", world.SpendInfluence(cult, whispers, {"0,0": 2, "1,0": 1}))
    t.refused("Cult", world.SpendInfluence(cult, whispers, {"1,0": 1}), "P-INFL-2")
    t.by("Cult", world.SpendInfluence(cult, whispers, {"0,0": 1}))  # its own hex gives any amount
    rumours = t.act("Cult", "Rumours", location="0,0")
    t.by("Cult", world.SpendInfluence(cult, rumours, {"1,0": 1}))  # another action: its own 1
    assert t.me("Cult")["influence"] == {"1,0": 1}


# ---------------------------------------------------------------------- P-TOWN-2


def _claimed_town(**town: Any) -> tuple[Table, str, str]:
    """A Sovereign claiming Derop (0,0), with a rank-5 lore skill, in month 1 Planning."""
    t = Table(("City", "city", "sovereign"), towns=[{"id": "derop", "hex": "0,0", **town}])
    city = t.seats["City"]
    t.gm(world.SetClaim("derop", city))
    lore = t.gm(pc.GrantAsset(city, "lore", "skill", 5))["asset_id"]
    t.to_planning()
    return t, city, lore


def _town_action(t: Table, title: str, kind: str, **params: Any) -> str:
    aid = t.act("City", title, location="0,0", slot="public")
    t.by("City", world.AimAction(aid, "town", town_id="derop", kind=kind, params=params))
    return aid


def test_p_town_2_a_second_feed_in_a_month_is_doubled_and_faces_the_population_the_first_left():
    """P-TOWN-2 — Feed: "Population +1. Difficulty = population × 2^n, where n = times Feed was already taken in
    this town this season." [003:364] "Difficulty: Current population, doubled for each time this action has been
    taken in this town this season." A difficulty is the town's when the action's turn in the queue comes: the
    second Feed of the month faces the first one's town (4 people, fed once), not the town both were aimed at."""
    t, city, lore = _claimed_town(population=3)
    first = _town_action(t, "Feed the poor", "feed")
    second = _town_action(t, "Feed them again", "feed")
    assert t.mine("City", second)["difficulty"] == 3  # as the town stands now
    t.roll("City", first, [6, 6, 6, 1, 1], assets=[{"asset_id": lore}], convert=0)
    t.roll("City", second, [6, 6, 6, 6, 6], assets=[{"asset_id": lore}], convert=0)
    t.resolve()
    assert (t.mine("City", first)["result"]["difficulty"], t.mine("City", first)["result"]["success"]) == (3, True)
    assert (t.mine("City", second)["result"]["difficulty"], t.mine("City", second)["result"]["success"]) == (8, False)
    assert t.town("derop")["population"] == 4


def test_p_town_2_a_second_build_in_a_month_counts_the_feature_the_first_built():
    """P-TOWN-2 — Build: "Difficulty = complexity of the new feature + number of existing features." [003:365]
    A Farm (complexity 1) built first in the queue is an existing feature when the Guild's (complexity 3) turn
    comes: 3 + 1 = 4, and three successes no longer build it."""
    t, city, lore = _claimed_town(population=6)
    farm = _town_action(t, "Clear the fields", "build", feature="farm", id="farm1")
    guild = _town_action(t, "Charter the guild", "build", feature="guild", id="guild1")
    assert (t.mine("City", farm)["difficulty"], t.mine("City", guild)["difficulty"]) == (1, 3)
    t.roll("City", farm, [6, 1, 1, 1, 1], assets=[{"asset_id": lore}], convert=0)
    t.roll("City", guild, [6, 6, 6, 1, 1], assets=[{"asset_id": lore}], convert=0)
    t.resolve()
    assert t.mine("City", farm)["result"]["success"] is True
    assert (t.mine("City", guild)["result"]["difficulty"], t.mine("City", guild)["result"]["success"]) == (4, False)
    assert [f["kind"] for f in t.town("derop")["features"]] == ["farm"]


# ---------------------------------------------------------------------- P-MAG-1, P-AMB-37


def _favor(t: Table, name: str) -> int:
    return int(t.games.view(t.gid, t.seats[name])["development"]["mine"]["wallet"]["favor"])


def test_p_mag_1_a_favors_mana_is_stored_only_up_to_the_cap_and_else_held_by_the_action_it_is_spent_in():
    """P-MAG-1 — "Each power has a per-element storage cap, set by its class and perks." [003:154] "you must have
    a special perk to be able to channel or store mana". P-AMB-37: "A power whose cap is 0 may still receive mana
    during an action and spend it within that same action. Any leftover is lost at the end of the action."
    A Sovereign stores no mana: a favor's 3 Light mana (P-ASSET-11) are refused to its store, as the GM's grant
    of the same is; spent during its action, they are the action's, spent there, and lost with it."""
    t = Table(("City", "city", "sovereign"))
    city = t.seats["City"]
    t.gm(dev.AdjustResources(city, {"favor": 2}, "a patron's boon"))
    t.to_planning()
    t.refused("gm", m.GrantMana(city, "L", 3), "P-MAG-1")
    err = t.refused("City", dev.SpendFavor(city, "mana", "Light"), "P-MAG-1")
    assert "during one of your actions" in err.message
    assert (t.me("City")["mana"], _favor(t, "City")) == ({}, 2)
    blessing = t.act("City", "Bless the harvest", slot="public")
    t.by("City", dev.SpendFavor(city, "mana", "Light", action_id=blessing))
    assert (t.me("City")["mana"], _favor(t, "City")) == ({}, 1)  # the action holds them, not the City
    assert t.by("City", m.PayMana(city, blessing, "LL"))["paid"] == {"L": 2}
    t.refused("City", m.PayMana(city, blessing, "LL"), "P-MAG-1")  # one is left, in this action only
    t.resolve()
    assert t.me("City")["mana"] == {}  # the leftover went with the action


def test_p_amb_37_only_a_favors_mana_is_held_by_an_action():
    """P-AMB-37: "A power whose cap is 0 may still receive mana during an action and spend it within that same
    action." What a favor buys besides mana (P-ASSET-11: a miracle, a premium keyword) is the GM's to grant, not
    an action's: a favor for a miracle that names an action is refused naming the field, and spends nothing."""
    t = Table(("City", "city", "sovereign"))
    city = t.seats["City"]
    t.gm(dev.AdjustResources(city, {"favor": 1}, "a patron's boon"))
    t.to_planning()
    blessing = t.act("City", "Bless the harvest", slot="public")
    err = t.refused("City", dev.SpendFavor(city, "miracle", request="Rain", action_id=blessing), "P-AMB-37")
    assert err.field == "action_id" and _favor(t, "City") == 1


# ---------------------------------------------------------------------- P-ASSET-8


def test_p_asset_8_a_spell_joins_a_pool_only_when_its_mana_was_paid_for_that_use():
    """P-ASSET-8 — "Spell: caster only; mana is paid on every use." [003:132] "Can only be used by the caster ...
    They can be used repeatedly, but the mana cost must be paid each time." A Fireball held as an asset joins an
    action's pool once the Wizard cast it in that action, paying its 2FF; the next action pays again."""
    t = Table(("Wizard", "champion", "wizard"))
    wiz = t.seats["Wizard"]
    fireball = t.gm(pc.GrantAsset(wiz, "Fireball", "spell", 2))["asset_id"]
    t.gm(m.TeachSpell(wiz, "fireball"))
    staff = t.gm(m.SetConduit(wiz, "the wizard", "0,0"))["conduit_id"]
    t.to_planning()
    t.gm(m.GrantMana(wiz, "F", 3))
    t.gm(m.GrantMana(wiz, "W", 2))
    pool = [{"asset_id": fireball}]
    t.dice.rolls = [[6, 6]]
    t.refused("Wizard", pc.SubmitAction(wiz, "Burn the granary", assets=pool, convert=0), "P-ASSET-8")
    burn = t.act("Wizard", "Burn the granary")
    t.dice.rolls = [[6, 6]]
    t.refused("Wizard", pc.RollAction(burn, assets=pool, convert=0), "P-ASSET-8")  # nothing paid yet
    t.by("Wizard", m.CastSpell(wiz, "fireball", staff, action_id=burn, pay=list("FFFW")))
    t.roll("Wizard", burn, [6, 5], assets=pool, convert=0)
    assert (t.mine("Wizard", burn)["successes"], t.me("Wizard")["mana"]) == (2, {"W": 1})
    again = t.act("Wizard", "Burn the mill")
    t.dice.rolls = [[6, 6]]
    err = t.refused("Wizard", pc.RollAction(again, assets=pool, convert=0), "P-ASSET-8")
    assert "paid each time" in err.message


def test_p_asset_8_a_spell_in_a_reaction_is_paid_by_a_cast_made_with_that_reaction():
    """P-ASSET-8 — a spell's "mana cost must be paid each time" [003:132]: a reaction's pool takes the Fireball once
    the Wizard cast it with its reaction this Resistance step (P-RES-3)."""
    t = Table(("Wizard", "champion", "wizard"), ("City", "city", "sovereign"))
    wiz = t.seats["Wizard"]
    fireball = t.gm(pc.GrantAsset(wiz, "Fireball", "spell", 2))["asset_id"]
    t.gm(m.TeachSpell(wiz, "fireball"))
    staff = t.gm(m.SetConduit(wiz, "the wizard", "0,0"))["conduit_id"]
    t.to_planning()
    t.gm(m.GrantMana(wiz, "F", 3))
    t.gm(m.GrantMana(wiz, "W", 1))
    raid = t.act("City", "Drive out the wizard", [], slot="public", targets=[wiz], resistible=True, convert=0)
    t.resolve()
    assert t.step == "resistance"
    t.dice.rolls = [[6, 6]]
    t.refused("Wizard", pc.DeclareReaction(wiz, raid, assets=[{"asset_id": fireball}]), "P-ASSET-8")
    t.by("Wizard", m.CastSpell(wiz, "fireball", staff, pay=list("FFFW")))
    t.dice.rolls = [[6, 6]]
    t.by("Wizard", pc.DeclareReaction(wiz, raid, assets=[{"asset_id": fireball}]))
    assert t.me("Wizard")["mana"] == {}


def test_p_asset_8_a_wielder_benefits_from_one_item_and_a_champion_from_three_differently_named():
    """P-ASSET-8 — "A wielder has a limit of 1 item (a champion 3; Master of Artifice +2)." [003:541] "Each Wielder
    can benefit from a single item at a time, apart from Champions, which can use three differently named items."
    [003:539] "The Wielder of an item can be selected when the item is obtained or created, and it can be changed
    as part of any Action involving the item or its wielder." """
    t = Table(("City", "city", "sovereign"), ("Wizard", "champion", "wizard"))
    city, wiz = t.seats["City"], t.seats["Wizard"]
    captain = t.gm(pc.GrantAsset(city, "Captain Orrin", "agent", 2))["asset_id"]
    sword, helm = (t.gm(pc.GrantAsset(city, n, "item", 2))["asset_id"] for n in ("Sword of Dawn", "Helm of Ages"))
    rings = [t.gm(pc.GrantAsset(wiz, n, "item", 1))["asset_id"] for n in ("Ring", "Cloak", "Boots", "Ring")]
    amulet = t.gm(pc.GrantAsset(wiz, "Amulet", "item", 1))["asset_id"]
    t.by("City", cat.WieldItem(city, sword, captain))
    t.refused("City", cat.WieldItem(city, helm, captain), "P-ASSET-8")  # the Captain already wields the Sword
    t.refused("City", cat.WieldItem(city, helm, city), "P-ASSET-8")  # a city is no one to wield it
    t.by("Wizard", cat.WieldItem(wiz, rings[0], wiz))
    t.refused("Wizard", cat.WieldItem(wiz, rings[3], wiz), "P-ASSET-8")  # a second Ring
    for item in rings[1:3]:
        t.by("Wizard", cat.WieldItem(wiz, item, wiz))
    t.refused("Wizard", cat.WieldItem(wiz, amulet, wiz), "P-ASSET-8")  # a fourth
    t.to_planning()
    t.refused("City", cat.WieldItem(city, sword, None), "P-ASSET-8")  # a change goes with an action
    lore = t.gm(pc.GrantAsset(city, "lore", "skill", 1))["asset_id"]
    raid = t.act("City", "Ride out", [6, 6, 6], slot="public", assets=[{"asset_id": sword}, {"asset_id": lore}])
    t.by("City", cat.WieldItem(city, sword, None, action_id=raid))
    t.by("City", cat.WieldItem(city, helm, captain))  # free hands: and the Helm had no wielder yet
    assert t.games.view(t.gid, city)["catalogue"]["wielders"] == {helm: captain}
