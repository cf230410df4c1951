"""P-TOWN-3 for reactions: an industry whose town is too small for it has ceased to operate, and lends its asset
to no pool, a resistance's included (P-RES-3: the resister rolls "as if it was its own challenge"). Mobility
(P-ACT-4) is measured from an action's location and is not asked of a reaction: the rules text does not say
that a resister's assets must reach the resisted action."""

from __future__ import annotations

from domain.powers import catalogue_commands as cc
from domain.powers import commands as pc
from domain.powers import world
from tests.domain.test_powers_resistance_decisions import Table
from tests.domain.world_helpers import HEXES


def test_p_town_3_an_industry_that_has_ceased_to_operate_lends_no_asset_to_a_reaction():
    """P-TOWN-3: "An industry with complexity greater than the town's population stops. If population < number of
    industries, industries stop in an order set by the senior claimant." [003:372] "industries cease to operate".
    Derop (population 1) has two of Gondor's farms: the second, built later, has stopped. Mordor's resistible
    action against Gondor is resisted with the working farm; resisting with the stopped one is refused naming
    P-TOWN-3 and records nothing, as it is for an action's pool."""
    t = Table(("Gondor", "city", "sovereign"), ("Mordor", "city", "sovereign"))
    t.asset("gondor", "Upper farm", "industry", 1, asset_id="farm-a")
    t.asset("gondor", "Lower farm", "industry", 1, asset_id="farm-b")
    might = t.asset("mordor", "might", "skill", 3)
    derop = {"id": "derop", "name": "Derop", "hex": "0,0", "population": 1, "wealth": 2}
    farms = [{"id": f"f{k}", "kind": "farm", "town": "derop", "asset_id": f"farm-{k}"} for k in ("a", "b")]
    t.run("gm", world.DeclareMap(HEXES, [derop], farms))
    t.run("gm", world.SetClaim("derop", "gondor"))
    t.to_planning()
    assert t.view("gondor")["map"]["towns"][0]["stopped"] == ["fb"]
    burn = t.act(
        "mordor",
        [6, 6, 1],
        title="Burn the fields",
        slot="public",
        location="0,0",
        targets=["gondor"],
        resistible=True,
        assets=[{"asset_id": might}],
        convert=0,
    )
    t.resolve()
    err = t.refused("gondor", pc.DeclareReaction("gondor", burn, [{"asset_id": "farm-b"}], 0), "P-TOWN-3")
    assert "ceased to operate" in err.message and err.field == "assets"
    assert t.resist("gondor", burn, [5], ["farm-a"])["successes"] == 1


def test_p_town_3_a_stopped_industry_lends_no_asset_to_an_action_that_names_no_location():
    """P-TOWN-3: "An industry with complexity greater than the town's population stops" ([003:372] "industries
    cease to operate"). Whether an industry operates does not depend on where the action is: Gondor's stopped farm
    is refused to an action that names no hex, as to one that does, and nothing is recorded."""
    t = Table(("Gondor", "city", "sovereign"))
    t.asset("gondor", "Upper farm", "industry", 1, asset_id="farm-a")
    t.asset("gondor", "Lower farm", "industry", 1, asset_id="farm-b")
    derop = {"id": "derop", "name": "Derop", "hex": "0,0", "population": 1, "wealth": 2}
    farms = [{"id": f"f{k}", "kind": "farm", "town": "derop", "asset_id": f"farm-{k}"} for k in ("a", "b")]
    t.run("gm", world.DeclareMap(HEXES, [derop], farms))
    t.run("gm", world.SetClaim("derop", "gondor"))
    t.to_planning()
    for location in (None, "0,0"):
        harvest = pc.SubmitAction(
            "gondor", title="Harvest", slot="public", location=location, assets=[{"asset_id": "farm-b"}]
        )
        assert t.refused("gondor", harvest, "P-TOWN-3").field == "assets", location
    assert t.act("gondor", [6], title="Harvest", slot="public", assets=[{"asset_id": "farm-a"}], convert=0)


def test_p_town_3_a_stopped_industry_lends_no_asset_to_a_collaborators_pool():
    """P-TOWN-3 ([003:372] "industries cease to operate") for a collaborator (P-DICE-11: it "rolls its own pool"
    into the shared action): Gondor joins Mordor's action with its stopped farm, refused naming P-TOWN-3 with
    nothing recorded, and with its working farm."""
    t = Table(("Gondor", "city", "sovereign"), ("Mordor", "city", "sovereign"))
    t.asset("gondor", "Upper farm", "industry", 1, asset_id="farm-a")
    t.asset("gondor", "Lower farm", "industry", 1, asset_id="farm-b")
    derop = {"id": "derop", "name": "Derop", "hex": "0,0", "population": 1, "wealth": 2}
    farms = [{"id": f"f{k}", "kind": "farm", "town": "derop", "asset_id": f"farm-{k}"} for k in ("a", "b")]
    t.run("gm", world.DeclareMap(HEXES, [derop], farms))
    t.run("gm", world.SetClaim("derop", "gondor"))
    t.to_planning()
    feast = t.act("mordor", None, title="Feast", slot="public", location="0,0", collaborators=["gondor"])
    err = t.refused("gondor", cc.JoinAction("gondor", feast, [{"asset_id": "farm-b"}], slot="public"), "P-TOWN-3")
    assert err.field == "assets"
    t.run("gondor", cc.JoinAction("gondor", feast, [{"asset_id": "farm-a"}], slot="public"), [5])
