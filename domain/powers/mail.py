"""Powers' mail grammar (README, "Playing by email"): the lines of a turn, the typed commands they mean for
the sender's seat, and the texts of the reply.

A turn is a list of commands, one per line, in any case; an ``action:`` line opens a block of ``key: value``
lines. Every field obeys the same length limit as the API. ``#1``, ``#2`` name the sender's actions this
month by position, as the mail means them: an action line that was refused keeps its position.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from domain import limits
from domain.errors import NotFound, RuleViolation
from domain.ids import GM
from domain.mailturns import SALUTATION, Command, LineError, Turn, body_text, items, own_lines, whole, yes
from domain.platform import commands as platform
from domain.platform.i18n import N_, _, moment, ngettext
from domain.powers import armies, magic, world
from domain.powers import battle_rules as br
from domain.powers import catalogue_commands as cc
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers.armies import ARMY_AIMS
from domain.powers.feed import state_word, step_word

if TYPE_CHECKING:
    from domain.powers.game import Game

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
    "dungeon",
}
# A class action (P.2.12) is a block as an action is, its inputs on a ``with:`` line.
CLASS_KEYS = (ACTION_KEYS - {"propose", "resistible", "difficulty", "dungeon"}) | {"with", "title"}
VERBS = {
    "action",
    "class",
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
# Wallets, trades, favors, development and ambitions (domain/powers/development.py) and magic
# (domain/powers/magic.py): what a power does there, one line each.
PLAYER_FEATURES = {
    "control",
    "spend",
    "trade",
    "favor",
    "insight",
    "buy",
    "nerf",
    "ambition",
    "cast",
    "contribute",
    "pay",
    "aim",
    "influence",
    "maintain",
}
# The map's GM lines (domain/powers/world.py): claims on towns and hidden features shown.
GM_FEATURES = {"adjust", "award", "answer", "task", "mana", "channel", "teach", "dispel", "claim", "unclaim", "reveal"}
FEATURE_VERBS = PLAYER_FEATURES | GM_FEATURES
VERBS |= FEATURE_VERBS
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
    "note": MAX_REASON,
    "request": MAX_REASON,
    "question": MAX_REASON,
    "detail": MAX_TITLE,
    "answer": limits.GRANT_TEXT,
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
        keys = CLASS_KEYS if block is not None and block.verb == "class" else ACTION_KEYS
        if block is not None and sep and key in keys and (line[:1].isspace() or key != "difficulty"):
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
                errors.append(LineError(number, _("an action needs a title: 'action: Duel the Balrog'")))
                continue
            block = Command(number, "action", {"title": title})
            block.broken = not _fits("title", title, number, errors)
            commands.append(block)
        elif verb == "class":
            kind = rest.strip() if sep and key == "class" else " ".join(args)
            if not kind:
                errors.append(LineError(number, _("a class action needs its kind: 'class: annex'")))
                continue
            block = Command(number, "class", {"kind": kind.lower().replace(" ", "_")})
            block.broken = not _fits("reference", kind, number, errors)
            commands.append(block)
        elif verb not in VERBS:
            errors.append(
                LineError(
                    number,
                    _("I do not understand {word!r}; commands are: {verbs}").format(
                        word=words[0], verbs=", ".join(sorted(VERBS))
                    ),
                )
            )
        elif verb in FEATURE_VERBS:
            cmd = _feature(verb, stripped.split(None, 1)[1] if args else "", number, errors)
            if cmd is not None:
                commands.append(cmd)
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
    errors.append(
        LineError(
            number,
            _("{name} is at most {limit} characters, not {count}").format(name=name, limit=limit, count=len(value)),
            None,
        )
    )
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
            errors.append(LineError(number, _("slot is public or private"), "P-ACT-1"))
        a["slot"] = value.lower()
    elif key in ("targets", "target"):
        a["targets"] = items(value)
    elif key == "collaborators":
        a["collaborators"] = items(value)
    elif key in ("resistible", "propose", "extra action", "dungeon"):
        a[key.replace(" ", "_")] = yes(value)
    elif key in ("difficulty", "convert"):
        n = whole(value, number, errors, key)
        if n is not None:
            a[key] = n
    elif key == "with":
        a["params"] = _params(value, number, errors)
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


def _params(value: str, number: int, errors: list[LineError]) -> dict[str, Any]:
    """A class action's inputs, ``towns_claimed 1, town tharbad``: whole numbers as numbers, the rest as
    written; the rules check the names and values."""
    out: dict[str, Any] = {}
    for item in items(value):
        name, _sep, raw = item.partition(" ")
        if not raw.strip():
            errors.append(
                LineError(
                    number,
                    _("with lists inputs such as 'towns_claimed 1, town tharbad', not {item!r}").format(item=item),
                )
            )
            continue
        raw = raw.strip()
        out[name.lower()] = int(raw) if re.fullmatch(r"-?\d+", raw) else raw
    return out


def _simple(verb: str, args: list[str], line_text: str, number: int, errors: list[LineError]) -> Command | None:
    def need(n: int, usage: str) -> bool:
        if len(args) < n:
            errors.append(LineError(number, _("usage: {usage}").format(usage=usage)))
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
        n = whole(args[1], number, errors, _("the number of conversions"))
        return Command(number, verb, {"action": args[0], "convert": n}) if n is not None else None
    if verb == "discard" and need(1, "discard <action>"):
        return Command(number, verb, {"action": args[0]})
    if verb == "accept" and need(2, "accept <action or reaction> <consequence>"):
        return Command(number, verb, {"action": args[0], "consequence": args[1]})
    if verb in ("resist", "roll") and need(
        1, f"{verb} <action> [with <asset>, <asset>]{' [extra action]' if verb == 'roll' else ''} [convert <n>]"
    ):
        rest = " ".join(args[1:])
        convert = 0
        m = re.search(r"\bconvert\s+(\S+)\s*$", rest, re.IGNORECASE)
        if m:
            n = whole(m.group(1), number, errors, "convert")
            convert = n or 0
            rest = rest[: m.start()]
        extra = verb == "roll" and EXTRA_ACTION.search(rest)
        if extra:  # P-ACT-2: one more action spent as a rank-1 assured asset of the roll
            rest = rest[: extra.start()]
        rest = re.sub(r"^\s*with\s+", "", rest, flags=re.IGNORECASE)
        return Command(
            number,
            verb,
            {"action": args[0], "assets": [{"ref": r, "mode": "normal"} for r in items(rest)], "convert": convert}
            | ({"extra_action": True} if extra else {}),
        )
    if verb == "extension" and need(1, "extension <hours> [reason]"):
        try:
            hours = float(args[0])
        except ValueError:
            errors.append(LineError(number, _("hours must be a number, not {hours!r}").format(hours=args[0]), "GM-8"))
            return None
        return Command(number, verb, {"hours": hours, "reason": " ".join(args[1:])})
    if verb == "timezone" and need(1, "timezone <Area/City>"):
        return Command(number, verb, {"timezone": args[0]})
    if verb == "resolve":
        return Command(number, verb, {"announcement": line_text.split(None, 1)[1] if len(args) else ""})
    if verb == "difficulty" and need(2, "difficulty <action> <n> [sealed]"):
        n = whole(args[1], number, errors, _("the difficulty"))
        sealed = "sealed" in [x.lower() for x in args[2:]]
        return Command(number, verb, {"action": args[0], "value": n, "sealed": sealed}) if n is not None else None
    if verb in ("grant", "refuse") and need(1, f"{verb} <request>"):
        return Command(number, verb, {"request": args[0], "reason": " ".join(args[1:])})
    if verb == "close" and need(1, "close <window>"):
        return Command(number, verb, {"window": args[0]})
    return None


USAGE = {
    "control": "control respect|fear",
    "spend": "spend <n> <resource>[, <n> <resource>] for <reason>",
    "trade": "trade offer <power> give <n> <resource>[, ...] for <n> <resource>[, ...] [note <text>]; "
    "trade accept|decline|withdraw <trade>",
    "favor": "favor mana Light|Dark [in <action>]; favor miracle|keyword <request>",
    "insight": "insight <question>",
    "buy": "buy skill|rank <skill>; buy perk|upgrade <perk>[: <choice>]",
    "nerf": "nerf keep|refund <perk>[: <choice>]; nerf swap <perk>[: <choice>] for <perk>[: <choice>]",
    "ambition": "ambition accept|decline|abandon <ambition>",
    "cast": "cast <spell> [through <conduit>] [at <hex>] [in <action>] [pay <mana>]",
    "contribute": "contribute <mana> to <action>",
    "pay": "pay <cost> for <action> [with <mana>]",
    "adjust": "adjust <power> <+n|-n> <resource>[, ...] for <reason>",
    "award": "award <power> <n> fame for <reason>",
    "answer": "answer <question> <answer>",
    "task": "task done <ambition> <task> [fame <n>]; task lost <ambition> <task> <reason>",
    "mana": "mana <power> <n> <element>",
    "channel": "channel <n> <element> into <action>",
    "teach": "teach <spell> to <power>",
    "dispel": "dispel <ritual cast> with <action>",
    "aim": "aim <action> <delve|clear|town|infiltrate|module|workers_unite|channel> at <town|feature> "
    "[floor <n>] [as <town action>] [with <town>]",
    "influence": "influence spend <n> at <hex>[, <n> at <hex>] on <action>; "
    "influence shift <hex> to <hex>[, <hex> to <hex>]",
    "maintain": "maintain <stronghold>",
    "claim": "claim <town> for <power> [by <annex|commandeer|infiltrate|ruling>]",
    "unclaim": "unclaim <town> from <power> [by <reason>]",
    "reveal": "reveal <feature> to <power>",
}
AIM = re.compile(
    r"^(?P<action>\S+)\s+(?P<aim>\S+)(?:\s+at\s+(?P<at>.+?))?(?:\s+floor\s+(?P<floor>\S+))?"
    r"(?:\s+as\s+(?P<kind>\S+))?(?:\s+with\s+(?P<with>.+?))?$",
    re.IGNORECASE,
)
HEX = re.compile(r"^-?\d+,-?\d+$")
# a roll's, a duel's or a seeking's trailing "extra action": one more action spent as a rank-1 assured asset (P-ACT-2)
EXTRA_ACTION = re.compile(r"(?:^|\s+)extra\s+action\s*$", re.IGNORECASE)
# P-ASSET-11's mana, held by one of the power's actions when spent during it (P-AMB-37)
FAVOR_MANA = re.compile(r"^mana(?:\s+(?P<element>(?!in\s)\S+))?(?:\s+in\s+(?P<action>\S+))?$", re.IGNORECASE)
TRADE_OFFER = re.compile(
    r"^offer\s+(?P<to>.+?)(?:\s+give\s+(?P<give>.+?))?(?:\s+for\s+(?P<want>.+?))?(?:\s+note\s+(?P<note>.+))?$",
    re.IGNORECASE,
)
CAST = re.compile(
    r"^(?P<spell>.+?)(?:\s+through\s+(?P<through>.+?))?(?:\s+at\s+(?P<target>\S+))?"
    r"(?:\s+in\s+(?P<action>\S+))?(?:\s+pay\s+(?P<pay>.+?))?$",
    re.IGNORECASE,
)


def _amounts(text: str, number: int, errors: list[LineError], what: str) -> dict[str, int] | None:
    """``2 coin, 1 favor`` as {resource: amount}; the rules check the resources and amounts."""
    out: dict[str, int] = {}
    for item in items(text):
        parts = item.split()
        if len(parts) != 2:
            errors.append(
                LineError(
                    number,
                    _("{what} lists amounts such as '2 coin, 1 favor', not {item!r}").format(what=what, item=item),
                )
            )
            return None
        n = whole(parts[0], number, errors, _("the amount of {resource}").format(resource=parts[1]))
        if n is None:
            return None
        out[parts[1].lower()] = out.get(parts[1].lower(), 0) + n
    return out


def _mana(text: str) -> list[str]:
    """Mana by element letter, however spaced: ``FFW``, ``F F W``, ``F, F, W``."""
    return [c.upper() for c in text if not c.isspace() and c != ","]


def _gm_feature(verb: str, rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """A GM's line of wallets, fame, questions, ambitions' tasks or magic: its fields, or None."""
    words = rest.split()
    if verb == "adjust" and (m := re.match(r"^(?P<power>.+?)\s+(?P<changes>[+-]?\d.*?)\s+for\s+(?P<reason>.+)$", rest)):
        changes = _amounts(m.group("changes"), number, errors, "adjust")
        if changes is not None and _fits("reason", m.group("reason"), number, errors):
            return {"power": m.group("power"), "changes": changes, "reason": m.group("reason")}
    elif verb == "award" and (
        m := re.match(r"^(?P<power>.+?)\s+(?P<n>\S+)\s+fame\s+for\s+(?P<reason>.+)$", rest, re.IGNORECASE)
    ):
        n = whole(m.group("n"), number, errors, _("the fame"))
        if n is not None and _fits("reason", m.group("reason"), number, errors):
            return {"power": m.group("power"), "amount": n, "reason": m.group("reason")}
    elif verb == "answer" and len(words) > 1 and _fits("answer", rest.split(None, 1)[1], number, errors):
        return {"question": words[0], "answer": rest.split(None, 1)[1]}
    elif verb == "task" and len(words) >= 3 and words[0].lower() == "done":
        if len(words) == 3:
            return {"how": "done", "ambition": words[1], "task": words[2], "fame": None}
        if len(words) == 5 and words[3].lower() == "fame":
            n = whole(words[4], number, errors, _("the fame"))
            return {"how": "done", "ambition": words[1], "task": words[2], "fame": n} if n is not None else None
    elif verb == "task" and len(words) >= 4 and words[0].lower() == "lost":
        reason = rest.split(None, 3)[3]
        if _fits("reason", reason, number, errors):
            return {"how": "lost", "ambition": words[1], "task": words[2], "reason": reason}
    elif verb == "mana" and (m := re.match(r"^(?P<power>.+?)\s+(?P<n>\S+)\s+(?P<element>\S+)$", rest)):
        n = whole(m.group("n"), number, errors, _("the mana"))
        return {"power": m.group("power"), "amount": n, "element": m.group("element")} if n is not None else None
    elif verb == "channel" and (
        m := re.match(r"^(?P<n>\S+)\s+(?P<element>\S+)\s+into\s+(?P<action>\S+)$", rest, re.IGNORECASE)
    ):
        n = whole(m.group("n"), number, errors, _("the mana"))
        return {"amount": n, "element": m.group("element"), "action_id": m.group("action")} if n is not None else None
    elif verb == "teach" and (m := re.match(r"^(?P<spell>\S+)\s+to\s+(?P<power>.+)$", rest, re.IGNORECASE)):
        return {"spell": m.group("spell"), "power": m.group("power")}
    elif verb == "dispel" and (m := re.match(r"^(?P<ritual>\S+)\s+with\s+(?P<action>\S+)$", rest, re.IGNORECASE)):
        return {"ritual": m.group("ritual"), "action_id": m.group("action")}
    elif verb in ("claim", "unclaim") and (
        m := re.match(
            r"^(?P<town>.+?)\s+(?:for|from)\s+(?P<power>.+?)(?:\s+by\s+(?P<reason>.+))?$", rest, re.IGNORECASE
        )
    ):
        refs = [m.group("town"), m.group("power")]
        if all(_fits("reference", r, number, errors) for r in refs) and _fits(
            "reason", m.group("reason") or "", number, errors
        ):
            return {
                "town": m.group("town"),
                "power": m.group("power"),
                "reason": (m.group("reason") or "ruling").lower(),
            }
    elif verb == "reveal" and (m := re.match(r"^(?P<feature>.+?)\s+to\s+(?P<power>.+)$", rest, re.IGNORECASE)):
        if _fits("reference", m.group("feature"), number, errors) and _fits(
            "reference", m.group("power"), number, errors
        ):
            return {"feature": m.group("feature"), "power": m.group("power")}
    return None


def _hex_items(value: str) -> list[str]:
    """A list of items that name hexes: a hex is ``q,r`` with no space, so only a comma followed by a space
    (or a semicolon) separates two items."""
    return [v.strip() for v in re.split(r",\s+|;", value) if v.strip()]


def _world_feature(verb: str, rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """A power's line of the map: aim an action, spend or shift influence, pay a stronghold's upkeep."""
    words = rest.split()
    if verb == "maintain" and rest and _fits("reference", rest, number, errors):
        return {"feature": rest}
    if verb == "aim" and (m := AIM.match(rest)):
        floor = whole(m.group("floor"), number, errors, _("the floor")) if m.group("floor") else None
        refs = [m.group(k) for k in ("action", "at", "kind", "with") if m.group(k)]
        if (floor is not None or not m.group("floor")) and all(_fits("reference", r, number, errors) for r in refs):
            return {k: m.group(k) for k in ("action", "at", "kind", "with")} | {
                "aim": m.group("aim").lower(),
                "floor": floor,
            }
    if (
        verb == "influence"
        and words[:1] == ["spend"]
        and (m := re.match(r"^spend\s+(?P<amounts>.+?)\s+on\s+(?P<action>\S+)$", rest, re.IGNORECASE))
    ):
        amounts: dict[str, int] = {}
        for item in _hex_items(m.group("amounts")):
            parts = item.split()
            if len(parts) != 3 or parts[1].lower() != "at" or not HEX.match(parts[2]):
                errors.append(
                    LineError(number, _("influence spend lists '<n> at <hex>', not {item!r}").format(item=item))
                )
                return None
            n = whole(parts[0], number, errors, _("the influence at {hex}").format(hex=parts[2]))
            if n is None:
                return None
            amounts[parts[2]] = amounts.get(parts[2], 0) + n
        return {"action": m.group("action"), "amounts": amounts}
    if verb == "influence" and words[:1] == ["shift"] and len(words) > 1:
        shifts = []
        for item in _hex_items(rest.split(None, 1)[1]):
            parts = item.split()
            if len(parts) != 3 or parts[1].lower() != "to" or not (HEX.match(parts[0]) and HEX.match(parts[2])):
                errors.append(
                    LineError(number, _("influence shift lists '<hex> to <hex>', not {item!r}").format(item=item))
                )
                return None
            shifts.append([parts[0], parts[2]])
        return {"shifts": shifts}
    return None


def _feature(verb: str, rest: str, number: int, errors: list[LineError]) -> Command | None:
    """A line of wallets, trades, development, ambitions or magic: its fields, which the rules then check."""
    before = len(errors)
    words = rest.split()
    sub = words[0].lower() if words else ""
    tail = rest.split(None, 1)[1].strip() if len(words) > 1 else ""
    args: dict[str, Any] | None = None
    if verb == "control" and len(words) == 1:
        args = {"resource": sub}
    elif verb == "spend" and (m := re.match(r"^(?P<amounts>.+?)\s+for\s+(?P<reason>.+)$", rest, re.IGNORECASE)):
        changes = _amounts(m.group("amounts"), number, errors, "spend")
        if changes is not None and _fits("reason", m.group("reason"), number, errors):
            args = {"changes": changes, "reason": m.group("reason")}
    elif verb == "trade" and sub == "offer" and (m := TRADE_OFFER.match(rest)):
        give = _amounts(m.group("give") or "", number, errors, "give")
        want = _amounts(m.group("want") or "", number, errors, "for")
        note = m.group("note") or ""
        if give is not None and want is not None and _fits("note", note, number, errors):
            if _fits("reference", m.group("to"), number, errors):
                args = {"how": "offer", "to": m.group("to"), "give": give, "want": want, "note": note}
    elif verb in ("trade", "ambition") and len(words) == 2:
        how = ("accept", "decline", "withdraw") if verb == "trade" else ("accept", "decline", "abandon")
        if sub in how and _fits("reference", words[1], number, errors):
            args = {"how": sub, "id": words[1]}
    elif verb == "favor" and (m := FAVOR_MANA.match(rest)):
        args = {"use": "mana", "element": m.group("element"), "request": "", "action": m.group("action") or ""}
    elif verb == "favor" and sub != "mana" and tail and _fits("request", tail, number, errors):
        args = {"use": sub, "element": None, "request": tail, "action": ""}
    elif verb == "insight" and rest and _fits("question", rest, number, errors):
        args = {"question": rest}
    elif verb == "buy" and tail:
        name, _sep, detail = tail.partition(":")
        if _fits("reference", name.strip(), number, errors) and _fits("detail", detail.strip(), number, errors):
            args = {"kind": sub, "name": name.strip(), "detail": detail.strip()}
    elif verb == "nerf" and sub in ("keep", "refund", "swap") and tail:
        perk, _sep, swap = tail.partition(" for ") if sub == "swap" else (tail, "", "")
        if sub != "swap" or swap.strip():
            name, _sep, detail = perk.partition(":")
            to, _sep, to_detail = swap.partition(":")
            fields = [name, to]
            if all(_fits("reference", f.strip(), number, errors) for f in fields) and all(
                _fits("detail", d.strip(), number, errors) for d in (detail, to_detail)
            ):
                args = {"choice": sub, "name": name.strip(), "detail": detail.strip()}
                args |= {"swap_to": to.strip(), "swap_detail": to_detail.strip()}
    elif verb == "cast" and rest and (m := CAST.match(rest)):
        refs = [m.group(k) for k in ("spell", "through", "target", "action") if m.group(k)]
        if all(_fits("reference", r, number, errors) for r in refs):
            args = {k: m.group(k) for k in ("spell", "through", "target", "action")}
            args["pay"] = _mana(m.group("pay")) if m.group("pay") else None
    elif verb == "contribute" and (m := re.match(r"^(?P<mana>.+?)\s+to\s+(?P<action>\S+)$", rest, re.IGNORECASE)):
        if _fits("reference", m.group("action"), number, errors):
            args = {"mana": _mana(m.group("mana")), "action_id": m.group("action")}
    elif verb == "pay" and (
        m := re.match(r"^(?P<cost>\S+)\s+for\s+(?P<action>\S+)(?:\s+with\s+(?P<pay>.+))?$", rest, re.IGNORECASE)
    ):
        if _fits("reference", m.group("action"), number, errors):
            args = {"cost": m.group("cost").upper(), "action": m.group("action")}
            args["pay"] = _mana(m.group("pay")) if m.group("pay") else None
    elif verb in ("aim", "influence", "maintain"):
        args = _world_feature(verb, rest, number, errors)
    elif verb in MORE_PLAYER or verb in MORE_GM:
        args = _more(verb, rest, number, errors)
    elif verb in BATTLE_VERBS:
        args = _battle_line(verb, rest, number, errors)
    if verb in GM_FEATURES:
        args = _gm_feature(verb, rest, number, errors)
    if args is None:
        if len(errors) == before:
            errors.append(LineError(number, _("usage: {usage}").format(usage=USAGE[verb])))
        return None
    return Command(number, verb, args)


GM_ONLY = {"advance", "resolve", "difficulty", "grant", "refuse", "close", *GM_FEATURES}
# the lines that name an action of the mail by position
REFERS = ("roll", "convert", "discard", "accept", "cast", "pay", "aim", "influence", "army", "favor", "wield")


@dataclass
class PowersTurn(Turn):
    """A Powers turn for one seat: builds each line's typed command and says what it recorded."""

    seat: str = GM
    ids: list[str | None] = field(default_factory=list)  # the seat's actions this month by position, None if refused
    lines: list[int | None] = field(default_factory=list)  # the mail line of each, None if made before the mail

    def start(self, game: Game) -> None:
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
        if cmd.verb in ("action", "class", "duel", "seek"):
            self.ids.append(None)
            self.lines.append(cmd.line)

    def command(self, game: Game, cmd: Command) -> Any:
        """The typed command a mail line means, its references (``#2``, asset and power names) resolved
        against the game as the lines before it left it."""
        me, a = self.seat, cmd.args
        if cmd.verb in GM_ONLY and me != GM:
            raise RuleViolation(_("only the GM may {verb}").format(verb=cmd.verb), field="command")
        if cmd.verb not in GM_ONLY and me == GM:
            raise RuleViolation(_("the GM plays adversaries on the web or through the API"), field="command")
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
                dungeon=a.get("dungeon", False),
            )
        if cmd.verb == "class":
            return cc.SubmitClassAction(
                power_id=me,
                kind=a["kind"],
                params=dict(a.get("params", {})),
                title=a.get("title"),
                description=a.get("description", ""),
                slot=a.get("slot", "private"),
                location=a.get("location"),
                targets=[_power(game, t) for t in a.get("targets", [])],
                assets=_assets(game, me, a.get("assets", [])),
                extra_actions=1 if a.get("extra_action") else 0,
                convert=a.get("convert", 0),
                collaborators=[_power(game, c) for c in a.get("collaborators", [])],
            )
        if cmd.verb == "roll":
            extra = 1 if a.get("extra_action") else 0
            return pc.RollAction(self._action(game, a["action"]), _assets(game, me, a["assets"]), extra, a["convert"])
        if cmd.verb == "convert":
            return pc.LockConversions(self._action(game, a["action"]), convert=a["convert"])
        if cmd.verb == "discard":
            return pc.DiscardAction(self._action(game, a["action"]))
        if cmd.verb == "accept" and a["action"] in game.state.reactions:  # a resister's consequence (P-AMB-6)
            return pc.AcceptReactionConsequence(a["action"], a["consequence"])
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
        if cmd.verb in FEATURE_VERBS:
            return self._feature(game, cmd)
        return super().command(game, cmd)

    def _feature(self, game: Game, cmd: Command) -> Any:
        me, a, verb = self.seat, cmd.args, cmd.verb
        if verb in BATTLE_VERBS:
            return _battle_command(game, me, cmd)
        if verb in MORE_PLAYER or verb in MORE_GM:
            return self._more(game, cmd)
        if verb == "control":
            return dev.ChooseControl(me, a["resource"])
        if verb == "spend":
            return dev.SpendResources(me, a["changes"], a["reason"])
        if verb == "trade":
            if a["how"] == "offer":
                return dev.ProposeTrade(me, _power(game, a["to"], "to"), a["give"], a["want"], a["note"])
            trade = {"accept": dev.AcceptTrade, "decline": dev.DeclineTrade, "withdraw": dev.WithdrawTrade}[a["how"]]
            return trade(me, a["id"])
        if verb == "favor":
            action = self._action(game, a["action"]) if a["action"] else None
            return dev.SpendFavor(me, a["use"], element=a["element"], request=a["request"], action_id=action)
        if verb == "insight":
            return dev.SpendInsight(me, a["question"])
        if verb == "buy":
            return dev.BuyDevelopment(me, a["kind"], a["name"], a["detail"])
        if verb == "nerf":
            return dev.SettleNerf(me, a["name"], a["choice"], a["detail"], a["swap_to"], a["swap_detail"])
        if verb == "ambition":
            ambition = {"accept": dev.AcceptAmbition, "decline": dev.DeclineAmbition, "abandon": dev.AbandonAmbition}
            return ambition[a["how"]](me, a["id"])
        if verb == "cast":
            mine = magic.magic_view(game, me)["powers"][me]
            action = self._action(game, a["action"]) if a["action"] else None
            return magic.CastSpell(
                me, _spell(mine, a["spell"]), _conduit(mine, a["through"]), a["target"], action, a["pay"]
            )
        if verb == "contribute":
            return magic.ContributeMana(me, a["action_id"], a["mana"])
        if verb == "pay":
            return magic.PayMana(me, self._action(game, a["action"]), a["cost"], a["pay"])
        if verb == "aim":
            town, feature = _place(game, a["at"]) if a["at"] else (None, None)
            params = {"with": _place(game, a["with"])[0] or a["with"]} if a["with"] else {}
            return world.AimAction(
                self._action(game, a["action"]), a["aim"], feature, town, a["floor"], a["kind"], params
            )
        if verb == "influence" and "shifts" in a:
            return world.ShiftInfluence(me, a["shifts"])
        if verb == "influence":
            return world.SpendInfluence(me, self._action(game, a["action"]), a["amounts"])
        if verb == "maintain":
            return world.PayMaintenance(me, _place(game, a["feature"])[1] or a["feature"])
        if verb == "claim":
            return world.SetClaim(
                _place(game, a["town"])[0] or a["town"], _power(game, a["power"], "power_id"), a["reason"]
            )
        if verb == "unclaim":
            return world.DropClaim(
                _place(game, a["town"])[0] or a["town"], _power(game, a["power"], "power_id"), a["reason"]
            )
        if verb == "reveal":
            return world.RevealFeature(_place(game, a["feature"])[1] or a["feature"], _power(game, a["power"], "to"))
        if verb == "adjust":
            return dev.AdjustResources(_power(game, a["power"], "power_id"), a["changes"], a["reason"])
        if verb == "award":
            return dev.AwardFame(_power(game, a["power"], "power_id"), a["amount"], a["reason"])
        if verb == "answer":
            return dev.AnswerQuestion(a["question"], a["answer"])
        if verb == "task" and a["how"] == "done":
            return dev.CompleteTask(a["ambition"], a["task"], a["fame"])
        if verb == "task":
            return dev.LoseTask(a["ambition"], a["task"], a["reason"])
        if verb == "mana":
            return magic.GrantMana(_power(game, a["power"], "power_id"), a["element"], a["amount"])
        if verb == "channel":
            return magic.ChannelMana(a["action_id"], a["element"], a["amount"])
        if verb == "teach":
            return magic.TeachSpell(_power(game, a["power"], "power_id"), a["spell"])
        return magic.DeclareDispel(a["action_id"], a["ritual"])

    def recorded(self, game: Game, cmd: Command, command: Any, result: dict[str, Any]) -> list[str]:
        a = cmd.args
        if isinstance(command, pc.SubmitAction):
            self.ids.append(result["action_id"])
            self.lines.append(cmd.line)
            return _action_lines(game, result["action_id"])
        if isinstance(command, (cc.SubmitDuel, cc.SubmitSeeking)):
            self.ids.append(result["action_id"])
            self.lines.append(cmd.line)
        if isinstance(command, cc.SubmitClassAction):
            self.ids.append(result["action_id"])
            self.lines.append(cmd.line)
            kind = command.kind.replace("_", " ")
            return [
                _("Class action {kind}: difficulty {difficulty}.").format(kind=kind, difficulty=result["difficulty"]),
                *_action_lines(game, result["action_id"]),
            ]
        if isinstance(command, (pc.RollAction, pc.LockConversions)):
            return _action_lines(game, command.action_id)
        if isinstance(command, pc.DiscardAction):
            return [_("Discarded {title!r} (it stays spent).").format(title=game.action(command.action_id).title)]
        if isinstance(command, pc.AcceptConsequence):
            return [
                _("Accepted consequence {consequence} on {title!r}.").format(
                    consequence=a["consequence"], title=game.action(command.action_id).title
                )
            ]
        if isinstance(command, pc.AcceptReactionConsequence):
            return [
                _("Accepted consequence {consequence_id} on your reaction {reaction_id}.").format(
                    consequence_id=command.consequence_id, reaction_id=command.reaction_id
                )
            ]
        if isinstance(command, pc.DeclareReaction):
            return [
                _("Resisted (reaction {reaction_id}): roll {roll_no} gave {faces}: {tally}.").format(
                    reaction_id=result["reaction_id"],
                    roll_no=result["roll_no"],
                    faces=result["faces"],
                    tally=_tally(result["successes"], result["consequences"]),
                )
            ]
        if isinstance(command, pc.WaiveReactions):
            return [_("You waived your reaction this month.")]
        if isinstance(command, platform.DeclareReady):
            return [_("Marked ready for this month.")]
        if isinstance(command, platform.RequestExtension):
            return [_("Asked the GM for {hours:g} more hours.").format(hours=a["hours"])]
        if isinstance(command, platform.SetTimezone):
            return [_("Times are now shown in {timezone}.").format(timezone=a["timezone"])]
        if isinstance(command, pc.Advance):
            return [_("The calendar moved on: {step}.").format(step=result["step"])]
        if isinstance(command, pc.Resolve):
            return [_("Resolved {count} actions and published.").format(count=len(result["queue"]))]
        if isinstance(command, pc.SetDifficulty):
            said = (
                _("Difficulty of {action} recorded (sealed).") if a["sealed"] else _("Difficulty of {action} recorded.")
            )
            return [said.format(action=a["action"])]
        if isinstance(command, platform.GrantExtension):
            return [_("Granted {request}.").format(request=a["request"])]
        if isinstance(command, platform.RefuseExtension):
            return [_("Refused {request}.").format(request=a["request"])]
        if isinstance(command, platform.CloseWindow):
            return [_("Closed {window}.").format(window=a["window"])]
        return _feature_lines(game, command, result)

    def _more(self, game: Game, cmd: Command) -> Any:
        me, a, verb = self.seat, cmd.args, cmd.verb
        if verb in LATE_PLAYER or verb in LATE_GM:
            return _late_command(game, me, a, verb)
        if verb in ARMY_GM:
            return _army_gm_command(game, a, verb)
        if verb in ITEM_PLAYER or verb in ITEM_GM:
            action = self._action(game, a["action"]) if verb == "wield" and a["action"] else None  # the sender's
            return _item_command(game, me, a, verb, action)
        if verb == "duel":
            return cc.SubmitDuel(
                me,
                a["target"] if a["character"] else _power(game, a["target"], "target"),
                a["location"],
                target_is_power=not a["character"],
                skill=a["skill"],
                slot=a["slot"],
                assets=_assets(game, me, a["assets"]),
                extra_actions=a["extra_actions"],
                convert=a["convert"],
            )
        if verb == "seek":
            assets = _assets(game, me, a["assets"])
            return cc.SubmitSeeking(
                me,
                a["hex"],
                a["broad"],
                a["named"],
                slot=a["slot"],
                assets=assets,
                extra_actions=a["extra_actions"],
                convert=a["convert"],
            )
        if verb == "join":
            return cc.JoinAction(me, a["action_id"], _assets(game, me, a["assets"]), a["convert"], a["slot"])
        if verb == "free":
            return cc.TakeFreeAction(me, a["kind"], _asset_ref(game, a["asset"]), a["note"])
        if verb == "reaction" and "extra" in a:
            return cc.GainExtraReaction(me, a["extra"], _own_asset(game, me, a["scheme"]) if a["scheme"] else None)
        if verb == "reaction":
            assets = _assets(game, me, a["assets"])
            return cc.UseReaction(me, a["kind"], a["trigger"], a["fee"], assets, a["convert"], note=a["note"])
        if verb == "share" and "secret" in a:
            return pc.ShareSecret(me, _own_asset(game, me, a["secret"]), _power(game, a["to"], "to"))
        if verb == "share":
            return cc.AcceptShareConsequence(me, a["action_id"], a["consequence"])
        if verb == "support":
            return armies.PaySupport(me, a["changes"])
        if verb == "dice":
            power = _power(game, a["power"], "power_id") if a["power"] else None
            return cc.RollDice(a["dice"], a["purpose"], power, public=a["public"])
        if verb == "terms":
            return cc.SetAssetTerms(_asset_ref(game, a["asset"]), a["terms"])
        if verb == "quota":
            return cc.ChangeQuotaPerk(_power(game, a["power"], "power_id"), a["perk"], a["value"])
        how = a["how"]
        if how == "aim":
            params = dict(a["params"])
            if "army_id" in params:
                params["army_id"] = _army(game, me, str(params["army_id"]))
            return armies.AimArmyAction(self._action(game, a["action"]), a["kind"], params)
        army = _army(game, me, a["army"])
        if how == "choose":
            return armies.ChooseLevelUp(me, army, a["choices"], a["new_class"])
        if how == "scars":
            return armies.KeepScars(me, army, a["keep"])
        if how == "fee":
            return armies.PayArmyFee(me, army, a["resource"])
        own = {"levelup": armies.RollLevelUp, "discard": armies.DiscardTrain, "disband": armies.DisbandArmy}
        return own[how](me, army)

    def footer(self, game: Game) -> list[str]:
        s = game.state
        zone = ZoneInfo(game.timezone_for(self.seat))
        step = step_word(s.step)
        lines = ["", _("Season {season}, month {month}: {step}.").format(season=s.season, month=s.month, step=step)]
        for w in s.windows.values():
            if not w.closed:
                mine = w.deadline_for(self.seat if self.seat != GM else None)
                local = moment(datetime.fromisoformat(mine).astimezone(zone), "%a %d %b %Y %H:%M %Z")
                closes = _("{window} closes {time} ({zone}).")
                lines.append(closes.format(window=step_word(w.kind), time=local, zone=zone.key))
        return lines

    def _action(self, game: Game, ref: str) -> str:
        if ref.startswith("#") and ref[1:].isdigit():
            k = int(ref[1:])
            if 1 <= k <= len(self.ids) and self.ids[k - 1] is not None:
                return self.ids[k - 1]  # type: ignore[return-value]
        for act in game.actions_of(self.seat):
            if act.id == ref:
                return str(act.id)
        raise NotFound(_("you have no action {ref!r} this month").format(ref=ref), field="action")


