"""The Lodge's page (issue 15): the board as the viewer may see it (``board_view``, L.4). The forms it posts to
``POST /play/{game_id}/{form}`` of ``api.web.routes`` are declared with the Lodge's commands
(``api.lodge.declared``)."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.lodge import floorsvg
from api.routes.results import by_source, said
from api.web import decision
from api.web.kit import templates
from domain import visibility as vis
from domain.ids import GM
from domain.lodge import ruleset as lr
from domain.lodge.catalogue import SLOTS, describe
from domain.lodge.state import BLACK_ROSE
from domain.lodge.words import may_words, named
from domain.platform.i18n import N_, word_of

# The board's named things in words (the view carries their names): the colours, a slot's face, the default
# catalogue's Physical Actions and their tokens' sides; with the ruleset's phases. Marked here for translation
# (issue 17), translated where shown by ``word``; a name the tables lack (a package's own) is shown as it is.
WORDS = {
    **lr.PHASE_WORDS,
    "red": N_("red"),
    "blue": N_("blue"),
    "green": N_("green"),
    "yellow": N_("yellow"),
    "up": N_("up"),
    "down": N_("down"),
    "empty": N_("empty"),
    "walk": N_("walk"),
    "strike": N_("strike"),
    "meddle": N_("meddle"),
    "available": N_("available"),
    "used": N_("used"),
    BLACK_ROSE: N_("the Black Rose"),  # whose cubes and Damage Cubes the board names
}


def word(name: Any) -> str:
    """A named thing of the board in the reader's language (``WORDS``), else its name."""
    return word_of(WORDS, name)


FRIENDLY = frozenset({"heal", "health"})  # a Spell that does only these is cast on oneself (or one's own)


def _in_words(view: dict[str, Any], catalogue: Any, me: str) -> dict[str, Any]:
    """The page's helpers that name things in words, not ids (issue 28 item 3): ``name_of`` a seat, a Room, a
    card or a board word; ``names_of`` a list of them; ``may_words`` the commands a Mage may send by their
    labels; ``named`` a prompt's question; ``preselect`` the target a Spell's form selects first: the caster
    for a Spell that only heals, else the first target that is not the caster."""
    names: dict[str, str] = {c.id: c.name for c in [*catalogue.spells, *catalogue.black_rose]}
    names |= {r.id: r.name for r in catalogue.rooms}
    names |= {m: s["name"] for m, s in view["mages"].items()}
    friendly = {c.id for c in catalogue.spells if c.phrases and {p.op for p in c.phrases} <= FRIENDLY}

    def name_of(x: Any) -> str:
        return names.get(x) or word(x) if isinstance(x, str) else str(x)

    def preselect(card: str, targets: list[Any]) -> Any:
        if card in friendly:
            return me if me in targets else None
        return next((t for t in targets if t != me), None)

    return {
        "name_of": name_of,
        "names_of": lambda xs: ", ".join(name_of(x) for x in xs),
        "may_words": may_words,
        "named": lambda text: named(text, names),
        "preselect": preselect,
    }


def _named_steps(d: dict[str, Any], in_words: Any) -> dict[str, Any]:
    """A derivation whose steps' values (a Mage, a Room) are in words."""
    steps = [dict(s, value=in_words(s["value"])) if isinstance(s.get("value"), str) else s for s in d.get("steps", [])]
    return dict(d, steps=steps)


def observer_board(request: Request, game: Any, view: dict[str, Any]) -> dict[str, Any]:
    """An observer's Lodge (issue 28 item 1): the floor plan and its text equivalent, drawn from the view every
    observer shares (the physical board, L.4; no Spell face down) and the catalogue's public Rooms and cards."""
    catalogue = game.catalogue
    me = vis.OBSERVER
    helpers = _in_words(view, catalogue, me)
    return {
        "board_template": "lodge/observer_board.html",
        "view": view,
        "rooms": {r.id: r for r in catalogue.rooms},
        "evocation_cards": catalogue.evocation_by_id,
        "word": word,
        "plan": floorsvg.plan(view, catalogue, me, helpers["name_of"], word),
        **helpers,
    }


def board(request: Request, key: str, context: dict[str, Any]) -> Response:
    """The Lodge as the viewer sees it, from the platform's context (view, feed, phases, flash)."""
    board_context(request, key, context)
    return templates.TemplateResponse(request, "lodge/board.html", decision.serve(request, context))


def board_context(request: Request, key: str, context: dict[str, Any]) -> dict[str, Any]:
    """What the board is drawn from, for the board and its live answer alike: the view alone (its choices are what
    the viewer is offered, ``LODGE.offers``), and the catalogue's public card texts, never the game's state. Its
    open decision (issue 28 item 6) is ``decision.html``."""
    game = request.app.state.games.get_game(context["game_id"], for_update=False)
    catalogue = game.catalogue
    view = context["view"]
    host = context["me"] == GM
    cards = {c.id: c for c in [*catalogue.spells, *catalogue.physical_actions, *catalogue.black_rose]}
    context.update(
        viewer_is_host=host,
        slots=SLOTS,
        rooms={r.id: r for r in catalogue.rooms},
        evocation_cards=catalogue.evocation_by_id,
        # what a card does, in words, for the cards the viewer may see
        texts={cid: [describe(p) for p in c.phrases] for cid, c in cards.items()},
        spell_names={c.id: c.name for c in catalogue.spells},
        black_rose_names={c.id: c.name for c in catalogue.black_rose},
        # what the host may act for the Black Rose now: read from the offers, as a Mage's choices are (view.choices)
        # the Black Rose's cards on the targets the host is offered now (view.choices, from LODGE.offers)
        black_rose_acts=[(a["card"], a["target"]) for a in view["choices"]["black_rose"]] if host else [],
        word=word,
        **_in_words(view, catalogue, context["me"]),
    )
    # the Lodge drawn as a floor plan (issue 28 item 1), from the viewer's view and the catalogue's public Rooms
    context.update(plan=floorsvg.plan(view, catalogue, context["me"], context["name_of"], word))
    # each result's "Why?" beside it in the feed (issue 29), from the viewer's own events; none on a view of the past
    shown = by_source(request.app.state.projector, game.ruleset, key, context["me"]) if not context["phase"] else {}
    in_words = context["named"]  # "Why?" names seats and Rooms in words too (its derivation keeps their ids)
    shown = {seq: _named_steps(d, in_words) for seq, d in shown.items()}
    context.update(results=shown, why_said=lambda part, field: in_words(said(part, field)))
    context.update(decision_template="lodge/decision.html")
    return context
