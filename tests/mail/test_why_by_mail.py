"""Asking why by mail (issue 29 item 1): a reader mailed no result (its notifications off, or a result no mail
reported) mails ``why`` and is answered with each result explained, in every registered ruleset and the fake one:
``why`` alone (the newest results of its feed), ``why <N>`` (the result event N of its feed published) and
``why <result id>``. Each answer is built from the reader's own events: it shows each result as the reader's own
derivation does and nothing else, a result the reader was not shown is refused in the words of one that does not
exist, and nothing is recorded. The mail's answer is in its reader's language."""

from __future__ import annotations

import pytest

from api import mail_why
from api.mail_intake import MailIntake
from application import why
from domain.platform import explain
from domain.platform import ruleset as registry
from tests.contract.drivers import DRIVERS
from tests.mail.test_why_mail import EXPLAIN_LINK, leaked, own
from tests.scenarios import play_rich_month

BASE = "https://emissary.example"


def stored(games, game_id: str) -> int:
    return len(list(games.iter_events(game_id)))


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_every_reader_asks_why_by_mail_and_is_shown_its_own_derivations_alone(app, games, projector, name):
    ruleset = registry.get(name)
    played = DRIVERS[name].play(games)
    projector.catch_up()
    key = str(games.get_game(played.game_id).id)
    gm = own(games, played.game_id, ruleset, "gm")
    before = stored(games, played.game_id)
    asked = 0
    for viewer in played.viewers:
        mine = {k: d for k, d in own(games, played.game_id, ruleset, viewer).items() if not explain.recomputes(d)}
        ok, body = mail_why.reply(games, played.game_id, viewer, "Hi,\nwhy\n", BASE)
        assert ok == bool(mine), (name, viewer, body)
        assert leaked(body, mine, BASE, key) == [], (name, viewer)
        newest = sorted(mine.values(), key=lambda d: d["source"]["seq"])[-mail_why.NEWEST :]
        assert [rid for rid in EXPLAIN_LINK.findall(body)] == [
            rid for d in newest for rid in EXPLAIN_LINK.findall("\n".join(why.block(d, BASE, key)))
        ], (name, viewer)
        for result_id, d in mine.items():
            ok, body = mail_why.reply(games, played.game_id, viewer, f"why {result_id}", BASE)
            assert ok and "\n".join(why.block(d, BASE, key)) in body, (name, viewer, result_id)
            ok, by_number = mail_why.reply(games, played.game_id, viewer, f"why {d['source']['seq']}", BASE)
            assert ok and "\n".join(why.block(d, BASE, key)) in by_number, (name, viewer, result_id)
            asked += 1
        for hidden in sorted(set(gm) - set(own(games, played.game_id, ruleset, viewer)))[:5]:
            ok, refused = mail_why.reply(games, played.game_id, viewer, f"why {hidden}", BASE)
            _, missing = mail_why.reply(games, played.game_id, viewer, "why action:nope", BASE)
            assert not ok and refused.replace(hidden, "X") == missing.replace("action:nope", "X"), (name, viewer)
    assert asked > 0, f"{name}: no result to ask about"
    assert stored(games, played.game_id) == before  # asking records nothing


def test_a_power_mailed_no_result_asks_why_of_its_duel_and_a_rival_is_refused_it():
    """P.4: Wiz's private duel is Wiz's and the GM's to see in full; Wiz mails ``why`` for it (no mail told it of the
    resolution: a plain service mails nothing) and gets its dice and roll numbers, each step with its rule; Circ, who
    was not shown it, asking for it by its id, is answered as for one that does not exist."""
    from application.service import Games

    games = Games()
    try:
        m = play_rich_month(games)
        intake = MailIntake(games, public_url=BASE)
        duel = f"action:{m.actions['duel']}"
        wiz = intake.address_for(m.game_id, m.tokens[m.powers["wiz"]])
        answer = intake.receive(wiz, "<w1@x>", f"Hi GM,\nwhy {duel}\n-- \nWiz")
        assert answer.accepted and answer.subject.startswith("Explained"), answer.body
        mine = explain.derivations(
            games.read(m.game_id, lambda g: g.ruleset), games.visible_events(m.game_id, m.powers["wiz"], limit=10**6)
        )
        assert "roll number" in answer.body and "(P-DICE-4)" in answer.body
        assert "\n".join(why.block(mine[duel], BASE, str(m.game_id))) in answer.body
        circ = intake.address_for(m.game_id, m.tokens[m.powers["circ"]])
        refused = intake.receive(circ, "<c1@x>", f"why {duel}")
        missing = intake.receive(circ, "<c2@x>", "why action:nope")
        assert not refused.accepted and refused.subject.startswith("Not explained")
        assert refused.body.replace(duel, "X") == missing.body.replace("action:nope", "X")
        mixed = intake.receive(wiz, "<w2@x>", "why\nready")
        assert not mixed.accepted and "'why' lines stand alone in their mail" in mixed.body
    finally:
        games.close()


def test_a_why_mail_is_answered_in_its_readers_language():
    from application.service import Caller, Games
    from domain.platform.commands import SetLanguage

    games = Games()
    try:
        m = play_rich_month(games)
        wiz = m.powers["wiz"]
        games.run(Caller.of(wiz), m.game_id, SetLanguage(wiz, "de"))
        intake = MailIntake(games, public_url=BASE)
        answer = intake.receive(intake.address_for(m.game_id, m.tokens[wiz]), "<w3@x>", "why")
        assert answer.accepted and "Warum: wie jedes Ergebnis zustande kam" in answer.body, answer.body
        assert "Why: how each result came about" not in answer.body
    finally:
        games.close()


