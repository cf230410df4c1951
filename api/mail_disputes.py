"""Disputes by mail (issue 29 item 4): every ruleset takes ``dispute`` lines, read before its own grammar (no ruleset's
grammar has the verb). A seat disputes an event by its number in its feed; the GM, or a host it was raised to, answers
(pointing at what settles it) and upholds or rejects it; the raiser withdraws it. The lines of one mail run in one
transaction, once per Message-ID (its idempotency key), and the reply says what was recorded with the receipt, or
which line was refused and why (nothing recorded). The help index shows ``MAIL`` (an example of every form)."""

from __future__ import annotations

import re
from typing import Any

from api.help.mail import MailLine
from application.service import Caller, CommandKey, Games
from application.service import Turn as ServiceTurn
from domain.errors import DomainError, RuleViolation
from domain.mailturns import own_lines
from domain.platform.commands import AnswerDispute, Command, RaiseDispute, SettleDispute
from domain.platform.i18n import N_, _, word_of

GREETING = re.compile(r"^[^:#]{0,60},\s*$")
VERB = re.compile(r"^\s*dispute\b", re.IGNORECASE)
RAISE = re.compile(r"^\s*dispute\s+#?(?P<seq>\d{1,12})\s*:?\s+(?P<text>\S.*)$", re.IGNORECASE)
ACT = re.compile(
    r"^\s*dispute\s+(?P<id>[\w-]{1,64})\s+(?P<act>answer|uphold|reject|withdraw)"
    r"(?:\s+see\s+(?P<pointer>[^\s:]+(?::[^\s:]+)*))?\s*:?\s*(?P<text>.*)$",
    re.IGNORECASE,
)
OUTCOME = {"uphold": "upheld", "reject": "rejected", "withdraw": "withdrawn"}

MAIL = (
    MailLine("dispute 12: the old rule was applied to my duel", "dispute event #12 of your feed", ("RaiseDispute",)),
    MailLine(
        "dispute dsp-1a2b3c answer see derivation:action:a-1: the dice were right",
        "the GM (or a host it was raised to) answers, pointing at a derivation, preview, rollback:<phase> or replay",
        ("AnswerDispute",),
    ),
    MailLine("dispute dsp-1a2b3c uphold: the old rule was applied", "the GM (or host) upholds it", ("SettleDispute",)),
    MailLine("dispute dsp-1a2b3c reject: the dice stand", "the GM (or host) rejects it", ("SettleDispute",)),
    MailLine("dispute dsp-1a2b3c withdraw", "whoever raised it withdraws it", ("SettleDispute",)),
)


def command_of(line: str) -> Command | str:
    """A ``dispute`` line's command, or why it cannot be read."""
    if m := RAISE.match(line):
        return RaiseDispute(int(m.group("seq")), m.group("text").strip())
    if m := ACT.match(line):
        act, text = m.group("act").lower(), m.group("text").strip()
        if act == "answer":
            if not text:
                return _("an answer needs its text after the colon")
            return AnswerDispute(m.group("id"), text, m.group("pointer"))
        return SettleDispute(m.group("id"), OUTCOME[act], text)
    return _(
        "write 'dispute <event number>: <text>', or 'dispute <dispute> answer [see <pointer>]: <text>', "
        "'dispute <dispute> uphold|reject|withdraw[: <note>]'"
    )


def asked(text: str) -> list[tuple[int, str]] | None:
    """The sender's own command lines, if any is a ``dispute`` line; else None (the ruleset's grammar reads it)."""
    lines = [(n, line) for n, line in own_lines(text) if line.strip() and not line.strip().startswith("#")]
    if lines and GREETING.match(lines[0][1]):
        lines = lines[1:]
    if not any(VERB.match(line) for _, line in lines):
        return None
    return lines


def reply(games: Games, game_id: str, principal: str, text: str, message_id: str) -> tuple[bool, str] | None:
    """(recorded, the reply's text) for a mail with ``dispute`` lines, else None."""
    lines = asked(text)
    if lines is None:
        return None
    refused_line = _("Nothing was recorded: line {line}: {error}.")
    others = [n for n, line in lines if not VERB.match(line)]
    if others:
        named = ", ".join(map(str, others))
        alone = _(
            "Nothing was recorded: dispute lines stand alone in their mail; send lines {lines} in a mail of their own."
        )
        return False, alone.format(lines=named)
    if not message_id:
        return False, _("Nothing was recorded: a mail needs a Message-ID.")
    commands: list[tuple[int, Command]] = []
    for n, line in lines:
        try:
            built = command_of(line)
        except DomainError as err:
            return False, refused_line.format(line=n, error=err.message)
        if isinstance(built, str):
            return False, refused_line.format(line=n, error=built)
        commands.append((n, built))

    def play(unit: ServiceTurn) -> str:
        out = []
        for n, command in commands:
            try:
                result = unit.execute(command) or {}
            except DomainError as err:
                raise LineRefused(n, err) from None
            out.append(_("line {line}: {said}").format(line=n, said=said(command, result)))
        receipt = unit.receipt()
        out += ["", receipt_line(receipt)]
        return "\n".join(out)

    try:
        done = games.run_turn(
            Caller.of(principal), game_id, play, CommandKey(f"mail:{message_id}"), lambda r: {"reply": r}
        )
    except LineRefused as refused:  # not Busy: a busy game defers the mail, which is sent again
        rule = f" ({refused.rule})" if refused.rule else ""
        return False, refused_line.format(line=refused.line, error=refused.message + rule)
    return True, str(done.result["reply"])


def said(command: Command, result: dict) -> str:
    """What a line recorded, in words."""
    if isinstance(command, RaiseDispute):
        return _(
            "you dispute event {seq}; the dispute is {dispute_id} (answer it, or write 'dispute {dispute_id} withdraw')"
        ).format(seq=command.seq, dispute_id=result["dispute_id"])
    if isinstance(command, AnswerDispute):
        return _("your answer to {dispute_id} is posted in its thread").format(dispute_id=command.dispute_id)
    assert isinstance(command, SettleDispute)
    settled = {
        "upheld": N_("the dispute {dispute_id} is upheld"),
        "rejected": N_("the dispute {dispute_id} is rejected"),
        "withdrawn": N_("the dispute {dispute_id} is withdrawn"),
    }
    return word_of(settled, command.outcome).format(dispute_id=command.dispute_id)


def receipt_line(receipt: Any) -> str:
    """A reply's receipt line in the reader's language: what was recorded, when, and its digest."""
    return _("Receipt: sequence {sequence}, recorded {at}, digest {digest}").format(
        sequence=receipt.sequence, at=receipt.recorded_at, digest=receipt.digest
    )


class LineRefused(RuleViolation):
    """A line of a dispute mail was refused: nothing of the mail is recorded."""

    def __init__(self, line: int, error: DomainError) -> None:
        super().__init__(error.message, rule=error.rule, field=error.field)
        self.line = line
