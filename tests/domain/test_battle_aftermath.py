"""After the battle (P-BAT-13) through the service's typed commands, with explicit dice: Fear and Scoundrels' coin
from the units slain."""

from __future__ import annotations

from domain.powers import development as pd
from tests.domain.battle_helpers import HEX, Field, sturdy
from tests.domain.helpers import seen


def test_p_bat_13_fear_users_gain_the_units_slain_and_the_highest_rank_and_scoundrels_a_coin_a_unit():
    """P-BAT-13 [003:175]: a power that uses Fear gains "the number of units they slew plus the rank of the highest
    ranked unit they slew"; Scoundrels ([003:747]) "provides 1 coin every time they slay a unit". North (Fear 3)
    slays one unit of a rank 3 army with its Scoundrels and wins: Fear 3 + 1 + 3 = 7 and one coin; south, which
    uses Respect, gains no Fear for the unit it lost."""
    soft = {"armor": 0, "defense": 3}
    f = Field(
        {
            "x": ("north", HEX, 2, sturdy(**soft, keywords=["scoundrels", "bloodlust"])),
            "y": ("south", HEX, 3, sturdy(**soft, rank=3)),
        }
    )
    f.run("north", pd.ChooseControl("north", "fear"))
    f.run("south", pd.ChooseControl("south", "respect"))
    coin = seen(f.game())["development"]["sheets"]["north"]["wallet"]["coin"]
    f.declare()
    f.setup("north", ["x"])
    f.setup("south", ["y"])
    f.pass_to("commands", 1)
    f.command("south", "y", "rest")
    hit = f.command("north", "x", "slay", [6, 6], [6, 6], target="y", allocation=[0, 0])["hit"]
    assert hit["slain"] == 1
    result = f.pass_to("ended", retreat={"south": ["y"]})["result"]
    assert result["fear"] == {"north": 4} and result["coin"] == {"north": 1}
    wallets = {p: s["wallet"] for p, s in seen(f.game())["development"]["sheets"].items()}
    assert wallets["north"]["fear"] == 7 and wallets["north"]["coin"] == coin + 1
    assert wallets["south"]["fear"] == 0
