"""The covenant game's mail grammar (README, "Playing by email"): one line per command, in any case, for the
covenant whose secret address the mail came to. What a line leaves out is read from the table as the lines
before it left it: ``keep`` keeps the card the covenant just generated, ``cast`` casts with its one active
mage, ``bid`` bids in the one challenge it is in.

    move 3                       support [keep 2 gold, 1 vis]                   challenge <their mage> [with <my mage>]
    generate [mouse +2]          support starve <card>, ... [keep 2 gold]       art Cr [in <challenge>]
    keep [<card>] [on <card>] [art Cr] [spell <spell name>]                     bid 2 [in <challenge>]
    discard [<card>]             convert 2 gold to vis      resolve [<challenge>] / forfeit [<challenge>]
    pass                         action <name>[: text]      draw [mouse +2] / event <choice> [on <target>] [in <season>]
    cast <spell> on <target>[, <target>] [with <mage>] [vis 1] [mother may i]     accept <trade> / refuse <trade>
    offer <covenant> give 3 gold, 1 vis get 2 vis           rule <n> approve|refuse[: note]
    pay tax                      hedge give <vis source> / hedge curse     mouse +2 [<card>]
    bandits pay / bandits fight <card> 2, <card> 2          service [<grogs>] / service pay / service tribute
    chaos roll / chaos rival <covenant> / chaos pay / chaos fight          allocate <card> 2, <card> 1 / allocate pay
    no counter                   heal <being> [with <healer>]    plague <being>[, <being>]    tribunal
    investigate
    seat <seat> <name> <covenant> [arts Cr, In, Co, Im, Vi] [score 3] [host]     begin      (the host, before the game)

A spell's name has spaces: ``keep``'s ``spell`` comes last and its name runs to the line's end (quotes around it,
"..." or “...”, are allowed); ``cast`` reads the name up to its last `` on ``, and a spell that chooses a target for
every N pawns takes them after it, comma-separated (A-AMB-17). ``support``'s ``keep`` is the gold and
vis the Winter Reckoning leaves unconverted (A-AMB-9). ``seat``'s name and covenant are one word each, or quoted;
``score`` is the points the covenant begins with (A-EX-11, H-14).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from domain.covenants import commands as cc
from domain.covenants.game import CovenantGame
from domain.errors import RuleViolation
from domain.ids import GM
from domain.mailturns import GRAMMAR, SALUTATION, Command, LineError, Turn, body_text, items, own_lines, whole
from domain.platform.commands import Command as GameCommand
from domain.platform.i18n import N_, _

USAGE = {
    "move": "move <square>",
    "generate": "generate [mouse <+/-2>]",
    "keep": "keep [<card>] [on <card>] [art <art>] [spell <spell name>]",
    "discard": "discard [<card>]",
    "pass": "pass",
    "cast": "cast <spell> on <target>[, <target>] [with <mage>] [vis <n>] [mother may i]",
    "challenge": "challenge <their mage> [with <my mage>]",
    "art": "art <art> [in <challenge>]",
    "bid": "bid <vis> [in <challenge>]",
    "resolve": "resolve [<challenge>]",
    "forfeit": "forfeit [<challenge>]",
    "support": "support [starve <card>, <card>] [keep <n> gold, <n> vis]",
    "convert": "convert <amount> <gold|vis|provision> to <gold|vis|provision>",
    "action": "action <name>[: text]",
    "draw": "draw [mouse <+/-2>]",
    "event": "event <choice> [on <target>] [in <season>]",
    "accept": "accept <trade>",
    "refuse": "refuse <trade>",
    "offer": "offer <covenant> give <n> <gold|vis|provision>[, ...] get <n> <gold|vis|provision>[, ...]",
    "rule": "rule <action number> approve|refuse[: note]",
    "pay": "pay tax",
    "hedge": "hedge give <vis source> / hedge curse",
    "bandits": "bandits pay / bandits fight [<card> <n>, <card> <n>]",
    "mouse": "mouse <+/-1 or 2> [<card>]",
    "service": "service [<grogs>] / service pay / service tribute",
    "chaos": "chaos roll / chaos rival <covenant> / chaos pay / chaos fight",
    "allocate": "allocate <card> <n>[, <card> <n>] / allocate pay",
    "no": "no counter",
    "heal": "heal <being> [with <healer>]",
    "plague": "plague <being>[, <being>]",
    "tribunal": "tribunal",
    "investigate": "investigate",
    "seat": "seat <seat> <name> <covenant> [arts <art>, <art>, <art>, <art>, <art>] [score <n>] [host]",
    "begin": "begin",
}
CAST = re.compile(
    r"^\S+\s+(?P<spell>.+)\s+on\s+(?P<on>\S+(?:\s*,\s*\S+)*)(?:\s+with\s+(?P<with>\S+))?(?:\s+vis\s+(?P<vis>\S+))?"
    r"(?P<mmi>\s+mother\s+may\s+i)?$",
    re.I,
)
RESOURCES = ("gold", "vis", "provision")
QUOTES = {'"': '"', "\u201c": "\u201d"}
# a word, or a quoted name ("Bob of Ely", “Bob of Ely”) as one
TOKEN = re.compile(r'"(?P<straight>[^"]*)"|\u201c(?P<curly>[^\u201d]*)\u201d|(?P<word>\S+)')
KEEP_SPELL = re.compile(r"\s+spell\b(?P<spell>.*)$", re.I)


def _unquoted(text: str) -> str:
    """A name as written, without the quotes around it."""
    text = text.strip()
    if len(text) > 1 and QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def _tokens(text: str) -> list[str]:
    """A line's words, a quoted name as one."""
    return [m["straight"] if m["straight"] is not None else m["curly"] if m["curly"] is not None else m["word"]
            for m in TOKEN.finditer(text)]  # fmt: skip


