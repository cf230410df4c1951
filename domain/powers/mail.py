"""Powers' mail grammar (README, "Playing by email"): the lines of a turn, the typed commands they mean for
the sender's seat, and the texts of the reply.

A turn is a list of commands, one per line, in any case; an ``action:`` line opens a block of ``key: value``
lines. Every field obeys the same length limit as the API. ``#1``, ``#2`` name the sender's actions this
month by position, as the mail means them: an action line that was refused keeps its position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from domain import limits
from domain.errors import NotFound, RuleViolation
from domain.ids import GM
from domain.mailturns import SALUTATION, Command, LineError, Turn, body_text, items, own_lines, whole, yes
from domain.platform import commands as platform
from domain.powers import commands as pc

ACTION_KEYS = {
    "slot",
    "skill",
    "targets",
    "target",
    "resistible",
    "difficulty",
    "assets",
    "extra action",
    "convert",
    "propose",
    "description",
    "collaborators",
    "location",
}
VERBS = {
    "action",
    "roll",
    "convert",
    "discard",
    "accept",
    "resist",
    "waive",
    "extension",
    "ready",
    "timezone",
    "advance",
    "resolve",
    "difficulty",
    "grant",
    "refuse",
    "close",
}
# The limits of domain/limits.py, as the API and the commands apply them: a mailed field obeys the
# same limit as the same field sent any other way.
MAX_TITLE = limits.TITLE
MAX_DESCRIPTION = limits.DESCRIPTION
MAX_ANNOUNCEMENT = limits.ANNOUNCEMENT
MAX_REASON = limits.REASON
MAX_NAME = limits.LOCATION  # skill, location, an asset, power or action reference
LIMITS = {
    "title": MAX_TITLE,
    "description": MAX_DESCRIPTION,
    "announcement": MAX_ANNOUNCEMENT,
    "reason": MAX_REASON,
    "skill": MAX_NAME,
    "location": MAX_NAME,
}


def parse_turn(text: str | None, html: str | None = None, seat: str = GM) -> PowersTurn:
    """Read a turn for a seat; never raises."""
    commands: list[Command] = []
    errors: list[LineError] = []
    block: Command | None = None
    first = True
    for number, line in own_lines(body_text(text, html)):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if first and SALUTATION.match(stripped):
            first = False
            continue  # "Hi GM," on the first line
        first = False
        head, sep, rest = stripped.partition(":")
        key = head.strip().lower()
        if block is not None and sep and key in ACTION_KEYS and (line[:1].isspace() or key != "difficulty"):
            before = len(errors)
            _action_key(block, key, rest.strip(), number, errors)
            block.broken = block.broken or len(errors) > before
            continue
        block = None
        words = stripped.split()
        verb = words[0].lower().rstrip(":")
        args = words[1:]
        if verb == "action":
            title = rest.strip() if sep and key == "action" else " ".join(args)
            if not title:
                errors.append(LineError(number, "an action needs a title: 'action: Duel the Balrog'"))
                continue
            block = Command(number, "action", {"title": title})
            block.broken = not _fits("title", title, number, errors)
            commands.append(block)
        elif verb not in VERBS:
            errors.append(
                LineError(number, f"I do not understand {words[0]!r}; commands are: {', '.join(sorted(VERBS))}")
            )
        else:
            cmd = _simple(verb, args, stripped, number, errors)
            if cmd is not None:
                commands.append(cmd)
    return PowersTurn(commands, errors, seat)


def _fits(name: str, value: str, number: int, errors: list[LineError]) -> bool:
    """Whether a field is within the API's length limit for it; if not, say so."""
    limit = LIMITS.get(name, MAX_NAME)
    if len(value) <= limit:
        return True
    errors.append(LineError(number, f"{name} is at most {limit} characters, not {len(value)}", None))
    return False


