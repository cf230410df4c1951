"""Player choices as prompts (L.3, issue 15): an effect that needs a choice its command did not make pauses,
offers the legal options on a platform window with a deadline, and resolves when the chooser answers or,
at the deadline, with the recorded default. Played through the application service."""

from __future__ import annotations

from datetime import timedelta

import pytest

from application.service import Caller, Games
from domain.errors import RuleViolation
from domain.ids import SYSTEM
from domain.lodge.ruleset import AddMage, AdvancePhase, AnswerChoice, BeginGame, CastSpell, PrepareSpells
from domain.platform import flow
from domain.platform.commands import trial_context


@pytest.fixture
def games():
    g = Games(entropy=lambda n: "ab" * n)
    yield g
    g.close()


def _gust_ready(games) -> str:
    """Ann holds Gust (Move 2 on its target) in slot I, at the Actions phase; every Mage stands in the Hall."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    gm = Caller.of("gm")
    games.run_many(gm, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    games.run(Caller.of("ann"), game_id, PrepareSpells("ann", {"I": "gust"}))
    games.run(gm, game_id, AdvancePhase("prepare"))
    return game_id


def _kinds(games, game_id: str, viewer: str) -> list[str]:
    return [e["type"] for e in games.visible_events(game_id, viewer)]


def _moves(games, game_id: str) -> list[tuple[str, str]]:
    game = games.get_game(game_id)
    return [
        (c["from"], c["room"])
        for e in games.events.get(game.id)
        for c in getattr(e, "changes", [])
        if c["op"] == "move" and c.get("model") == "bob"
    ]


def test_l_move_1_each_move_step_left_open_is_a_prompt_the_mover_answers_from_the_legal_rooms(games):
    """L-MOVE-1 [002:R28]: "When a Model performs "Move," its controller moves it to an adjacent Room; they repeat
    this operation a number of times equal to the number indicated after the word "Move"." (LH-2: the player
    picks one adjacent Room per step.)"""
    game_id = _gust_ready(games)
    ann = Caller.of("ann")
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))  # no moves named: each step is asked for
    (prompt,) = games.view(game_id, "ann")["prompts"]
    assert prompt["question"] == "Move step 1 of bob" and "library" in prompt["options"]
    assert prompt["default"] == prompt["options"][0] and prompt["rule"] == "L-MOVE-1"
    assert games.view(game_id, "gm")["prompts"] == [prompt] and games.view(game_id, "bob")["prompts"] == []
    assert "ChoiceOffered" not in _kinds(games, game_id, "bob") and "ChoiceOffered" in _kinds(games, game_id, "ann")
    assert "ChoiceOffered" in _kinds(games, game_id, "gm")
    game = games.get_game(game_id)
    window = game.state.windows[prompt["choice"]]
    assert window.kind == "choice" and not window.closed and game.pending_in(window) == ["ann"]
    assert _moves(games, game_id) == [] and game.state.mages["ann"]["slots"]["I"]["revealed"] is False
    games.run(ann, game_id, AnswerChoice("ann", prompt["choice"], "library"))
    (second,) = games.view(game_id, "ann")["prompts"]
    assert second["question"] == "Move step 2 of bob" and "observatory" in second["options"]
    open_windows = [w["id"] for w in games.view(game_id, "gm")["windows"]]
    assert prompt["choice"] not in open_windows and second["choice"] in open_windows
    games.run(ann, game_id, AnswerChoice("ann", second["choice"], "observatory"))
    assert games.view(game_id, "ann")["prompts"] == []
    assert _moves(games, game_id) == [("hall", "library"), ("library", "observatory")]
    kinds = _kinds(games, game_id, "ann")
    assert kinds.count("ChoiceAnswered") == 2 and kinds.count("SpellRevealed") == 1


def test_l_move_1_an_unanswered_prompt_takes_its_recorded_default_at_the_deadline(games):
    """L-MOVE-1 [002:R28]: "they repeat this operation a number of times equal to the number indicated after the
    word "Move"": the phrase applies in full (R2), so at the deadline each open step takes its default."""
    game_id = _gust_ready(games)
    games.run(Caller.of("ann"), game_id, CastSpell("ann", "I", "bob"))
    game = games.get_game(game_id)
    for step in (1, 2):
        (prompt,) = games.view(game_id, "ann")["prompts"]
        games.clock = lambda step=step: game.created_on + timedelta(days=30 * step)
        assert games.close_due_window(game_id, prompt["choice"]) is True
    defaulted = [e["data"] for e in games.visible_events(game_id, "ann") if e["type"] == "ChoiceDefaulted"]
    assert len(defaulted) == 2 and games.view(game_id, "ann")["prompts"] == []
    first = games.get_game(game_id).catalogue.room_by_id["hall"].adjacent[0]
    assert _moves(games, game_id)[0] == ("hall", first)
    assert games.view(game_id, "gm")["game"]["phase"] == "actions"  # a choice's deadline does not end the phase


