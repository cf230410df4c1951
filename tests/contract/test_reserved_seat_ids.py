"""No ruleset seats a player under an id the platform keeps for a viewer (``domain.ids.RESERVED_VIEWERS``): every
observer is shown the view of the viewer ``observer``, so a seat of that id would have every observer read its
private actions (P.4's who-sees-what); ``gm``, ``public`` and ``sealed`` name audiences. The platform refuses it
for every ruleset, the fake one (which checks nothing itself) included, and records nothing."""

from __future__ import annotations

import pytest
from emissary_fake.ruleset import FAKE, Join

from application.service import Caller, Games, new_token
from domain.covenants.commands import AddCovenant
from domain.errors import RuleViolation
from domain.ids import RESERVED_VIEWERS
from domain.lodge.commands import AddMage
from domain.powers import commands as pc
from tests.contract.conftest import swapped

GM = Caller.of("gm")


def _refused(games: Games, game_id: str, command: object) -> RuleViolation:
    before = games.get_game(game_id, for_update=False).version
    with pytest.raises(RuleViolation) as refused:
        games.run(GM, game_id, command)
    assert games.get_game(game_id, for_update=False).version == before  # nothing recorded
    return refused.value


@pytest.mark.parametrize("reserved", [*sorted(RESERVED_VIEWERS), "Observer", "GM", "observer:x", "power:ann"])
def test_the_platform_refuses_a_seat_named_for_a_viewer_on_a_ruleset_that_checks_nothing(reserved):
    with swapped(FAKE):
        games = Games()
        game_id, _, _ = games.create_game("Tea", ruleset="table")
        refused = _refused(games, game_id, Join(reserved, "Sneaky"))
        assert refused.field == "seat_id" and repr(reserved) in refused.message
        games.run(GM, game_id, Join("ann", "Ann"))  # a plain id is seated as before
        assert set(games.get_game(game_id).seats) == {"ann"}


@pytest.mark.parametrize("reserved", ["observer", "public", "sealed", "system", "observer:x", "power:ann"])
def test_covenants_and_lodge_refuse_a_seat_named_for_a_viewer(reserved):
    games = Games()
    cov, _, _ = games.create_game("Tribunal", ruleset="covenants")
    assert _refused(games, cov, AddCovenant(reserved, "Sneaky", "Sneaky Hall")).field == "seat_id"
    lodge, _, _ = games.create_game("Lodge", ruleset="lodge")
    assert _refused(games, lodge, AddMage(reserved, "Sneaky", "red")).field == "mage_id"


def test_a_power_named_observer_is_seated_under_another_id_p_amb_observers():
    """Powers makes a power's id from its name: 'Observer' and 'Public' get ids of their own, never the viewer's."""
    games = Games()
    game_id, _, _ = games.create_game("Middle-earth", ruleset="powers")
    ids = [
        games.run(GM, game_id, pc.AddPower(name, "conspiracy", "circle", new_token()[1])).result["power_id"]
        for name in ("Observer", "Public", "Sealed", "GM")
    ]
    assert ids == ["observer-2", "public-2", "sealed-2", "gm-2"]
    assert not RESERVED_VIEWERS & set(games.get_game(game_id).seats)


def test_a_game_recorded_with_such_a_seat_before_the_check_still_plays():
    """A game saved before the platform refused these ids keeps playing (its commands are not all refused for a seat
    it already had); only a new such seat is refused."""
    with swapped(FAKE):
        games = Games()
        game_id, _, _ = games.create_game("Tea", ruleset="table")
        old = games.get_game(game_id)
        old.join(Join("observer", "Old"))  # recorded straight on the aggregate, as before the check
        games.save(old)
        games.run(GM, game_id, Join("ann", "Ann"))
        assert set(games.get_game(game_id).seats) == {"observer", "ann"}
        assert _refused(games, game_id, Join("public", "New")).field == "seat_id"
