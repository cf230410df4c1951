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
import uuid
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain.errors import DomainError, NotFound, RuleViolation
from domain.ids import GM
from domain.mailturns import Command, LineError, Turn, parse_turn
from domain.powers.game import Game
from projections.service import CommandKey, Games

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
        return self.games._read(reply.game_id, lambda g: g.state.powers[who].email if who in g.state.powers else None)

    def receive(self, recipient: str, message_id: str, text: str | None, html: str | None = None,
                subject: str = "") -> MailReply:
        m = self._match(recipient)
        refusal = MailReply(False, "Not recorded: unknown address",
                            "This address is not valid (your GM may have replaced it). Nothing was recorded.")
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
        turn = parse_turn(text, html)
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
        legacy = self.games._read(game_id, lambda g: g.state.mail_replies.get(message_id))
        return legacy["reply"] if legacy is not None and legacy["principal"] == principal else None

    def _refused(self, game_id: str, principal: str, subject: str, refused: TurnRefused) -> MailReply:
        lines = ["Nothing was recorded: the whole mail is refused if any line is wrong.", ""]
        lines += [str(e) for e in refused.errors]
        if refused.unchecked:
            lines += ["", "Not checked, because they need a refused line:"]
            lines += [f"line {line}: needs line {needed}" for line, needed in refused.unchecked]
        lines += ["", "Fix these lines and send the whole turn again."]
        return MailReply(False, f"Not recorded: {subject}".strip(), "\n".join(lines), game_id, principal)

    def apply(self, game_id: str, principal: str, turn: Turn, message_id: str) -> str:
        """Run every command of the turn in one transaction; return the receipt text.

        A refused command records nothing, so the commands after it are still checked, and the
        refusal lists every error but those of lines that need a refused action line."""
        games = self.games

        def command(game: Game) -> str:
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
                        out += self._one(game, principal, cmd, positions)
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
            receipt = games._receipt(game, principal, list(game._pending_events))
            out += ["", f"Receipt: sequence {receipt.sequence}, recorded {receipt.recorded_at}, "
                        f"digest {receipt.digest}"]
            return "\n".join(out)

        if not message_id:
            raise TurnRefused([LineError(1, "a mail needs a Message-ID", "MAIL-1")])
        key = CommandKey(f"mail:{message_id}")
        return games._run(game_id, principal, command, key, lambda reply: {"reply": reply}).result["reply"]

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

    def _one(self, game: Game, me: str, cmd: Command, positions: _Positions) -> list[str]:
        games = self.games
        now = games.clock()
        a = cmd.args
        gm_only = {"advance", "resolve", "difficulty", "grant", "refuse", "close"}
        if cmd.verb in gm_only and me != GM:
            raise RuleViolation(f"only the GM may {cmd.verb}", field="command")
        if cmd.verb not in gm_only and me == GM:
            raise RuleViolation("the GM plays adversaries on the web or through the API", field="command")
        roller = games._roller(game)
        if cmd.verb == "action":
            action_id = f"act-{uuid.uuid4().hex[:10]}"
            propose = a.get("propose", False)
            game.submit_action(
                me, action_id, a["title"], now=now, roller=roller, description=a.get("description", ""),
                skill=a.get("skill"), slot=a.get("slot", "private"), location=a.get("location"),
                targets=[self._power(game, t) for t in a.get("targets", [])], resistible=a.get("resistible", False),
                difficulty=a.get("difficulty"), assets=[] if propose else self._assets(game, me, a.get("assets", [])),
                extra_actions=1 if a.get("extra_action") else 0, convert=None if propose else a.get("convert", 0),
                roll=not propose, collaborators=[self._power(game, c) for c in a.get("collaborators", [])],
                actor=me, salt=games.entropy(16))
            positions.add(action_id, cmd.line)
            return self._action_lines(game, action_id)
        if cmd.verb == "roll":
            action_id = self._action(game, me, a["action"], positions)
            game.roll_action(action_id, now=now, roller=roller, assets=self._assets(game, me, a["assets"]),
                             convert=a["convert"], actor=me, salt=games.entropy(16))
            return self._action_lines(game, action_id)
        if cmd.verb == "convert":
            action_id = self._action(game, me, a["action"], positions)
            game.lock_conversions(action_id, now=now, convert=a["convert"], actor=me)
            return self._action_lines(game, action_id)
        if cmd.verb == "discard":
            action_id = self._action(game, me, a["action"], positions)
            game.discard_action(action_id, now=now, actor=me)
            return [f"Discarded {game.action(action_id).title!r} (it stays spent)."]
        if cmd.verb == "accept":
            action_id = self._action(game, me, a["action"], positions)
            game.accept_consequence(action_id, a["consequence"], actor=me)
            return [f"Accepted consequence {a['consequence']} on {game.action(action_id).title!r}."]
        if cmd.verb == "resist":
            reaction_id = f"rx-{uuid.uuid4().hex[:10]}"
            game.declare_reaction(me, reaction_id, a["action"], now=now, roller=roller,
                                  assets=self._assets(game, me, a["assets"]), convert=a["convert"], actor=me)
            r = game.state.reactions[reaction_id]
            t = game.tally(game.state.actions[a["action"]], r.pool)
            return [f"Resisted: roll {r.pool.roll_no} gave {[d.face for d in r.pool.dice]}: {t.successes} successes."]
        if cmd.verb == "waive":
            game.waive_reactions(me, now=now, actor=me)
            return ["You waived your reaction this month."]
        if cmd.verb == "ready":
            game.declare_ready(me, now=now)
            return ["Marked ready for this month."]
        if cmd.verb == "extension":
            open_windows = [w for w in game.state.windows.values() if not w.closed]
            if not open_windows:
                raise RuleViolation("no window is open", rule="GM-8")
            game.request_extension(me, open_windows[0].id, a["hours"], f"ext-{uuid.uuid4().hex[:10]}", now=now,
                                   reason=a["reason"])
            return [f"Asked the GM for {a['hours']:g} more hours."]
        if cmd.verb == "timezone":
            try:
                ZoneInfo(a["timezone"])
            except (ZoneInfoNotFoundError, ValueError):
                raise RuleViolation(f"{a['timezone']!r} is not an IANA time zone", field="timezone") from None
            game.set_timezone(me, a["timezone"])
            return [f"Times are now shown in {a['timezone']}."]
        if cmd.verb == "advance":
            return [f"The calendar moved on: {game.advance(now, games.entropy(32))}."]
        if cmd.verb == "resolve":
            queue = game.resolve(now=now, roller=roller, announcement=a["announcement"])
            return [f"Resolved {len(queue)} actions and published."]
        if cmd.verb == "difficulty":
            game.set_difficulty(a["action"], a["value"], sealed=a["sealed"], nonce=games.entropy(16))
            return [f"Difficulty of {a['action']} recorded{' (sealed)' if a['sealed'] else ''}."]
        if cmd.verb == "grant":
            game.grant_extension(a["request"], now=now)
            return [f"Granted {a['request']}."]
        if cmd.verb == "refuse":
            game.refuse_extension(a["request"], a["reason"])
            return [f"Refused {a['request']}."]
        if cmd.verb == "close":
            game.close_window(a["window"], now=now, reason="closed by the GM", force=True)
            return [f"Closed {a['window']}."]
        raise RuleViolation(f"unknown command {cmd.verb!r}", rule="MAIL-1")

    def _action_lines(self, game: Game, action_id: str) -> list[str]:
        act = game.action(action_id)
        lines = [f"Action {act.index} ({action_id}): {act.title!r}, {act.slot}."]
        if act.pool is None:
            lines.append("  Proposed: the GM sets the difficulty, then roll it on the web or with 'convert'.")
            return lines
        t = game.tally(act)
        faces = [d.face for d in act.pool.dice]
        lines.append(f"  Roll {act.pool.roll_no}: {faces}; pool size {t.pool_size}; {t.successes} successes, "
                     f"{t.consequences} consequences{'' if act.pool.locked else ' (conversions not fixed yet)'}.")
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
            mine = [x for x in game.state.assets.values() if me in x.holders and not x.used_up
                    and (x.id == ref or x.name.lower() == ref.lower())]
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
