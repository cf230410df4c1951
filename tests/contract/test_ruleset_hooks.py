"""The platform asks the game's ruleset (issue 11): the read models for its notification texts (``notify``),
the phases its events begin (``phase_of``) and the seats they add (``seat_of``), the mail intake for its
grammar (``mail_grammar``); nothing of Powers is assumed for a game of another ruleset. Played with the fake
table ruleset (``tests/plugins/emissary-fake``)."""

from __future__ import annotations

import dataclasses

import pytest
from emissary_fake.ruleset import FAKE, Join, Post

from api.compose import build_games, build_projector
from api.mail_intake import MailIntake
from application.service import Caller
from domain.mailturns import Command, LineError, Turn, own_lines
from domain.platform import ruleset as registry
from projections.settings import Settings
from tests.contract.conftest import swapped


def _posted(kind: str, data: dict) -> dict | None:
    return {"subject": f"{data['seat_id']} wrote", "text": data["text"]} if kind == "Posted" else None


@pytest.fixture
def stack(tmp_path):
    games = build_games(Settings(data_dir=tmp_path / "data"))
    projector = build_projector(games, Settings(data_dir=tmp_path / "data"))
    yield games, projector
    projector.db.close()
    games.close()


@pytest.fixture
def table(request):
    with swapped(getattr(request, "param", FAKE)) as ruleset:  # the fake with a hook, in place of the installed one
        yield ruleset


def _play(games) -> str:
    game_id, _, _ = games.create_game("Tea", ruleset="table")
    games.run_many(Caller.of("gm"), game_id, [Join("ann", "Ann"), Join("bob", "Bob")])
    games.run(Caller.of("ann"), game_id, Post("ann", "hello"))
    return str(games.get_game(game_id).id)


@pytest.mark.parametrize("table", [dataclasses.replace(FAKE, notify=_posted)], indirect=True)
def test_the_outbox_holds_the_texts_of_the_games_ruleset(stack, table):
    games, projector = stack
    gid = _play(games)
    projector.catch_up()
    sent = [(n["recipient"], n["kind"], n["body"]) for n in projector.outbox(gid)]
    # Only the ruleset's own texts (a table knows no step, resolution or resistance), to every seat shown the post.
    assert sent == [
        ("ann", "Posted", {"subject": "ann wrote", "text": "hello"}),
        ("bob", "Posted", {"subject": "ann wrote", "text": "hello"}),
    ]
    # The seats its seat_of names were followed: each has a timeline from the events it may see.
    feed = [e["type"] for e in projector.feed(gid, "bob")]  # the first join commits the platform's dice
    assert feed == ["TableCreated", "Joined", "SeedCommitted", "Joined", "Posted"]


def test_a_ruleset_without_notify_sends_no_ruleset_notifications(stack, table):
    games, projector = stack
    assert table.notify is None
    gid = _play(games)
    projector.catch_up()
    assert projector.outbox(gid) == []
    assert len(projector.audit(gid)) == games.get_game(gid).version  # every event was projected all the same


def test_the_phase_index_is_the_phases_the_games_ruleset_names(stack, table):
    games, projector = stack
    gid = _play(games)
    projector.catch_up()
    joins = [e["version"] for e in projector.audit(gid) if e["type"] == "Joined"]
    assert [(p["version"], p["phase"]) for p in projector.phases(gid)] == list(zip(joins, ["join-ann", "join-bob"]))
    assert [e["phase"] for e in projector.audit(gid)][-2:] == ["join-bob", "join-bob"]  # the post is in bob's phase
    assert [p["phase"] for p in games.phases(gid)] == ["setup", "join-ann", "join-bob"]

    # A rollback to a phase: the events after it are in that phase again (read from the index, not Powers' steps).
    games.rollback(gid, "gm", "ann spoke too soon", phase="join-ann")
    games.run(Caller.of("ann"), gid, Post("ann", "again"))
    projector.catch_up()
    assert [(e["type"], e["phase"]) for e in projector.audit(gid)][-3:] == [
        ("GameRolledBack", "join-bob"),
        ("StateRestored", "join-ann"),
        ("Posted", "join-ann"),
    ]
    assert projector.phase_start(gid, "join-ann") == joins[0]