def _damage(text: str, number: int, errors: list[LineError], usage: str) -> dict[str, int] | None:
    """``c3 2, c4 2``: the damage each card takes."""
    out: dict[str, int] = {}
    for part in items(text):
        bits = part.split()
        if len(bits) != 2:
            errors.append(LineError(number, _("write it as '{usage}'").format(usage=usage)))
            return None
        n = whole(bits[1], number, errors, _("the damage"))
        if n is None:
            return None
        out[bits[0]] = n
    return out


def _amounts(
    text: str, number: int, errors: list[LineError], verb: str = "offer", what: str = "the amount"
) -> dict[str, int] | None:
    """``3 gold, 1 vis``: a trade's side, or what the Winter Reckoning leaves unconverted."""
    out: dict[str, int] = {}
    for part in items(text):
        bits = part.split()
        if len(bits) != 2 or bits[1].lower() not in RESOURCES:
            errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE[verb])))
            return None
        n = whole(bits[0], number, errors, what)
        if n is None:
            return None
        out[bits[1].lower()] = n
    return out


def _special(verb: str, number: int, stripped: str, words: list[str], errors: list[LineError]) -> Command | None:
    """The lines whose shape is their own (offer, rule, allocate, the event answers); None with the error
    listed when a line does not fit."""
    rest = [w.lower() for w in words[1:]]

    def bad() -> Command | None:
        errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE[verb])))
        return None

    if verb == "offer":
        m = re.match(r"^\S+\s+(?P<to>\S+)\s+give\s+(?P<give>.+?)\s+get\s+(?P<get>.+)$", stripped, re.I)
        if m is None:
            return bad()
        give, get = _amounts(m["give"], number, errors), _amounts(m["get"], number, errors)
        if give is None or get is None:
            return None
        return Command(number, verb, {"to": m["to"], "give": give, "get": get})
    if verb == "rule":
        head, _sep, note = stripped[len(words[0]) :].partition(":")
        bits = head.split()
        if len(bits) != 2 or bits[1].lower() not in ("approve", "refuse"):
            return bad()
        index = whole(bits[0], number, errors, _("the action number"))
        if index is None:
            return None
        return Command(number, verb, {"index": index, "approved": bits[1].lower() == "approve", "note": note.strip()})
    if verb == "seat":
        return _seat(number, stripped, errors)
    if verb == "plague":
        chosen = items(stripped[len(words[0]) :])
        return Command(number, verb, {"cards": chosen}) if chosen else bad()
    if verb == "allocate":
        if rest == ["pay"]:
            return Command(number, verb, {"allocation": {}, "pay_off": True})
        alloc = _damage(stripped[len(words[0]) :], number, errors, USAGE[verb])
        return None if alloc is None else Command(number, verb, {"allocation": alloc})
    if verb == "bandits":
        if rest[:1] == ["pay"] and len(rest) == 1:
            return Command(number, verb, {"fight": False})
        if rest[:1] != ["fight"]:
            return bad()
        alloc = _damage(" ".join(words[2:]), number, errors, USAGE[verb])
        return None if alloc is None else Command(number, verb, {"fight": True, "allocation": alloc})
    shapes: dict[str, dict[tuple[str, ...], dict[str, Any]]] = {
        "pay": {("tax",): {}},
        "no": {("counter",): {}},
        "hedge": {("curse",): {"give_up": None}},
        "service": {("pay",): {"pay": True}, ("tribute",): {"pay": False}, (): {}},
        "chaos": {("roll",): {"do": "roll"}, ("pay",): {"do": "avert", "pay": True}, ("fight",): {"do": "avert"}},
    }
    shape = shapes.get(verb, {}).get(tuple(rest))
    if shape is not None:
        return Command(number, verb, dict(shape))
    if verb == "hedge" and len(rest) == 2 and rest[0] == "give":
        return Command(number, verb, {"give_up": words[2]})
    if verb == "service" and len(rest) == 1:
        return Command(number, verb, {"grogs": words[1]})
    if verb == "chaos" and len(rest) == 2 and rest[0] == "rival":
        return Command(number, verb, {"do": "rival", "rival": words[2]})
    if verb == "mouse" and len(rest) in (1, 2):
        by = whole(rest[0], number, errors, _("the Mouse's change"))
        return None if by is None else Command(number, verb, {"by": by, "words": words[2:]})
    return bad()


