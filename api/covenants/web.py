"""The covenant game's table (``templates/table.html``). The forms it posts to ``POST /play/{game_id}/{form}`` of
``api.web.routes`` are declared with the covenant commands (``api.covenants.declared``).

The page is drawn from the viewer's own view (``table_view``): a player's page never holds another
covenant's sealed bid or the discard pile's order, because the view it is drawn from does not."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.covenants import tracksvg
from api.routes.results import by_source, said
from api.web import decision
from api.web.kit import templates
from domain import visibility as vis
from domain.covenants import commands as cc
from domain.covenants import rules
from domain.covenants.feed import turn_words
from domain.covenants.game import ENEMIES
from domain.covenants.house import ARTS
from domain.covenants.options import option
from domain.covenants.ruleset import PHASE_WORDS, SEASON_WORDS
from domain.ids import GM
from domain.platform.i18n import N_, _, word_of
from domain.platform.roles import RULE, WINDOWS

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
    "vis_source": N_("vis source"),
    "mine": N_("mine"),
    "town": N_("town"),
    "book": N_("book"),
    "art": N_("art"),
    "armor": N_("armor"),
    "shield": N_("shield"),
    "weapon": N_("weapon"),
    "enchanted_item": N_("enchanted item"),
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


def _first_up(text: str) -> str:
    """A phrase that begins a sentence: its first letter upper case, the rest as it is (names keep their case)."""
    return text[:1].upper() + text[1:]


def _in_words(value: Any, covenant_of: dict[str, str]) -> Any:
    """A step's value or a phrase's parameter with each seat in it named by its covenant (issue 28 item 3)."""
    if isinstance(value, str):
        return covenant_of.get(value, value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(covenant_of.get(str(v), str(v)) for v in value)
    return value


def _named_steps(d: dict[str, Any], covenant_of: dict[str, str]) -> dict[str, Any]:
    """A derivation ("Why?") whose steps' values name covenants, not seats (its JSON keeps the ids)."""
    return dict(d, steps=[dict(s, value=_in_words(s.get("value"), covenant_of)) for s in d.get("steps", [])])


def _said(covenant_of: dict[str, str]) -> Any:
    """``said`` with each seat among a phrase's values named by its covenant ("{side}: vis spent")."""

    def say(part: dict, field: str) -> str:
        params = {k: _in_words(v, covenant_of) for k, v in (part.get("params") or {}).items()}
        return said(dict(part, params=params) if params else part, field)

    return say


def board(request: Request, key: str, context: dict[str, Any]) -> Response:
    """The table: the track, every covenant's cards, gold, vis and score, whose move it is, and the viewer's
    legal moves as forms."""
    board_context(request, key, context)
    return templates.TemplateResponse(request, "covenants/table.html", decision.serve(request, context))


def observer_board(request: Request, game: Any, view: dict[str, Any]) -> dict[str, Any]:
    """An observer's table (issue 28 item 1): the track with each covenant's token and each covenant's cards drawn
    as cards, with their text equivalents, from the view every observer shares (no bid, no discard order, no move
    offered); ``me`` is no seat, so no token is marked as the viewer's."""
    me = vis.OBSERVER
    drawn = {"track": tracksvg.track(view, me, word), "hands": tracksvg.hands(view, me, word)}
    return {
        "board_template": "covenants/observer_board.html",
        "view": view,
        "drawn": drawn,
        "track": rules.TRACK,
        "word": word,
    }


def board_context(request: Request, key: str, context: dict[str, Any]) -> dict[str, Any]:
    """What the table is drawn from, for the table and its live answer alike: the viewer's view and the moves it
    offers them now. Its open decision (issue 28 item 6) is ``decision.html``."""
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
    covenant_of = {seat: c["covenant"] for seat, c in view["covenants"].items()}  # a seat by its covenant's name
    windows = [
        dict(w, words=_first_up(turn_words(w["kind"], covenant_of, word) or word(w["kind"])))
        for w in view.get("windows", [])
    ]
    context.update(viewer_is_auditor=me == GM, track=rules.TRACK, offers=offers, word=word, cards_by_id=cards_by_id)
    # the table drawn (issue 28 item 1), from the viewer's view alone
    context.update(drawn={"track": tracksvg.track(view, me, word), "hands": tracksvg.hands(view, me, word)})
    g = view["game"]
    context.update(
        turn_windows=windows,
        may_preview=game.may(me, WINDOWS),  # the host (H-14): each open window's preview (issue 29)
        turn_next=[covenant_of.get(s, s) for s in (g.get("turn") or [])[1:]],
        winner_names=[covenant_of.get(s, s) for s in g.get("winners") or []],
    )
    # each result's "Why?" beside it in the feed (issue 29), from the viewer's own events; none on a view of the past
    shown = by_source(request.app.state.projector, game.ruleset, key, me) if not context["phase"] else {}
    context.update(results={seq: _named_steps(d, covenant_of) for seq, d in shown.items()}, why_said=_said(covenant_of))
    context.update(decision_template="covenants/decision.html")
    return context
