"""Issue 12: every Powers command a player issues works by mail too. One line each for wallets, trades,
favors, insights, development, ambitions and magic; each is recorded through the same handlers as the API's,
and each refusal names its rule and records nothing."""

from __future__ import annotations

import itertools

from api.mail_intake import MailIntake, MailReply
from application.service import Caller, Games
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import magic as m
from domain.powers.mail import parse_turn
from tests.domain.helpers import ambition_of, question_of, seen, sheet_of, trade_of
from tests.helpers import add_power

_ids = itertools.count()


def _mail(games: Games, gid: str, token: str, body: str) -> MailReply:
    intake = MailIntake(games)
    return intake.receive(intake.address_for(gid, token), f"<feature-{next(_ids)}@x>", body, subject="turn")


def _refused(games: Games, gid: str, token: str, body: str, rule: str | None, line: int = 1) -> str:
    """The mail is refused naming ``rule`` on ``line`` (its only error), and nothing at all is recorded."""
    before = games.get_game(gid).version
    reply = _mail(games, gid, token, body)
    assert not reply.accepted, reply.body
    assert games.get_game(gid).version == before
    errors = [x for x in reply.body.splitlines() if x.startswith("line ")]
    assert (
        len(errors) == 1 and errors[0].startswith(f"line {line}:") and errors[0].endswith(f"({rule})" if rule else "")
    ), reply.body
    return reply.body


def _table(steps: int = 1) -> tuple[Games, str, dict[str, tuple[str, str]]]:
    """Gondor (a city) and the Rangers (a conspiracy), ``steps`` calendar steps on from setup."""
    games = Games()
    gid, gm_token, _ = games.create_game("By mail", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "gondor": add_power(games, gid, "gm", "Gondor", "city", "sovereign")[:2],
        "rangers": add_power(games, gid, "gm", "Rangers", "conspiracy", "circle")[:2],
    }
    for _ in range(steps):
        games.send(gid, "gm", pc.Advance())
    return games, gid, seats


def _wallet(games: Games, gid: str, pid: str) -> dict:
    return games.view(gid, pid)["development"]["mine"]["wallet"]


def _give(games: Games, gid: str, pid: str, **changes: int) -> None:
    games.run(Caller.of("gm"), gid, dev.AdjustResources(pid, changes, "for the test"))


def test_control_is_chosen_by_mail_once():
    games, gid, seats = _table()
    pid, token = seats["gondor"]
    reply = _mail(games, gid, token, "control respect")
    assert reply.accepted and "You exert control with respect." in reply.body
    assert _wallet(games, gid, pid)["respect"] == 3
    _refused(games, gid, token, "control fear", "P-ASSET-10")  # the choice is made once


def test_spend_by_mail_debits_the_wallet_with_its_reason():
    games, gid, seats = _table()
    pid, token = seats["gondor"]
    _give(games, gid, pid, coin=5)
    reply = _mail(games, gid, token, "spend 2 coin for a bribe at the gate")
    assert reply.accepted and "Spent 2 coin: a bribe at the gate." in reply.body
    assert _wallet(games, gid, pid)["coin"] == 3
    _refused(games, gid, token, "spend 4 coin for the walls", "P-ASSET-10")  # 3 left
    _refused(games, gid, token, "spend 1 favor for luck", "P-ASSET-11")  # a favor has its own uses


def test_a_trade_is_offered_and_accepted_by_mail():
    games, gid, seats = _table()
    (gondor, g_token), (rangers, r_token) = seats["gondor"], seats["rangers"]
    _give(games, gid, gondor, coin=5)
    _give(games, gid, rangers, favor=1)
    reply = _mail(games, gid, g_token, "trade offer Rangers give 2 coin for 1 favor note for the map")
    assert reply.accepted and "you give 2 coin, for 1 favor." in reply.body, reply.body
    trade = reply.body.split("Offered trade ")[1].split()[0]
    assert trade_of(games.get_game(gid), trade)["note"] == "for the map"
    assert _wallet(games, gid, gondor)["coin"] == 5  # nothing moves before the other side accepts
    reply = _mail(games, gid, r_token, f"trade accept {trade}")
    assert reply.accepted and f"Accepted trade {trade}." in reply.body
    assert (_wallet(games, gid, gondor)["coin"], _wallet(games, gid, gondor)["favor"]) == (3, 1)
    assert (_wallet(games, gid, rangers)["coin"], _wallet(games, gid, rangers)["favor"]) == (2, 0)