def test_p_dice_4_why_by_mail_explains_an_action_as_an_adoption_from_an_earlier_phase_amended_it():
    """The month resolves by the printed rule, then the GM adopts ``powers-house`` (an action needs one success more)
    from setup: a power's action the adoption amended is explained by mail as re-decided under the house version
    (P-DICE-4), with the amended result, as the power's own derivation has it; the old code mailed the result as first
    decided, which the board no longer shows."""
    from application import replay as replays
    from application.service import Caller, Games
    from tests.domain import rules_variants as variants
    from tests.domain.replay_helpers import recorded

    with variants.installed(variants.POWERS_HOUSE):
        games = Games()
        try:
            m = play_rich_month(games)
            resolved = recorded(games, m.game_id, "ActionResolved")
            replays.adopt(games, Caller.of("gm"), m.game_id, "powers-house", "setup")
            intake = MailIntake(games, public_url=BASE)
            ruleset = games.read(m.game_id, lambda g: g.ruleset)
            asked = 0
            for power in m.powers.values():
                mine = explain.derivations(ruleset, games.visible_events(m.game_id, power, limit=10**6))
                for e in resolved:
                    d = mine.get(f"action:{e.action_id}")
                    if d is None or (e.success, e.excess) == variants.harder(e.net, e.difficulty):
                        continue
                    address = intake.address_for(m.game_id, m.tokens[power])
                    answer = intake.receive(address, f"<why-{power}-{e.action_id}@x>", f"why action:{e.action_id}")
                    assert answer.accepted, answer.body
                    assert "re-decided under powers-house from setup, when the game adopted it" in answer.body
                    assert "\n".join(why.block(d, BASE, str(m.game_id))) in answer.body
                    assert d["result"]["published"]["success"] == variants.harder(e.net, e.difficulty)[0]
                    asked += 1
            assert asked > 0, "no power was shown an action the adoption amended"
        finally:
            games.close()


def test_a_reck_3_why_by_mail_explains_a_reckoning_as_an_adoption_from_an_earlier_phase_amended_it():
    """A year reckoned by the printed A-RECK-3 (8 points for 9 provision), then ``covenants-house`` (a point per 3)
    adopted by the host from setup: the board shows 9 points; each covenant's ``why`` of the Reckoning says it was
    re-decided under the house version (A-RECK-3) and divides by 3, as its own derivation does."""
    from tests.domain.test_explain_redecided import a_year_reckoned_then_a_house_rule_adopted

    with a_year_reckoned_then_a_house_rule_adopted() as (t, reckoning):
        result_id = f"reckoning:{reckoning.terms['year']}"
        ruleset = t.games.read(t.game_id, lambda g: g.ruleset)
        for seat in t.seats:
            mine = explain.derivations(ruleset, t.games.visible_events(t.game_id, seat, limit=10**6))[result_id]
            assert mine["result"]["published"]["points:ann"] == 9
            ok, body = mail_why.reply(t.games, t.game_id, seat, f"why {result_id}", BASE)
            assert ok, body
            assert "re-decided under covenants-house from setup, when the game adopted it" in body, seat
            assert "(A-RECK-3)" in body
            assert "\n".join(why.block(mine, BASE, str(t.game_id))) in body, seat


@pytest.mark.parametrize("what", ["²", "١٢", "99999999999999999999", "9223372036854775808"])
def test_a_why_of_a_number_no_feed_has_is_refused_as_a_missing_result_not_a_crash(app, games, projector, what):
    """A number in digits of another script, or past SQLite's integers, names no event of any feed: it is refused in
    the words of a missing result (a reply the sender reads), never an exception that has the mail server retry."""
    played = DRIVERS["powers"].play(games)
    projector.catch_up()
    viewer = played.viewers[0]
    before = stored(games, played.game_id)
    ok, body = mail_why.reply(games, played.game_id, viewer, f"why {what}", BASE)
    assert not ok and f"no result published by event {what} of your feed" in body, body
    assert stored(games, played.game_id) == before


def test_a_why_line_may_end_in_a_question_mark_and_is_refused_in_its_readers_language():
    from application.service import Caller, Games
    from domain.platform.commands import SetLanguage

    games = Games()
    try:
        m = play_rich_month(games)
        wiz = m.powers["wiz"]
        duel = f"action:{m.actions['duel']}"
        asked = mail_why.reply(games, m.game_id, wiz, f"why {duel}?", BASE)
        plain = mail_why.reply(games, m.game_id, wiz, f"why {duel}", BASE)
        assert asked[0] and asked == plain  # "why action:a-1?" asks for action:a-1, as the line means
        games.run(Caller.of(wiz), m.game_id, SetLanguage(wiz, "de"))
        intake = MailIntake(games, public_url=BASE)
        address = intake.address_for(m.game_id, m.tokens[wiz])
        for line, english in (("why 99999", "no result published by event"), ("why action:nope", "no result 'action")):
            answer = intake.receive(address, f"<{line}@x>", line)
            assert not answer.accepted and english not in answer.body and "kein" in answer.body.lower(), answer.body
    finally:
        games.close()
