"""The turn grammar: examples, and fuzzing that shows it never crashes and never records part of a turn."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.mailturns import parse_turn
from projections.mail import MailIntake
from projections.service import CommandKey, Games


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


def test_errors_name_the_line_and_the_rule():
    turn = parse_turn("action: Plot\n  slot: secret\nconvert #1 many\nfly away\n")
    assert [(e.line, e.rule) for e in turn.errors] == [(2, "P-ACT-1"), (3, "MAIL-1"), (4, "MAIL-1")]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=200)))
def test_the_parser_never_crashes(text, html):
    turn = parse_turn(text, html)
    assert all(e.line >= 1 for e in turn.errors)


lines = st.sampled_from([
    "action: Plot", "  slot: private", "  slot: public", "  convert: 1", "  assets: might", "  assets: nothing",
    "  targets: B", "  resistible: yes", "convert #1 1", "convert #2 0", "discard #1", "ready", "waive",
    "extension 4 late", "timezone Europe/Paris", "  propose: yes", "roll #1 with might convert 1", "timezone Mars/Base", "resist act-x", "advance", "hello",
    "> quoted", "", "# a comment",
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, max_size=12), st.integers(0, 10**6))
def test_a_mail_is_recorded_whole_or_not_at_all(body_lines, n):
    games = Games()
    gid, _, _ = games.create_game("Fuzz")
    pid, token, _ = games.add_power(gid, "gm", "A", "conspiracy", "cause")
    games.add_power(gid, "gm", "B", "city", "sovereign")
    games.grant_asset(gid, "gm", pid, "might", "skill", 2)
    games.advance(gid, "gm")
    games.advance(gid, "gm")
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
