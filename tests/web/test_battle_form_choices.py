"""The Battle page's forms carry the commanding player's choices into GiveCommand and CastBattleSpell (issue 13:
P-BAT-2, P-BAT-3, P-BAT-5, P-BAT-6, P-BAT-7, P-MAG-2); the battles they make are tests/domain/test_battle_wiring.py."""

from __future__ import annotations

import pytest

from api.powers.declared import SPECS
from domain.errors import RuleViolation


def test_p_bat_2_the_battle_pages_command_form_carries_the_players_choices():
    """The Battle page's command and spell forms build the commands with the choices (P-BAT-2, -3, -5, -6, -7;
    P-MAG-2's payment); empty fields leave the defaults."""
    form = {"battle_id": "b1", "army_id": "x", "command": "slay", "target": "y", "options": "axes, hammers"}
    form |= {"damage": "burn", "allocation": "3 3", "restore": "1", "pass_to": "z"}
    args = SPECS["battle-command"].args(form, "north")
    assert (args["options"], args["damage"], args["allocation"]) == (["axes", "hammers"], "burn", [3, 3])
    assert (args["restore"], args["pass_to"]) == (1, "z")
    plain = SPECS["battle-command"].args({"battle_id": "b1", "army_id": "x", "command": "rest"}, "north")
    assert (plain["options"], plain["damage"], plain["allocation"], plain["restore"], plain["pass_to"]) == (
        [],
        None,
        None,
        0,
        None,
    )
    spell = SPECS["battle-spell"].args({"battle_id": "b1", "spell_id": "fireball", "pay": "F F A E"}, "north")
    assert spell["pay"] == ["F", "F", "A", "E"]
    with pytest.raises(RuleViolation):
        SPECS["battle-command"].args({"battle_id": "b1", "army_id": "x", "command": "slay", "allocation": "x"}, "n")