def test_l_move_3_an_illegal_answer_is_refused_naming_the_rule_and_records_nothing(games):
    """L-MOVE-3 [002:R30]: "You cannot move your Mage or another Mage into a Cell, however some Game Effects may
    place a Mage into their Cell"; with L-MOVE-1, each step goes to an adjacent Room. An answer outside the
    options the server computed is refused naming the rule it breaks, and nothing is recorded."""
    game_id = _gust_ready(games)
    ann = Caller.of("ann")
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    (prompt,) = games.view(game_id, "ann")["prompts"]
    before = games.recorder.max_notification_id()
    for option, rule in (("sanctum", "L-MOVE-1"), ("cell-blue", "L-MOVE-3")):
        with pytest.raises(RuleViolation, match=rule) as refused:
            games.run(ann, game_id, AnswerChoice("ann", prompt["choice"], option))
        assert refused.value.rule == rule and refused.value.field == "option"
    with pytest.raises(Exception, match="no open choice"):
        games.run(Caller.of("bob"), game_id, AnswerChoice("bob", prompt["choice"], "library"))
    assert games.recorder.max_notification_id() == before
    assert games.view(game_id, "ann")["prompts"] == [prompt]


def test_lh_4_whose_cubes_a_heal_takes_is_a_prompt_among_the_maximal_subsets_with_the_rightmost_by_default():
    """L-HEAL-1 [002:R33]: "when Healing Damage the Mage chooses a number of Damage Cubes equal to or less than
    the amount indicated by the Effect"; [002:R34] "you can choose any color combination of Damage Cubes to Heal
    from those assigned to the target". LH-4 / L-AMB-7: where several maximal applicable subsets exist, the
    resolving Mage chooses one. Mend (Heal 2) on a track of red, blue, red, green can heal four different pairs of
    owners; the offer lists them, an answer outside them is refused naming the rule and records nothing, and the
    deadline takes the rightmost two."""
    from domain.lodge.engine import Choices
    from tests.domain.lodge_helpers import NOW, board, cubes, lodge, recorded, sheet, slot

    g = lodge()
    slot(g, "ann", "mend")
    cubes(g, "bob", "red", "blue", "red", "green")
    g.cast_spell("ann", "I", "bob", Choices(prompt=True), now=NOW)
    ((kind, offered),) = [(k, d) for k, d in recorded(g) if k.startswith("Choice")]
    assert kind == "ChoiceOffered" and offered["options"] == ["blue,green", "blue,red", "green,red", "red,red"]
    assert offered["default"] == "green,red" and sheet(g, "bob")["damage"] == ["red", "blue", "red", "green"]
    with pytest.raises(RuleViolation, match="L-HEAL-1"):
        g.answer_choice("ann", offered["choice"], "blue,blue", now=NOW)
    assert recorded(g) == []
    g.answer_choice("ann", offered["choice"], "red,red", now=NOW)
    assert sheet(g, "bob")["damage"] == ["blue", "green"] and board(g)["prompts"] == []

    g = lodge()
    slot(g, "ann", "mend")
    cubes(g, "bob", "red", "blue", "red", "green")
    g.cast_spell("ann", "I", "bob", Choices(prompt=True), now=NOW)
    (choice,) = [p["choice"] for p in board(g)["prompts"]]
    late = trial_context(g, SYSTEM, NOW + timedelta(days=2))
    assert flow.close(g, choice, late, reason="deadline") is True  # the platform closes it at its deadline
    assert sheet(g, "bob")["damage"] == ["red", "blue"]
    assert [k for k, _ in recorded(g) if k.startswith("Choice")] == ["ChoiceOffered", "ChoiceDefaulted"]


def test_l_eff_1_while_an_effect_waits_for_its_choice_its_resolver_starts_no_other(games):
    """L-EFF-1 [002:R1]: an Effect resolves in full, phrase after phrase; one waiting for its resolver's choice
    has not resolved, so the same Mage's next effect is refused naming the rule, and nothing is recorded."""
    game_id = _gust_ready(games)
    ann = Caller.of("ann")
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    before = games.recorder.max_notification_id()
    with pytest.raises(RuleViolation, match="L-EFF-1"):
        games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    assert games.recorder.max_notification_id() == before