def _action_lines(game: Game, action_id: str) -> list[str]:
    act = game.action(action_id)
    lines = [
        _("Action {index} ({action_id}): {title!r}, {slot}.").format(
            index=act.index, action_id=action_id, title=act.title, slot=state_word(act.slot)
        )
    ]
    if act.pool is None:
        lines.append(_("  Proposed: the GM sets the difficulty, then roll it on the web or with 'convert'."))
        return lines
    t = game.tally(act)
    faces = [d.face for d in act.pool.dice]
    rolled = (
        _("  Roll {roll_no}: {faces}; pool size {pool_size}; {tally}.")
        if act.pool.locked
        else _("  Roll {roll_no}: {faces}; pool size {pool_size}; {tally} (conversions not fixed yet).")
    )
    tally = _tally(t.successes, t.consequences)
    lines.append(rolled.format(roll_no=act.pool.roll_no, faces=faces, pool_size=t.pool_size, tally=tally))
    if act.digest:
        lines.append(_("  Submission digest: {digest}").format(digest=act.digest))
    return lines


def _tally(successes: int, consequences: int) -> str:
    """A roll's successes and consequences, each counted as the reader's language counts it."""
    won = ngettext("{n} success", "{n} successes", successes).format(n=successes)
    return won + ", " + ngettext("{n} consequence", "{n} consequences", consequences).format(n=consequences)