def _action_key(block: Command, key: str, value: str, number: int, errors: list[LineError]) -> None:
    a = block.args
    if key in LIMITS and not _fits(key, value, number, errors):
        return
    if key in ("targets", "target", "collaborators", "assets") and not all(
        _fits(key, item, number, errors) for item in items(value)
    ):
        return
    if key == "slot":
        if value.lower() not in ("public", "private"):
            errors.append(LineError(number, "slot is public or private", "P-ACT-1"))
        a["slot"] = value.lower()
    elif key in ("targets", "target"):
        a["targets"] = items(value)
    elif key == "collaborators":
        a["collaborators"] = items(value)
    elif key in ("resistible", "propose", "extra action"):
        a[key.replace(" ", "_")] = yes(value)
    elif key in ("difficulty", "convert"):
        n = whole(value, number, errors, key)
        if n is not None:
            a[key] = n
    elif key == "assets":
        picks = []
        for item in items(value):
            parts = item.split()
            mode = parts[-1].lower() if len(parts) > 1 and parts[-1].lower() in ("assured", "critical") else "normal"
            name = " ".join(parts[:-1]) if mode != "normal" else item
            picks.append({"ref": name, "mode": mode})
        a["assets"] = picks
    else:
        a[key] = value


def _simple(verb: str, args: list[str], line_text: str, number: int, errors: list[LineError]) -> Command | None:
    def need(n: int, usage: str) -> bool:
        if len(args) < n:
            errors.append(LineError(number, f"usage: {usage}"))
            return False
        return True

    text = line_text.split(None, 1)[1] if args else ""
    if verb == "resolve" and not _fits("announcement", text, number, errors):
        return None
    if verb in ("extension", "refuse") and not _fits("reason", " ".join(args[1:]), number, errors):
        return None
    if verb != "resolve" and not all(_fits("reference", arg, number, errors) for arg in args[:1]):
        return None

    if verb in ("waive", "ready", "advance"):
        return Command(number, verb)
    if verb == "convert" and need(2, "convert <action> <how many>"):
        n = whole(args[1], number, errors, "the number of conversions")
        return Command(number, verb, {"action": args[0], "convert": n}) if n is not None else None
    if verb == "discard" and need(1, "discard <action>"):
        return Command(number, verb, {"action": args[0]})
    if verb == "accept" and need(2, "accept <action> <consequence>"):
        return Command(number, verb, {"action": args[0], "consequence": args[1]})
    if verb in ("resist", "roll") and need(1, f"{verb} <action> [with <asset>, <asset>] [convert <n>]"):
        rest = " ".join(args[1:])
        convert = 0
        m = re.search(r"\bconvert\s+(\S+)\s*$", rest, re.IGNORECASE)
        if m:
            n = whole(m.group(1), number, errors, "convert")
            convert = n or 0
            rest = rest[: m.start()]
        rest = re.sub(r"^\s*with\s+", "", rest, flags=re.IGNORECASE)
        return Command(
            number,
            verb,
            {"action": args[0], "assets": [{"ref": r, "mode": "normal"} for r in items(rest)], "convert": convert},
        )
    if verb == "extension" and need(1, "extension <hours> [reason]"):
        try:
            hours = float(args[0])
        except ValueError:
            errors.append(LineError(number, f"hours must be a number, not {args[0]!r}", "GM-8"))
            return None
        return Command(number, verb, {"hours": hours, "reason": " ".join(args[1:])})
    if verb == "timezone" and need(1, "timezone <Area/City>"):
        return Command(number, verb, {"timezone": args[0]})
    if verb == "resolve":
        return Command(number, verb, {"announcement": line_text.split(None, 1)[1] if len(args) else ""})
    if verb == "difficulty" and need(2, "difficulty <action> <n> [sealed]"):
        n = whole(args[1], number, errors, "the difficulty")
        sealed = "sealed" in [x.lower() for x in args[2:]]
        return Command(number, verb, {"action": args[0], "value": n, "sealed": sealed}) if n is not None else None
    if verb in ("grant", "refuse") and need(1, f"{verb} <request>"):
        return Command(number, verb, {"request": args[0], "reason": " ".join(args[1:])})
    if verb == "close" and need(1, "close <window>"):
        return Command(number, verb, {"window": args[0]})
    return None


GM_ONLY = {"advance", "resolve", "difficulty", "grant", "refuse", "close"}
REFERS = ("roll", "convert", "discard", "accept")  # the lines that name an action of the mail by position