def _seat(number: int, stripped: str, errors: list[LineError]) -> Command | None:
    """The host seats a covenant before the game begins: its seat, name and covenant, then ``arts``, ``score``
    (the points it begins with, A-EX-11) and ``host`` in any order."""
    tokens = _tokens(stripped)[1:]
    if len(tokens) < 3 or any(t.lower() in ("arts", "score", "host") for t in tokens[:3]):
        errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE["seat"])))
        return None
    args: dict[str, Any] = {"seat_id": tokens[0], "name": tokens[1], "covenant": tokens[2], "host": False, "arts": []}
    rest = tokens[3:]
    while rest:
        word = rest.pop(0).lower()
        if word == "host" and not args["host"]:
            args["host"] = True
        elif word == "score" and rest and "score" not in args:
            score = whole(rest.pop(0), number, errors, _("the score"))
            if score is None:
                return None
            args["score"] = score
        elif word == "arts" and not args["arts"]:
            while rest and rest[0].lower() not in ("score", "host"):
                args["arts"] += items(rest.pop(0))
        else:
            errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE["seat"])))
            return None
    return Command(number, "seat", args)


SPECIAL = ("seat", "plague", "offer", "rule", "allocate", "bandits", "pay", "no", "hedge", "service", "chaos", "mouse")
# ``word <value>`` options a line may end with, after its positional words.
OPTIONS = {
    "keep": ("on", "art"),
    "challenge": ("with",),
    "art": ("in",),
    "bid": ("in",),
    "event": ("on", "in"),
    "heal": ("with",),
    "generate": ("mouse",),
    "draw": ("mouse",),
}


def _split(verb: str, words: list[str]) -> tuple[list[str], dict[str, str]] | None:
    """A line's positional words and its options; None if an option is given twice or without a value."""
    names = OPTIONS.get(verb, ())
    positional: list[str] = []
    opts: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = words[i].lower()
        if w in names:
            if i + 1 >= len(words) or w in opts:
                return None
            opts[w] = words[i + 1]
            i += 2
        elif opts:
            return None  # positional words come first
        else:
            positional.append(words[i])
            i += 1
    return positional, opts