def _power(game: Game, ref: str, field: str = "targets") -> str:
    for p in game.state.powers.values():
        if ref in (p.id,) or ref.lower() == p.name.lower():
            return str(p.id)
    raise NotFound(_("no power {ref!r} in this game").format(ref=ref), field=field)


def _place(game: Game, ref: str) -> tuple[str | None, str | None]:
    """A town (first) or a feature of the map, by id or name; one not found is passed on as written, for the
    rules to refuse."""
    w = game.state.world
    for tid, t in w.towns.items():
        if ref.lower() in (tid.lower(), str(t.get("name", "")).lower()):
            return tid, None
    for fid, f in w.features.items():
        if ref.lower() in (fid.lower(), str(f.get("name", "")).lower()):
            return None, fid
    return None, None


def _spell(mine: dict[str, Any], ref: str) -> str:
    """A spell the power knows, by id or name; another is passed on as written, for the rules to refuse."""
    for sp in mine.get("known", []):
        if ref.lower() in (sp["spell_id"].lower(), sp["name"].lower()):
            return str(sp["spell_id"])
    return ref


def _conduit(mine: dict[str, Any], ref: str | None) -> str:
    """One of the power's conduits, by id or name; none named, its only one (P-MAG-5)."""
    conduits = mine.get("conduits", [])
    if ref is None:
        if len(conduits) == 1:
            return str(conduits[0]["id"])
        raise RuleViolation(
            _("name the conduit you cast through: 'through <conduit>'"), rule="P-MAG-5", field="through"
        )
    for c in conduits:
        if ref.lower() in (c["id"].lower(), c["name"].lower()):
            return str(c["id"])
    return ref


def _wallet(changes: dict[str, int]) -> str:
    return ", ".join(f"{n} {resource}" for resource, n in changes.items()) or _("nothing")


def _feature_lines(game: Game, command: Any, result: dict[str, Any]) -> list[str]:
    """What the reply says of a wallet, trade, development, ambition or magic line."""
    name = {p.id: p.name for p in game.state.powers.values()}
    if isinstance(command, dev.ChooseControl):
        return [_("You exert control with {resource}.").format(resource=command.resource)]
    if isinstance(command, dev.SpendResources):
        return [_("Spent {wallet}: {reason}.").format(wallet=_wallet(command.changes), reason=command.reason)]
    if isinstance(command, dev.ProposeTrade):
        return [
            _("Offered trade {trade_id} to {name}: you give {give}, for {want}.").format(
                trade_id=result["trade_id"],
                name=name[command.to],
                give=_wallet(command.give),
                want=_wallet(command.want),
            )
        ]
    if isinstance(command, (dev.AcceptTrade, dev.DeclineTrade, dev.WithdrawTrade)):
        done = {
            dev.AcceptTrade: N_("Accepted trade {trade_id}."),
            dev.DeclineTrade: N_("Declined trade {trade_id}."),
            dev.WithdrawTrade: N_("Withdrew trade {trade_id}."),
        }
        return [_(done[type(command)]).format(trade_id=command.trade_id)]
    if isinstance(command, dev.SpendFavor):
        if command.use == "mana" and command.action_id:
            return [
                _("Spent a favor on {element} mana, held by {title!r}.").format(
                    element=command.element, title=game.action(command.action_id).title
                )
            ]
        if command.use == "mana":
            return [_("Spent a favor on {element} mana.").format(element=command.element)]
        return [
            _("Spent a favor on a {use}: request {question_id}; the GM answers.").format(
                use=command.use, question_id=result["question_id"]
            )
        ]
    if isinstance(command, dev.SpendInsight):
        return [
            _("Spent an insight: question {question_id}; the GM answers.").format(question_id=result["question_id"])
        ]
    if isinstance(command, dev.BuyDevelopment):
        return [
            _("Bought {kind} {name} for {price} fame.").format(
                kind=command.kind, name=command.name, price=result["price"]
            )
        ]
    if isinstance(command, dev.SettleNerf):
        settled = {
            "keep": N_("Kept the nerfed {name}."),
            "refund": N_("Refunded the nerfed {name}."),
            "swap": N_("Swapped the nerfed {name} for {swap_to}.")
            if command.swap_to
            else N_("Swapped the nerfed {name}."),
        }[command.choice]
        return [_(settled).format(name=command.name, swap_to=command.swap_to)]
    if isinstance(command, (dev.AcceptAmbition, dev.DeclineAmbition, dev.AbandonAmbition)):
        taken = {
            dev.AcceptAmbition: N_("Accepted ambition {ambition_id}."),
            dev.DeclineAmbition: N_("Declined ambition {ambition_id}."),
            dev.AbandonAmbition: N_("Abandoned ambition {ambition_id}."),
        }
        return [_(taken[type(command)]).format(ambition_id=command.ambition_id)]
    magic_world = _magic_world_lines(game, command, result)
    if magic_world is not None:
        return magic_world
    more = _more_lines(game, name, command, result)
    if more is None:
        more = _battle_lines(game, name, command, result)
    return more if more is not None else _gm_lines(name, command, result)