def test_a_mail_to_a_game_whose_ruleset_has_no_grammar_is_refused_naming_the_ruleset(stack, table):
    games, _ = stack
    assert table.mail_grammar is None
    game_id, gm_token, _ = games.create_game("Tea", ruleset="table")
    before = games.get_game(game_id).version
    intake = MailIntake(games, "emissary.local")
    reply = intake.receive(intake.address_for(game_id, gm_token), "<m1@x>", "ready", subject="turn")
    assert not reply.accepted and reply.subject == "Not recorded: turn"
    assert "'table'" in reply.body and "takes no turns by mail" in reply.body and "Nothing was recorded" in reply.body
    assert games.get_game(game_id).version == before  # nothing recorded, not even the mail's memory


def _refuse_every_line(text: str | None, html: str | None = None, seat: str = "gm") -> Turn:
    return Turn([], [LineError(1, "this grammar takes no turn", "TEST-1")])


@pytest.fixture
def strict_powers():
    """Powers registered with another grammar for the test (and the real one put back after)."""
    powers = registry.get("powers")
    registry.unregister("powers")
    registry.register(dataclasses.replace(powers, mail_grammar=_refuse_every_line))
    try:
        yield
    finally:
        registry.unregister("powers")
        registry.register(powers)


def test_the_mail_is_read_by_the_grammar_of_the_games_ruleset(stack, strict_powers):
    games, _ = stack
    game_id, gm_token, _ = games.create_game("Tea")
    before = games.get_game(game_id).version
    intake = MailIntake(games, "emissary.local")
    reply = intake.receive(intake.address_for(game_id, gm_token), "<m2@x>", "advance", subject="turn")
    assert not reply.accepted and "line 1: this grammar takes no turn (TEST-1)" in reply.body
    assert games.get_game(game_id).version == before


class _TableTurn(Turn):
    """The table's own grammar: ``join <seat> <name>`` and ``post <seat> <text>``, one a line."""

    def command(self, game, cmd: Command):
        return (
            Join(cmd.args["seat"], cmd.args["rest"]) if cmd.verb == "join" else Post(cmd.args["seat"], cmd.args["rest"])
        )

    def recorded(self, game, cmd: Command, command, result: dict) -> list[str]:
        return [f"{cmd.verb}ed: {cmd.args['seat']} ({len(game.state.posts)} posts)"]

    def footer(self, game) -> list[str]:
        return ["", f"{len(game.seats)} seats at the table."]


def _table_grammar(text: str | None, html: str | None = None, seat: str = "gm") -> Turn:
    commands, errors = [], []
    for number, line in own_lines(text or ""):
        words = line.split(None, 2)
        if len(words) == 3 and words[0] in ("join", "post"):
            commands.append(Command(number, words[0], {"seat": words[1], "rest": words[2]}))
        elif line.strip():
            errors.append(LineError(number, "a table takes join and post", "TABLE-0"))
    return _TableTurn(commands, errors)


@pytest.mark.parametrize("table", [dataclasses.replace(FAKE, mail_grammar=_table_grammar)], indirect=True)
def test_the_intake_runs_another_rulesets_mail_turn_whole_through_the_service(stack, table):
    """Issue 11: the intake knows no ruleset; the table's grammar builds the table's commands and replies."""
    games, _ = stack
    game_id, gm_token, _ = games.create_game("Tea", ruleset="table")
    intake = MailIntake(games, "emissary.local")
    address = intake.address_for(game_id, gm_token)
    reply = intake.receive(address, "<t1@x>", "join ann Ann\npost ann hello all\n", subject="turn")
    assert reply.accepted, reply.body
    assert reply.body.startswith("joined: ann (0 posts)\nposted: ann (1 posts)\n\n1 seats at the table.\n")
    assert games.view(game_id, "gm")["posts"] == [{"seat": "ann", "text": "hello all"}]
    before = games.get_game(game_id).version
    refused = intake.receive(address, "<t2@x>", "post ann again\npost bob hi\ndance\n", subject="turn")
    assert not refused.accepted and games.get_game(game_id).version == before
    assert "line 2: join the table before you post (TABLE-1)" in refused.body
    assert "line 3: a table takes join and post (TABLE-0)" in refused.body
    again = intake.receive(address, "<t1@x>", "join ann Ann\npost ann hello all\n", subject="turn")
    assert again.body == reply.body and games.get_game(game_id).version == before  # the same Message-ID
