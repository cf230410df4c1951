"""Posts on the platform (issue 16): threads and their audiences, limits, dice, edits, hiding, narration.

Given events / when command / then events, on the aggregate (Powers: a GM) and through the service for
the covenant game (no GM: a host who plays, an auditor)."""

from __future__ import annotations

import copy

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Caller, Games
from domain import visibility as vis
from domain.dice import SeededRoller, verify_roll
from domain.errors import DomainError, Forbidden, NotFound, RuleViolation
from domain.platform.commands import EditPost, HidePost, MakePost, OpenThread
from domain.platform.posts import POST_TEXT
from domain.powers import commands as pc
from domain.powers.game import Game, fold
from tests.covenants.play import seat_three
from tests.domain.helpers import NOW, SEED, game_in_planning, seen
from tests.helpers import add_power

POWERS = (("wiz", "champion", "wizard"), ("circ", "conspiracy", "circle"), ("sov", "city", "overlord"))


@pytest.fixture
def g() -> Game:
    game = game_in_planning(*POWERS)
    game.collect_events()
    return game


def refused_recording_nothing(game: Game, call, error=DomainError) -> DomainError:
    game.collect_events()
    before_talk, before_state = copy.deepcopy(game.talk), copy.deepcopy(game.state)
    with pytest.raises(error) as info:
        call()
    assert game.collect_events() == []
    assert game.talk == before_talk and game.state == before_state
    return info.value


def test_a_post_to_the_table_is_public_and_counts_in_everyones_sequence(g):
    viewers = ("gm", *(p for p, _, _ in POWERS))
    before = {v: seen(g, v)["sequence"] for v in viewers}
    g.make_post("wiz", "table", "Greetings, all", post_id="p1")
    (e,) = g.collect_events()
    assert type(e).__name__ == "PostMade" and e.audience == [vis.PUBLIC] and e.text == "Greetings, all"
    assert {v: seen(g, v)["sequence"] for v in viewers} == {v: n + 1 for v, n in before.items()}


def test_a_private_thread_is_seen_by_its_members_and_the_gm_only(g):
    t = g.open_thread("wiz", ["circ"], "Our pact", "thr-a")
    assert t["members"] == ["circ", "wiz"] and t["audience"] == ["power:circ", "power:wiz"]
    g.make_post("circ", "thr-a", "PACT-TEXT", post_id="p1")
    assert [x["id"] for x in g.threads_for("sov")] == ["table", "narration", "desk-sov"]
    assert "thr-a" in [x["id"] for x in g.threads_for("gm")] and "thr-a" in [x["id"] for x in g.threads_for("wiz")]
    missing = refused_recording_nothing(g, lambda: g.make_post("sov", "thr-zzz", "hi", post_id="p2"), NotFound)
    hidden = refused_recording_nothing(g, lambda: g.make_post("sov", "thr-a", "hi", post_id="p2"), NotFound)
    # an outsider cannot tell a private thread from one that does not exist
    assert missing.message.replace("thr-zzz", "X") == hidden.message.replace("thr-a", "X")
    assert missing.field == hidden.field == "thread_id"


def test_every_seat_has_a_desk_thread_with_the_gm(g):
    g.make_post("sov", "desk-sov", "A word, GM?", post_id="p1")
    (e,) = g.collect_events()
    assert e.audience == ["power:sov"]  # and the GM, who sees every audience
    assert "desk-sov" not in [x["id"] for x in g.threads_for("wiz")]
    refused_recording_nothing(g, lambda: g.make_post("wiz", "desk-sov", "me too", post_id="p2"), NotFound)
    g.make_post("gm", "desk-sov", "Yes?", post_id="p3")


def test_a_thread_with_an_unknown_seat_or_with_nobody_else_is_refused(g):
    err = refused_recording_nothing(g, lambda: g.open_thread("wiz", ["nobody"], "", "thr-a"), NotFound)
    assert err.field == "seats"
    err = refused_recording_nothing(g, lambda: g.open_thread("wiz", ["wiz"], "", "thr-a"), RuleViolation)
    assert err.field == "seats"


