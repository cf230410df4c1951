"""The covenant game's table (``templates/table.html``) and the forms it posts (``FORMS``, dispatched by
``POST /play/{game_id}/{form}`` of ``api.web.routes``). Each form builds a covenant command for the signed-in
seat and sends it through ``Games.run``, the same path as the JSON API and mail.

The page is drawn from the viewer's own view (``table_view``): a player's page never holds another
covenant's sealed bid or the discard pile's order, because the view it is drawn from does not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.web.kit import attempt, integer, send, templates
from domain.covenants import commands as cc
from domain.covenants import rules
from domain.covenants.game import ENEMIES
from domain.covenants.house import ARTS
from domain.covenants.options import option
from domain.covenants.ruleset import PHASE_WORDS, SEASON_WORDS
from domain.errors import RuleViolation
from domain.ids import GM
from domain.platform.i18n import N_, _, word_of
from domain.platform.roles import RULE

# The table's named things in words (the view carries their names): the track's squares, the resources, the
# default house package's card kinds, a trade's sides, an event's choices; with the seasons and phases of the
# ruleset. Marked here for translation (issue 17), translated where shown by ``word``; a name the tables lack
# (a custom package's kind) is shown as it is.
WORDS = {
    **SEASON_WORDS,
    **PHASE_WORDS,
    "begin": N_("begin"),
    "property": N_("property"),
    "improvement": N_("improvement"),
    "personnel": N_("personnel"),
    "item": N_("item"),
    "magic": N_("magic"),
    "event": N_("event"),
    "end": N_("end"),
    "gold": N_("gold"),
    "vis": N_("vis"),
    "provision": N_("provision"),
    "mage": N_("mage"),
    "companion": N_("companion"),
    "specialist": N_("specialist"),
    "villagers": N_("villagers"),
    "grogs": N_("grogs"),
    "livestock": N_("livestock"),
    "familiar": N_("familiar"),
    "vis_source": N_("vis_source"),
    "mine": N_("mine"),
    "town": N_("town"),
    "book": N_("book"),
    "art": N_("art"),
    "armor": N_("armor"),
    "shield": N_("shield"),
    "weapon": N_("weapon"),
    "enchanted_item": N_("enchanted_item"),
    "give": N_("give"),
    "get": N_("get"),
    "play": N_("play"),
    "hold": N_("hold"),
    "discard": N_("discard"),
}


def word(name: Any) -> str:
    """A named thing of the table in the reader's language (``WORDS``), else its name."""
    return word_of(WORDS, name)