def test_a_choice_whose_phase_ends_lapses_then_and_its_deadline_finds_nothing_to_close(games):
    """LH-7: the host ended the Actions phase while a choice waited; the effect may not resolve in the Black Rose's
    phase, so the choice lapses as the phase ends (its reason and rule recorded, its window closed once), and its
    deadline later finds nothing to close (issue 24: nothing stays offered that would be refused)."""
    game_id = _gust_ready(games)
    games.run(Caller.of("ann"), game_id, CastSpell("ann", "I", "bob"))
    (prompt,) = games.view(game_id, "ann")["prompts"]
    games.run(Caller.of("gm"), game_id, AdvancePhase("actions"))
    kinds = _kinds(games, game_id, "ann")
    assert kinds[-2:] == ["ChoiceLapsed", "WindowClosed"] and _moves(games, game_id) == []
    (lapsed,) = [e["data"] for e in games.visible_events(game_id, "ann") if e["type"] == "ChoiceLapsed"]
    assert lapsed["data"]["rule"] == "LH-7" and games.view(game_id, "ann")["prompts"] == []
    game = games.get_game(game_id)
    games.clock = lambda: game.created_on + timedelta(days=30)
    assert games.close_due_window(game_id, prompt["choice"]) is False


def test_a_target_prompt_of_a_face_down_spell_shows_nothing_of_it_to_another_seat(tmp_path):
    """L.4: an unrevealed Spell Card is seen by its owner and the host only. Ann casts her face-down Firebolt
    without a target: the prompt's question names the card and its options are the card's legal targets, so
    Bob's view, his events, his feed, his windows and his mail show nothing of it; Ann alone is sent the choice,
    and the host sees it."""
    import json

    from api.compose import build_games, build_projector
    from projections.settings import Settings

    games = build_games(Settings(data_dir=tmp_path / "data"))
    projector = build_projector(games, Settings(data_dir=tmp_path / "data"))
    try:
        game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
        gm, ann = Caller.of("gm"), Caller.of("ann")
        games.run_many(gm, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
        games.run(ann, game_id, PrepareSpells("ann", {"I": "firebolt"}))
        games.run(gm, game_id, AdvancePhase("prepare"))
        games.run(ann, game_id, CastSpell("ann", "I"))
        (prompt,) = games.view(game_id, "ann")["prompts"]
        assert prompt["question"] == "the target of Firebolt" and prompt["options"] == ["ann", "bob", "dummy"]
        assert games.view(game_id, "gm")["prompts"] == [prompt]
        assert prompt["choice"] in [w["id"] for w in games.view(game_id, "ann")["windows"]]
        bob_view = games.view(game_id, "bob")
        assert bob_view["prompts"] == [] and prompt["choice"] not in [w["id"] for w in bob_view["windows"]]
        projector.catch_up()
        seen_by_bob = json.dumps([bob_view, games.visible_events(game_id, "bob"), projector.feed(game_id, "bob")])
        assert "firebolt" not in seen_by_bob.lower() and prompt["choice"] not in seen_by_bob
        offers = [
            (n["recipient"], n["body"]["subject"]) for n in projector.outbox(game_id) if n["kind"] == "ChoiceOffered"
        ]
        assert offers == [("ann", "A choice waits for you: the target of Firebolt")]
    finally:
        projector.db.close()
        games.close()


def test_a_prompt_reminds_its_chooser_alone_before_its_deadline(games):
    """L.3 on the platform's windows: the game's ``reminder_hours`` (12 and 2 hours by default) remind whoever
    has not acted before a window's deadline; a prompt's window waits for its chooser alone."""
    game_id = _gust_ready(games)
    games.run(Caller.of("ann"), game_id, CastSpell("ann", "I", "bob"))
    (prompt,) = games.view(game_id, "ann")["prompts"]
    (created,) = [e["data"] for e in games.visible_events(game_id, "gm") if e["type"] == "LodgeCreated"]
    assert created["options"]["reminder_hours"] == [12, 2]
    closes = prompt["closes_at"]
    from datetime import datetime

    games.clock = lambda: datetime.fromisoformat(closes) - timedelta(hours=13)
    assert games.queue_due_reminders(game_id, prompt["choice"]) == []  # not yet
    games.clock = lambda: datetime.fromisoformat(closes) - timedelta(hours=11)
    assert games.queue_due_reminders(game_id, prompt["choice"]) == ["ann"]
    assert games.queue_due_reminders(game_id, prompt["choice"]) == []  # once per offset
    games.clock = lambda: datetime.fromisoformat(closes) - timedelta(hours=1)
    assert games.queue_due_reminders(game_id, prompt["choice"]) == ["ann"]


def test_the_reminder_hours_are_a_game_option_checked_when_the_game_is_created(games):
    """L.3 on the platform's windows: a host sets when Mages are reminded before a deadline; a reminder after
    the deadline (a negative offset) is refused naming the option, and nothing is created."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge", options={"reminder_hours": [6]})
    (created,) = [e["data"] for e in games.visible_events(game_id, "gm") if e["type"] == "LodgeCreated"]
    assert created["options"]["reminder_hours"] == [6]
    with pytest.raises(RuleViolation) as refused:
        games.create_game("Lodge", ruleset="lodge", options={"reminder_hours": [-1]})
    assert refused.value.field == "options.reminder_hours.0"
