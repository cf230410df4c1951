"""Play by email: the intake (SMTP server and HTTP endpoint share it) and the turn it applies.

Each power (and the GM) has a secret reply address ``turns+<game>.<token>@<domain>``: the token,
not the ``From:`` header, says who is writing; replacing a sign-in link replaces the address. A
reply goes only to the contact address the token's holder set, never to the ``From:`` of the mail.
A mail is all or nothing: every command of the turn runs in one transaction, and if any line is
wrong nothing is recorded and the reply lists each error with its line number and rule id (every
error but those of lines that need a refused line). The same Message-ID delivered twice is
recorded once and answered with the same reply.
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from api.service import Caller, CommandKey, Games
from api.service import Turn as ServiceTurn
from domain.errors import DomainError, NotFound, RuleViolation
from domain.ids import GM
from domain.mailturns import Command, LineError, Turn
from domain.platform import commands as platform
from domain.platform.commands import Command as CommandType
from domain.powers import commands as pc
from domain.powers.game import Game

log = logging.getLogger("emissary.mail")
MAX_MAIL_BYTES = 2 * 1024 * 1024  # a whole mail, as SMTP DATA or as the JSON a provider posts
ADDRESS = re.compile(r"^turns\+(?P<game>[0-9a-fA-F-]{36})\.(?P<token>[A-Za-z0-9_-]{16,128})@", re.IGNORECASE)


def reply_address(domain: str, game_id: str, token: str) -> str:
    """The secret address a power (or the GM) sends turns to; the token in it says who is writing."""
    return f"turns+{game_id}.{token}@{domain}"


@dataclass
class MailReply:
    """The answer to a mail: who it goes to and what it says."""

    accepted: bool
    subject: str
    body: str
    game_id: str | None = None
    principal: str | None = None


class TurnRefused(RuleViolation):
    """Some lines of a turn were refused, so none of it is recorded."""

    def __init__(self, errors: list[LineError], unchecked: list[tuple[int, int]] | None = None) -> None:
        super().__init__("; ".join(map(str, errors)), rule="MAIL-1")
        self.errors = errors
        self.unchecked = unchecked or []  # (line, the refused line it needs)


class _Positions:
    """The sender's actions this month by position (``#1``, ``#2``), as the mail means them: an
    action line that was refused keeps its position, so later references still mean what they say."""

    def __init__(self, ids: list[str]) -> None:
        self.ids: list[str | None] = list(ids)
        self.lines: list[int | None] = [None] * len(ids)

    def add(self, action_id: str | None, line: int) -> None:
        self.ids.append(action_id)
        self.lines.append(line)

    def refused_line(self, cmd: Command) -> int | None:
        """The line of the refused action this command refers to, if it refers to one."""
        ref = str(cmd.args.get("action", ""))
        if cmd.verb in ("roll", "convert", "discard", "accept") and ref[:1] == "#" and ref[1:].isdigit():
            k = int(ref[1:])
            if 1 <= k <= len(self.ids) and self.ids[k - 1] is None:
                return self.lines[k - 1]
        return None


class MailIntake:
    """Reads a mail addressed to a secret reply address and applies its turn."""

    def __init__(self, games: Games, domain: str = "emissary.local") -> None:
        self.games = games
        self.domain = domain

    def address_for(self, game_id: str, token: str) -> str:
        return reply_address(self.domain, game_id, token)

    def _match(self, recipient: str) -> re.Match | None:
        """The game and token of a reply address of this service's mail domain."""
        address = recipient.strip().strip("<>")
        m = ADDRESS.match(address)
        return m if m and address.rpartition("@")[2].lower() == self.domain.lower() else None

    def holder(self, recipient: str) -> tuple[str, str] | None:
        """(game, principal) whose secret reply address this is, or None (unknown, replaced, other domain)."""
        m = self._match(recipient)
        if m is None:
            return None
        try:
            return m.group("game"), self.games.authenticate(m.group("game"), m.group("token"))
        except DomainError:
            return None

    def contact(self, reply: MailReply) -> str | None:
        """The one address a reply may go to: the contact the token's holder set (the GM has none)."""
        if reply.game_id is None or reply.principal is None:
            return None
        who = reply.principal
        return self.games.contact_of(reply.game_id, who)[0]

    def receive(
        self, recipient: str, message_id: str, text: str | None, html: str | None = None, subject: str = ""
    ) -> MailReply:
        m = self._match(recipient)
        refusal = MailReply(
            False,
            "Not recorded: unknown address",
            "This address is not valid (your GM may have replaced it). Nothing was recorded.",
        )
        if m is None:
            return refusal
        game_id, token = m.group("game"), m.group("token")
        try:
            principal = self.games.authenticate(game_id, token)
        except DomainError:
            log.info("mail refused: bad token game=%s message=%s", game_id, message_id)
            return refusal
        earlier = self._first_reply(game_id, principal, message_id)
        if earlier is not None:
            return MailReply(True, f"Re: {subject}".strip(), earlier, game_id, principal)
        ruleset = self.games.get_game(game_id, for_update=False).ruleset  # the game's own grammar reads the mail
        if ruleset.mail_grammar is None:
            return self._no_grammar(game_id, principal, subject, ruleset.name)
        turn = ruleset.mail_grammar(text, html)
        if not turn.commands and not turn.errors:
            turn.errors.append(LineError(1, "this mail holds no command", "MAIL-1"))
        try:
            reply = self.apply(game_id, principal, turn, message_id)
        except TurnRefused as refused:
            return self._refused(game_id, principal, subject, refused)
        return MailReply(True, f"Recorded: {subject}".strip(), reply, game_id, principal)

    def _first_reply(self, game_id: str, principal: str, message_id: str) -> str | None:
        """The reply a mail with this Message-ID got, kept under it as its idempotency key (and, for mails
        taken before keys were kept beside the events, from the game's older MailTurnRecorded events)."""
        if not message_id:
            return None
        first = self.games.first_receipt(game_id, principal, CommandKey(f"mail:{message_id}"))
        if first is not None:
            return first.result["reply"]
        legacy = self.games.mail_reply(game_id, message_id)
        return legacy["reply"] if legacy is not None and legacy["principal"] == principal else None

    @staticmethod
    def _no_grammar(game_id: str, principal: str, subject: str, name: str) -> MailReply:
        """The reply to a mail for a game whose ruleset declares no mail grammar: nothing is read or recorded."""
        return MailReply(
            False,
            f"Not recorded: {subject}".strip(),
            f"This game is played under the ruleset {name!r}, which takes no turns by mail. Nothing was "
            "recorded: play on the web or through the API.",
            game_id,
            principal,
        )

    def _refused(self, game_id: str, principal: str, subject: str, refused: TurnRefused) -> MailReply:
        lines = ["Nothing was recorded: the whole mail is refused if any line is wrong.", ""]
        lines += [str(e) for e in refused.errors]
        if refused.unchecked:
            lines += ["", "Not checked, because they need a refused line:"]
            lines += [f"line {line}: needs line {needed}" for line, needed in refused.unchecked]
        lines += ["", "Fix these lines and send the whole turn again."]
        return MailReply(False, f"Not recorded: {subject}".strip(), "\n".join(lines), game_id, principal)

    def apply(self, game_id: str, principal: str, turn: Turn, message_id: str) -> str:
        """Run every command of the turn in one transaction through the game service; return the receipt text.

        Each line becomes a command, built against the game as the lines before it left it, and runs
        through the same handlers as the API's. A refused command records nothing, so the commands
        after it are still checked, and the refusal lists every error but those of lines that need a
        refused action line."""
        if not message_id:
            raise TurnRefused([LineError(1, "a mail needs a Message-ID", "MAIL-1")])

        def play(unit: ServiceTurn) -> str:
            game = unit.game
            out: list[str] = []
            errors = list(turn.errors)
            unchecked: list[tuple[int, int]] = []
            positions = _Positions([a.id for a in game.actions_of(principal)])
            for cmd in turn.commands:
                needed = positions.refused_line(cmd)
                if needed is not None:
                    unchecked.append((cmd.line, needed))
                elif cmd.broken:
                    pass  # its error is listed already
                else:
                    try:
                        out += self._one(unit, principal, cmd, positions)
                        continue
                    except DomainError as err:
                        errors.append(LineError(cmd.line, err.message, err.rule))
                if cmd.verb == "action":
                    positions.add(None, cmd.line)
            if errors:
                raise TurnRefused(sorted(errors, key=lambda e: e.line), unchecked)
            out += self._footer(game, principal)
            # The receipt covers what the turn recorded; it is stored with the reply, so that the
            # same mail delivered again is answered with the very same receipt.
            receipt = unit.receipt()
            out += [
                "",
                f"Receipt: sequence {receipt.sequence}, recorded {receipt.recorded_at}, digest {receipt.digest}",
            ]
            return "\n".join(out)

        key = CommandKey(f"mail:{message_id}")
        return self.games.run_turn(Caller.of(principal), game_id, play, key, lambda reply: {"reply": reply}).result[
            "reply"
        ]

    def _footer(self, game: Game, principal: str) -> list[str]:
        s = game.state
        zone = ZoneInfo(game.timezone_for(principal))
        lines = ["", f"Season {s.season}, month {s.month}: {s.step}."]
        for w in s.windows.values():
            if not w.closed:
                mine = w.deadline_for(principal if principal != GM else None)
                local = datetime.fromisoformat(mine).astimezone(zone).strftime("%a %d %b %Y %H:%M %Z")
                lines.append(f"{w.kind.capitalize()} closes {local} ({zone.key}).")
        return lines

    # ---------------------------------------------------------------- the commands

    def command(self, game: Game, me: str, cmd: Command, positions: _Positions) -> CommandType:
        """The typed command a mail line means, its references (``#2``, asset and power names) resolved
        against the game as the lines before it left it."""
        a = cmd.args
        gm_only = {"advance", "resolve", "difficulty", "grant", "refuse", "close"}
        if cmd.verb in gm_only and me != GM:
            raise RuleViolation(f"only the GM may {cmd.verb}", field="command")
        if cmd.verb not in gm_only and me == GM:
            raise RuleViolation("the GM plays adversaries on the web or through the API", field="command")
        if cmd.verb == "action":
            propose = a.get("propose", False)
            return pc.SubmitAction(
                power_id=me,
                title=a["title"],
                description=a.get("description", ""),
                skill=a.get("skill"),
                slot=a.get("slot", "private"),
                location=a.get("location"),
                targets=[self._power(game, t) for t in a.get("targets", [])],
                resistible=a.get("resistible", False),
                difficulty=a.get("difficulty"),
                assets=[] if propose else self._assets(game, me, a.get("assets", [])),
                extra_actions=1 if a.get("extra_action") else 0,
                convert=None if propose else a.get("convert", 0),
                roll=not propose,
                collaborators=[self._power(game, c) for c in a.get("collaborators", [])],
            )
        if cmd.verb == "roll":
            return pc.RollAction(
                self._action(game, me, a["action"], positions),
                self._assets(game, me, a["assets"]),
                convert=a["convert"],
            )
        if cmd.verb == "convert":
            return pc.LockConversions(self._action(game, me, a["action"], positions), convert=a["convert"])
        if cmd.verb == "discard":
            return pc.DiscardAction(self._action(game, me, a["action"], positions))
        if cmd.verb == "accept":
            return pc.AcceptConsequence(self._action(game, me, a["action"], positions), a["consequence"])
        if cmd.verb == "resist":
            return pc.DeclareReaction(me, a["action"], self._assets(game, me, a["assets"]), a["convert"])
        if cmd.verb == "waive":
            return pc.WaiveReactions(me)
        if cmd.verb == "ready":
            return platform.DeclareReady(me)
        if cmd.verb == "extension":
            return platform.RequestExtension(me, a["hours"], reason=a["reason"])
        if cmd.verb == "timezone":
            return platform.SetTimezone(me, a["timezone"])
        if cmd.verb == "advance":
            return pc.Advance()
        if cmd.verb == "resolve":
            return pc.Resolve(announcement=a["announcement"])
        if cmd.verb == "difficulty":
            return pc.SetDifficulty(a["action"], a["value"], sealed=a["sealed"])
        if cmd.verb == "grant":
            return platform.GrantExtension(a["request"])
        if cmd.verb == "refuse":
            return platform.RefuseExtension(a["request"], a["reason"])
        if cmd.verb == "close":
            return platform.CloseWindow(a["window"])
        raise RuleViolation(f"unknown command {cmd.verb!r}", rule="MAIL-1")

    def _one(self, unit: ServiceTurn, me: str, cmd: Command, positions: _Positions) -> list[str]:
        """Run one line's command in the turn; the lines the reply says of it."""
        game = unit.game
        command = self.command(game, me, cmd, positions)
        result = unit.execute(command) or {}
        a = cmd.args
        if isinstance(command, pc.SubmitAction):
            positions.add(result["action_id"], cmd.line)
            return self._action_lines(game, result["action_id"])
        if isinstance(command, (pc.RollAction, pc.LockConversions)):
            return self._action_lines(game, command.action_id)
        if isinstance(command, pc.DiscardAction):
            return [f"Discarded {game.action(command.action_id).title!r} (it stays spent)."]
        if isinstance(command, pc.AcceptConsequence):
            return [f"Accepted consequence {a['consequence']} on {game.action(command.action_id).title!r}."]
        if isinstance(command, pc.DeclareReaction):
            return [f"Resisted: roll {result['roll_no']} gave {result['faces']}: {result['successes']} successes."]
        if isinstance(command, pc.WaiveReactions):
            return ["You waived your reaction this month."]
        if isinstance(command, platform.DeclareReady):
            return ["Marked ready for this month."]
        if isinstance(command, platform.RequestExtension):
            return [f"Asked the GM for {a['hours']:g} more hours."]
        if isinstance(command, platform.SetTimezone):
            return [f"Times are now shown in {a['timezone']}."]
        if isinstance(command, pc.Advance):
            return [f"The calendar moved on: {result['step']}."]
        if isinstance(command, pc.Resolve):
            return [f"Resolved {len(result['queue'])} actions and published."]
        if isinstance(command, pc.SetDifficulty):
            return [f"Difficulty of {a['action']} recorded{' (sealed)' if a['sealed'] else ''}."]
        if isinstance(command, platform.GrantExtension):
            return [f"Granted {a['request']}."]
        if isinstance(command, platform.RefuseExtension):
            return [f"Refused {a['request']}."]
        return [f"Closed {a['window']}."]

    def _action_lines(self, game: Game, action_id: str) -> list[str]:
        act = game.action(action_id)
        lines = [f"Action {act.index} ({action_id}): {act.title!r}, {act.slot}."]
        if act.pool is None:
            lines.append("  Proposed: the GM sets the difficulty, then roll it on the web or with 'convert'.")
            return lines
        t = game.tally(act)
        faces = [d.face for d in act.pool.dice]
        lines.append(
            f"  Roll {act.pool.roll_no}: {faces}; pool size {t.pool_size}; {t.successes} successes, "
            f"{t.consequences} consequences{'' if act.pool.locked else ' (conversions not fixed yet)'}."
        )
        if act.digest:
            lines.append(f"  Submission digest: {act.digest}")
        return lines

    @staticmethod
    def _power(game: Game, ref: str) -> str:
        for p in game.state.powers.values():
            if ref in (p.id,) or ref.lower() == p.name.lower():
                return p.id
        raise NotFound(f"no power {ref!r} in this game", field="targets")

    @staticmethod
    def _assets(game: Game, me: str, picks: list[dict]) -> list[dict]:
        out = []
        for pick in picks:
            ref = pick["ref"]
            mine = [
                x
                for x in game.state.assets.values()
                if me in x.holders and not x.used_up and (x.id == ref or x.name.lower() == ref.lower())
            ]
            if not mine:
                raise RuleViolation(f"you hold no asset {ref!r}", rule="P-ASSET-1", field="assets")
            out.append({"asset_id": sorted(mine, key=lambda x: x.id)[0].id, "mode": pick["mode"]})
        return out

    @staticmethod
    def _action(game: Game, me: str, ref: str, positions: _Positions) -> str:
        if ref.startswith("#") and ref[1:].isdigit():
            k = int(ref[1:])
            if 1 <= k <= len(positions.ids) and positions.ids[k - 1] is not None:
                return positions.ids[k - 1]
        for act in game.actions_of(me):
            if act.id == ref:
                return act.id
        raise NotFound(f"you have no action {ref!r} this month", field="action")


def new_message_id(domain: str) -> str:
    return f"<{secrets.token_hex(12)}@{domain}>"