@dataclass
class PowersTurn(Turn):
    """A Powers turn for one seat: builds each line's typed command and says what it recorded."""

    seat: str = GM
    ids: list[str | None] = field(default_factory=list)  # the seat's actions this month by position, None if refused
    lines: list[int | None] = field(default_factory=list)  # the mail line of each, None if made before the mail

    def start(self, game: Any) -> None:
        self.ids = [a.id for a in game.actions_of(self.seat)]
        self.lines = [None] * len(self.ids)

    def needs(self, cmd: Command) -> int | None:
        ref = str(cmd.args.get("action", ""))
        if cmd.verb in REFERS and ref[:1] == "#" and ref[1:].isdigit():
            k = int(ref[1:])
            if 1 <= k <= len(self.ids) and self.ids[k - 1] is None:
                return self.lines[k - 1]
        return None

    def refused(self, cmd: Command) -> None:
        if cmd.verb == "action":
            self.ids.append(None)
            self.lines.append(cmd.line)

    def command(self, game: Any, cmd: Command) -> Any:
        """The typed command a mail line means, its references (``#2``, asset and power names) resolved
        against the game as the lines before it left it."""
        me, a = self.seat, cmd.args
        if cmd.verb in GM_ONLY and me != GM:
            raise RuleViolation(f"only the GM may {cmd.verb}", field="command")
        if cmd.verb not in GM_ONLY and me == GM:
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
                targets=[_power(game, t) for t in a.get("targets", [])],
                resistible=a.get("resistible", False),
                difficulty=a.get("difficulty"),
                assets=[] if propose else _assets(game, me, a.get("assets", [])),
                extra_actions=1 if a.get("extra_action") else 0,
                convert=None if propose else a.get("convert", 0),
                roll=not propose,
                collaborators=[_power(game, c) for c in a.get("collaborators", [])],
            )
        if cmd.verb == "roll":
            return pc.RollAction(self._action(game, a["action"]), _assets(game, me, a["assets"]), convert=a["convert"])
        if cmd.verb == "convert":
            return pc.LockConversions(self._action(game, a["action"]), convert=a["convert"])
        if cmd.verb == "discard":
            return pc.DiscardAction(self._action(game, a["action"]))
        if cmd.verb == "accept":
            return pc.AcceptConsequence(self._action(game, a["action"]), a["consequence"])
        if cmd.verb == "resist":
            return pc.DeclareReaction(me, a["action"], _assets(game, me, a["assets"]), a["convert"])
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
        return super().command(game, cmd)

    def recorded(self, game: Any, cmd: Command, command: Any, result: dict) -> list[str]:
        a = cmd.args
        if isinstance(command, pc.SubmitAction):
            self.ids.append(result["action_id"])
            self.lines.append(cmd.line)
            return _action_lines(game, result["action_id"])
        if isinstance(command, (pc.RollAction, pc.LockConversions)):
            return _action_lines(game, command.action_id)
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

    def footer(self, game: Any) -> list[str]:
        s = game.state
        zone = ZoneInfo(game.timezone_for(self.seat))
        lines = ["", f"Season {s.season}, month {s.month}: {s.step}."]
        for w in s.windows.values():
            if not w.closed:
                mine = w.deadline_for(self.seat if self.seat != GM else None)
                local = datetime.fromisoformat(mine).astimezone(zone).strftime("%a %d %b %Y %H:%M %Z")
                lines.append(f"{w.kind.capitalize()} closes {local} ({zone.key}).")
        return lines

    def _action(self, game: Any, ref: str) -> str:
        if ref.startswith("#") and ref[1:].isdigit():
            k = int(ref[1:])
            if 1 <= k <= len(self.ids) and self.ids[k - 1] is not None:
                return self.ids[k - 1]  # type: ignore[return-value]
        for act in game.actions_of(self.seat):
            if act.id == ref:
                return act.id
        raise NotFound(f"you have no action {ref!r} this month", field="action")


def _action_lines(game: Any, action_id: str) -> list[str]:
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


def _power(game: Any, ref: str) -> str:
    for p in game.state.powers.values():
        if ref in (p.id,) or ref.lower() == p.name.lower():
            return p.id
    raise NotFound(f"no power {ref!r} in this game", field="targets")


def _assets(game: Any, me: str, picks: list[dict]) -> list[dict]:
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
