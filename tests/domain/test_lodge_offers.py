"""What a Lodge principal is offered is exactly what it may send (issue 24, DESIGN "no game gets stuck"): the
``offers`` of ``LODGE`` are built fully formed, the board's choices, prompts and Cell offers are read from them,
and every one is accepted. A Cell offer made in the Black Rose's phase is answered there (L-PERS-5), and the
Black Rose's card is offered to the host alone (LH-7)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from application.service import Caller, Games
from domain.copying import deepcopy
from domain.errors import DomainError
from domain.lodge.game import DECLINE, RESOLVE
from domain.lodge.ruleset import (
    LODGE,
    AddMage,
    AdvancePhase,
    AnswerChoice,
    BeginGame,
    BlackRoseAct,
    CastSpell,
    Pass,
    PhysicalAction,
    PrepareSpells,
    ResolveFromCell,
    board_view,
)

GM = Caller.of("gm")


@pytest.fixture
def games():
    g = Games(entropy=lambda n: "ab" * n)
    yield g
    g.close()


def offers(games: Games, game_id: str, who: str) -> list:
    assert LODGE.offers is not None
    return LODGE.offers(games.get_game(game_id, for_update=False), who)


def accepted_each(games: Games, game_id: str, who: str) -> int:
    """Run every command offered to ``who`` on its own copy of the game: none may be refused."""
    game = games.get_game(game_id, for_update=False)
    commands = offers(games, game_id, who)
    for command in commands:
        copy = deepcopy(game)
        try:
            LODGE.handler(command)(copy, command, games.context(Caller.of(who), copy))
        except DomainError as err:  # pragma: no cover - the failure names the command
            raise AssertionError(f"{who} was offered {command} and it was refused: {err}") from err
    return len(commands)


def _thornskin_in_the_black_rose_phase(games: Games) -> str:
    """Ann's revealed Thornskin is on Bob; Cy has retreated to her Cell; the Black Rose's Thorns damage Bob in its
    own phase, so the Thornskin fires and Cy, in her Cell, is offered its effect (L-PERS-5)."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    ann, bob, cy = (Caller.of(m) for m in ("ann", "bob", "cy"))
    games.run_many(
        GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), AddMage("cy", "Cy", "green")]
    )
    games.run(GM, game_id, BeginGame())
    games.run(ann, game_id, PrepareSpells("ann", {"I": "thornskin"}))
    games.run(cy, game_id, PrepareSpells("cy", {"I": "retreat"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    games.run(cy, game_id, CastSpell("cy", "I"))
    games.run(GM, game_id, AdvancePhase("actions"))
    games.run(GM, game_id, BlackRoseAct("thorns", "bob"))
    assert games.view(game_id, "cy")["mages"]["cy"]["room"] == "cell-green"
    return game_id


@pytest.mark.parametrize("answer", [RESOLVE, DECLINE])
def test_l_pers_5_a_mage_in_her_cell_answers_an_offer_made_in_the_black_rose_phase(games, answer):
    """L-PERS-5 [002:R10]: "A Mage who is in the Cell may also resolve a Persistent Effect of a Revealed Card
    whenever the required condition occurs": the condition occurred in the Black Rose's phase, so Cy answers
    there; both answers she is offered are accepted, by the prompt or by the command."""
    game_id = _thornskin_in_the_black_rose_phase(games)
    (prompt,) = games.view(game_id, "cy")["prompts"]
    (offer,) = games.view(game_id, "cy")["offers"]
    offered = games.view(game_id, "cy")["choices"]
    assert prompt["kind"] == "cell" and offered["answers"] == {prompt["choice"]: [RESOLVE, DECLINE]}
    assert offered["cell_offers"] == {offer["id"]: [RESOLVE, DECLINE]}
    assert AnswerChoice("cy", prompt["choice"], answer) in offers(games, game_id, "cy")
    assert ResolveFromCell("cy", offer["id"], answer == RESOLVE) in offers(games, game_id, "cy")
    pp = games.view(game_id, "cy")["mages"]["cy"]["power_points"]
    games.run(Caller.of("cy"), game_id, AnswerChoice("cy", prompt["choice"], answer))
    after = games.view(game_id, "cy")
    assert after["prompts"] == [] and after["offers"] == []
    assert after["mages"]["cy"]["power_points"] == pp + (answer == RESOLVE)  # Thornskin: gain 1 Power Point


def test_l_pers_5_the_deadline_declines_a_cell_offer_made_in_the_black_rose_phase(games):
    """L-PERS-5 "may": resolving is the Mage's choice, so the deadline declines the offer; in the Black Rose's
    phase the decline is recorded as such, not refused and lapsed."""
    game_id = _thornskin_in_the_black_rose_phase(games)
    (prompt,) = games.view(game_id, "cy")["prompts"]
    game = games.get_game(game_id)
    games.clock = lambda: game.created_on + timedelta(days=30)
    assert games.close_due_window(game_id, prompt["choice"]) is True
    kinds = [e["type"] for e in games.visible_events(game_id, "cy")]
    assert kinds[-3:] == ["ChoiceDefaulted", "WindowClosed", "CellOfferClosed"] and "ChoiceLapsed" not in kinds


def test_lh_7_black_rose_act_is_offered_to_the_host_alone(games):
    """LH-7: the package's Black Rose phase is the host's ("acts": "host"); a Mage is offered no Black Rose card,
    and their board's choices do not list it, while the host is offered each card on each legal target."""
    game_id = _thornskin_in_the_black_rose_phase(games)
    for mage in ("ann", "bob"):
        assert offers(games, game_id, mage) == [] and games.view(game_id, mage)["choices"]["may"] == []
    assert all(not isinstance(c, BlackRoseAct) for c in offers(games, game_id, "cy"))
    host = offers(games, game_id, "gm")
    assert BlackRoseAct("thorns", "bob") in host and host[-1] == AdvancePhase("black-rose")
    board = games.view(game_id, "gm")["choices"]  # the host's board reads the same offers
    assert (
        board["may"] == ["AdvancePhase", "BlackRoseAct"] and {"card": "thorns", "target": "bob"} in board["black_rose"]
    )
    assert len(board["black_rose"]) == len(host) - 1
    assert accepted_each(games, game_id, "gm") == len(host)


def test_every_command_offered_in_each_phase_is_accepted(games):
    """The choices a seat is offered are exactly the commands it may send: in setup, Prepare and Actions, each
    principal's every offer runs (on a copy of the game) without a refusal, and the board's choices list them."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    assert accepted_each(games, game_id, "gm") > 0
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    assert offers(games, game_id, "ann")[-1] == Pass("ann")
    for who in ("gm", "ann", "bob"):
        assert accepted_each(games, game_id, who) > 0
    games.run(Caller.of("ann"), game_id, PrepareSpells("ann", {"I": "gust", "II": "mend", "QUICK": "ward"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    casts = [c for c in offers(games, game_id, "ann") if isinstance(c, CastSpell)]
    assert {c.slot for c in casts} == {"I", "II", "QUICK"}
    choices = board_view(games.get_game(game_id, for_update=False), "ann")["choices"]
    assert sorted(choices["spells"]) == ["I", "II", "QUICK"] and "BlackRoseAct" not in choices["may"]
    for who in ("gm", "ann", "bob"):
        assert accepted_each(games, game_id, who) > 0


def test_l_eff_1_while_her_effect_waits_for_a_choice_a_mage_is_offered_its_answers_not_another_effect(games):
    """L-EFF-1 [002:R1]: an effect resolves in full before the next begins, so while Ann's Gust waits for a
    step, she is offered that step's answers and Pass, not another spell; each is accepted."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(Caller.of("ann"), game_id, PrepareSpells("ann", {"I": "gust", "II": "insight"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    games.run(Caller.of("ann"), game_id, CastSpell("ann", "I", "bob"))
    (prompt,) = games.view(game_id, "ann")["prompts"]
    offered = offers(games, game_id, "ann")
    assert offered == [AnswerChoice("ann", prompt["choice"], o) for o in prompt["options"]] + [Pass("ann")]
    assert games.view(game_id, "ann")["choices"]["answers"] == {prompt["choice"]: prompt["options"]}
    assert accepted_each(games, game_id, "ann") == len(offered)


def test_lh_7_a_choice_whose_phase_ends_lapses_then_and_is_offered_no_more(games):
    """LH-7: a command belongs to the phase of the package that allows it; when the host ends that phase while
    the command's effect waits for a choice, the choice lapses at once, its reason and rule recorded, its window
    closed; nothing is left offered that the next phase would refuse."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(Caller.of("ann"), game_id, PrepareSpells("ann", {"I": "gust"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    games.run(Caller.of("ann"), game_id, CastSpell("ann", "I", "bob"))
    (prompt,) = games.view(game_id, "ann")["prompts"]
    games.run(GM, game_id, AdvancePhase("actions"))
    assert games.view(game_id, "ann")["prompts"] == [] and offers(games, game_id, "ann") == []
    (lapsed,) = [e["data"]["data"] for e in games.visible_events(game_id, "ann") if e["type"] == "ChoiceLapsed"]
    assert lapsed["choice"] == prompt["choice"] and lapsed["rule"] == "LH-7"
    assert prompt["choice"] not in [w["id"] for w in games.view(game_id, "gm")["windows"]]


def test_l_pers_5_a_mage_who_has_left_her_cell_is_offered_only_to_decline_and_her_decline_is_accepted(games):
    """L-PERS-5 [002:R10] "A Mage who is in the Cell may also resolve": once Cy walks out of her Cell, resolving
    the offer is no longer hers to do, so she is offered only to decline it, by the prompt or by the command; the
    decline changes nothing and is accepted (it was refused before, outside the Cell)."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    ann, cy = Caller.of("ann"), Caller.of("cy")
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue")])
    games.run_many(GM, game_id, [AddMage("cy", "Cy", "green"), BeginGame()])
    games.run(ann, game_id, PrepareSpells("ann", {"I": "thornskin", "II": "firebolt"}))
    games.run(cy, game_id, PrepareSpells("cy", {"I": "retreat"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    games.run(cy, game_id, CastSpell("cy", "I"))
    games.run(ann, game_id, CastSpell("ann", "II", "bob"))  # Bob is damaged: the Thornskin fires; Cy is offered it
    (prompt,) = games.view(game_id, "cy")["prompts"]
    (offer,) = games.view(game_id, "cy")["offers"]
    games.run(cy, game_id, PhysicalAction("cy", "walk", moves=["hall"]))
    assert [c for c in offers(games, game_id, "cy") if isinstance(c, (AnswerChoice, ResolveFromCell))] == [
        AnswerChoice("cy", prompt["choice"], DECLINE),
        ResolveFromCell("cy", offer["id"], False),
    ]
    assert accepted_each(games, game_id, "cy") > 2
    games.run(cy, game_id, ResolveFromCell("cy", offer["id"], False))
    assert games.view(game_id, "cy")["offers"] == [] and games.view(game_id, "cy")["prompts"] == []


def test_an_answer_among_the_options_is_recorded_and_its_effect_lapses_if_the_board_has_moved_on(games):
    """L.3 with L-MOVE-1 [002:R28]: Ann's Gust asks where Bob's first step goes, among the Rooms next to the Hall;
    Bob walks to the Library before she answers, so the Crypt is no longer a step for him. Her answer, one she was
    offered, is recorded (never refused); the Gust cannot resolve with it, so it lapses, recorded with the rule,
    nothing of it happens, and her slot may be cast again."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    ann, bob = Caller.of("ann"), Caller.of("bob")
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(ann, game_id, PrepareSpells("ann", {"I": "gust"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    (prompt,) = games.view(game_id, "ann")["prompts"]
    assert "crypt" in prompt["options"]
    games.run(bob, game_id, PhysicalAction("bob", "walk", moves=["library"]))
    receipt = games.run(ann, game_id, AnswerChoice("ann", prompt["choice"], "crypt"))
    assert "crypt" in receipt.result["lapsed"]
    (lapsed,) = [e["data"]["data"] for e in games.visible_events(game_id, "ann") if e["type"] == "ChoiceLapsed"]
    assert lapsed["rule"] == "L-MOVE-1" and games.view(game_id, "ann")["prompts"] == []
    view = games.view(game_id, "ann")
    assert view["mages"]["bob"]["room"] == "library" and view["mages"]["ann"]["slots"]["I"]["face"] == "down"
    assert CastSpell("ann", "I", "bob") in offers(games, game_id, "ann")


def test_lh_7_a_mage_passes_once_a_phase_and_is_then_offered_no_pass_and_refused_another(games):
    """LH-7: Pass says a Mage is done for the phase; once passed she is offered no Pass, and a second one, which
    would record nothing new, is refused naming the rule and records nothing (offered equals accepted)."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(Caller.of("ann"), game_id, Pass("ann"))
    assert Pass("ann") not in offers(games, game_id, "ann")
    before = games.recorder.max_notification_id()
    with pytest.raises(DomainError) as refused:
        games.run(Caller.of("ann"), game_id, Pass("ann"))
    assert refused.value.rule == "LH-7" and games.recorder.max_notification_id() == before


def test_l_eff_1_while_her_effect_waits_a_mage_in_her_cell_may_still_decline_an_offer_but_not_resolve_it(games):
    """L-EFF-1 [002:R1] with L-PERS-5 [002:R10]: resolving a Cell offer is a new effect, which waits while Cy's Gust
    waits for its step; declining resolves nothing, so she is offered it and it is accepted."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    ann, cy = Caller.of("ann"), Caller.of("cy")
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue")])
    games.run_many(GM, game_id, [AddMage("cy", "Cy", "green"), BeginGame()])
    games.run(ann, game_id, PrepareSpells("ann", {"I": "thornskin", "II": "firebolt"}))
    games.run(cy, game_id, PrepareSpells("cy", {"I": "retreat", "II": "gust"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    games.run(cy, game_id, CastSpell("cy", "I"))
    games.run(ann, game_id, CastSpell("ann", "II", "bob"))  # the Thornskin fires: Cy, in her Cell, is offered it
    games.run(cy, game_id, CastSpell("cy", "II", "bob"))  # the Gust waits for Bob's first step
    cell, gust = sorted(games.view(game_id, "cy")["prompts"], key=lambda p: p["kind"] != "cell")
    (offer,) = games.view(game_id, "cy")["offers"]
    assert (cell["kind"], gust["kind"]) == ("cell", "move")
    cy_offers = offers(games, game_id, "cy")
    assert AnswerChoice("cy", cell["choice"], DECLINE) in cy_offers
    assert ResolveFromCell("cy", offer["id"], False) in cy_offers
    assert AnswerChoice("cy", cell["choice"], RESOLVE) not in cy_offers
    assert ResolveFromCell("cy", offer["id"], True) not in cy_offers
    assert accepted_each(games, game_id, "cy") == len(cy_offers)
    games.run(cy, game_id, AnswerChoice("cy", cell["choice"], DECLINE))
    assert [p["kind"] for p in games.view(game_id, "cy")["prompts"]] == ["move"]


def test_lh_7_in_the_hosts_phase_no_mage_is_shown_still_acting(games):
    """LH-7: the Black Rose's phase is the host's; no Mage is offered a move of it, so the status strip's line of
    seats shows none of them "still acting" (in the Mages' phases it shows who has passed)."""
    from api.lodge.status import seats

    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(Caller.of("ann"), game_id, Pass("ann"))
    assert [s["word"] for s in seats(games.view(game_id, "bob"), "bob")] == ["passed", "still acting"]
    games.run_many(GM, game_id, [AdvancePhase("prepare"), AdvancePhase("actions")])
    view = games.view(game_id, "bob")
    assert view["game"]["acts"] == "host" and seats(view, "bob") == [] and offers(games, game_id, "bob") == []


def test_l_pers_5_the_tokens_own_mage_in_her_cell_is_not_offered_her_effect_again_in_the_black_rose_phase(games):
    """L-PERS-5 [002:R10]: "A Mage who is in the Cell may also resolve a Persistent Effect of a Revealed Card
    whenever the required condition occurs". "Also": Ann's Thornskin resolves for her as it fires, so Ann, in her
    own Cell, gains its Power Point once and is offered nothing more; Cy, in hers, is offered it in the Black
    Rose's phase, and each answer offered to her is accepted there."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    ann, cy = Caller.of("ann"), Caller.of("cy")
    games.run_many(
        GM, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), AddMage("cy", "Cy", "green")]
    )
    games.run(GM, game_id, BeginGame())
    games.run(ann, game_id, PrepareSpells("ann", {"I": "thornskin", "II": "retreat"}))
    games.run(cy, game_id, PrepareSpells("cy", {"I": "retreat"}))
    games.run(GM, game_id, AdvancePhase("prepare"))
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    games.run(ann, game_id, CastSpell("ann", "II"))  # Ann retreats to her Cell
    games.run(cy, game_id, CastSpell("cy", "I"))
    games.run(GM, game_id, AdvancePhase("actions"))
    games.run(GM, game_id, BlackRoseAct("thorns", "bob"))
    view = games.view(game_id, "ann")
    assert view["mages"]["ann"]["room"] == "cell-red" and view["mages"]["ann"]["power_points"] == 1
    assert view["offers"] == [] and view["prompts"] == [] and offers(games, game_id, "ann") == []
    (offer,) = games.view(game_id, "cy")["offers"]
    assert offer["card"] == "thornskin" and accepted_each(games, game_id, "cy") == 4  # prompt and offer: 2 each
    games.run(cy, game_id, ResolveFromCell("cy", offer["id"], True))
    assert games.view(game_id, "cy")["mages"]["cy"]["power_points"] == 1