def _offers(view: dict[str, Any], me: str, spells: list[str], actions: list[str]) -> dict[str, Any]:
    """The moves the page offers the viewer now: only the seat at turn is offered its phase's choices, and
    in the Resolve Certamen phase each side of a challenge (A.1.2)."""
    g = view["game"]
    mine = view["covenants"].get(me)
    if mine is None:
        return {}
    at_turn = g["whose_turn"] == me
    cards = mine["cards"]
    offers: dict[str, Any] = {"at_turn": at_turn}
    phase = g["phase"]
    if at_turn and phase == "move":
        offers["moves"] = view.get("me", {}).get("legal_moves", [])
    if at_turn and phase == "create":
        pending = [c for c in cards if c["pending"]]
        offers["pending"] = pending
        offers["generate"] = not pending
    if at_turn and phase == "events":
        offers["draw"] = True
    if at_turn and phase == "main":
        offers["mages"] = [c for c in cards if c["kind"] == "mage" and c["active"]]
        offers["spells"] = spells
        offers["targets"] = [
            (c["id"], f"{c['name']} ({seat})") for seat, cov in view["covenants"].items() for c in cov["cards"]
        ] + [(seat, _("the covenant {name}").format(name=cov["covenant"])) for seat, cov in view["covenants"].items()]
        offers["rival_mages"] = [
            (c["id"], f"{c['name']} ({seat})")
            for seat, cov in view["covenants"].items()
            if seat != me
            for c in cov["cards"]
            if c["kind"] == "mage" and c["active"]
        ]
        offers["convert"] = sorted({give for give, _ in rules.RATES})
    if at_turn and phase == "main":
        offers["actions"] = actions
        offers["rivals"] = [(seat, cov["covenant"]) for seat, cov in view["covenants"].items() if seat != me]
    if at_turn and phase == "create" and offers.get("pending"):
        offers["mouse"] = offers["pending"][0]  # A-GEN-1: change the roll just seen, if the rules offer it (_agree)
    pe = view.get("pending_event")
    if pe and pe.get("seat") == me:
        offers["decide_event"] = pe
        offers["covenants"] = [(seat, cov["covenant"]) for seat, cov in view["covenants"].items()]
        offers["seasons"] = list(rules.SEASONS)
    inv = view.get("investigation") or {}
    if inv.get("target") == me and inv.get("ends") is None and phase == "main":
        offers["investigate"] = True  # the Quaesitors' dice, once per Main Phase
    if mine.get("marked") and "Gathering of the Tribunal" in view["events_in_play"]:
        offers["tribunal"] = True  # the house event: 1 vis unmarks the covenant
    if mine.get("tax_owed") and phase not in ("over", "setup"):
        offers["tax"] = mine["tax_owed"]  # A-EVT-4: paid in gold any time before the Reckoning
    beings = [c for c in cards if c["kind"] in BEINGS and not c["pending"]]
    if at_turn and phase == "hedge":
        offers["hedge"] = [c for c in cards if c["kind"] == "vis_source"]
    if at_turn and phase == "bandits":
        offers["bandits"] = beings
    if at_turn and phase == "plague":
        offers["plague"] = {
            "count": (view.get("plague") or {}).get("counters", 0),
            "beings": [c for c in beings if c["active"] and c["substance"] == "Co"],
        }
    if at_turn and phase == "service":
        offers["service"] = [c for c in cards if c["kind"] == "grogs" and c["active"]]
    if at_turn and phase == "chaos":
        chaos = view.get("chaos") or {}
        answering = chaos.get("answering") or {}
        if answering.get("rival") == me:
            offers["chaos_answer"] = answering["chooser"]
        elif chaos.get("choosing") == me:
            offers["chaos_choose"] = [(seat, cov["covenant"]) for seat, cov in view["covenants"].items() if seat != me]
        else:
            offers["chaos_roll"] = True
    if phase == "battle" and me in g["turn"]:
        if view.get("deferred"):
            offers["no_counter"] = view["deferred"]["spells"]  # H-15: any seat still to confirm, in any order
        elif at_turn and view.get("battle"):
            bt = view["battle"]
            enemy = bt["b"] if bt["a"] == me else bt["a"]
            toll = ENEMIES.get(enemy)
            offers["allocate"] = {"damage": bt["to_allocate"].get(me, 0), "beings": beings, "enemy": enemy,
                                  "toll": f"{toll[1]} {word(toll[0])}" if toll else None}  # fmt: skip
    if phase in ("main", "events", "create") and at_turn:
        offers["pass"] = True
    if phase == "certamen":
        offers["challenges"] = [ch for ch in view["challenges"] if me in (ch["challenger"], ch["target"])]
    if at_turn and phase == "reckoning":
        offers["support"] = [c for c in cards if not c["pending"]]
        offers["support_keep"] = g["season"] == "winter"  # A-AMB-9: gold and vis kept out of the Yearly Reckoning
    offers["trades"] = [tr for tr in view["trades"] if me in (tr["from"], tr["to"])]
    return offers


BEINGS = ("mage", "companion", "specialist", "villagers", "grogs", "livestock", "familiar")


def _agree(offers: dict[str, Any], commands: list[Any], me: str) -> None:
    """The page's one-command buttons are drawn only when the ruleset offers their command now
    (``domain.covenants.offers``): no button the rules would refuse (a pay-off the covenant cannot pay, a pass
    while its event waits, a draw before the Quaesitor prompt is decided)."""
    single = {
        "generate": cc.Generate(me), "draw": cc.DrawEvent(me), "pass": cc.Pass(me), "investigate": cc.Investigate(me),
        "tribunal": cc.AttendTribunal(me), "tax": cc.PayTax(me),
    }  # fmt: skip
    for key, command in single.items():
        if offers.get(key) and command not in commands:
            del offers[key]
    if offers.get("mouse") and not any(isinstance(c, cc.UseMouse) for c in commands):  # A-GEN-1, A-AMB-6
        del offers["mouse"]
    for key, kind in (("generate", cc.Generate), ("draw", cc.DrawEvent)):  # A-GEN-1: the Mouse before the roll
        mice = sorted({c.mouse for c in commands if type(c) is kind and c.mouse})
        if offers.get(key) and mice:
            offers[f"{key}_mice"] = mice
    for card in offers.get("pending", []):  # what its Keep may carry: a being to attach to, an Art, a spell
        kept = [c for c in commands if isinstance(c, cc.Keep) and c.card_id == card["id"]]
        card["keep_with"] = {
            "attach_to": sorted({c.attach_to for c in kept if c.attach_to}),
            "art": sorted({c.art for c in kept if c.art}),
            "spell": sorted({c.spell for c in kept if c.spell}),
        }
    allocate = offers.get("allocate")
    if allocate and allocate.get("toll") and cc.AllocateDamage(me, {}, pay_off=True) not in commands:
        allocate["toll"] = None