@pytest.mark.parametrize("text", ["", "   \n  ", "x" * (POST_TEXT + 1), "y" * 1_000_000, None, 42])
def test_empty_too_long_and_non_text_posts_are_refused_naming_the_text(g, text):
    err = refused_recording_nothing(g, lambda: g.make_post("wiz", "table", text, post_id="p1"), RuleViolation)
    assert err.field == "text"


def test_a_post_of_the_stated_limit_is_taken(g):
    g.make_post("wiz", "table", "z" * POST_TEXT, post_id="p1")
    assert len(g.collect_events()) == 1


def test_only_the_gm_narrates_and_an_unknown_tie_is_refused(g):
    err = refused_recording_nothing(g, lambda: g.make_post("wiz", "narration", "I narrate", post_id="p1"), Forbidden)
    assert err.field == "thread_id"
    err = refused_recording_nothing(
        g, lambda: g.make_post("wiz", "table", "x", post_id="p1", tied_to="spell:1"), RuleViolation
    )
    assert err.field == "tied_to"
    g.narrate("The rains come.", post_id="p2", tied_to="phase:s1m1-planning")
    (e,) = g.collect_events()
    assert e.thread_id == "narration" and e.tied_to == "phase:s1m1-planning" and e.audience == [vis.PUBLIC]


def test_inline_dice_roll_through_the_committed_seed_and_verify_under_its_root():
    g = game_in_planning(*POWERS)
    (committed,) = [e for e in g.collect_events() if type(e).__name__ == "SeedCommitted"][-1:]
    first = committed.first_roll  # no roll yet this month: the first post's roll is the seed's first
    g.make_post(
        "wiz", "table", "I try the lock [roll 3d6] and then [roll 1d20]", post_id="p1", roller=SeededRoller(SEED)
    )
    (e,) = g.collect_events()
    assert [r["dice"] for r in e.rolls] == ["3d6", "1d20"]
    assert [r["roll_no"] for r in e.rolls] == [first, first + 1]
    header = seen(g, "wiz")["game"]
    assert header["seed_commitment"] == committed.commitment and header["seed_root"] == committed.root
    for r in e.rolls:
        assert r["commitment"] == committed.commitment
        assert (
            verify_roll(committed.root, committed.first_roll, r["roll_no"], r["key"], r["path"], r["faces"], r["sides"])
            is None
        )
    assert all(1 <= f <= 20 for f in e.rolls[1]["faces"]) and len(e.rolls[0]["faces"]) == 3
    g.make_post("circ", "table", "[roll 1d6]", post_id="p2", roller=SeededRoller(SEED))
    (later,) = g.collect_events()
    assert [r["roll_no"] for r in later.rolls] == [first + 2]  # the next roll follows on


def test_dice_outside_play_and_absurd_dice_are_refused():
    game = Game.start("No seed", "GM")
    game.add_power("wiz", "Wiz", "champion", "wizard")
    game.collect_events()
    err = refused_recording_nothing(game, lambda: game.make_post("wiz", "table", "[roll 2d6]", post_id="p1"))
    assert err.field == "text"
    g = game_in_planning(*POWERS)
    g.collect_events()
    err = refused_recording_nothing(g, lambda: g.make_post("wiz", "table", "[roll 900d6]", post_id="p1"))
    assert err.field == "text"


def test_an_edit_is_a_new_event_by_the_author_only_and_rolls_nothing(g):
    g.make_post("wiz", "table", "first words", post_id="p1")
    g.collect_events()
    refused_recording_nothing(g, lambda: g.edit_post("circ", "p1", "forged"), Forbidden)
    refused_recording_nothing(g, lambda: g.edit_post("wiz", "p1", "now [roll 1d6]"), RuleViolation)
    refused_recording_nothing(g, lambda: g.edit_post("wiz", "nope", "x"), NotFound)
    g.edit_post("wiz", "p1", "better words")
    (e,) = g.collect_events()
    assert type(e).__name__ == "PostEdited" and e.text == "better words" and e.audience == [vis.PUBLIC]


