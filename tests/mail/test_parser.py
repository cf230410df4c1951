"""The turn grammar: examples, and fuzzing that shows it never crashes and never records part of a turn."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.mail_intake import MailIntake
from application.service import CommandKey, Games
from domain.powers import commands as pc
from domain.powers.mail import MAX_DESCRIPTION, MAX_TITLE, parse_turn
from tests.helpers import add_power
from tests.mail import samples


def test_a_turn_with_an_action_block_quoted_reply_and_signature():
    turn = parse_turn("""Hello GM,
action: Duel the Balrog
  slot: private
  skill: might
  targets: Balrog
  resistible: yes
  difficulty: 1
  assets: might, blade assured
  convert: 2
resist act-12 with might convert 1
extension 12 travelling
waive
--
Gandalf the Grey
> action: Quoted, not mine
""")
    assert turn.errors == []
    assert [c.verb for c in turn.commands] == ["action", "resist", "extension", "waive"]
    action = turn.commands[0].args
    assert action["assets"] == [{"ref": "might", "mode": "normal"}, {"ref": "blade", "mode": "assured"}]
    assert action["targets"] == ["Balrog"] and action["resistible"] is True and action["convert"] == 2


def test_everything_after_on_wrote_is_quoted():
    turn = parse_turn("ready\n\nOn Mon, 30 Nov 2026 at 10:00, GM <gm@x> wrote:\n> action: old\nfrobnicate\n")
    assert [c.verb for c in turn.commands] == ["ready"] and turn.errors == []


def test_html_only_mail_is_read():
    turn = parse_turn(None, "<div>action: Raise the banners</div><div>&nbsp; slot: public</div><p>ready</p>")
    assert [c.verb for c in turn.commands] == ["action", "ready"]
    assert turn.commands[0].args["slot"] == "public"


def _scout(turn) -> None:
    assert turn.errors == []
    assert [c.verb for c in turn.commands] == ["action", "ready"]
    assert turn.commands[0].args["title"] == "Scout the pass" and turn.commands[0].args["slot"] == "private"


def test_mail_1_outlook_html_with_a_style_sheet_and_a_quoted_notice_is_read_as_written():
    """Outlook's <style> block and Office XML are markup, and the quoted notice below its
    From:/Sent: header block is not the sender's turn."""
    _scout(parse_turn(None, samples.OUTLOOK_HTML))
    assert parse_turn(None, samples.OUTLOOK_HTML).commands[0].args["description"] == "Riders at dawn."


def test_mail_1_gmail_html_quote_is_not_read_as_commands():
    _scout(parse_turn(None, samples.GMAIL_HTML))


def test_mail_1_outlook_original_message_and_header_block_quotes_are_not_read():
    _scout(parse_turn(samples.OUTLOOK_TEXT))
    _scout(parse_turn(samples.OUTLOOK_WEB_TEXT))


def test_mail_1_a_wrapped_gmail_on_wrote_line_starts_the_quote():
    _scout(parse_turn(samples.GMAIL_TEXT))


def test_mail_1_every_field_obeys_the_api_length_limit():
    turn = parse_turn(
        f"action: {'t' * (MAX_TITLE + 1)}\n  slot: public\n"
        f"action: Plot\n  description: {'d' * (MAX_DESCRIPTION + 1)}\n"
        f"action: Fine\n  description: {'d' * MAX_DESCRIPTION}\n"
        f"refuse ext-1 {'r' * 2001}\nresolve {'a' * 20001}\n"
    )
    assert [(e.line, e.message.split(" is at most")[0]) for e in turn.errors] == [
        (1, "title"),
        (4, "description"),
        (7, "reason"),
        (8, "announcement"),
    ]
    assert [c.broken for c in turn.commands] == [True, True, False]