def _casting(offers: dict[str, Any], commands: list[Any], view: dict[str, Any], cast: dict[str, str]) -> None:
    """The spells the rules offer the seat beyond its Main Phase turn's cast form: a counter to a spell another
    covenant cast this phase (A-SPELL-5, A-SPELL-8; ``cast``: the phase's spells by id), aimed by its id, also on
    that form; in another phase or off its turn, a form of its own with a spell whose text names this phase
    (A-AMB-20)."""
    casts = [c for c in commands if isinstance(c, cc.Cast)]
    if not casts:
        return
    cards = {c["id"]: (c, seat) for seat, cov in view["covenants"].items() for c in cov["cards"]}

    def label(target: str) -> str:
        if target in cards:
            return f"{cards[target][0]['name']} ({cards[target][1]})"
        if target in view["covenants"]:
            return _("the covenant {name}").format(name=view["covenants"][target]["covenant"])
        return f"{cast.get(target, target)} ({target})"

    if offers.get("mages"):  # the Main Phase turn's form: its targets and the spells it may counter
        offers["targets"] += [(t, label(t)) for t in dict.fromkeys(c.target for c in casts) if t in cast]
        return
    offers["casting"] = {
        "mages": [(m, label(m)) for m in dict.fromkeys(c.mage_id for c in casts)],
        "spells": sorted({c.spell for c in casts}),
        "targets": [(t, label(t)) for t in dict.fromkeys(c.target for c in casts)],
        "vis": min(c.vis for c in casts),
    }


def _seating(game: Any, me: str, offers: dict[str, Any]) -> None:
    """Before the game begins, the host or the auditor seats the covenants, each with the points it begins with
    (A-EX-11, H-14), and begins the game once every seat is filled (A-ORDER-2)."""
    target = int(option(game.state.options, "target_score"))
    offers["seat"] = {"arts": list(ARTS), "most": target - 1}
    if game.ruleset.offers is not None and cc.BeginGame() in game.ruleset.offers(game, me):
        offers["begin"] = True


def _rulings(view: dict[str, Any], me: str) -> list[tuple[int, dict]]:
    """The custom actions awaiting a ruling, for the host or the auditor (H-8)."""
    mine = view["covenants"].get(me)
    if me != GM and (mine is None or "host" not in mine["roles"]):
        return []
    return [(i, a) for i, a in enumerate(view["actions"]) if a["ruling"] is None]


def board(request: Request, key: str, context: dict[str, Any]) -> Response:
    """The table: the track, every covenant's cards, gold, vis and score, whose move it is, and the viewer's
    legal moves as forms."""
    view, me = context["view"], context["me"]
    game = request.app.state.games.get_game(context["game_id"], for_update=False)
    spells = sorted(game.house.spells) if context["phase"] is None else []
    actions = sorted(game.house.main_actions) if context["phase"] is None else []
    offers = {} if context["phase"] else _offers(view, me, spells, actions)
    if offers and game.ruleset.offers is not None:
        commands = game.ruleset.offers(game, me)
        _agree(offers, commands, me)
        cast = {x["id"]: x["spell"] for x in game.state.spells_cast}  # public: this phase's SpellCast events
        _casting(offers, commands, view, cast)
    if not context["phase"] and view["game"]["phase"] == "setup" and game.may(me, RULE):
        _seating(game, me, offers)
    if not context["phase"] and _rulings(view, me):
        offers["rulings"] = _rulings(view, me)
    if offers.get("mages") and any(game.house.spells[sp].pawns_per_target for sp in spells):
        offers["several_targets"] = True  # A-AMB-17: a spell that chooses a target for every N pawns takes more
    if offers.get("actions"):  # the Main Phase's "heal": a healer of the covenant, a damaged being of it
        cards = view["covenants"][me]["cards"]
        defs = game.house.cards
        healers = [c for c in cards if c["active"] and c["name"] in defs and defs[c["name"]].heals]
        hurt = [c for c in cards if c["damage"] and c["kind"] in BEINGS]
        if healers and hurt:
            offers["heal"] = {"healers": healers, "targets": hurt}
    cards_by_id = {c["id"]: c for cov in view["covenants"].values() for c in cov["cards"]}
    context.update(viewer_is_auditor=me == GM, track=rules.TRACK, offers=offers, word=word, cards_by_id=cards_by_id)
    return templates.TemplateResponse(request, "covenants/table.html", context)