def test_the_gm_hides_a_post_with_a_reason_and_a_player_may_not(g):
    g.open_thread("wiz", ["circ"], "", "thr-a")
    g.make_post("wiz", "thr-a", "rude words", post_id="p1")
    g.collect_events()
    refused_recording_nothing(g, lambda: g.hide_post("circ", "p1", "I dislike it"), Forbidden)
    refused_recording_nothing(g, lambda: g.hide_post("gm", "p1", ""), RuleViolation)
    g.hide_post("gm", "p1", "table manners")
    (e,) = g.collect_events()
    assert (
        type(e).__name__ == "PostHidden" and e.reason == "table manners" and e.audience == ["power:circ", "power:wiz"]
    )
    assert g.talk["posts"]["p1"]["hidden"] is True


def test_posts_replay_from_the_events_and_survive_a_rollback_of_the_state(g):
    game = game_in_planning(*POWERS)
    game.open_thread("wiz", ["circ"], "", "thr-a")
    game.make_post("circ", "thr-a", "hello", post_id="p1", roller=SeededRoller(SEED))
    events = game.collect_events()
    replayed = fold(None, events)
    # a replay is compared whole: the state rebuilt from the events is the one the commands left
    assert replayed.talk == game.talk and replayed.state == game.state


def test_tidings_are_a_narration_post_when_a_season_begins():
    game = Game.start("Tidings", "GM")
    game.add_power("wiz", "Wiz", "champion", "wizard")
    game.collect_events()
    with pytest.raises(RuleViolation):
        game.advance(NOW, SEED, tidings="x" * (POST_TEXT + 1), post_id="p1")
    assert game.collect_events() == []
    game.advance(NOW, SEED, tidings="Winter has come to the valley.", post_id="p1")
    made = [e for e in game.collect_events() if type(e).__name__ == "PostMade"]
    assert len(made) == 1 and made[0].thread_id == "narration" and made[0].tied_to == "phase:s1-tidings"
    assert made[0].text == "Winter has come to the valley." and made[0].actor == "gm"


# ---------------------------------------------------------------------- no GM: the covenant game


def _post_ids(games: Games, game_id: str, viewer: str) -> str:
    return str(games.visible_events(game_id, viewer))


def test_without_a_gm_the_host_reads_no_private_thread_it_is_not_in():
    games = Games()
    t = seat_three(games)  # ann holds the host role; "gm" is the auditor
    r = games.run(Caller.of("bob"), t.game_id, OpenThread(["cy"], "bob and cy"))
    thread = r.result["thread_id"]
    games.run(Caller.of("cy"), t.game_id, MakePost(thread, "BOB-CY-SECRET"))
    assert "BOB-CY-SECRET" not in _post_ids(games, t.game_id, "ann")
    assert "BOB-CY-SECRET" in _post_ids(games, t.game_id, "gm")  # the auditor sees the whole audit
    with pytest.raises(NotFound):
        games.run(Caller.of("ann"), t.game_id, MakePost(thread, "let me in"))
    # a seat's desk thread goes to the host, who rules; the auditor only reads
    games.run(Caller.of("bob"), t.game_id, MakePost("desk-bob", "BOB-ASKS-THE-HOST"))
    assert "BOB-ASKS-THE-HOST" in _post_ids(games, t.game_id, "ann")
    assert "BOB-ASKS-THE-HOST" not in _post_ids(games, t.game_id, "cy")
    with pytest.raises(Forbidden):
        games.run(Caller.of("gm"), t.game_id, MakePost("table", "the auditor speaks"))
    # the host moderates
    posted = games.run(Caller.of("cy"), t.game_id, MakePost("table", "spam"))
    with pytest.raises(Forbidden):
        games.run(Caller.of("bob"), t.game_id, HidePost(posted.result["post_id"], "no"))
    games.run(Caller.of("ann"), t.game_id, HidePost(posted.result["post_id"], "spam"))
    with pytest.raises(Forbidden):
        games.run(Caller.of("bob"), t.game_id, EditPost(posted.result["post_id"], "I rewrite cy"))