def _magic_world_lines(game: Game, command: Any, result: dict[str, Any]) -> list[str] | None:
    """What the reply says of a magic or map line of a power; None for another command."""
    if isinstance(command, magic.CastSpell):
        return [
            _("Cast {name} at {target} (rank {rank}), paying {paid}; mana left: {mana}.").format(
                name=result["name"],
                target=result["target"],
                rank=result["rank"],
                paid=_wallet(result["paid"]),
                mana=_wallet(result["mana"]),
            )
        ]
    if isinstance(command, magic.ContributeMana):
        return [
            _("Put {items} into {action_id}; mana left: {wallet}.").format(
                items=", ".join(command.mana), action_id=command.action_id, wallet=_wallet(result["mana"])
            )
        ]
    if isinstance(command, magic.PayMana):
        return [
            _("Paid {cost} for {action_id}; mana left: {wallet}.").format(
                cost=result["cost"], action_id=command.action_id, wallet=_wallet(result["mana"])
            )
        ]
    if isinstance(command, world.AimAction):
        at = command.town_id or command.feature_id
        return [
            _("Aimed {action_id} to {aim} at {at}: difficulty {difficulty}.").format(
                action_id=command.action_id, aim=command.aim, at=at, difficulty=result["difficulty"]
            )
        ]
    if isinstance(command, (world.SpendInfluence, world.ShiftInfluence)):
        held = game.state.powers[command.power_id].influence
        if isinstance(command, world.SpendInfluence):
            what = _("Spent influence {influence} on {action_id}; influence now: {held}.")
            return [
                what.format(influence=_influence(command.amounts), action_id=command.action_id, held=_influence(held))
            ]
        shifts = ", ".join(_("{a} to {b}").format(a=a, b=b) for a, b in command.shifts)
        return [_("Shifted influence {shifts}; influence now: {held}.").format(shifts=shifts, held=_influence(held))]
    if isinstance(command, world.PayMaintenance):
        return [_("Paid the maintenance of {feature_id}.").format(feature_id=command.feature_id)]
    return None


def _influence(held: dict[str, int]) -> str:
    return ", ".join(_("{n} at {hex}").format(n=n, hex=h) for h, n in sorted(held.items()) if n) or _("none")


def _gm_lines(name: dict[str, str], command: Any, result: dict[str, Any]) -> list[str]:
    """What the reply says of a GM's wallet, fame, question, task or magic line."""
    if isinstance(command, dev.AdjustResources):
        changes = ", ".join(f"{n:+d} {resource}" for resource, n in command.changes.items())
        return [
            _("{name}: {changes} ({reason}).").format(
                name=name[command.power_id], changes=changes, reason=command.reason
            )
        ]
    if isinstance(command, dev.AwardFame):
        return [
            _("Awarded {name} {amount} fame ({reason}).").format(
                name=name[command.power_id], amount=command.amount, reason=command.reason
            )
        ]
    if isinstance(command, dev.AnswerQuestion):
        return [_("Answered {question_id}.").format(question_id=command.question_id)]
    if isinstance(command, dev.CompleteTask):
        return [
            _("Task {task_id} of {ambition_id} is done.").format(
                task_id=command.task_id, ambition_id=command.ambition_id
            )
        ]
    if isinstance(command, dev.LoseTask):
        return [
            _("Task {task_id} of {ambition_id} is lost ({reason}).").format(
                task_id=command.task_id, ambition_id=command.ambition_id, reason=command.reason
            )
        ]
    if isinstance(command, magic.GrantMana):
        held = _wallet(result["mana"])
        return [
            _("Granted {name} {amount} {element}: it holds {held}.").format(
                name=name[command.power_id], amount=command.amount, element=command.element, held=held
            )
        ]
    if isinstance(command, magic.ChannelMana):
        return [
            _("Channelled {amount} {element} into {action_id}.").format(
                amount=command.amount, element=command.element, action_id=command.action_id
            )
        ]
    if isinstance(command, magic.TeachSpell):
        return [_("Taught {spell_id} to {name}.").format(spell_id=command.spell_id, name=name[command.power_id])]
    if isinstance(command, world.SetClaim):
        return [
            _("{name} claims {town_id} ({reason}).").format(
                name=name[command.power_id], town_id=command.town_id, reason=command.reason
            )
        ]
    if isinstance(command, world.DropClaim):
        return [
            _("{name} no longer claims {town_id} ({reason}).").format(
                name=name[command.power_id], town_id=command.town_id, reason=command.reason
            )
        ]
    if isinstance(command, world.RevealFeature):
        return [_("Showed {feature_id} to {name}.").format(feature_id=command.feature_id, name=name[command.to])]
    return [_("{action_id} tries to dispel {ritual}.").format(action_id=command.action_id, ritual=command.ritual)]