def test_errors_name_the_line_and_the_rule():
    turn = parse_turn("action: Plot\n  slot: secret\nconvert #1 many\nfly away\n")
    assert [(e.line, e.rule) for e in turn.errors] == [(2, "P-ACT-1"), (3, "MAIL-1"), (4, "MAIL-1")]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=200)))
def test_the_parser_never_crashes(text, html):
    turn = parse_turn(text, html)
    assert all(e.line >= 1 for e in turn.errors)


lines = st.sampled_from(
    [
        "action: Plot",
        "  slot: private",
        "  slot: public",
        "  convert: 1",
        "  assets: might",
        "  assets: nothing",
        "  targets: B",
        "  resistible: yes",
        "convert #1 1",
        "convert #2 0",
        "discard #1",
        "ready",
        "waive",
        "extension 4 late",
        "timezone Europe/Paris",
        "  propose: yes",
        "roll #1 with might convert 1",
        "timezone Mars/Base",
        "resist act-x",
        "advance",
        "hello",
        "> quoted",
        "",
        "# a comment",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, max_size=12), st.integers(0, 10**6))
def test_a_mail_is_recorded_whole_or_not_at_all(body_lines, n):
    games = Games()
    gid, _, _ = games.create_game("Fuzz")
    pid, token, _ = add_power(games, gid, "gm", "A", "conspiracy", "cause")
    add_power(games, gid, "gm", "B", "city", "sovereign")
    games.send(gid, "gm", pc.GrantAsset(pid, "might", "skill", 2))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    intake = MailIntake(games)
    before = games.get_game(gid).version
    reply = intake.receive(intake.address_for(gid, token), f"<fuzz-{n}@x>", "\n".join(body_lines))
    after = games.get_game(gid).version
    kept = games.first_receipt(gid, pid, CommandKey(f"mail:<fuzz-{n}@x>"))  # the Message-ID, as its key
    if reply.accepted:
        assert kept is not None and kept.result["reply"] == reply.body
    else:
        assert after == before and kept is None, reply.body  # nothing at all was recorded
        assert "Nothing was recorded" in reply.body or "not valid" in reply.body


def _month(games: Games) -> tuple[str, str]:
    gid, _, _ = games.create_game("Errors")
    pid, token, _ = add_power(games, gid, "gm", "A", "conspiracy", "cause")
    add_power(games, gid, "gm", "B", "city", "sovereign")
    games.send(gid, "gm", pc.GrantAsset(pid, "might", "skill", 2))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return gid, token


def test_mail_1_every_refused_line_is_listed_but_not_those_that_need_a_refused_action():
    """Two independent refusals are both listed; a roll of an action whose line was refused is not
    checked (it needs that line); ``#2`` still means the mail's second action; nothing is recorded."""
    games = Games()
    gid, token = _month(games)
    intake = MailIntake(games)
    before = games.get_game(gid).version
    reply = intake.receive(
        intake.address_for(gid, token),
        "<errors@x>",
        """action: Plot
  targets: Nobody
action: Scheme
  assets: might
  convert: 1
roll #1 with might
timezone Mars/Base
convert #2 1
ready
""",
    )
    assert not reply.accepted and games.get_game(gid).version == before
    listed = [line.split(":")[0] for line in reply.body.splitlines() if line.startswith("line ")]
    assert listed == ["line 1", "line 7", "line 8", "line 6"]  # errors, then the line not checked
    assert "no power 'Nobody'" in reply.body and "'Mars/Base' is not an IANA time zone" in reply.body
    assert "P-DICE-5" in reply.body  # #2 is Scheme, rolled with its conversions fixed
    assert "line 6: needs line 1" in reply.body


def test_mail_1_grammar_and_rule_errors_are_listed_together():
    games = Games()
    gid, token = _month(games)
    intake = MailIntake(games)
    reply = intake.receive(intake.address_for(gid, token), "<both@x>", "timezone Mars/Base\nfly away\n")
    assert "line 1: 'Mars/Base'" in reply.body and "line 2: I do not understand 'fly'" in reply.body