def test_a_trade_of_respect_is_refused_by_mail_and_an_offer_is_withdrawn_or_declined():
    games, gid, seats = _table()
    (gondor, g_token), (_, r_token) = seats["gondor"], seats["rangers"]
    _give(games, gid, gondor, coin=5)
    _refused(games, gid, g_token, "trade offer Rangers give 1 respect", "P-ASSET-10")
    first = _mail(games, gid, g_token, "trade offer Rangers give 1 coin").body.split("Offered trade ")[1].split()[0]
    second = _mail(games, gid, g_token, "trade offer Rangers for 1 coin").body.split("Offered trade ")[1].split()[0]
    assert f"Withdrew trade {first}." in _mail(games, gid, g_token, f"trade withdraw {first}").body
    assert f"Declined trade {second}." in _mail(games, gid, r_token, f"trade decline {second}").body
    game = games.get_game(gid)
    assert (trade_of(game, first)["status"], trade_of(game, second)["status"]) == ("withdrawn", "declined")


def test_a_favor_and_an_insight_are_spent_by_mail():
    games, gid, seats = _table()
    pid, token = seats["gondor"]
    _give(games, gid, pid, favor=2, insight=1)
    games.run(Caller.of("gm"), gid, m.GrantMagicPerk(pid, "excellent_personal_magic"))  # stores 3 Light (P-MAG-1)
    reply = _mail(
        games, gid, token, "favor mana Light\nfavor miracle Rain on the burning fields\ninsight Who holds it?"
    )
    assert reply.accepted, reply.body
    assert "Spent a favor on Light mana." in reply.body and "Spent a favor on a miracle: request" in reply.body
    assert "Spent an insight: question" in reply.body
    sheets = seen(games.get_game(gid))["development"]["sheets"].values()
    assert sorted((q["kind"], q["text"]) for s in sheets for q in s["questions"]) == [
        ("insight", "Who holds it?"),
        ("miracle", "Rain on the burning fields"),
    ]
    assert sheet_of(games.get_game(gid), pid)["mana"] == {"L": 3}
    _refused(games, gid, token, "favor wish a crown", "P-ASSET-11")
    _refused(games, gid, token, "insight Is it still there?", "P-ASSET-11")  # none left


def test_development_is_bought_by_mail_during_tidings():
    games, gid, seats = _table()
    pid, token = seats["gondor"]
    _refused(games, gid, token, "buy skill lore", "P-DEV-2")  # no fame yet
    games.run(Caller.of("gm"), gid, dev.AwardFame(pid, 2, "the song"))
    reply = _mail(games, gid, token, "buy skill lore")
    assert reply.accepted and "Bought skill lore for 2 fame." in reply.body
    assert [a["name"] for a in sheet_of(games.get_game(gid), pid)["assets"]] == ["lore"]
    _refused(games, gid, token, "buy trinket lore", "P-DEV-1")