def _form(name: str, build: Callable[[str, dict], Any], ok: str) -> Callable:
    def handler(request, games, game_id, caller, f):
        def command() -> Any:
            try:
                return build(caller.principal, f)
            except (KeyError, ValueError, TypeError):
                raise RuleViolation("fill in every field of the form", field=name) from None

        return attempt(request, game_id, name, send(games, game_id, caller, command), _(ok))

    handler.__name__ = f"_{name}"
    return handler


def _whole(f: dict, key: str) -> int:
    """A whole number the form gives; else refused naming the field."""
    value = integer(f.get(key))
    if value is None:
        text = _("{field} must be a whole number, not {value}").format(field=key, value=repr(str(f.get(key, ""))))
        raise RuleViolation(text, field=key)
    return value


def _filled(f: dict, key: str) -> str:
    """A text the form must give; else refused naming the field."""
    value = str(f.get(key, "")).strip()
    if not value:
        raise RuleViolation(_("fill in {field}").format(field=key), field=key)
    return value


def _mouse(f: dict) -> int:
    """The Mouse's change to the roll (A-GEN-1); none when the form leaves it out or at 0."""
    return _whole(f, "mouse") if str(f.get("mouse", "")).strip() not in ("", "0") else 0


def _allocation(f: dict) -> dict[str, int]:
    """``alloc:<card>`` fields: the damage each being takes (empty or 0: none)."""
    out = {}
    for key, value in f.items():
        if key.startswith("alloc:") and str(value).strip() not in ("", "0"):
            out[key[len("alloc:") :]] = _whole(f, key)
    return out


def _amounts(f: dict, side: str) -> dict[str, int]:
    """``give_gold``, ``get_vis`` ...: the amounts of a trade's side (empty: none)."""
    out = {}
    for what in ("gold", "vis", "provision"):
        if str(f.get(f"{side}_{what}", "")).strip() not in ("", "0"):
            out[what] = _whole(f, f"{side}_{what}")
    return out


def _yes(f: dict, key: str) -> bool:
    return str(f.get(key, "")).lower() in ("yes", "on", "true", "1")


def _listed(f: dict, key: str) -> list[str]:
    chosen = f.get(key, [])
    return [c for c in (chosen if isinstance(chosen, list) else [chosen]) if c]


def _starve(f: dict) -> list[str]:
    chosen = f.get("starve[]", [])
    return [c for c in (chosen if isinstance(chosen, list) else [chosen]) if c]