def _support(number: int, head: str, errors: list[LineError]) -> Command | None:
    """``support [starve <cards>] [keep <amounts>]``: what the covenant starves and the gold and vis it keeps."""
    keeping = re.search(r"\bkeep\b(?P<keep>.*)$", head, re.I)
    rest = (head[: keeping.start()] if keeping else head).split()
    if (rest and rest[0].lower() != "starve") or (keeping and not keeping["keep"].strip()):
        errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE["support"])))
        return None
    keep = _amounts(keeping["keep"], number, errors, "support", "the amount kept") if keeping else {}
    if keep is None:
        return None
    return Command(number, "support", {"starve": items(" ".join(rest[1:]))} | ({"keep": keep} if keep else {}))


def _cast(number: int, stripped: str, errors: list[LineError]) -> Command | None:
    """``cast <spell> on <targets> ...``: a spell's name has spaces ("Aegis of the Hearth"): it runs up to the last
    " on "."""
    m = CAST.match(stripped)
    if m is None:
        errors.append(LineError(number, _("a spell needs a target: '{usage}'").format(usage=USAGE["cast"])))
        return None
    first, *more = items(m["on"])  # A-AMB-17: a spell that chooses a target for every N pawns takes several
    cast: dict[str, Any] = {"words": [m["spell"]], "on": first} | ({"with": m["with"]} if m["with"] else {})
    if more:
        cast["more_targets"] = more
    if m["mmi"]:
        cast["mother_may_i"] = True  # H-12: the covenant's player says it
    if m["vis"] is not None:
        vis = whole(m["vis"], number, errors, "vis")
        if vis is None:
            return None
        cast["vis"] = vis
    return Command(number, "cast", cast)


def _read(number: int, stripped: str, errors: list[LineError]) -> Command | None:
    words = stripped.split()
    verb = words[0].lower().rstrip(":")
    if verb not in USAGE:
        errors.append(
            LineError(
                number,
                _("unknown command {verb!r}; a line is one of: {verbs}").format(verb=verb, verbs=", ".join(USAGE)),
            )
        )
        return None
    if verb == "action":
        name, _sep, text = stripped[len(words[0]) :].partition(":")
        if not name.strip():
            errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE[verb])))
            return None
        return Command(number, verb, {"action": name.strip(), "text": text.strip()})
    if verb in SPECIAL:
        return _special(verb, number, stripped, words, errors)
    if verb == "support":
        return _support(number, stripped[len(words[0]) :], errors)
    spell = KEEP_SPELL.search(stripped) if verb == "keep" else None
    if spell is not None:  # a spell's name has spaces: it comes last and runs to the line's end
        if not _unquoted(spell["spell"]):
            errors.append(LineError(number, _("name the spell: '{usage}'").format(usage=USAGE[verb])))
            return None
        stripped = stripped[: spell.start()]
        words = stripped.split()
    if verb == "cast":
        return _cast(number, stripped, errors)
    split = _split(verb, words[1:])
    arity = {"heal": 1, "move": 1, "challenge": 1, "art": 1, "bid": 1, "accept": 1, "refuse": 1, "event": 1}
    optional = {"keep", "discard", "resolve", "forfeit"}
    if split is None:
        errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE[verb])))
        return None
    positional, opts = split
    if verb == "convert":
        if len(positional) != 4 or positional[2].lower() != "to":
            errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE[verb])))
            return None
        amount = whole(positional[0], number, errors, _("the amount"))
        if amount is None:
            return None
        return Command(number, verb, {"amount": amount, "give": positional[1].lower(), "get": positional[3].lower()})
    wanted = arity.get(verb, 0)
    if (verb in optional and len(positional) > 1) or (verb not in optional and len(positional) != wanted):
        errors.append(LineError(number, _("write it as '{usage}'").format(usage=USAGE[verb])))
        return None
    args: dict[str, Any] = {"words": positional, **opts}
    if spell is not None:
        args["spell"] = _unquoted(spell["spell"])
    for key, what in (("vis", "vis"), ("mouse", "the Mouse's change")):
        if key in opts:
            value = whole(opts[key], number, errors, what)
            if value is None:
                return None
            args[key] = value
    if verb in ("move", "bid"):
        value = whole(positional[0], number, errors, _("the square") if verb == "move" else _("the bid"))
        if value is None:
            return None
        args["n"] = value
    return Command(number, verb, args)