def test_an_offered_ambition_is_accepted_or_declined_by_mail():
    games, gid, seats = _table()
    pid, token = seats["gondor"]
    tasks = [{"text": "Win at the ford", "central": True}]
    offered = [
        games.run(Caller.of("gm"), gid, dev.OfferAmbition(pid, name, "minor", 6, 1, tasks)).result["ambition_id"]
        for name in ("Hold the Ford", "Take the Tower")
    ]
    reply = _mail(games, gid, token, f"ambition accept {offered[0]}\nambition decline {offered[1]}")
    assert reply.accepted and f"Accepted ambition {offered[0]}." in reply.body
    game = games.get_game(gid)
    assert (ambition_of(game, offered[0])["status"], ambition_of(game, offered[1])["status"]) == ("active", "declined")
    _refused(games, gid, token, f"ambition accept {offered[1]}", "P-AMBI-1")
    assert "Abandoned" in _mail(games, gid, token, f"ambition abandon {offered[0]}").body
    assert ambition_of(games.get_game(gid), offered[0])["status"] == "abandoned"


def _mages() -> tuple[Games, str, dict[str, tuple[str, str]], str]:
    """A Wizard who knows Fireball, with FFF W mana and one conduit, in Planning; and the Circle."""
    games = Games()
    gid, gm_token, _ = games.create_game("Magic by mail", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "wizard": add_power(games, gid, "gm", "Wizard", "champion", "wizard")[:2],
        "circle": add_power(games, gid, "gm", "Circle", "conspiracy", "circle")[:2],
    }
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    wiz, cir = seats["wizard"][0], seats["circle"][0]
    gm = Caller.of("gm")
    games.run(gm, gid, m.GrantMana(wiz, "F", 3))
    games.run(gm, gid, m.GrantMana(wiz, "W", 1))
    games.run(gm, gid, m.GrantMana(cir, "F", 2))
    games.run(gm, gid, m.TeachSpell(wiz, "fireball"))
    conduit = games.run(gm, gid, m.SetConduit(wiz, "the wizard", "0,0")).result["conduit_id"]
    return games, gid, seats, conduit


def test_a_spell_is_cast_by_mail_in_an_action_of_the_same_mail():
    games, gid, seats, conduit = _mages()
    wiz, token = seats["wizard"]
    reply = _mail(games, gid, token, "action: Burn the granary\n  propose: yes\ncast Fireball in #1 pay FFFW")
    assert reply.accepted, reply.body
    assert "Cast Fireball at 0,0 (rank 2), paying 3 F, 1 W; mana left: nothing." in reply.body
    casts = games.view(gid, wiz)["magic"]["powers"][wiz]["casts_this_month"]
    assert [(c["spell_id"], c["through"]) for c in casts] == [("fireball", conduit)]  # its only conduit


def test_a_cast_is_refused_by_mail_naming_the_rule_and_records_nothing():
    games, gid, seats, _ = _mages()
    _, token = seats["wizard"]
    _refused(games, gid, token, "cast aarons-ritual through the wizard", "P-ASSET-8")  # not a known spell
    # the action of line 1 would have been recorded with it; it is not
    _refused(games, gid, token, "action: Burn\n  propose: yes\ncast fireball through the tower in #1", "P-MAG-5", 3)


def test_mana_is_contributed_to_another_powers_action_and_an_actions_cost_paid_by_mail():
    games, gid, seats, _ = _mages()
    (wiz, w_token), (cir, c_token) = seats["wizard"], seats["circle"]
    action = games.send(gid, wiz, pc.SubmitAction(wiz, title="Raise the storm", roll=False, collaborators=[cir]))
    action_id = action.result["action_id"]
    _refused(games, gid, w_token, f"contribute F to {action_id}", "P-DICE-11")  # not its own collaborator
    reply = _mail(games, gid, c_token, f"contribute F, F to {action_id}")
    assert reply.accepted and f"Put F, F into {action_id}; mana left: nothing." in reply.body
    _refused(games, gid, w_token, f"pay 5F for {action_id}", "P-MAG-1")  # too little mana
    reply = _mail(games, gid, w_token, f"pay FW for {action_id}")
    assert reply.accepted and f"Paid FW for {action_id}; mana left: 2 F." in reply.body, reply.body


