"""What a resister is told, on every surface (its board, events, feed and mail), under each value of the campaign
options of P-AMB-3 (``resister_sees_assets``) and P-AMB-4 (``notify_resister_at``): the default shows no asset of the
pool; the option never shows whether an asset is assured or critical, nor an asset the GM hides (GM-19); and the
table sees none of it."""

from __future__ import annotations

import json

import pytest

from domain.powers import commands as pc
from domain.powers.feed import describe
from projections.db import ReadModelDB
from projections.projector import Projector
from projections.settings import Settings
from tests.domain.test_powers_resistance_decisions import Table


def _month(options: dict | None) -> tuple[Table, Projector, str]:
    """Gandalf duels the Balrog with might 3, the Staff (item 2), a critical Palantir (secret 1) and an assured
    blade (consumable 2) that the GM hides where it may; Rohan looks on. Resolved, the window open."""
    t = Table(
        ("Gandalf", "champion", "wizard"), ("Balrog", "conspiracy", "circle"), ("Rohan", "city", "sovereign"),
        options=options,
    )  # fmt: skip
    projector = Projector(t.games, ReadModelDB(Settings(database_url="memory")))
    might = t.asset("gandalf", "might", "skill", 3)
    staff = t.asset("gandalf", "STAFF-OF-ORTHANC", "item", 2)
    palantir = t.asset("gandalf", "PALANTIR-SEEN", "secret", 1, critical=True)
    blade = t.asset("gandalf", "BLADE-HIDDEN", "consumable", 2, assured=True)
    t.asset("balrog", "might", "skill", 3, asset_id="balrog-might")
    t.to_planning()
    duel = t.act(
        "gandalf", [5, 4, 1, 1, 1, 3], title="DUEL-THE-BALROG", skill="might", targets=["balrog"], resistible=True,
        difficulty=1, convert=2,
        assets=[{"asset_id": might}, {"asset_id": staff}, {"asset_id": palantir, "mode": "critical"},
                {"asset_id": blade, "mode": "assured"}],
    )  # fmt: skip
    if (options or {}).get("resister_sees_assets") == "assets":
        t.run("gm", pc.HideFromResisters(duel, [blade]))
    return t, projector, duel


def surfaces(t: Table, projector: Projector, who: str) -> str:
    """Everything ``who`` was shown: its board, its events, its feed and the mail it is sent."""
    projector.catch_up()
    key = str(t.games.get_game(t.gid).id)
    mail = [row["body"] for row in projector.outbox(key, who)]
    return json.dumps([t.view(who), t.events(who), projector.feed(key, who), mail], default=str)


def mail_to(t: Table, projector: Projector, who: str, kind: str) -> list[dict]:
    projector.catch_up()
    return [row["body"] for row in projector.outbox(str(t.games.get_game(t.gid).id), who) if row["kind"] == kind]


@pytest.mark.parametrize("options", [None, {"resister_sees_assets": "pool_size"}])
def test_p_amb_3_by_default_no_surface_of_the_resister_lists_an_asset_of_the_pool(options):
    t, projector, duel = _month(options)
    t.resolve()
    seen = surfaces(t, projector, "balrog")
    assert "DUEL-THE-BALROG" in seen and "pool size 8" in seen
    for marker in ("STAFF-OF-ORTHANC", "PALANTIR-SEEN", "BLADE-HIDDEN", "PoolAssetsShown"):
        assert marker not in seen
    assert [m["subject"] for m in mail_to(t, projector, "balrog", "ResistanceOffered")] == ["You may resist: Gandalf"]


def test_p_amb_3_the_option_lists_what_the_gm_did_not_hide_and_never_an_assured_or_critical_flag():
    t, projector, duel = _month({"resister_sees_assets": "assets"})
    t.resolve()
    seen = surfaces(t, projector, "balrog")
    assert "STAFF-OF-ORTHANC" in seen and "PALANTIR-SEEN" in seen and "pool size 8" in seen
    assert "BLADE-HIDDEN" not in seen  # the GM hides it (GM-19); the size still counts it
    [mail] = mail_to(t, projector, "balrog", "PoolAssetsShown")
    assert mail["text"] == (
        "Assets you may see in the pool against you: might (skill, rank 3), STAFF-OF-ORTHANC (item, rank 2), "
        "PALANTIR-SEEN (secret, rank 1)."
    )
    told = [e for e in t.events("balrog") if e["type"] in ("PoolAssetsShown", "ResistanceOffered")]
    told_text = json.dumps([told, t.view("balrog")["may_resist"], mail])
    for flag in ("assured", "critical", '"mode"', "novel"):
        assert flag not in told_text
    # The table and the actor are shown no list: it is the resister's alone.
    for other in ("rohan", "gandalf"):
        assert "PoolAssetsShown" not in surfaces(t, projector, other)
    assert "STAFF-OF-ORTHANC" not in surfaces(t, projector, "rohan")
    assert "BLADE-HIDDEN" not in surfaces(t, projector, "rohan")


@pytest.mark.parametrize("when", ["resolution", "submission"])
def test_p_amb_4_the_resister_is_told_by_feed_and_mail_when_the_option_says(when):
    t, projector, duel = _month({"notify_resister_at": when})
    before = surfaces(t, projector, "balrog")
    forewarned = mail_to(t, projector, "balrog", "ResistanceForewarned")
    if when == "resolution":
        assert "DUEL-THE-BALROG" not in before and forewarned == []
    else:
        assert [m["subject"] for m in forewarned] == ["An action against you: Gandalf"]
        assert "DUEL-THE-BALROG (pool size 8)" in forewarned[0]["text"]
        assert "STAFF-OF-ORTHANC" not in before and '"faces"' not in before
    assert "DUEL-THE-BALROG" not in surfaces(t, projector, "rohan")
    t.resolve()
    assert [m["subject"] for m in mail_to(t, projector, "balrog", "ResistanceOffered")] == ["You may resist: Gandalf"]
    assert "DUEL-THE-BALROG" not in surfaces(t, projector, "rohan")


def test_p_amb_4_the_table_of_a_public_action_is_told_it_awaits_resistance_but_only_its_target_is_offered_it():
    """P-AMB-45: the table learns the actor, the action and the pool size of a public resistible action at
    Resolution; P-AMB-4: the offer to resist ("You may resist") is mailed to its target alone, not the table."""
    t = Table(("Dragon", "champion", "dragon"), ("Gondor", "city", "sovereign"), ("Rohan", "city", "sovereign"))
    projector = Projector(t.games, ReadModelDB(Settings(database_url="memory")))
    t.to_planning()
    t.act("dragon", None, title="BURN-OSGILIATH", slot="public", targets=["gondor"], resistible=True, convert=0)
    t.resolve()
    assert [m["subject"] for m in mail_to(t, projector, "gondor", "ResistanceOffered")] == ["You may resist: Dragon"]
    assert mail_to(t, projector, "rohan", "ResistanceOffered") == []
    names = {p["power_id"]: p["name"] for p in t.view("rohan")["powers"]}
    lines = [describe(e["type"], e["data"], names) for e in t.events("rohan")]
    assert "Dragon acts: “BURN-OSGILIATH” (pool size 0); its targets may resist before it resolves." in lines, lines
    assert not [line for line in lines if line and "against you" in line]
