"""The covenant table's buttons agree with what the ruleset offers the seat (issue 24: the choices offered are
exactly what it may send): a button whose command the rules refuse now is not drawn."""

from __future__ import annotations

from tests.covenants.play import Dice, pass_main
from tests.domain.test_covenants_defaults import quaesitor_prompt, skeletons_at_ann_without_grogs_or_vis
from tests.web.test_covenants_forms import Seats


def test_a_covenant_that_cannot_pay_the_skeletons_is_not_offered_the_pay_off_only_the_battle(app, games):
    """A-EVT-4 [000:733] "paying 1 pawn vis": with none, the page offers the allocation (A-BAT-1: none to make),
    not the pay-off the rules refuse."""
    t = skeletons_at_ann_without_grogs_or_vis(Dice(), games)
    w = Seats(app, t)
    page = w.page("ann")
    assert "Pay the Army of Skeletons off" not in page
    w.post("ann", "allocate")
    assert t.phase() == "main"  # the battle fought, the Main Phase's one extra round follows (A-AMB-5)
    pass_main(t)
    assert t.phase() == "move"


def test_the_player_prompted_for_the_quaesitor_investigation_is_offered_neither_a_draw_nor_a_pass(app, games):
    """A-EVT-1 with H-13: the Investigation is decided first; the page offers its targets, not the draw or the
    pass the rules refuse until then."""
    t = quaesitor_prompt(Dice(), games)
    page = Seats(app, t).page("bob")
    assert "Draw an event" not in page and ">Pass<" not in page