def test_the_gm_does_not_play_a_powers_lines_by_mail():
    games, gid, seats = _table()
    before = games.get_game(gid).version
    reply = _mail(games, gid, seats["gm"][1], "control respect\ntrade offer Rangers give 1 coin")
    assert not reply.accepted and games.get_game(gid).version == before
    assert reply.body.count("the GM plays adversaries on the web or through the API") == 2


def test_a_line_that_does_not_fit_the_grammar_says_how_it_is_written():
    turn = parse_turn("trade swap everything\nspend 2 coin\nbuy\ncast\ncontribute F\npay AW\ncontrol\n")
    assert [(e.line, e.rule) for e in turn.errors] == [(n, "MAIL-1") for n in range(1, 8)]
    assert "usage: trade offer <power> give" in str(turn.errors[0])
    assert "usage: spend <n> <resource>" in str(turn.errors[1])
    assert (
        parse_turn("spend two coin for luck").errors[0].message
        == "the amount of coin must be a whole number, not 'two'"
    )


def test_the_feature_lines_read_their_fields():
    turn = parse_turn(
        "buy perk Sworn Enemy: Mordor\n"
        "cast Fireball through the wizard at 1,-1 in #2 pay F F, W\n"
        "trade offer Minas Tirith give 2 coin, 1 coin\n"
        "favor mana\n"
    )
    assert turn.errors == []
    assert [c.args for c in turn.commands] == [
        {"kind": "perk", "name": "Sworn Enemy", "detail": "Mordor"},
        {"spell": "Fireball", "through": "the wizard", "target": "1,-1", "action": "#2", "pay": ["F", "F", "W"]},
        {"how": "offer", "to": "Minas Tirith", "give": {"coin": 3}, "want": {}, "note": ""},
        {"use": "mana", "element": None, "request": "", "action": ""},
    ]


def test_the_gm_adjusts_wallets_and_awards_fame_by_mail():
    games, gid, seats = _table()
    gondor, gm = seats["gondor"][0], seats["gm"][1]
    reply = _mail(games, gid, gm, "adjust Gondor +5 coin, 2 favor for taxes\naward gondor 2 fame for the song")
    assert reply.accepted, reply.body
    assert "Gondor: +5 coin, +2 favor (taxes)." in reply.body and "Awarded Gondor 2 fame (the song)." in reply.body
    assert {k: v for k, v in _wallet(games, gid, gondor).items() if v} == {"coin": 5, "favor": 2, "fame": 2}
    _refused(games, gid, gm, "adjust Gondor -6 coin for a fine", "P-ASSET-10")  # a wallet never goes negative
    assert "fame must be positive" in _refused(games, gid, gm, "award Gondor -1 fame for spite", None)


def test_the_gm_answers_questions_and_rules_on_tasks_by_mail():
    games, gid, seats = _table()
    (pid, token), gm = seats["gondor"], seats["gm"][1]
    _give(games, gid, pid, insight=1)
    question = _mail(games, gid, token, "insight Where is it?").body.split("question ")[1].split(";")[0]
    tasks = [{"text": "Win at the ford", "central": True}, {"text": "Hold it", "central": False}]
    aid = games.run(Caller.of("gm"), gid, dev.OfferAmbition(pid, "Ford", "minor", 6, 1, tasks)).result["ambition_id"]
    _mail(games, gid, token, f"ambition accept {aid}")
    _refused(games, gid, gm, f"task done {aid} t1 fame 7", "P-AMBI-1")  # a share is 0 to 6
    body = f"answer {question} In the Shire.\ntask lost {aid} t2 the ford fell\ntask done {aid} t1"
    reply = _mail(games, gid, gm, body)
    assert reply.accepted, reply.body
    assert f"Answered {question}." in reply.body and f"Task t2 of {aid} is lost (the ford fell)." in reply.body
    game = games.get_game(gid)
    assert question_of(game, question)["answer"] == "In the Shire."
    assert [t["status"] for t in ambition_of(game, aid)["tasks"]] == ["done", "lost"]
    assert ambition_of(game, aid)["status"] == "achieved"


