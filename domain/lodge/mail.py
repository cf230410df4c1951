"""The Lodge's mail grammar (README, "Playing by email"): the lines of a Mage's turn, the typed commands they
mean for the sender's seat, and the texts of the reply (the contract is domain/mailturns.py).

One command a line, in any case::

    prepare firebolt in I          put a Spell Card face down in a slot
    cast firebolt in I on bob      reveal and cast the Spell in a slot (``on <target>`` if it has one)
    move library                   walk to an adjacent Room (the Walk Physical Action)
    choose <option>                answer the one choice that waits for you (L.3) with one of its options
    choose <choice> <option>       answer a choice by its id, when several wait for you
    choose <offer>                 resolve a Persistent Effect offered in your Cell (``choose <offer> decline``)
    pass                           you are done for this phase

Indented ``move <room>`` lines and ``heal <n> <colours>`` lines directly below a ``cast`` or ``choose`` line are
that effect's choices (L.3): each ``move`` one ``Move 1`` step, in order (indented, or it is a Walk of its own);
``heal 2 red blue`` which cubes to heal, by the colour of the Mage who placed them (``black`` for the Black
Rose's), one colour for all or one per cube.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from domain.errors import RuleViolation
from domain.lodge.catalogue import SLOTS
from domain.lodge.commands import AnswerChoice, CastSpell, PhysicalAction, PrepareSpells, ResolveFromCell
from domain.lodge.commands import Pass as PassCmd
from domain.lodge.offers import choices as offers_for
from domain.lodge.state import BLACK_ROSE, damage_track
from domain.mailturns import GRAMMAR, SALUTATION, Command, LineError, Turn, body_text, own_lines
from domain.platform.commands import Command as GameCommand
from domain.platform.i18n import _

if TYPE_CHECKING:
    from domain.lodge.game import LodgeGame

VERBS = ("cast", "move", "heal", "choose", "pass", "prepare")
WALK = "walk"  # the Physical Action a lone ``move`` line spends


def parse_turn(text: str | None, html: str | None = None, seat: str = "gm") -> LodgeTurn:
    """Read a Mage's turn; never raises."""
    commands: list[Command] = []
    errors: list[LineError] = []
    block: Command | None = None  # the cast or choose whose choices the next move/heal lines give
    first = True
    for number, line in own_lines(body_text(text, html)):
        words = line.split()
        if not words:
            block = None
            continue
        if words[0].startswith("#"):
            continue
        if first and SALUTATION.match(line.strip()):
            first = False
            continue
        first = False
        verb, args = words[0].lower().rstrip(":"), words[1:]
        if verb not in VERBS:
            errors.append(
                LineError(
                    number,
                    _("I do not understand {word!r}; commands are: {verbs}").format(
                        word=words[0], verbs=", ".join(VERBS)
                    ),
                )
            )
            block = None
            continue
        if block is not None and (verb == "heal" or (verb == "move" and line[:1].isspace())):
            before = len(errors)
            _choice(block, verb, args, number, errors)
            block.broken = block.broken or len(errors) > before
            continue
        block = None
        cmd = _line(verb, args, number, errors)
        if cmd is not None:
            commands.append(cmd)
            if verb in ("cast", "choose"):
                block = cmd
    return LodgeTurn(commands, errors, seat)


def _line(verb: str, args: list[str], number: int, errors: list[LineError]) -> Command | None:
    def wrong(usage: str) -> None:
        errors.append(LineError(number, _("write it as {usage!r}").format(usage=usage)))

    low = [a.lower() for a in args]
    if verb == "pass":
        if args:
            wrong("pass")
            return None
        return Command(number, "pass")
    if verb == "move":
        if len(args) != 1:
            wrong("move <room>")
            return None
        return Command(number, "move", {"moves": [low[0]]})
    if verb == "heal":
        errors.append(LineError(number, _("a heal line goes directly below the cast or choose line it heals for")))
        return None
    if verb == "prepare":
        if len(args) != 3 or low[1] != "in":
            wrong("prepare <card> in <slot>")
            return None
        return Command(number, "prepare", {"card": low[0], "slot": _slot(args[2])})
    if verb == "choose":
        if len(args) == 2 and low[0].startswith("choice-"):
            return Command(number, "answer", {"choice": low[0], "option": low[1]})
        if len(args) == 2 and low[1] == "decline":
            return Command(number, "choose", {"offer": args[0], "accept": False})
        if len(args) != 1:
            wrong("choose <option>")
            return None
        return Command(number, "choose", {"offer": args[0], "accept": True})
    # cast <card> in <slot> [on <target>]
    if len(args) not in (3, 5) or low[1] != "in" or (len(args) == 5 and low[3] != "on"):
        wrong("cast <card> in <slot> on <target>")
        return None
    return Command(
        number, "cast", {"card": low[0], "slot": _slot(args[2]), "target": low[4] if len(args) == 5 else None}
    )