def test_without_a_gm_a_game_option_lets_the_host_read_private_threads():
    games = Games()
    t = seat_three(games, options={"host_reads_private_threads": True})
    r = games.run(Caller.of("bob"), t.game_id, OpenThread(["cy"], ""))
    games.run(Caller.of("cy"), t.game_id, MakePost(r.result["thread_id"], "BOB-CY-SECRET"))
    assert "BOB-CY-SECRET" in _post_ids(games, t.game_id, "ann")


def test_an_unknown_game_option_is_still_refused():
    with pytest.raises(RuleViolation):
        seat_three(Games(), options={"host_reads_everything": True})


def test_a_posts_dice_verify_in_each_readers_export_and_a_changed_face_is_caught():
    """[roll 2d6] in a post is checked by the verifier from the key and path its readers hold (P-DICE-2)."""
    from application.service import Games
    from domain.platform.verify import verify_export

    games = Games()
    gid, _, _ = games.create_game("Dice talk")
    a = add_power(games, gid, "gm", "Ann", "champion", "wizard")[0]
    b = add_power(games, gid, "gm", "Bob", "conspiracy", "circle")[0]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    thread = games.run(Caller.of(a), gid, OpenThread([b], "")).result["thread_id"]
    games.run(Caller.of(b), gid, MakePost(thread, "Odds? [roll 2d6] [roll 1d20]"))
    games.run(Caller.of(a), gid, MakePost("table", "And mine [roll 3d6]"))
    for viewer in ("gm", a, b):
        events = games.visible_events(gid, viewer, limit=10_000)
        assert any(e["type"] == "PostMade" and e["data"]["rolls"] for e in events)
        report = verify_export(events)
        assert report.ok, (viewer, report.mismatches)
    events = games.visible_events(gid, b, limit=10_000)
    made = next(e for e in events if e["type"] == "PostMade" and e["data"]["thread_id"] == thread)
    made["data"]["rolls"][0]["faces"][0] = made["data"]["rolls"][0]["faces"][0] % 6 + 1
    assert not verify_export(events).ok


def test_a_covenant_posts_dice_verify_and_a_changed_face_is_caught():
    """The covenant game's verifier checks a post's dice too (A.4's committed season seed)."""
    from domain.covenants.verify import verify_covenant_events

    games = Games()
    t = seat_three(games)
    games.run(Caller.of("bob"), t.game_id, MakePost("table", "The omens [roll 3d10]"))
    events = games.visible_events(t.game_id, "cy", limit=10_000)
    before = verify_covenant_events(events)
    assert before.ok and before.rolls_verified >= 1
    made = next(e for e in events if e["type"] == "PostMade")
    made["data"]["rolls"][0]["faces"][0] = made["data"]["rolls"][0]["faces"][0] % 10 + 1
    report = verify_covenant_events(events)
    assert not report.ok and report.rolls_verified == before.rolls_verified - 1


# ---------------------------------------------------------------------- mentions (issue 28)


def test_a_post_records_the_seats_it_mentions_by_name_or_id_among_its_threads_readers(g):
    """``@name`` or ``@id``, in any case, names a seat; a longer word, an address or the author itself names nobody."""
    g.make_post("wiz", "table", "@Circ and @SOV, hear me. Not x@circ nor @circle; @wiz is me.", post_id="p1")
    (e,) = g.collect_events()
    assert e.mentions == ["circ", "sov"]
    assert g.talk["posts"]["p1"]["mentions"] == ["circ", "sov"]