def parse_turn(text: str | None, html: str | None = None, seat: str = GM) -> CovenantTurn:
    """Read a turn for a covenant's seat; never raises."""
    commands: list[Command] = []
    errors: list[LineError] = []
    first = True
    for number, line in own_lines(body_text(text, html)):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if first and SALUTATION.match(stripped):
            first = False
            continue
        first = False
        cmd = _read(number, stripped, errors)
        if cmd is not None:
            commands.append(cmd)
    return CovenantTurn(commands, errors, seat)


def _one(found: list[str], refusal: str) -> str:
    """The one id found, else a refusal (``refusal``, marked with ``N_``, says how many there are to choose from)."""
    if len(found) != 1:
        raise RuleViolation(_(refusal).format(count=len(found)), rule=GRAMMAR)
    return found[0]


def _plain(seat: str, cmd: Command) -> GameCommand:
    """The command of a line that names all it needs: nothing is looked up in the game."""
    a = cmd.args
    words = a.get("words", [])
    match cmd.verb:
        case "move":
            return cc.Move(seat, a["n"])
        case "generate":
            return cc.Generate(seat, a.get("mouse", 0))
        case "pass":
            return cc.Pass(seat)
        case "offer":
            return cc.OfferTrade(seat, a["to"], a["give"], a["get"])
        case "rule":
            return cc.RuleOnAction(a["index"], a["approved"], a["note"])
        case "pay":
            return cc.PayTax(seat)
        case "hedge":
            return cc.FaceHedgeMage(seat, a["give_up"])
        case "bandits":
            return cc.FaceBandits(seat, a["fight"], a.get("allocation"))
        case "service":
            return cc.AnswerService(seat, a.get("grogs"), a.get("pay", False))
        case "chaos":
            if a["do"] == "roll":
                return cc.RollChaos(seat)
            if a["do"] == "rival":
                return cc.ChooseRival(seat, a["rival"])
            return cc.AvertBattle(seat, a.get("pay", False))
        case "allocate":
            return cc.AllocateDamage(seat, a["allocation"], a.get("pay_off", False))
        case "no":
            return cc.NoCounter(seat)
        case "investigate":
            return cc.Investigate(seat)
        case "tribunal":
            return cc.AttendTribunal(seat)
        case "plague":
            return cc.ChoosePlagued(seat, list(a["cards"]))
        case "support":
            return cc.Support(seat, list(a["starve"]), dict(a.get("keep", {})))
        case "convert":
            return cc.Convert(seat, a["give"], a["amount"], a["get"])
        case "action":
            return cc.TakeAction(seat, a["action"], a["text"])
        case "draw":
            return cc.DrawEvent(seat, a.get("mouse", 0))
        case "event":
            return cc.DecideEvent(seat, words[0], a.get("on"), a.get("in"))
        case "seat":
            return cc.AddCovenant(a["seat_id"], a["name"], a["covenant"], a["host"], list(a["arts"]),
                                  a.get("score", 0))  # fmt: skip
        case "begin":
            return cc.BeginGame()
        case "accept" | "refuse":
            return cc.AnswerTrade(seat, words[0], cmd.verb == "accept")
    raise RuleViolation(_("unknown command {verb!r}").format(verb=cmd.verb), rule=GRAMMAR)