def _slot(word: str) -> str:
    return word.upper()


def _choice(block: Command, verb: str, args: list[str], number: int, errors: list[LineError]) -> None:
    if verb == "move":
        if len(args) != 1:
            errors.append(LineError(number, _("write it as 'move <room>'")))
            return
        block.args.setdefault("moves", []).append(args[0].lower())
        return
    if len(args) < 2 or not args[0].isdigit():
        errors.append(LineError(number, _("write it as 'heal <n> <colours>', e.g. 'heal 2 red blue'")))
        return
    n = int(args[0])
    colours = [c.strip().lower() for a in args[1:] for c in a.split(",") if c.strip()]
    if len(colours) not in (1, n):
        errors.append(LineError(number, _("name one colour for all {n} cubes, or one colour per cube").format(n=n)))
        return
    block.args["heal"] = {"n": n, "colours": colours if len(colours) == n else colours * n, "line": number}


@dataclass
class LodgeTurn(Turn):
    """A Mage's mailed turn: each line's typed command for the sender's Mage."""

    seat: str = "gm"

    def command(self, game: LodgeGame, cmd: Command) -> GameCommand:
        a = cmd.args
        mage = self.seat
        if cmd.verb == "pass":
            return PassCmd(mage)
        if cmd.verb == "prepare":
            if a["slot"] not in SLOTS:
                raise RuleViolation(_("slots are {items}").format(items=", ".join(SLOTS)), rule=GRAMMAR)
            return PrepareSpells(mage, {a["slot"]: a["card"]})
        if cmd.verb == "move":
            return PhysicalAction(mage, WALK, moves=list(a["moves"]))
        if cmd.verb == "answer":
            return AnswerChoice(mage, a["choice"], a["option"])
        heal = self._heal(game, cmd)
        if cmd.verb == "choose" and a["offer"] not in game.state.offers:
            waiting = sorted(c for c, p in game.state.prompts.items() if p["mage"] == mage)
            if len(waiting) == 1:  # ``choose <option>``: the one choice that waits for the sender
                a["answered"] = waiting[0]
                return AnswerChoice(mage, waiting[0], a["offer"].lower())
            if waiting:
                raise RuleViolation(
                    _("several choices wait for you ({items}): write 'choose <choice> <option>'").format(
                        items=", ".join(waiting)
                    ),
                    rule=GRAMMAR,
                )
        if cmd.verb == "choose":
            return ResolveFromCell(mage, a["offer"], a["accept"], list(a.get("moves", [])), heal)
        if a["slot"] not in SLOTS:
            raise RuleViolation(_("slots are {items}").format(items=", ".join(SLOTS)), rule=GRAMMAR)
        sheet = game.state.mages.get(mage)
        held = sheet["slots"][a["slot"]]["card"] if sheet is not None else None
        if sheet is not None and held is not None and held != a["card"]:
            # the sender's own slot: naming the card guards against casting the wrong one
            raise RuleViolation(
                _("your slot {slot} holds {held!r}, not {card!r}").format(slot=a["slot"], held=held, card=a["card"]),
                rule=GRAMMAR,
            )
        return CastSpell(mage, a["slot"], a["target"], list(a.get("moves", [])), heal)

    def _heal(self, game: LodgeGame, cmd: Command) -> list[int] | None:
        """Which cubes a ``heal`` line chooses, as positions on the healed Model's track: per colour, the
        rightmost cubes placed by the Mage of that colour (the Black Rose's are ``black``)."""
        want = cmd.args.get("heal")
        if want is None:
            return None
        s = game.state
        whose = cmd.args.get("target") if cmd.verb == "cast" else None
        model: str = whose if isinstance(whose, str) and (whose in s.mages or whose in s.evocations) else self.seat
        if model not in s.mages and model not in s.evocations:
            raise RuleViolation(_("there is no Model {model!r} to heal").format(model=model), rule=GRAMMAR)
        by_colour = {m["colour"]: mid for mid, m in s.mages.items()}
        track = damage_track(s, model)
        chosen: list[int] = []
        for colour in want["colours"]:
            owner = BLACK_ROSE if colour == "black" else by_colour.get(colour)
            if owner is None:
                raise RuleViolation(_("no Mage plays {colour!r}").format(colour=colour), rule=GRAMMAR)
            free = [i for i, by in enumerate(track) if by in (owner, colour) and i not in chosen]
            if not free:
                raise RuleViolation(
                    _("{model} has no more {colour} cubes to heal").format(model=model, colour=colour), rule="L-HEAL-1"
                )
            chosen.append(free[-1])
        return sorted(chosen)

    def recorded(self, game: LodgeGame, cmd: Command, command: GameCommand, result: dict[str, Any]) -> list[str]:
        a = cmd.args
        if cmd.verb == "cast":
            cast = (
                _("You cast {card} from slot {slot} on {target}.")
                if a["target"]
                else _("You cast {card} from slot {slot}.")
            )
            return [cast.format(card=a["card"], slot=a["slot"], target=a["target"])]
        if cmd.verb == "prepare":
            return [_("{card} lies face down in slot {slot}.").format(card=a["card"], slot=a["slot"])]
        if cmd.verb == "move":
            return [_("You walk to {room}.").format(room=a["moves"][0])]
        # an answer is always recorded; if the board moved on since it was asked, its effect lapsed (said why)
        lapsed = (
            [_("Its effect lapsed: {lapsed}").format(lapsed=result["lapsed"])]
            if isinstance(result, dict) and result.get("lapsed")
            else []
        )
        if cmd.verb == "choose" and a.get("answered"):
            return [
                _("You answer {answered}: {answer}.").format(answered=a["answered"], answer=a["offer"].lower()),
                *lapsed,
            ]
        if cmd.verb == "choose":
            chosen = _("You resolve {offer}.") if a["accept"] else _("You decline {offer}.")
            return [chosen.format(offer=a["offer"])]
        if cmd.verb == "answer":
            return [_("You answer {choice}: {option}.").format(choice=a["choice"], option=a["option"]), *lapsed]
        return [_("You pass.")]

    def footer(self, game: LodgeGame) -> list[str]:
        s = game.state
        mage = s.mages.get(self.seat)
        where = s.positions.get(self.seat) if mage is not None else None
        rooms = {r.id: r.name for r in game.catalogue.rooms}  # the Room by its printed name, its id to type beside it
        room = f"{rooms[where]} ({where})" if where in rooms and rooms[where] != where else where
        # the answers offered now (domain.lodge.offers): a Cell offer's "resolve" only while in the Cell, none while
        # an effect of the sender's waits for another choice (L-EFF-1)
        offered = (
            offers_for(game, self.seat)["answers"] if mage is not None and s.phase not in ("setup", "ended") else {}
        )
        waiting = [
            _("{cid} waits for you: {question}; one of {items} (default {default}).").format(
                cid=cid, question=p["question"], items=", ".join(offered[cid]), default=p["default"]
            )
            if cid in offered
            else _("{cid} waits for you: {question}; answer the choice your effect waits for first.").format(
                cid=cid, question=p["question"]
            )
            for cid, p in sorted(s.prompts.items())
            if p["mage"] == self.seat
        ]
        turn = _("Turn {turn}, phase {phase}; you are in {room}.") if where else _("Turn {turn}, phase {phase}.")
        from domain.lodge.ruleset import phase_word  # the ruleset imports this grammar

        return ["", turn.format(turn=s.turn, phase=phase_word(s.phase), room=room), *waiting]