def test_a_mention_of_a_seat_that_cannot_read_the_private_thread_names_nobody(g):
    """The seat outside the thread is not recorded: nothing the event carries tells of it, and nobody is told."""
    g.open_thread("wiz", ["circ"], "Our pact", "thr-a")
    g.collect_events()
    g.make_post("wiz", "thr-a", "Shall we tell @sov? And @circ, you decide.", post_id="p1")
    (e,) = g.collect_events()
    assert e.mentions == ["circ"] and e.audience == ["power:circ", "power:wiz"]


def test_a_stored_post_of_version_2_reads_as_mentioning_nobody():
    stored = {"post_id": "p1", "thread_id": "table", "text": "@circ", "tied_to": None, "rolls": [], "actor": "wiz"}
    stored |= {"audience": ["public"], "reply_to": None}
    Game.PostMade.upcast_v2_v3(stored)
    assert stored["mentions"] == []


def test_preferences_stored_before_mentions_keep_what_the_seat_turned_off():
    """Version 1 had no ``mention``: a mention came as its post (``post`` or ``private``), so the stricter of those
    two choices becomes the mention's, and a seat that chose nothing keeps getting mentions at once."""
    stored = {"mail": {"post": "digest", "private": "off"}, "push": {"post": "digest"}, "seat": "wiz"}
    Game.NotificationsSet.upcast_v1_v2(stored)
    assert stored["mail"]["mention"] == "off" and stored["push"]["mention"] == "digest"
    untouched = {"mail": {"results": "off"}, "push": {}, "seat": "wiz"}
    Game.NotificationsSet.upcast_v1_v2(untouched)
    assert "mention" not in untouched["mail"] and "mention" not in untouched["push"]


def test_a_reply_does_not_mention_again_whom_the_post_it_quotes_named(g):
    g.make_post("wiz", "table", "Hear me, @circ", post_id="p1")
    g.make_post("sov", "table", "> Hear me, @circ\n\nAnd you, @wiz.", post_id="p2", reply_to="p1")
    assert [e.mentions for e in g.collect_events()] == [["circ"], ["wiz"]]


def test_an_edit_mentions_whom_its_new_words_name(g):
    """Whom a post mentions follows its text: an edit that drops a name drops the mention (its page no longer says
    "mentions you"), one that adds a reader's name mentions it."""
    g.make_post("wiz", "table", "@Circ, you lied", post_id="p1")
    g.edit_post("wiz", "p1", "never mind; @sov, a word")
    assert g.talk["posts"]["p1"]["mentions"] == ["sov"]


@pytest.mark.parametrize("read_models", [False, True], ids=["store", "read-models"])
def test_an_edited_posts_earlier_mentions_are_not_shown_with_its_new_text(read_models):
    """A review found it: with the earlier text not shown, a reader's timeline showed the edited text beside the
    earlier text's mentions (``mentions: ["bob"]`` beside "never mind"), telling what the hidden words said. The
    earlier text's mentions go with it, on the store's path and the read models' alike."""
    from projections.db import ReadModelDB
    from projections.projector import Projector
    from projections.settings import Settings

    games = Games()
    t = seat_three(games)
    posted = games.run(Caller.of("ann"), t.game_id, MakePost("table", "@bob you lied"))
    games.run(Caller.of("ann"), t.game_id, EditPost(posted.result["post_id"], "never mind"))
    if read_models:
        projector = Projector(games, ReadModelDB(Settings(database_url="memory")))
        while projector.catch_up():
            pass
        timeline = projector.timeline(t.game_id, "cy", 0, 100_000)
    else:
        timeline = games.visible_events(t.game_id, "cy", limit=100_000)
    made = [e["data"] for e in timeline if e["type"] == "PostMade" and e["data"].get("text") == "never mind"]
    assert made and all(d["mentions"] == [] for d in made), made
    assert "you lied" not in str(timeline)
    games.close()