FORMS = {
    "move": _form("move", lambda me, f: cc.Move(me, _whole(f, "square")), N_("Moved.")),
    "generate": _form("generate", lambda me, f: cc.Generate(me, _mouse(f)), N_("Generated.")),
    "keep": _form(
        "keep",
        lambda me, f: cc.Keep(
            me, f["card_id"], f.get("attach_to") or None, f.get("art") or None, f.get("spell") or None
        ),
        N_("Kept."),
    ),
    "discard": _form("discard", lambda me, f: cc.Discard(me, f["card_id"]), N_("Discarded.")),
    "pass": _form("pass", lambda me, f: cc.Pass(me), N_("Passed.")),
    "draw": _form("draw", lambda me, f: cc.DrawEvent(me, _mouse(f)), N_("Drew an event.")),
    "cast": _form(
        "cast",
        lambda me, f: cc.Cast(
            me,
            f["mage_id"],
            f["spell"],
            f["target"],
            _whole(f, "vis"),
            _yes(f, "mother_may_i"),
            _listed(f, "more_targets[]"),
        ),
        N_("Cast."),
    ),
    "mouse": _form("mouse", lambda me, f: cc.UseMouse(me, f["card_id"], _whole(f, "by")), N_("Mouse used.")),
    "event": _form(
        "event",
        lambda me, f: cc.DecideEvent(me, f["choice"], f.get("target") or None, f.get("season") or None),
        N_("Event decided."),
    ),
    "action": _form("action", lambda me, f: cc.TakeAction(me, f["action"], f.get("text", "")), N_("Action taken.")),
    "rule": _form(
        "rule", lambda me, f: cc.RuleOnAction(_whole(f, "index"), _yes(f, "approved"), f.get("note", "")), N_("Ruled.")
    ),
    "offer": _form(
        "offer", lambda me, f: cc.OfferTrade(me, f["to"], _amounts(f, "give"), _amounts(f, "get")), N_("Trade offered.")
    ),
    "trade": _form("trade", lambda me, f: cc.AnswerTrade(me, f["trade_id"], _yes(f, "accept")), N_("Trade answered.")),
    "tax": _form("tax", lambda me, f: cc.PayTax(me), N_("Tax paid.")),
    "investigate": _form("investigate", lambda me, f: cc.Investigate(me), N_("Rolled for the Quaesitors.")),
    "tribunal": _form("tribunal", lambda me, f: cc.AttendTribunal(me), N_("Unmarked by the Tribunal.")),
    "hedge": _form("hedge", lambda me, f: cc.FaceHedgeMage(me, f.get("give_up") or None), N_("Hedge Mage answered.")),
    "bandits": _form(
        "bandits",
        lambda me, f: cc.FaceBandits(me, _yes(f, "fight"), _allocation(f) if _yes(f, "fight") else None),
        N_("Bandits answered."),
    ),
    "service": _form(
        "service", lambda me, f: cc.AnswerService(me, f.get("grogs") or None, _yes(f, "pay")), N_("Service answered.")
    ),
    "chaos": _form("chaos", lambda me, f: cc.RollChaos(me), N_("Rolled.")),
    "rival": _form("rival", lambda me, f: cc.ChooseRival(me, f["rival"]), N_("Rival chosen.")),
    "avert": _form("avert", lambda me, f: cc.AvertBattle(me, _yes(f, "pay")), N_("Answered.")),
    "allocate": _form(
        "allocate", lambda me, f: cc.AllocateDamage(me, _allocation(f), _yes(f, "pay_off")), N_("Damage allocated.")
    ),
    "plague": _form("plague", lambda me, f: cc.ChoosePlagued(me, _listed(f, "cards[]")), N_("Plague answered.")),
    "heal": _form("heal", lambda me, f: cc.Heal(me, f["healer"], f["target"]), N_("Healed.")),
    "nocounter": _form("nocounter", lambda me, f: cc.NoCounter(me), N_("Confirmed: no counter.")),
    "challenge": _form("challenge", lambda me, f: cc.Challenge(me, f["mage_id"], f["target_mage"]), N_("Challenged.")),
    "convert": _form(
        "convert", lambda me, f: cc.Convert(me, f["give"], _whole(f, "amount"), f["get"]), N_("Converted.")
    ),
    "art": _form("art", lambda me, f: cc.ChooseArt(me, f["challenge_id"], f["art"]), N_("Art chosen.")),
    "bid": _form("bid", lambda me, f: cc.SealBid(me, f["challenge_id"], _whole(f, "vis")), N_("Bid sealed.")),
    "resolve": _form("resolve", lambda me, f: cc.ResolveCertamen(me, f["challenge_id"]), N_("Resolved.")),
    "forfeit": _form("forfeit", lambda me, f: cc.Forfeit(me, f["challenge_id"]), N_("Forfeited.")),
    "support": _form(
        "support", lambda me, f: cc.Support(me, _starve(f), _amounts(f, "keep")), N_("Support allocated.")
    ),
    "seat": _form(
        "seat",
        lambda me, f: cc.AddCovenant(
            _filled(f, "seat_id"),
            _filled(f, "name"),
            _filled(f, "covenant"),
            _yes(f, "host"),
            _listed(f, "arts[]"),
            _whole(f, "score") if str(f.get("score", "")).strip() else 0,
        ),
        N_("Covenant seated."),
    ),
    "begin": _form("begin", lambda me, f: cc.BeginGame(), N_("The game has begun.")),
}
