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

from api.web.routes import _int, attempt, send, templates
from domain.covenants import commands as cc
from domain.covenants import rules
from domain.errors import RuleViolation
from domain.ids import GM


def _offers(view: dict[str, Any], me: str, spells: list[str]) -> dict[str, Any]:
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
        ] + [(seat, f"the covenant {cov['covenant']}") for seat, cov in view["covenants"].items()]
        offers["rival_mages"] = [
            (c["id"], f"{c['name']} ({seat})")
            for seat, cov in view["covenants"].items()
            if seat != me
            for c in cov["cards"]
            if c["kind"] == "mage" and c["active"]
        ]
        offers["convert"] = sorted({give for give, _ in rules.RATES})
    if phase in ("main", "events", "create") and at_turn:
        offers["pass"] = True
    if phase == "certamen":
        offers["challenges"] = [ch for ch in view["challenges"] if me in (ch["challenger"], ch["target"])]
    if at_turn and phase == "reckoning":
        offers["support"] = [c for c in cards if not c["pending"]]
    return offers


def board(request: Request, key: str, context: dict[str, Any]) -> Response:
    """The table: the track, every covenant's cards, gold, vis and score, whose move it is, and the viewer's
    legal moves as forms."""
    view, me = context["view"], context["me"]
    game = request.app.state.games.get_game(context["game_id"], for_update=False)
    spells = sorted(game.house.spells) if context["phase"] is None else []
    context.update(
        viewer_is_auditor=me == GM,
        track=rules.TRACK,
        offers={} if context["phase"] else _offers(view, me, spells),
    )
    return templates.TemplateResponse(request, "covenants/table.html", context)


def _form(name: str, build: Callable[[str, dict], Any], ok: str) -> Callable:
    def handler(request, games, game_id, caller, f):
        def command() -> Any:
            try:
                return build(caller.principal, f)
            except (KeyError, ValueError, TypeError):
                raise RuleViolation("fill in every field of the form", field=name) from None

        return attempt(request, game_id, name, send(games, game_id, caller, command), ok)

    handler.__name__ = f"_{name}"
    return handler


def _whole(f: dict, key: str) -> int:
    value = _int(f.get(key))
    if value is None:
        raise ValueError(key)
    return value


def _starve(f: dict) -> list[str]:
    chosen = f.get("starve[]", [])
    return [c for c in (chosen if isinstance(chosen, list) else [chosen]) if c]


FORMS = {
    "move": _form("move", lambda me, f: cc.Move(me, _whole(f, "square")), "Moved."),
    "generate": _form("generate", lambda me, f: cc.Generate(me), "Generated."),
    "keep": _form(
        "keep",
        lambda me, f: cc.Keep(me, f["card_id"], f.get("attach_to") or None, f.get("art") or None),
        "Kept.",
    ),
    "discard": _form("discard", lambda me, f: cc.Discard(me, f["card_id"]), "Discarded."),
    "pass": _form("pass", lambda me, f: cc.Pass(me), "Passed."),
    "draw": _form("draw", lambda me, f: cc.DrawEvent(me), "Drew an event."),
    "cast": _form("cast", lambda me, f: cc.Cast(me, f["mage_id"], f["spell"], f["target"], _whole(f, "vis")), "Cast."),
    "challenge": _form("challenge", lambda me, f: cc.Challenge(me, f["mage_id"], f["target_mage"]), "Challenged."),
    "convert": _form("convert", lambda me, f: cc.Convert(me, f["give"], _whole(f, "amount"), f["get"]), "Converted."),
    "art": _form("art", lambda me, f: cc.ChooseArt(me, f["challenge_id"], f["art"]), "Art chosen."),
    "bid": _form("bid", lambda me, f: cc.SealBid(me, f["challenge_id"], _whole(f, "vis")), "Bid sealed."),
    "resolve": _form("resolve", lambda me, f: cc.ResolveCertamen(me, f["challenge_id"]), "Resolved."),
    "forfeit": _form("forfeit", lambda me, f: cc.Forfeit(me, f["challenge_id"]), "Forfeited."),
    "support": _form("support", lambda me, f: cc.Support(me, _starve(f)), "Support allocated."),
}