def _assets(game: Game, me: str, picks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for pick in picks:
        ref = pick["ref"]
        mine = [
            x
            for x in game.state.assets.values()
            if me in x.holders and not x.used_up and (x.id == ref or x.name.lower() == ref.lower())
        ]
        if not mine:
            raise RuleViolation(_("you hold no asset {ref!r}").format(ref=ref), rule="P-ASSET-1", field="assets")
        out.append({"asset_id": sorted(mine, key=lambda x: x.id)[0].id, "mode": pick["mode"]})
    return out


# ---------------------------------------------------------------------- the catalogue's and the armies' lines
# (domain/powers/catalogue_commands.py, domain/powers/armies.py): duels, seeking, joining an action, free
# actions, reactions that are not resistances, a collaborator's consequence, the armies' aims and upkeep; the
# GM's dice, asset terms and quota perks.

MORE_PLAYER = {"duel", "seek", "join", "free", "reaction", "share", "army", "support"}
MORE_GM = {"dice", "terms", "quota"}
USAGE |= {
    "duel": "duel <power>|character <name> at <hex> [skill <skill>] [with <asset>, <asset>] [extra action] "
    "[convert <n>] [public]",
    "seek": "seek <hex> [broad] [named <name>] [with <asset>, <asset>] [extra action] [convert <n>] [public]",
    "join": "join <action> [with <asset>, <asset>] [convert <n>] [public]",
    "free": "free execute_agent|disband_levy <asset> [note <text>]",
    "reaction": "reaction extra <perk> [scheme <scheme>]; reaction <kind> [on <trigger>] [fee <n>] "
    "[with <asset>, <asset>] [convert <n>] [note <text>]",
    "share": "share accept <action> <consequence>; share secret <asset> with <power>",
    "army": "army muster|train|forge|levy|gather <action> [with <name> <value>, ...]; "
    "army levelup|discard|disband <army>; army choose <army> <bonus>[, keyword <keyword>] [class <class>]; "
    "army scars keep|heal <army>; army fee <army> [coin|<resource>]",
    "support": "support <n> <resource>[, <n> <resource>]",
    "dice": "dice <NdX>|<purpose> [for <power>] [public]",
    "terms": "terms <asset> <name> <value>[, <name> <value>]",
    "quota": "quota <power> <perk> on|off",
}
DICE = re.compile(r"^\d*d\d+$", re.IGNORECASE)
_LineParser = Callable[[list[str], str, int, list[LineError]], "dict[str, Any] | None"]
ARMY_OWN = {"levelup", "discard", "disband", "fee"}


def _pool_tail(
    rest: str, number: int, errors: list[LineError], extra: bool = False
) -> tuple[str, dict[str, Any]] | None:
    """A line's trailing ``[with <asset>, <asset>] [extra action] [convert <n>] [public]`` (``extra action``, P-ACT-2,
    only where the command takes one): what comes before it, and the pool."""
    pool: dict[str, Any] = {"assets": [], "convert": 0, "slot": "private", "extra_actions": 0}
    m = re.search(r"\s+public\s*$", rest, re.IGNORECASE)
    if m:
        pool["slot"], rest = "public", rest[: m.start()]
    m = re.search(r"\s+convert\s+(\S+)\s*$", rest, re.IGNORECASE)
    if m:
        n = whole(m.group(1), number, errors, "convert")
        if n is None:
            return None
        pool["convert"], rest = n, rest[: m.start()]
    m = EXTRA_ACTION.search(rest) if extra else None
    if m:
        pool["extra_actions"], rest = 1, rest[: m.start()]
    m = re.search(r"(?:^|\s+)with\s+(.+)$", rest, re.IGNORECASE)
    if m:
        refs = items(m.group(1))
        if not all(_fits("assets", r, number, errors) for r in refs):
            return None
        pool["assets"], rest = [{"ref": r, "mode": "normal"} for r in refs], rest[: m.start()]
    return rest.strip(), pool


def _more(verb: str, rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """A line of the catalogue or of the armies: its fields, which the rules then check."""
    words = rest.split()
    if verb in LATE_PLAYER or verb in LATE_GM:
        return _late(verb, words, rest, number, errors)
    if verb in ARMY_GM:
        return _army_gm(verb, words, rest, number, errors)
    if verb in ITEM_PLAYER or verb in ITEM_GM:
        return _item_line(verb, rest, number, errors)
    parse = _MORE_LINES.get(verb)
    return parse(words, rest, number, errors) if parse is not None else None


def _sub(words: list[str]) -> str:
    """A line's first word after its verb, in lower case: the sub-command of ``perk grant``, ``army train``."""
    return words[0].lower() if words else ""


def _duel_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    split = _pool_tail(rest, number, errors, extra=True)
    if split is None:
        return None
    head, pool = split
    m = re.match(r"^(?P<target>.+?)\s+at\s+(?P<at>\S+)(?:\s+skill\s+(?P<skill>.+))?$", head, re.IGNORECASE)
    if m and all(_fits("reference", v, number, errors) for v in m.groups() if v):
        target, character = m.group("target"), False
        if target.lower().startswith("character "):
            target, character = target.split(None, 1)[1], True
        return {"target": target, "character": character, "location": m.group("at"), "skill": m.group("skill")} | pool
    return None


def _seek_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    split = _pool_tail(rest, number, errors, extra=True)
    if split is None:
        return None
    head, pool = split
    m = re.match(r"^(?P<hex>\S+)(?P<broad>\s+broad)?(?:\s+named\s+(?P<named>.+))?$", head, re.IGNORECASE)
    if m and all(_fits("reference", v, number, errors) for v in (m.group("hex"), m.group("named") or "")):
        return {"hex": m.group("hex"), "broad": bool(m.group("broad")), "named": m.group("named"), **pool}
    return None


def _join_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    split = _pool_tail(rest, number, errors)
    if split is None:
        return None
    head, pool = split
    if len(head.split()) == 1 and _fits("reference", head, number, errors):
        return {"action_id": head, **pool}
    return None


def _free_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if len(words) < 2:
        return None
    m = re.match(r"^(?P<kind>\S+)\s+(?P<asset>.+?)(?:\s+note\s+(?P<note>.+))?$", rest, re.IGNORECASE)
    if (
        m
        and _fits("reference", m.group("asset"), number, errors)
        and _fits("note", m.group("note") or "", number, errors)
    ):
        return {"kind": m.group("kind").lower(), "asset": m.group("asset"), "note": m.group("note") or ""}
    return None


def _reaction_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if _sub(words) == "extra":
        m = re.match(r"^extra\s+(?P<perk>\S+)(?:\s+scheme\s+(?P<scheme>.+))?$", rest, re.IGNORECASE)
        if m and _fits("reference", m.group("scheme") or "", number, errors):
            return {"extra": m.group("perk"), "scheme": m.group("scheme")}
        return None
    if not words:
        return None
    head, *noted = re.split(r"\s+note\s+", rest, maxsplit=1, flags=re.IGNORECASE)
    note = noted[0] if noted else ""
    split = _pool_tail(head, number, errors)
    if split is None:
        return None
    head, pool = split
    m = re.match(r"^(?P<kind>\S+)(?:\s+on\s+(?P<trigger>\S+))?(?:\s+fee\s+(?P<fee>\S+))?$", head, re.IGNORECASE)
    if m and _fits("note", note, number, errors):
        fee = whole(m.group("fee"), number, errors, _("the fee")) if m.group("fee") else None
        if fee is None and m.group("fee"):
            return None
        return {
            "kind": m.group("kind").lower(),
            "trigger": m.group("trigger"),
            "fee": fee,
            "note": note,
            "assets": pool["assets"],
            "convert": pool["convert"],
        }
    return None


def _share_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if _sub(words) == "accept" and len(words) == 3:
        return {"action_id": words[1], "consequence": words[2]}
    if m := re.match(r"^secret\s+(?P<asset>.+?)\s+with\s+(?P<to>.+)$", rest, re.IGNORECASE):
        if _fits("reference", m.group("asset"), number, errors) and _fits("reference", m.group("to"), number, errors):
            return {"secret": m.group("asset"), "to": m.group("to")}
    return None


def _support_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if not rest:
        return None
    changes = _amounts(rest, number, errors, "support")
    return {"changes": changes} if changes is not None else None


def _dice_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if not words:
        return None
    m = re.match(r"^(?P<what>\S+)(?:\s+for\s+(?P<power>.+?))?(?P<public>\s+public)?$", rest, re.IGNORECASE)
    if m and all(_fits("reference", v, number, errors) for v in (m.group("what"), m.group("power") or "")):
        what = m.group("what")
        dice, purpose = (what.lower(), None) if DICE.match(what) else (None, what)
        return {"dice": dice, "purpose": purpose, "power": m.group("power"), "public": bool(m.group("public"))}
    return None


def _terms_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if len(words) >= 3 and _fits("reference", words[0], number, errors):
        terms = _params(rest.split(None, 1)[1], number, errors)
        return {"asset": words[0], "terms": terms} if terms else None
    return None


def _quota_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if len(words) == 3 and words[2].lower() in ("on", "off"):
        return {"power": words[0], "perk": words[1], "value": words[2].lower() == "on"}
    return None


def _army_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    sub = _sub(words)
    if sub in ARMY_AIMS and len(words) >= 2 and _fits("reference", words[1], number, errors):
        m = re.match(r"^\S+\s+\S+(?:\s+with\s+(?P<params>.+))?$", rest, re.IGNORECASE)
        if m is None:
            return None
        params = _params(m.group("params"), number, errors) if m.group("params") else {}
        return {"how": "aim", "kind": sub, "action": words[1], "params": params}
    if sub in ARMY_OWN and len(words) in (2, 3) and (sub == "fee" or len(words) == 2):
        return {"how": sub, "army": words[1], "resource": words[2].lower() if len(words) == 3 else "coin"}
    if sub == "scars" and len(words) == 3 and words[1].lower() in ("keep", "heal"):
        return {"how": "scars", "army": words[2], "keep": words[1].lower() == "keep"}
    if sub == "choose" and len(words) >= 3:
        m = re.match(r"^choose\s+(?P<army>\S+)\s+(?P<choices>.+?)(?:\s+class\s+(?P<cls>\S+))?$", rest, re.IGNORECASE)
        if m:
            choices: list[Any] = []
            for item in items(m.group("choices")):
                kind, _sep, keyword = item.partition(" ")
                choices.append({"bonus": "keyword", "keyword": keyword.strip()} if kind == "keyword" else item)
            return {"how": "choose", "army": m.group("army"), "choices": choices, "new_class": m.group("cls")}
    return None


# The fields of each catalogue or armies line, by its verb.
_MORE_LINES: dict[str, _LineParser] = {
    "duel": _duel_line,
    "seek": _seek_line,
    "join": _join_line,
    "free": _free_line,
    "reaction": _reaction_line,
    "share": _share_line,
    "army": _army_line,
    "support": _support_line,
    "dice": _dice_line,
    "terms": _terms_line,
    "quota": _quota_line,
}


def _army(game: Game, me: str, ref: str) -> str:
    """One of the seat's armies by id or name; another is passed on as written, for the rules to refuse."""
    for aid, army in game.state.armies.armies.items():
        if ref.lower() in (aid.lower(), str(army.get("name", "")).lower()) and army.get("controller") == me:
            return str(aid)
    return ref


def _asset_ref(game: Game, ref: str) -> str:
    for x in game.state.assets.values():
        if ref.lower() in (x.id.lower(), x.name.lower()):
            return str(x.id)
    return ref


def _more_lines(game: Game, name: dict[str, str], command: Any, result: dict[str, Any]) -> list[str] | None:
    """What the reply says of a catalogue or armies line; None for another command."""
    late = _late_lines(game, name, command, result)
    if late is not None:
        return late
    army_gm = _army_gm_lines(game, name, command)
    if army_gm is not None:
        return army_gm
    item = _item_lines(game, name, command)
    if item is not None:
        return item
    if isinstance(command, (cc.SubmitDuel, cc.SubmitSeeking)):
        what = _("Seeking: difficulty {difficulty}.")
        if isinstance(command, cc.SubmitDuel):
            who = name.get(command.target, command.target)
            what = (
                _("Duel of {who}: difficulty {difficulty}.")
                if command.target_is_power
                else _("Duel of the character {who}: difficulty {difficulty}.")
            )
        else:
            who = ""
        said = what.format(who=who, difficulty=result.get("difficulty"))
        return [said, *_action_lines(game, result["action_id"])]
    if isinstance(command, cc.JoinAction):
        if not result:
            return [_("Joined {action_id}.").format(action_id=command.action_id)]
        got = _("Joined {action_id}: rolled {faces}, {successes}.")
        n = int(result.get("successes") or 0)
        won = ngettext("{n} success", "{n} successes", n).format(n=n)
        return [got.format(action_id=command.action_id, faces=result.get("faces"), successes=won)]
    if isinstance(command, cc.TakeFreeAction):
        return [_("Took the free action {kind} with {asset_id}.").format(kind=command.kind, asset_id=command.asset_id)]
    if isinstance(command, cc.GainExtraReaction):
        return [_("One more reaction this month, through {perk}.").format(perk=command.perk)]
    if isinstance(command, cc.UseReaction):
        shown = ", ".join(f"{k} {v}" for k, v in result.items() if k not in ("reaction_id", "kind"))
        used = (
            _("Used the reaction {kind} ({reaction_id}): {shown}.")
            if shown
            else _("Used the reaction {kind} ({reaction_id}).")
        )
        return [used.format(kind=command.kind, reaction_id=result.get("reaction_id"), shown=shown)]
    if isinstance(command, cc.AcceptShareConsequence):
        return [
            _("Accepted consequence {consequence_id} of your share in {action_id}.").format(
                consequence_id=command.consequence_id, action_id=command.action_id
            )
        ]
    return _army_lines(name, command, result)


def _army_lines(name: dict[str, str], command: Any, result: dict[str, Any]) -> list[str] | None:
    """What the reply says of an army's line, the GM's dice, terms and quota perks; None for another command."""
    if isinstance(command, armies.PaySupport):
        return [_("Paid support: {wallet}.").format(wallet=_wallet(command.changes))]
    if isinstance(command, armies.AimArmyAction):
        return [_("Aimed {action_id} to {kind}.").format(action_id=command.action_id, kind=command.kind)]
    if isinstance(command, armies.RollLevelUp):
        return [
            _("Level-up of {army_id} rolled {faces}: choose its bonuses.").format(
                army_id=command.army_id, faces=result["faces"]
            )
        ]
    if isinstance(command, armies.ChooseLevelUp):
        return [_("Level-up of {army_id} chosen.").format(army_id=command.army_id)]
    if isinstance(command, armies.DiscardTrain):
        return [_("Discarded the level-up of {army_id}.").format(army_id=command.army_id)]
    if isinstance(command, armies.KeepScars):
        kept = _("{army_id} keeps its scars.") if command.keep else _("{army_id} heals its scars.")
        return [kept.format(army_id=command.army_id)]
    if isinstance(command, armies.PayArmyFee):
        return [
            _("Paid the fee of {army_id} in {resource}.").format(army_id=command.army_id, resource=command.resource)
        ]
    if isinstance(command, armies.DisbandArmy):
        return [_("Disbanded {army_id}.").format(army_id=command.army_id)]
    if isinstance(command, cc.RollDice):
        return [
            _("Rolled {dice} (roll {roll_no}): {faces}.").format(
                dice=result["dice"], roll_no=result["roll_no"], faces=result["faces"]
            )
        ]
    if isinstance(command, cc.SetAssetTerms):
        return [_("Terms of {asset_id} set: {terms}.").format(asset_id=command.asset_id, terms=command.terms)]
    if isinstance(command, cc.ChangeQuotaPerk):
        quota = _("{name}: {perk} on.") if command.value else _("{name}: {perk} off.")
        return [quota.format(name=name[command.power_id], perk=command.perk)]
    return None


# ---------------------------------------------------------------------- the world's and development's other lines
# A Mercurial swap (P-INFL-4) and a Blighted Neighborhood's town (P.2.12); the GM's rulings of the map, magic,
# development and the catalogue that had no line before (issue 12's channels).

LATE_PLAYER = {"swap", "blight"}
LATE_GM = {
    "subtle",
    "mechanisms",
    "generate",
    "perk",
    "conduit",
    "locate",
    "dread",
    "pertarget",
    "consequence",
    "grimoire",
    "map",
    "offer",
    "record",
}
USAGE |= {
    "swap": "swap <hex> with <hex>",
    "blight": "blight <town>",
    "subtle": "subtle <action> in <stronghold> [overcome]",
    "mechanisms": "mechanisms <power> <mechanism>[, <mechanism>]",
    "generate": "generate <power> <mechanism> at <hex> rank <n>[ <n>]",
    "perk": "perk grant <power> <perk>[: <choice>]; perk nerf <power> <perk>[: <choice>] [for <reason>]; "
    "perk magic <power> <perk> [element <E>] [spells <spell>, <spell>]; "
    "perk define <name> group <group> [upgrade] [repeatable] [versus <perk>]",
    "conduit": "conduit set <power> <id> at <hex> [kind <kind>] [tower] [capitol]: <name>; conduit remove <power> <id>",
    "grimoire": "grimoire <id> fast|slow|ritual <cost> [range <n>] [difficulty <n>] [permanent|temporary] [specific] "
    "[for <power>]: <name>",
    "locate": "locate <power> <hex>",
    "record": "record influence <power> <n> at <hex>",
    "map": 'map declare|amend <JSON object>, e.g. map amend {"hexes": [{"hex": "5,0", "terrain": "coast"}]}',
    "offer": "offer <power> minor|major <fame> fame, <n> central[, type <type>]: <name>; <task>; !<central task>; "
    "?<mysterious task>[; reward <n> <resource>, ...][; reward text <words>][; compensation <n> <resource>, ...]",
    "dread": "dread <power> <units>",
    "pertarget": "pertarget <action>",
    "consequence": "consequence <action> for <power>: <text> (a collaborator's); "
    "consequence <action>|<reaction>: <text>",
}
GENERATE = re.compile(
    r"^(?P<power>.+?)\s+(?P<mechanism>\S+)\s+at\s+(?P<hex>\S+)\s+rank\s+(?P<ranks>.+)$", re.IGNORECASE
)
PERK_DEFINE = re.compile(
    r"^define\s+(?P<name>.+?)\s+group\s+(?P<group>\S+)(?P<flags>(?:\s+(?:upgrade|repeatable))*)"
    r"(?:\s+versus\s+(?P<versus>.+))?$",
    re.IGNORECASE,
)
CONDUIT_SET = re.compile(
    r"^set\s+(?P<power>\S+)\s+(?P<id>\S+)\s+at\s+(?P<hex>\S+)(?:\s+kind\s+(?P<kind>\S+))?"
    r"(?P<flags>(?:\s+(?:tower|capitol))*)\s*:\s*(?P<name>.+)$",
    re.IGNORECASE,
)
SPELL = re.compile(r"^(?P<id>\S+)\s+(?P<speed>\S+)\s+(?P<cost>\S+)(?P<opts>[^:]*):\s*(?P<name>.+)$", re.IGNORECASE)
OFFER = re.compile(
    r"^(?P<power>.+?)\s+(?P<kind>minor|major)\s+(?P<fame>\S+)\s+fame,\s*(?P<n>\S+)\s+central"
    r"(?:,\s*type\s+(?P<type>\S+))?\s*:\s*(?P<rest>.+)$",
    re.IGNORECASE,
)
PERK_MAGIC = re.compile(
    r"^magic\s+(?P<power>\S+)\s+(?P<perk>\S+)(?:\s+element\s+(?P<element>\S+))?(?:\s+spells\s+(?P<spells>.+))?$",
    re.IGNORECASE,
)


def _late(verb: str, words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """A line of a Mercurial swap, a blighted town, or a GM's ruling: its fields, which the rules then check."""
    parse = _LATE_LINES.get(verb)
    return parse(words, rest, number, errors) if parse is not None else None


def _swap_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if len(words) == 3 and words[1].lower() == "with":
        return {"a": words[0], "b": words[2]}
    return None


def _blight_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if rest and _fits("reference", rest, number, errors):
        return {"town": rest}
    return None


def _subtle_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    m = re.match(r"^(?P<action>\S+)\s+in\s+(?P<feature>.+?)(?P<overcome>\s+overcome)?$", rest, re.IGNORECASE)
    if m and _fits("reference", m.group("feature"), number, errors):
        return {"action_id": m.group("action"), "feature": m.group("feature"), "overcome": bool(m.group("overcome"))}
    return None


def _mechanisms_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if len(words) >= 2:
        return {"power": words[0], "mechanisms": [m.lower() for m in items(rest.split(None, 1)[1])]}
    return None


def _generate_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if m := GENERATE.match(rest):
        ranks = [whole(r, number, errors, _("a rank")) for r in m.group("ranks").split()]
        if all(r is not None for r in ranks):
            return {"power": m.group("power"), "mechanism": m.group("mechanism").lower(), "hex": m.group("hex")} | {
                "ranks": ranks
            }
    return None


def _perk_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    sub = _sub(words)
    if sub in ("grant", "nerf") and len(words) >= 3:
        body, _sep, reason = (
            rest.split(None, 2)[2].partition(" for ") if sub == "nerf" else (rest.split(None, 2)[2], "", "")
        )
        name, _sep, detail = body.partition(":")
        if _fits("reference", name.strip(), number, errors) and _fits("detail", detail.strip(), number, errors):
            if _fits("reason", reason.strip(), number, errors):
                return {"how": sub, "power": words[1], "name": name.strip(), "detail": detail.strip()} | {
                    "reason": reason.strip()
                }
        return None
    if sub == "define" and (m := PERK_DEFINE.match(rest)):
        flags = (m.group("flags") or "").lower().split()
        if _fits("reference", m.group("name"), number, errors):
            return {"how": "define", "name": m.group("name").strip(), "group": m.group("group").lower()} | {
                "upgrade": "upgrade" in flags,
                "repeatable": "repeatable" in flags,
                "versus": (m.group("versus") or "").strip() or None,
            }
        return None
    if sub == "magic" and (m := PERK_MAGIC.match(rest)):
        spells = items(m.group("spells")) if m.group("spells") else []
        return {"how": "magic", "power": m.group("power"), "perk": m.group("perk").lower()} | {
            "element": m.group("element"),
            "spells": spells,
        }
    return None


def _conduit_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    sub = _sub(words)
    if sub == "remove" and len(words) == 3:
        return {"power": words[1], "conduit": words[2]}
    if sub == "set" and (m := CONDUIT_SET.match(rest)):
        flags = (m.group("flags") or "").lower().split()
        if _fits("reference", m.group("name"), number, errors):
            return {"how": "set", "power": m.group("power"), "conduit": m.group("id"), "hex": m.group("hex")} | {
                "kind": (m.group("kind") or "person").lower(),
                "tower": "tower" in flags,
                "capitol": "capitol" in flags,
                "name": m.group("name").strip(),
            }
    return None


def _grimoire_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    m = SPELL.match(rest)
    if not m:
        return None
    opts = (m.group("opts") or "").split()
    out: dict[str, Any] = {"spell_id": m.group("id"), "speed": m.group("speed").lower(), "cost": m.group("cost")}
    out |= {"name": m.group("name").strip(), "range": 0, "difficulty": None, "permanent": None}
    out |= {"power_specific": False, "for_power": None}
    while opts:
        word = opts.pop(0).lower()
        if word in ("range", "difficulty", "for") and opts:
            value = opts.pop(0)
            if word == "for":
                out["for_power"] = value
                continue
            n = whole(value, number, errors, f"the {word}")
            if n is None:
                return None
            out[word] = n
        elif word in ("permanent", "temporary"):
            out["permanent"] = word == "permanent"
        elif word == "specific":
            out["power_specific"] = True
        else:
            return None
    return out if _fits("reference", out["name"], number, errors) else None


def _map_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    sub = _sub(words)
    if sub not in ("declare", "amend") or len(words) <= 1:
        return None
    try:
        value = json.loads(rest.split(None, 1)[1])
    except json.JSONDecodeError as err:
        errors.append(LineError(number, _("map {sub} takes a JSON object: {msg}").format(sub=sub, msg=err.msg)))
        return None
    except RecursionError:
        errors.append(LineError(number, _("map {sub} takes a JSON object, not one nested this deep").format(sub=sub)))
        return None
    keys = ("hexes", "towns", "features") + (("remove",) if sub == "amend" else ())
    if not isinstance(value, dict) or set(value) - set(keys):
        errors.append(
            LineError(
                number, _("map {sub} takes a JSON object of {items}").format(sub=sub, items=", ".join(keys)), "P-ACT-4"
            )
        )
        return None
    return {"how": sub, "map": value}


def _offer_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    m = OFFER.match(rest)
    if not m:
        return None
    fame, required = (
        whole(m.group("fame"), number, errors, _("the fame")),
        whole(m.group("n"), number, errors, "central"),
    )
    if fame is None or required is None:
        return None
    name, *tasks = [t.strip() for t in m.group("rest").split(";")]
    split = _offer_tasks(tasks, number, errors)
    if split is None:
        return None
    parsed, texts, terms = split
    if _fits("title", name, number, errors) and all(_fits("title", t, number, errors) for t in texts):
        if not _fits("reason", terms["reward_text"], number, errors):
            return None
        return {"power": m.group("power"), "kind": m.group("kind").lower(), "fame": fame, "required": required} | {
            "type": m.group("type") or "",
            "name": name,
            "tasks": parsed,
            **terms,
        }
    return None


def _offer_tasks(
    tasks: list[str], number: int, errors: list[LineError]
) -> tuple[list[dict[str, Any]], list[str], dict[str, Any]] | None:
    """An offer's tasks (``!`` central, ``?`` mysterious), their texts, and its reward and compensation terms."""
    parsed: list[dict[str, Any]] = []
    texts: list[str] = []
    terms: dict[str, Any] = {"reward": {}, "reward_text": "", "compensation": {}}
    for t in tasks:
        term = re.match(r"^(?P<key>reward text|reward|compensation)\s+(?P<value>.+)$", t, re.IGNORECASE)
        if term and term.group("key").lower() == "reward text":
            terms["reward_text"] = term.group("value").strip()
            continue
        if term:  # GM-11 [003:190]: the resources its completion rewards, or its taking compensates
            amounts = _amounts(term.group("value"), number, errors, term.group("key").lower())
            if amounts is None:
                return None
            terms[term.group("key").lower()] = amounts
            continue
        central = mysterious = False
        while t[:1] in ("!", "?"):
            central, mysterious = central or t[0] == "!", mysterious or t[0] == "?"
            t = t[1:].strip()
        if t:
            parsed.append({"text": t, "central": central, "mysterious": mysterious})
            texts.append(t)
    return parsed, texts, terms


def _record_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if _sub(words) == "influence" and (
        m := re.match(r"^influence\s+(?P<power>.+?)\s+(?P<n>\S+)\s+at\s+(?P<hex>\S+)$", rest, re.IGNORECASE)
    ):
        n = whole(m.group("n"), number, errors, _("the influence"))
        return {"power": m.group("power"), "amount": n, "hex": m.group("hex")} if n is not None else None
    return None


def _locate_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    return {"power": words[0], "hex": words[1]} if len(words) == 2 else None


def _dread_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if len(words) == 2:
        units = whole(words[1], number, errors, _("the units"))
        return {"power": words[0], "units": units} if units is not None else None
    return None


def _pertarget_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    return {"action_id": words[0]} if len(words) == 1 else None


def _consequence_line(words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    if m := re.match(r"^(?P<action>\S+)\s+for\s+(?P<power>[^:]+?)\s*:\s*(?P<text>.+)$", rest, re.IGNORECASE):
        if _fits("reason", m.group("text"), number, errors):
            return {"action_id": m.group("action"), "power": m.group("power"), "text": m.group("text")}
    if m := re.match(r"^(?P<action>[^\s:]+)\s*:\s*(?P<text>.+)$", rest):
        if _fits("reason", m.group("text"), number, errors):  # GM-3; a resister's, P-AMB-6
            return {"action_id": m.group("action"), "power": None, "text": m.group("text")}
    return None


# The fields of each line of LATE_PLAYER and LATE_GM, by its verb.
_LATE_LINES: dict[str, _LineParser] = {
    "swap": _swap_line,
    "blight": _blight_line,
    "subtle": _subtle_line,
    "mechanisms": _mechanisms_line,
    "generate": _generate_line,
    "perk": _perk_line,
    "conduit": _conduit_line,
    "grimoire": _grimoire_line,
    "map": _map_line,
    "offer": _offer_line,
    "record": _record_line,
    "locate": _locate_line,
    "dread": _dread_line,
    "pertarget": _pertarget_line,
    "consequence": _consequence_line,
}


def _late_command(game: Game, me: str, a: dict[str, Any], verb: str) -> Any:
    """The typed command of a Mercurial swap, a blighted town, or a GM's ruling."""
    if verb == "swap":
        return world.MercurialSwap(me, a["a"], a["b"])
    if verb == "blight":
        town, _feature = _place(game, a["town"])
        return cc.ChooseBlightedTown(me, town or a["town"])
    if verb == "subtle":
        _town, feature = _place(game, a["feature"])
        return world.RuleSubtle(a["action_id"], feature or a["feature"], overcome=a["overcome"])
    if verb == "mechanisms":
        return world.SetMechanisms(_power(game, a["power"], "power_id"), a["mechanisms"])
    if verb == "generate":
        return world.GenerateInfluence(_power(game, a["power"], "power_id"), a["mechanism"], a["hex"], a["ranks"])
    if verb == "perk" and a["how"] == "define":
        return dev.DefinePerk(a["name"], a["group"], a["upgrade"], a["repeatable"], a["versus"])
    if verb == "perk" and a["how"] == "magic":
        return magic.GrantMagicPerk(_power(game, a["power"], "power_id"), a["perk"], a["element"], a["spells"])
    if verb == "perk":
        power = _power(game, a["power"], "power_id")
        if a["how"] == "grant":
            return dev.GrantPerk(power, a["name"], a["detail"])
        return dev.NerfPerk(power, a["name"], a["detail"], a["reason"])
    if verb == "conduit" and a.get("how") == "set":
        return magic.SetConduit(
            _power(game, a["power"], "power_id"),
            a["name"],
            a["hex"],
            a["kind"],
            conduit_id=a["conduit"],
            tower=a["tower"],
            capitol=a["capitol"],
        )
    if verb == "conduit":
        return magic.RemoveConduit(_power(game, a["power"], "power_id"), a["conduit"])
    if verb == "grimoire":
        for_power = _power(game, a["for_power"], "for_power") if a["for_power"] else None
        return magic.DefineSpell(
            a["spell_id"],
            a["name"],
            a["speed"],
            a["cost"],
            a["range"],
            a["difficulty"],
            a["power_specific"],
            a["permanent"],
            for_power,
        )
    if verb == "map" and a["how"] == "declare":
        return world.DeclareMap(**{"hexes": [], **a["map"]})
    if verb == "map":
        return world.AmendMap(**a["map"])
    if verb == "offer":
        power = _power(game, a["power"], "power_id")
        return dev.OfferAmbition(
            power,
            a["name"],
            a["kind"],
            a["fame"],
            a["required"],
            a["tasks"],
            type=a["type"],
            reward=a["reward"],
            reward_text=a["reward_text"],
            compensation=a["compensation"],
        )
    if verb == "record":
        return pc.SetInfluence(_power(game, a["power"], "power_id"), a["hex"], a["amount"])
    if verb == "locate":
        return cc.RecordLocation(_power(game, a["power"], "power_id"), a["hex"])
    if verb == "dread":
        return cc.DreadGrowth(_power(game, a["power"], "power_id"), a["units"])
    if verb == "pertarget":
        return cc.RulePerTarget(a["action_id"])
    if a["power"] is None and a["action_id"] in game.state.reactions:
        return pc.ProposeReactionConsequence(a["action_id"], a["text"])
    if a["power"] is None:
        return pc.ProposeConsequence(a["action_id"], a["text"])
    return cc.ProposeShareConsequence(a["action_id"], _power(game, a["power"], "power_id"), a["text"])


def _late_lines(game: Game, name: dict[str, str], command: Any, result: dict[str, Any]) -> list[str] | None:
    """What the reply says of those lines; None for another command."""
    if isinstance(command, world.MercurialSwap):
        held = game.state.powers[command.power_id].influence
        return [
            _("Swapped your influence between {a} and {b}; influence now: {influence}.").format(
                a=command.a, b=command.b, influence=_influence(held)
            )
        ]
    if isinstance(command, cc.ChooseBlightedTown):
        return [_("Your Blighted Neighborhood blights {town_id}.").format(town_id=command.town_id)]
    if isinstance(command, world.RuleSubtle):
        subtle = (
            _("{action_id} targets inside {feature_id} by subtle means (its protection overcome).")
            if command.overcome
            else _("{action_id} targets inside {feature_id} by subtle means.")
        )
        return [subtle.format(action_id=command.action_id, feature_id=command.feature_id)]
    if isinstance(command, world.SetMechanisms):
        by = ", ".join(command.mechanisms) or _("nothing")
        return [_("{name} generates influence by {mechanisms}.").format(name=name[command.power_id], mechanisms=by)]
    if isinstance(command, world.GenerateInfluence):
        return [
            _("{name}'s {mechanism} generated influence at {hex_id}.").format(
                name=name[command.power_id], mechanism=command.mechanism, hex_id=command.hex_id
            )
        ]
    if isinstance(command, dev.GrantPerk):
        return [_("Granted {name} the starting perk {perk}.").format(name=name[command.power_id], perk=command.name)]
    if isinstance(command, dev.NerfPerk):
        return [
            _("Nerfed {name}'s {perk}: they keep, refund or swap it.").format(
                name=name[command.power_id], perk=command.name
            )
        ]
    if isinstance(command, dev.DefinePerk):
        return [_("Defined the perk {name} ({group}).").format(name=command.name, group=command.group)]
    if isinstance(command, magic.GrantMagicPerk):
        return [_("Granted {name} the magic perk {perk}.").format(name=name[command.power_id], perk=command.perk)]
    if isinstance(command, magic.SetConduit):
        return [
            _("{name} casts through {conduit} ({conduit_id}) at {hex_id}.").format(
                name=name[command.power_id],
                conduit=command.name,
                conduit_id=result.get("conduit_id"),
                hex_id=command.hex_id,
            )
        ]
    return _late_gm_lines(name, command, result)


def _late_gm_lines(name: dict[str, str], command: Any, result: dict[str, Any]) -> list[str] | None:
    """What the reply says of the GM's later lines of spells, the map, ambitions, influence and consequences."""
    if isinstance(command, magic.DefineSpell):
        return [
            _("Defined the {speed} spell {name} ({spell_id}), cost {cost}.").format(
                speed=command.speed, name=command.name, spell_id=command.spell_id, cost=command.cost
            )
        ]
    if isinstance(command, (world.DeclareMap, world.AmendMap)):
        done = (
            _("Declared the map: {hexes} hexes, {towns} towns, {features} features.")
            if isinstance(command, world.DeclareMap)
            else _("Amended the map: {hexes} hexes, {towns} towns, {features} features.")
        )
        return [done.format(hexes=len(command.hexes), towns=len(command.towns), features=len(command.features))]
    if isinstance(command, dev.OfferAmbition):
        return [
            _("Offered {name} the {kind} ambition {ambition} ({ambition_id}).").format(
                name=name[command.power_id], kind=command.kind, ambition=command.name, ambition_id=result["ambition_id"]
            )
        ]
    if isinstance(command, pc.SetInfluence):
        return [
            _("{name} has {amount} influence at {hex_id}.").format(
                name=name[command.power_id], amount=command.amount, hex_id=command.hex_id
            )
        ]
    if isinstance(command, magic.RemoveConduit):
        return [
            _("{name} no longer casts through {conduit_id}.").format(
                name=name[command.power_id], conduit_id=command.conduit_id
            )
        ]
    if isinstance(command, cc.RecordLocation):
        return [_("{name}'s champion is at {hex_id}.").format(name=name[command.power_id], hex_id=command.hex_id)]
    if isinstance(command, cc.DreadGrowth):
        return [
            _("{name}'s army grows by {gain} to {units} units.").format(
                name=name[command.power_id], gain=result["gain"], units=result["units"]
            )
        ]
    if isinstance(command, cc.RulePerTarget):
        return [_("Each target of {action_id} resists only its own share.").format(action_id=command.action_id)]
    if isinstance(command, cc.ProposeShareConsequence):
        return [
            _("Offered {name} consequence {consequence_id} of {action_id}.").format(
                name=name[command.power_id], consequence_id=result["consequence_id"], action_id=command.action_id
            )
        ]
    if isinstance(command, (pc.ProposeConsequence, pc.ProposeReactionConsequence)):
        if isinstance(command, pc.ProposeConsequence):
            offered = _("Offered consequence {consequence_id} of {action_id}.")
            return [offered.format(consequence_id=result["consequence_id"], action_id=command.action_id)]
        offered = _("Offered consequence {consequence_id} of reaction {reaction_id}.")
        return [offered.format(consequence_id=result["consequence_id"], reaction_id=command.reaction_id)]
    return None


MORE_PLAYER |= LATE_PLAYER
MORE_GM |= LATE_GM
FEATURE_VERBS |= MORE_PLAYER | MORE_GM
VERBS |= MORE_PLAYER | MORE_GM
GM_ONLY |= MORE_GM


# ---------------------------------------------------------------------- battles (domain/powers/battle.py)
# One line each, for the sender's battle in progress (README "Playing by email", battles):
BATTLE_VERBS = {"declare", "setup", "deploy", "spell", "command", "surrender", "retreat"}
USAGE |= {
    "declare": "declare battle at <hex> against <power>[, <power>] [with <ally>, <ally>]",
    "setup": "setup <army>[, <army>] [goals <goal>[, <goal>]] [reinforcements <army>, ...] [reveal <asset>, ...] "
    "[orders <army> <command> [target] [goal], ...] [champion]; a goal is <name>[; threshold <n>][; attacker <n>]"
    "[; defender <n>][; attacker reward <reward>][; defender reward <reward>], a reward remove, remove next round "
    "or your words; an order (P-BAT-3) slay <target>, hold <goal>, charge <target> <goal> or rest",
    "deploy": "deploy <army>[, <army>] | deploy none",
    "spell": "spell <spell> [on <army>] [pay <mana>, ...] | spell none",
    "command": "command <army> slay|hold|charge|rest [target] [goal] [with <option>, ...] [damage <type>] "
    "[allocate <unit>, ...] [restore <momentum>] [pass <army>]; command <army> special <name>",
    "surrender": "surrender offer <terms> | surrender pass | surrender accept | surrender decline",
    "retreat": "retreat <army>[, <army>] | retreat none | retreat rout <army> <unit>[, <unit>]",
}
SETUP = re.compile(
    r"^(?P<armies>.*?)(?:\s+goals\s+(?P<goals>.+?))?(?:\s+reinforcements\s+(?P<reinf>.+?))?"
    r"(?:\s+reveal\s+(?P<assets>.+?))?(?:\s+orders\s+(?P<orders>.+?))?(?P<champion>\s+champion)?$",
    re.IGNORECASE,
)


def _battle_line(verb: str, rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """A battle line: its fields, which the battle then checks."""
    words = rest.split()
    sub = words[0].lower() if words else ""
    if not all(_fits("reference", w, number, errors) for w in words if len(w) > 0) and verb != "surrender":
        return None
    if verb == "declare" and (
        m := re.match(
            r"^battle\s+at\s+(?P<hex>\S+)\s+against\s+(?P<enemies>.+?)(?:\s+with\s+(?P<allies>.+))?$",
            rest,
            re.IGNORECASE,
        )
    ):
        return {"hex": m.group("hex"), "enemies": items(m.group("enemies")), "allies": items(m.group("allies") or "")}
    if verb == "setup" and rest and (m := SETUP.match(rest)):
        try:
            goals = [battle_goal(g) for g in items(m.group("goals") or "")]
        except RuleViolation as err:
            errors.append(LineError(number, err.message, err.rule))
            return None
        orders = [o.split() for o in items(m.group("orders") or "")]
        if any(len(o) < 2 for o in orders):
            errors.append(LineError(number, _("an order is <army> <command> [target] [goal]"), "P-BAT-3"))
            return None
        return {
            "armies": items(m.group("armies")),
            "goals": goals,
            "orders": [{"army": o[0], "command": o[1].lower(), "more": o[2:]} for o in orders],
            "reinforcements": items(m.group("reinf") or ""),
            "assets": items(m.group("assets") or ""),
            "champion": bool(m.group("champion")),
        }
    if verb == "deploy" and rest:
        return {"armies": [] if sub == "none" else items(rest)}
    if verb == "spell" and words:
        if sub == "none":
            return {"spell": None, "target": None}
        m = re.match(r"^(?P<spell>\S+)(?:\s+on\s+(?P<target>\S+))?(?:\s+pay\s+(?P<pay>.+))?$", rest, re.IGNORECASE)
        if not m:
            return None
        out = {"spell": m.group("spell"), "target": m.group("target")}
        return {**out, "pay": items(m.group("pay").replace(" ", ","))} if m.group("pay") else out
    if verb == "command" and len(words) >= 2:
        return _command_line(words, number, errors)
    if verb == "surrender" and sub in ("pass", "accept", "decline") and len(words) == 1:
        return {"how": sub}
    if verb == "surrender" and sub == "offer" and len(words) > 1:
        terms = rest.split(None, 1)[1].strip()
        return {"how": "offer", "terms": terms} if _fits("reason", terms, number, errors) else None
    if verb == "retreat" and sub == "rout" and len(words) >= 3:
        units = [whole(u, number, errors, _("a unit")) for u in items(rest.split(None, 2)[2])]
        if any(u is None for u in units):
            return None
        return {"retreat": [], "routs": {words[1]: units}}
    if verb == "retreat" and words:
        return {"retreat": [] if sub == "none" else items(rest), "routs": {}}
    return None


GOAL_CLAUSE = re.compile(
    r"^(?:(?P<key>threshold|attacker|defender)\s+(?P<n>\S+)|(?P<role>attacker|defender)\s+reward\s+(?P<reward>.+))$",
    re.IGNORECASE,
)


def battle_goal(text: str) -> dict[str, Any]:
    """A goal a side proposes, as a mail's setup line and the web's setup form write it (P-BAT-8, P-EX-12):
    ``<name>[; threshold <n>][; attacker <n>][; defender <n>][; attacker reward <reward>][; defender reward
    <reward>]``, a reward ``remove``, ``remove next round`` or the side's own words for the GM to rule. A clause
    read otherwise is refused naming the field; the battle checks the values (``battle_setup.clean_goal``)."""
    name, *clauses = [c.strip() for c in text.split(";")]
    goal: dict[str, Any] = {"name": name}
    for clause in clauses:
        m = GOAL_CLAUSE.match(clause)
        key = (m.group("key") or m.group("role")).lower() if m else ""
        if m is None or key in (goal if m.group("key") else goal.get("rewards", {})):
            raise RuleViolation(
                _(
                    "goals: write a goal as 'name; threshold 3; attacker 4; defender 2; attacker reward remove; "
                    "defender reward remove next round', not {clause}"
                ).format(clause=repr(clause)),
                rule="P-BAT-8",
                field="goals",
            )
        if m.group("n") is not None:
            try:
                goal[key] = int(m.group("n"))
            except ValueError:
                raise RuleViolation(
                    _("goals: a threshold is a whole number, not {value}").format(value=repr(m.group("n"))),
                    rule="P-BAT-8",
                    field="goals",
                ) from None
        else:
            reward = m.group("reward").strip()
            known = reward.lower().replace(" ", "_")
            goal.setdefault("rewards", {})[key] = known if known in (br.REMOVE, br.REMOVE_NEXT_ROUND) else reward
    return goal


COMMAND_CLAUSES = ("with", "damage", "allocate", "restore", "pass")


def _command_line(words: list[str], number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """``command <army> <command> [target] [goal]`` and its clauses: ``with`` attack options (P-BAT-2), ``damage``
    a type (P-BAT-5), ``allocate`` Bloodlust's units (P-BAT-6), ``restore`` Shieldbearers' momentum (P-BAT-3),
    ``pass`` Supports' momentum to an ally (P-BAT-7)."""
    at = [i for i, w in enumerate(words) if i >= 2 and w.lower() in COMMAND_CLAUSES]
    base = words[: at[0]] if at else words
    if not 2 <= len(base) <= 4:
        return None
    out: dict[str, Any] = {"army": base[0], "command": base[1].lower(), "more": base[2:]}
    for k, i in enumerate(at):
        key = words[i].lower()
        value = " ".join(words[i + 1 : at[k + 1] if k + 1 < len(at) else len(words)])
        if not value or key in out:
            return None
        if key == "with":
            out["options"] = [o.lower() for o in items(value)]
        elif key == "allocate":
            units = [whole(u, number, errors, _("a unit")) for u in items(value)]
            if any(u is None for u in units):
                return None
            out["allocation"] = units
        elif key == "restore":
            n = whole(value, number, errors, "momentum")
            if n is None:
                return None
            out["restore"] = n
        elif " " in value:
            return None
        else:
            out[key] = value.lower() if key == "damage" else value
    return out


def _my_battle(game: Game, me: str) -> dict[str, Any]:
    """The sender's battle in progress (a power fights one battle at a time: one per hex it stands in)."""
    mine = [b for b in game.active_battles() if me in game._powers_of(b)]
    if not mine:
        raise NotFound(_("you are in no battle now"), field="battle_id")
    waiting = [b for b in mine if me in game.battle_pending(b)]
    battle: dict[str, Any] = (waiting or mine)[0]
    return battle


def _battle_command(game: Game, me: str, cmd: Command) -> Any:
    from domain.powers import battle

    a, verb = cmd.args, cmd.verb
    if verb == "declare":
        s = game.state
        hex_id = a["hex"]
        enemies = [_power(game, e, "enemies") for e in a["enemies"]]
        allies = [_power(game, x, "allies") for x in a["allies"]]
        bid = f"s{s.season}m{s.month}-{hex_id.replace(',', '_').replace('-', 'm')}"
        return battle.DeclareBattle(bid, hex_id, me, enemies, allies)
    b = _my_battle(game, me)
    bid = b["id"]
    if verb == "setup":
        return battle.SubmitBattleSetup(
            bid,
            me,
            armies=[_army(game, me, x) for x in a["armies"]],
            goals=list(a["goals"]),
            standing={_army(game, me, o["army"]): _order(game, b, o["command"], o["more"]) for o in a["orders"]},
            assets=[_asset_ref(game, x) for x in a["assets"]],
            champion=a["champion"],
            reinforcements=[_army(game, me, x) for x in a["reinforcements"]],
        )
    if verb == "deploy":
        return battle.DeployArmies(bid, me, [_army(game, me, x) for x in a["armies"]])
    if verb == "spell":
        target = _battle_army(game, b, a["target"]) if a["target"] else None
        return battle.CastBattleSpell(bid, me, a["spell"], target, pay=a.get("pay"))
    if verb == "command":
        order = _order(game, b, a["command"], a["more"], special=True)
        army = _army(game, me, a["army"])
        return battle.GiveCommand(
            bid,
            me,
            army,
            a["command"],
            order["target"],
            order["goal"],
            special=order.get("special"),
            options=list(a.get("options", [])),
            damage=a.get("damage"),
            allocation=a.get("allocation"),
            restore=a.get("restore", 0),
            pass_to=_battle_army(game, b, a["pass"]) if a.get("pass") else None,
        )
    if verb == "surrender":
        if a["how"] in ("accept", "decline"):
            return battle.AnswerTerms(bid, me, a["how"] == "accept")
        return battle.OfferTerms(bid, me, a.get("terms"))
    routs = {_army(game, me, k): v for k, v in a["routs"].items()}
    return battle.RetreatArmies(bid, me, [_army(game, me, x) for x in a["retreat"]], routs)


def _order(game: Game, b: dict[str, Any], command: str, words: list[str], special: bool = False) -> dict[str, Any]:
    """A command's target (slay, charge: an army by id or name) and goal (hold, charge), or a special command's
    name, from the words after the command (P-BAT-3); the battle checks them."""
    out, more = order_parts(command, words, special)
    if more:
        usage = USAGE["command"] if special else "an order is <army> slay|hold|charge|rest [target] [goal]"
        raise RuleViolation(
            _("usage: {usage}").format(usage=usage), rule=None if special else "P-BAT-3", field="command"
        )
    if out["target"] is not None:  # a standing order's target may not be set up yet
        out["target"] = _any_army(game, _battle_army(game, b, out["target"]))
    return out


def order_parts(command: str, words: list[str], special: bool = False) -> tuple[dict[str, Any], list[str]]:
    """A command's target (slay, charge), goal (hold, charge) and, for a ``special`` command line, the special
    command's name, read from the words after the command as a mail's line and the web's setup form write them
    (P-BAT-3); and the words left over, which the caller refuses."""
    more = list(words)
    out: dict[str, Any] = {"command": command, "target": None, "goal": None}
    if command in ("slay", "charge") and more:
        out["target"] = more.pop(0)
    if command in ("hold", "charge") and more:
        out["goal"] = more.pop(0).lower()
    if special and command == "special" and more:
        out["special"] = more.pop(0)
    return out, more


def _battle_army(game: Game, b: dict[str, Any], ref: str) -> str:
    """An army in this battle by id or name (as the battlemap shows it)."""
    for aid in b["armies"]:
        army = game.state.armies.armies.get(aid)
        if ref.lower() in (aid.lower(), str((army or {}).get("name", "")).lower()):
            return str(aid)
    return ref


def _battle_lines(game: Game, name: dict[str, str], command: Any, result: dict[str, Any]) -> list[str] | None:
    """What the reply says of a battle line, and where the battle stands now."""
    from domain.powers import battle

    if type(command) not in battle.BATTLE_COMMANDS:
        return None
    b = game.battle(command.battle_id)
    out = []
    if isinstance(command, battle.GiveCommand):
        said = f"{command.army_id} {command.command}"
        said += f" {command.target}" if command.target else ""
        said += _(" on {goal}").format(goal=command.goal) if command.goal else ""
        hit = result.get("hit")
        dice = "; ".join(str(f) for f in result.get("rolls", []))
        out.append(
            _("Commanded {said}: rolled {dice}").format(said=said, dice=dice or _("nothing"))
            + (_("; {successes} successes, {slain} slain").format(**hit) if hit else "")
            + (
                _("; {presence} presence").format(presence=result["presence"])
                if command.command in ("hold", "charge")
                else ""
            )
            + (_("; {routs} routed").format(routs=result["routs"]) if result.get("routs") else "")
            + "."
        )
    elif isinstance(command, battle.DeclareBattle):
        out.append(_("Declared battle {battle_id} at {hex}.").format(battle_id=command.battle_id, hex=command.hex))
    else:
        out.append(_("Battle {id}: {command} recorded.").format(id=b["id"], command=type(command).__name__))
    if b["step"] == "ended":
        out.append(_("The battle has ended: {reason}.").format(reason=b["result"]["reason"]))
    else:
        waiting = ", ".join(name.get(p, p) for p in game.battle_pending(b)) or _("nobody")
        if b["step"] == "commands" and b["turn"]:
            where = _("Battle {id}, round {round}: {step} ({power}'s turn); waiting for {waiting}.")
        else:
            where = _("Battle {id}, round {round}: {step}; waiting for {waiting}.")
        power = name.get(b["turn"]["power"], "") if b["turn"] else ""
        out.append(where.format(id=b["id"], round=b["round"], step=b["step"], power=power, waiting=waiting))
    return out


FEATURE_VERBS |= BATTLE_VERBS
VERBS |= BATTLE_VERBS


# ---------------------------------------------------------------------- the GM's army lines
# Defining army types and placing, showing, supporting, dispersing and deserting armies (domain/powers/armies.py),
# which went only by the API or the web's JSON catch-all (issue 12's channels). An army by id or name.

ARMY_GM = {"armytype", "place", "detect", "supportbonus", "experience", "disperse", "desert", "status", "terrain"}
USAGE |= {
    "armytype": 'armytype <id> <JSON stat block>, e.g. armytype fingers {"rank": 2, "defense": 4, ...}',
    "place": "place <army id> at <hex> units <n> [for <power>] [type <type>] [garrison <id>] [loyal] [personal] "
    "[hidden] [named <name>] [block <JSON stat block>]",
    "detect": "detect <army> by <power>",
    "supportbonus": "supportbonus <power> <n>",
    "experience": "experience <army> rank <n>",
    "disperse": "disperse <army>",
    "desert": "desert <army> [to <power>] for <reason>",
    "status": "status <battle> <army> <status> <stacks> [for <reason>] (stacks 0 removes it, P-BAT-12)",
    "terrain": "terrain <battle> hold|standing[: <terrain>[; <effects>]] (the default at deadlines, P.1.3)",
}
PLACE = re.compile(
    r"^(?P<army>\S+)\s+at\s+(?P<hex>\S+)\s+units\s+(?P<units>\S+)(?P<opts>.*?)"
    r"(?:\s+named\s+(?P<name>.+?))?(?:\s+block\s+(?P<block>\{.*\}))?$",
    re.IGNORECASE | re.DOTALL,
)
DESERT = re.compile(r"^(?P<army>.+?)(?:\s+to\s+(?P<to>.+?))?\s+for\s+(?P<reason>.+)$", re.IGNORECASE)


def _json_block(text: str, what: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        errors.append(LineError(number, _("{what} takes a stat block as a JSON object").format(what=what), "P-ARMY-8"))
        return None
    if not isinstance(value, dict):
        errors.append(LineError(number, _("{what} takes a stat block as a JSON object").format(what=what), "P-ARMY-8"))
        return None
    return value


def _army_gm(verb: str, words: list[str], rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """A GM's army line: its fields, which the rules then check."""
    if verb == "armytype" and len(words) >= 2:
        block = _json_block(rest.split(None, 1)[1], "armytype", number, errors)
        return {"type_id": words[0], "block": block} if block is not None else None
    if verb == "place" and (m := PLACE.match(rest)):
        units = whole(m.group("units"), number, errors, _("the units"))
        if units is None:
            return None
        out: dict[str, Any] = {"army": m.group("army"), "hex": m.group("hex"), "units": units, "name": m.group("army")}
        out |= {"for": None, "type": None, "garrison": None, "loyal": False, "personal": False, "hidden": False}
        opts = m.group("opts").split()
        while opts:
            word = opts.pop(0).lower()
            if word in ("for", "type", "garrison") and opts:
                out[word] = opts.pop(0)
            elif word in ("loyal", "personal", "hidden"):
                out[word] = True
            else:
                return None
        if m.group("name") and _fits("reference", m.group("name").strip(), number, errors):
            out["name"] = m.group("name").strip()
        out["block"] = None
        if m.group("block"):
            out["block"] = _json_block(m.group("block"), "place", number, errors)
            if out["block"] is None:
                return None
        return out
    if verb == "detect" and (m := re.match(r"^(?P<army>.+?)\s+by\s+(?P<power>.+)$", rest, re.IGNORECASE)):
        return {"army": m.group("army"), "power": m.group("power")}
    if verb == "supportbonus" and len(words) >= 2:
        bonus = whole(words[-1], number, errors, _("the bonus"))
        return {"power": " ".join(words[:-1]), "bonus": bonus} if bonus is not None else None
    if verb == "experience" and (m := re.match(r"^(?P<army>.+?)\s+rank\s+(?P<rank>\S+)$", rest, re.IGNORECASE)):
        rank = whole(m.group("rank"), number, errors, _("the rank"))
        return {"army": m.group("army"), "rank": rank} if rank is not None else None
    if verb == "disperse" and rest:
        return {"army": rest}
    if verb == "terrain" and (
        m := re.match(
            r"^(?P<battle>\S+)\s+(?P<default>\S+)(?:\s*:\s*(?P<terrain>[^;]*)(?:;\s*(?P<effects>.*))?)?$", rest
        )
    ):
        terrain, effects = (m.group("terrain") or "").strip(), (m.group("effects") or "").strip()
        if _fits("reason", terrain, number, errors) and _fits("reason", effects, number, errors):
            return {"battle": m.group("battle"), "default": m.group("default").lower(), "terrain": terrain} | {
                "effects": effects
            }
        return None
    if verb == "status" and (
        m := re.match(
            r"^(?P<battle>\S+)\s+(?P<army>\S+)\s+(?P<status>\S+)\s+(?P<n>\S+)(?:\s+for\s+(?P<reason>.+))?$",
            rest,
            re.IGNORECASE,
        )
    ):
        stacks = whole(m.group("n"), number, errors, _("the stacks"))
        if stacks is None or not _fits("reason", m.group("reason") or "", number, errors):
            return None
        return {
            "battle": m.group("battle"),
            "army": m.group("army"),
            "status": m.group("status").lower(),
            "stacks": stacks,
            "reason": m.group("reason") or "",
        }
    if verb == "desert" and (m := DESERT.match(rest)):
        if _fits("reason", m.group("reason"), number, errors):
            return {"army": m.group("army"), "to": m.group("to"), "reason": m.group("reason")}
    return None


def _any_army(game: Game, ref: str) -> str:
    """Any army by id or name (the GM's); one not found is passed on as written, for the rules to refuse."""
    for aid, army in game.state.armies.armies.items():
        if ref.lower() in (aid.lower(), str(army.get("name", "")).lower()):
            return str(aid)
    return ref


def _army_gm_command(game: Game, a: dict[str, Any], verb: str) -> Any:
    """The typed command of a GM's army line."""
    if verb == "armytype":
        return armies.DefineArmyType(a["type_id"], a["block"])
    if verb == "place":
        return armies.PlaceArmy(
            a["army"],
            a["name"],
            a["hex"],
            a["units"],
            controller=_power(game, a["for"], "controller") if a["for"] else None,
            type_id=a["type"],
            block=a["block"],
            garrison=a["garrison"],
            loyal=a["loyal"],
            personal=a["personal"],
            hidden=a["hidden"],
        )
    if verb == "detect":
        return armies.DetectArmy(_any_army(game, a["army"]), _power(game, a["power"], "power_id"))
    if verb == "supportbonus":
        return armies.SetSupportBonus(_power(game, a["power"], "power_id"), a["bonus"])
    if verb == "experience":
        return armies.GrantExperience(_any_army(game, a["army"]), a["rank"])
    if verb == "disperse":
        return armies.RecordDispersal(_any_army(game, a["army"]))
    if verb == "terrain":
        from domain.powers import battle

        return battle.SetBattleTerrain(a["battle"], a["terrain"], a["effects"], a["default"])
    if verb == "status":
        from domain.powers import battle

        return battle.SetBattleStatus(a["battle"], _any_army(game, a["army"]), a["status"], a["stacks"], a["reason"])
    to = _power(game, a["to"], "to") if a["to"] else None
    return armies.DesertArmy(_any_army(game, a["army"]), a["reason"], to)


def _army_gm_lines(game: Game, name: dict[str, str], command: Any) -> list[str] | None:
    """What the reply says of a GM's army line; None for another command."""

    def army(army_id: str) -> str:
        known = game.state.armies.armies.get(army_id) or game.state.armies.dispersed.get(army_id) or {}
        return f"{known.get('name', army_id)} ({army_id})"

    if isinstance(command, armies.DefineArmyType):
        return [_("Defined the army type {type_id}.").format(type_id=command.type_id)]
    if isinstance(command, armies.PlaceArmy):
        who = name.get(command.controller, command.controller) if command.controller else _("nobody (rogue)")
        placed = (
            _("Placed {army} at {hex}: {units} units, of {who}, hidden.")
            if command.hidden
            else _("Placed {army} at {hex}: {units} units, of {who}.")
        )
        return [placed.format(army=army(command.army_id), hex=command.hex, units=command.units, who=who)]
    if isinstance(command, armies.DetectArmy):
        return [_("{name} sees {army} from now on.").format(name=name[command.power_id], army=army(command.army_id))]
    if isinstance(command, armies.SetSupportBonus):
        return [_("{name}'s support limit bonus is {bonus}.").format(name=name[command.power_id], bonus=command.bonus)]
    if isinstance(command, armies.GrantExperience):
        return [_("{army} gains an Experience of rank {rank}.").format(army=army(command.army_id), rank=command.rank)]
    if isinstance(command, armies.RecordDispersal):
        return [_("{army} dispersed by rout.").format(army=army(command.army_id))]
    if isinstance(command, armies.DesertArmy):
        deserted = _("{army} deserted to {name}: {reason}.") if command.to else _("{army} deserted: {reason}.")
        return [deserted.format(army=army(command.army_id), name=name.get(command.to or ""), reason=command.reason)]
    return None


MORE_GM |= ARMY_GM
FEATURE_VERBS |= ARMY_GM
VERBS |= ARMY_GM
GM_ONLY |= ARMY_GM


# ---------------------------------------------------------------------- items' wielders and immunities
# Commands that went only by the API or the web's JSON catch-all: a magic item's wielder (P-ASSET-8) and the GM's
# record of a power's immunity and who knows how to overcome it (P-AMB-10). An item or wielder by id or name. (A
# shared Secret, ``share secret``, is read with the catalogue's ``share`` line and answered here.)

ITEM_PLAYER = {"wield"}
ITEM_GM = {"immunity", "ruling"}
USAGE |= {
    "wield": "wield <item> by <agent>|<army>|me [in <action>]; wield <item> back [in <action>]",
    "immunity": "immunity <power>: <immunity>[; overcome by <power>, <power>]; immunity <power> lift",
    "ruling": "ruling <action> resistible [by <power>, <power>]; ruling <action> not resistible",
}
WIELD = re.compile(
    r"^(?P<item>.+?)\s+(?:by\s+(?P<wielder>.+?)|(?P<back>back))(?:\s+in\s+(?P<action>\S+))?$", re.IGNORECASE
)
IMMUNITY = re.compile(r"^(?P<power>[^:]+?)\s*:\s*(?P<immunity>[^;]+?)(?:\s*;\s*overcome\s+by\s+(?P<by>.+))?$")


def _item_line(verb: str, rest: str, number: int, errors: list[LineError]) -> dict[str, Any] | None:
    """A line of an item's wielder or a power's immunity: its fields, which the rules then check."""
    if verb == "wield" and (m := WIELD.match(rest)):
        refs = [m.group("item"), m.group("wielder") or ""]
        if all(_fits("reference", r, number, errors) for r in refs):
            return {"item": m.group("item"), "wielder": m.group("wielder"), "action": m.group("action") or ""}
        return None
    if verb == "immunity" and (m := re.match(r"^(?P<power>.+?)\s+lift$", rest, re.IGNORECASE)):
        return {"power": m.group("power"), "immunity": "", "by": []}
    if verb == "ruling" and (
        m := re.match(r"^(?P<action>\S+)\s+(?P<no>not\s+)?resistible(?:\s+by\s+(?P<by>.+))?$", rest, re.IGNORECASE)
    ):  # GM-6: whether an action can be resisted, and by whom besides its targets
        if not (m.group("no") and m.group("by")):
            return {"action": m.group("action"), "resistible": not m.group("no"), "by": items(m.group("by") or "")}
    if verb == "immunity" and (m := IMMUNITY.match(rest)):
        if _fits("reason", m.group("immunity"), number, errors):
            return {"power": m.group("power"), "immunity": m.group("immunity"), "by": items(m.group("by") or "")}
    return None


def _own_asset(game: Game, me: str, ref: str) -> str:
    """One of the seat's assets by id or name; another is passed on as written, for the rules to refuse."""
    for x in sorted(game.state.assets.values(), key=lambda x: x.id):
        if me in x.holders and ref.lower() in (x.id.lower(), x.name.lower()):
            return str(x.id)
    return ref


def _item_command(game: Game, me: str, a: dict[str, Any], verb: str, action: str | None) -> Any:
    """The typed command of an item's wielder or a power's immunity."""
    if verb == "wield":
        wielder = a["wielder"]
        if wielder is not None:
            wielder = me if wielder.lower() in ("me", "myself") else _own_asset(game, me, wielder)
        return cc.WieldItem(me, _own_asset(game, me, a["item"]), wielder, action_id=action)
    if verb == "ruling":
        return pc.SetRuling(a["action"], a["resistible"], [_power(game, p, "resisters") for p in a["by"]])
    by = [_power(game, p, "bypassed_by") for p in a["by"]]
    return cc.SetImmunity(_power(game, a["power"], "power_id"), a["immunity"], by)


def _item_lines(game: Game, name: dict[str, str], command: Any) -> list[str] | None:
    """What the reply says of an item's wielder or a power's immunity; None for another command."""
    assets = game.state.assets
    if isinstance(command, cc.WieldItem):
        item = assets[command.asset_id].name
        if command.wielder is None:
            return [_("You took {item} back: nobody wields it.").format(item=item)]
        who = name.get(command.wielder) or assets[command.wielder].name
        return [_("{item} is wielded by {who}.").format(item=item, who=who)]
    if isinstance(command, pc.SetRuling):
        by = ", ".join(name[p] for p in command.resisters)
        if command.resistible:
            may = _("{action_id} may be resisted (also by {by}).") if by else _("{action_id} may be resisted.")
        else:
            may = _("{action_id} may not be resisted (also by {by}).") if by else _("{action_id} may not be resisted.")
        return [may.format(action_id=command.action_id, by=by)]
    if isinstance(command, pc.ShareSecret):
        return [
            _("Shared the secret {secret} with {name}: they know it for good.").format(
                secret=assets[command.asset_id].name, name=name[command.to]
            )
        ]
    if isinstance(command, cc.SetImmunity) and not command.immunity:
        return [_("{name} has no immunity now.").format(name=name[command.power_id])]
    if isinstance(command, cc.SetImmunity):
        known = ", ".join(name[p] for p in command.bypassed_by) or _("nobody")
        return [
            _("{name} is immune: {immunity}; who knows how to overcome it: {known}.").format(
                name=name[command.power_id], immunity=command.immunity, known=known
            )
        ]
    return None


MORE_PLAYER |= ITEM_PLAYER
MORE_GM |= ITEM_GM
FEATURE_VERBS |= ITEM_PLAYER | ITEM_GM
VERBS |= ITEM_PLAYER | ITEM_GM
GM_ONLY |= ITEM_GM