def test_the_gm_grants_mana_channels_and_teaches_by_mail():
    games, gid, seats, _ = _mages()
    wiz, gm = seats["wizard"][0], seats["gm"][1]
    action_id = games.send(gid, wiz, pc.SubmitAction(wiz, title="Raise the storm", roll=False)).result["action_id"]
    reply = _mail(games, gid, gm, f"mana Wizard 1 A\nchannel 2 E into {action_id}\nteach aarons-ritual to Wizard")
    assert reply.accepted, reply.body
    assert (
        "Granted Wizard 1 A: it holds 3 F, 1 W, 1 A." in reply.body and "Taught aarons-ritual to Wizard." in reply.body
    )
    assert sheet_of(games.get_game(gid), wiz)["mana"] == {"A": 1, "F": 3, "W": 1}
    assert "aarons-ritual" in [s["spell_id"] for s in games.view(gid, wiz)["magic"]["powers"][wiz]["known"]]
    _refused(games, gid, gm, "teach no-such-spell to Wizard", "GM-15")
    _refused(games, gid, gm, f"dispel cast-nothing with {action_id}", "P-RES-6")


def test_a_player_may_not_send_the_gms_lines():
    games, gid, seats = _table()
    before = games.get_game(gid).version
    reply = _mail(games, gid, seats["gondor"][1], "award Gondor 9 fame for me\nmana Gondor 3 F")
    assert not reply.accepted and games.get_game(gid).version == before
    assert "line 1: only the GM may award" in reply.body and "line 2: only the GM may mana" in reply.body


def test_a_nerfed_perk_is_refunded_by_mail():
    games, gid, seats = _table()
    pid, token = seats["gondor"]
    gm = Caller.of("gm")
    games.run(gm, gid, dev.AdjustResources(pid, {"fame": 9}, "start"))
    games.run(Caller.of(pid), gid, dev.ChooseControl(pid, "respect"))
    price = games.run(Caller.of(pid), gid, dev.BuyDevelopment(pid, "perk", "Savior")).result["price"]
    _refused(games, gid, token, "nerf keep Savior", "P-DEV-6")  # not nerfed yet
    games.run(gm, gid, dev.NerfPerk(pid, "Savior", reason="too strong"))
    fame = _wallet(games, gid, pid)["fame"]
    _refused(games, gid, token, "nerf swap Savior for", "MAIL-1")
    reply = _mail(games, gid, token, "nerf refund Savior")
    assert reply.accepted and "Refunded the nerfed Savior." in reply.body, reply.body
    assert _wallet(games, gid, pid)["fame"] == fame + price
    assert "Savior" not in [p["name"] for p in seen(games.get_game(gid))["development"]["perks"].get(pid, [])]
    assert parse_turn("nerf swap Sworn Enemy: Mordor for Savior").commands[0].args == {
        "choice": "swap",
        "name": "Sworn Enemy",
        "detail": "Mordor",
        "swap_to": "Savior",
        "swap_detail": "",
    }


def test_a_cast_or_payment_in_a_refused_action_of_the_mail_is_not_checked():
    """MAIL-1: ``#1`` still means the mail's first action when its line was refused; a cast or a payment in
    it needs that line, so it is listed as not checked rather than run against another action."""
    games, gid, seats, _ = _mages()
    wiz, token = seats["wizard"]
    games.send(gid, wiz, pc.SubmitAction(wiz, title="Earlier", roll=False))  # the month's first action is #1
    before = games.get_game(gid).version
    reply = _mail(games, gid, token, "action: Burn\n  targets: Nobody\ncast fireball in #2\npay FW for #2\n")
    assert not reply.accepted and games.get_game(gid).version == before
    assert [x for x in reply.body.splitlines() if x.startswith("line ")] == [
        "line 1: no power 'Nobody' in this game",
        "line 3: needs line 1",
        "line 4: needs line 1",
    ]