@dataclass
class CovenantTurn(Turn):
    seat: str = GM

    def command(self, game: CovenantGame, cmd: Command) -> GameCommand:
        seat = self.seat
        if seat not in game.state.powers:
            raise RuleViolation(_("only a covenant plays a turn by mail"), rule=GRAMMAR)
        a = cmd.args
        words = a.get("words", [])
        match cmd.verb:
            case "keep":
                return cc.Keep(seat, self._pending(game, words), a.get("on"), a.get("art"), a.get("spell"))
            case "discard":
                return cc.Discard(seat, self._pending(game, words))
            case "cast":
                mage = a.get("with") or self._mage(game)
                return cc.Cast(seat, mage, words[0], a["on"], a.get("vis", 1), a.get("mother_may_i", False),
                               list(a.get("more_targets", [])))  # fmt: skip
            case "mouse":
                return cc.UseMouse(seat, words[0] if words else self._pending(game, []), a["by"])
            case "heal":
                return cc.Heal(seat, a.get("with") or self._healer(game), words[0])
            case "challenge":
                return cc.Challenge(seat, a.get("with") or self._mage(game), words[0])
            case "art":
                return cc.ChooseArt(seat, a.get("in") or self._challenge(game), words[0])
            case "bid":
                return cc.SealBid(seat, a.get("in") or self._challenge(game), a["n"])
            case "resolve":
                return cc.ResolveCertamen(seat, words[0] if words else self._challenge(game))
            case "forfeit":
                return cc.Forfeit(seat, words[0] if words else self._challenge(game))
        return _plain(seat, cmd)

    def _pending(self, game: CovenantGame, words: list[str]) -> str:
        """The card named, or the one this covenant generated and has not kept or discarded (A-GEN-2)."""
        if words:
            return words[0]
        return _one(
            [c.id for c in game.covenant_cards(self.seat, pending=True) if c.pending],
            N_("name the card: you have {count} to choose from"),
        )

    def _mage(self, game: CovenantGame) -> str:
        mages = [c.id for c in game.covenant_cards(self.seat) if c.kind == "mage" and c.active]
        return _one(mages, N_("name the mage ('with <mage>'): you have {count} to choose from"))

    def _healer(self, game: CovenantGame) -> str:
        healers = [c.id for c in game.covenant_cards(self.seat) if c.active and game.house.cards[c.name].heals]
        return _one(healers, N_("name the healer ('with <healer>'): you have {count} to choose from"))

    def _challenge(self, game: CovenantGame) -> str:
        mine = [k for k, ch in game.state.challenges.items() if self.seat in (ch["challenger"], ch["target"])]
        return _one(mine, N_("name the challenge ('in <challenge>'): you have {count} to choose from"))

    def recorded(self, game: CovenantGame, cmd: Command, command: Any, result: dict[str, Any]) -> list[str]:
        s = game.state
        if cmd.verb == "generate":
            card = result.get("card_id")
            if not card:
                return [_("line {line}: generated no card").format(line=cmd.line)]
            made = _("line {line}: generated {name} ({card})")
            return [made.format(line=cmd.line, name=game.card(card).name, card=card)]
        if cmd.verb == "bid":
            return [_("line {line}: your bid is sealed; the others see only that you bid").format(line=cmd.line)]
        if cmd.verb == "challenge":
            issued = _("line {line}: challenge {challenge_id} issued")
            return [issued.format(line=cmd.line, challenge_id=result.get("challenge_id"))]
        from domain.covenants.ruleset import phase_word  # the ruleset imports this grammar

        said = _("line {line}: {verb} recorded (phase now {phase})") if s.phase else _("line {line}: {verb} recorded")
        return [said.format(line=cmd.line, verb=cmd.verb, phase=phase_word(s.phase))]

    def footer(self, game: CovenantGame) -> list[str]:
        s = game.state
        p = s.powers.get(self.seat)
        year = _("Year {year}, {season}, cycle {cycle}: {phase} phase.")
        from domain.covenants.ruleset import phase_word, season_word  # the ruleset imports this grammar

        season, phase = season_word(game.season_name), phase_word(s.phase)
        out = ["", year.format(year=s.year, season=season, cycle=s.cycle, phase=phase)]
        if s.turn:
            out.append(_("Your turn.") if s.turn[0] == self.seat else _("Waiting for {seat}.").format(seat=s.turn[0]))
        if p is not None:
            held = _("You hold {gold} gold, {vis} vis, {provision} provision; score {score}.")
            out.append(held.format(gold=p.gold, vis=p.vis, provision=p.provision, score=p.score))
        return out
