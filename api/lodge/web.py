"""The Lodge's page and forms (issue 15): the board as the viewer may see it (``board_view``, L.4) and the
forms it posts to ``POST /play/{game_id}/{form}`` of ``api.web.routes``. Every choice is offered as a list
the server computed (L.3); each form builds a Lodge command and sends it through ``Games.run``."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.security import web_session
from api.web.kit import attempt, back, flash, gm_only, refused, send, sign_in_link, templates
from application.service import new_token
from domain.errors import DomainError, RuleViolation
from domain.ids import GM
from domain.lodge import commands as lc
from domain.lodge import ruleset as lr
from domain.lodge.catalogue import SLOTS, describe
from domain.platform.commands import ReissueLink
from domain.platform.i18n import N_, _, word_of

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
}


def word(name: Any) -> str:
    """A named thing of the board in the reader's language (``WORDS``), else its name."""
    return word_of(WORDS, name)


def _list(f: dict, name: str) -> list[str]:
    """A multi-valued field (``moves[]``), without its empty choices."""
    values = f.get(name, [])
    return [v for v in (values if isinstance(values, list) else [values]) if v]


def _heal(f: dict) -> list[int] | None:
    """The cubes ticked to heal, by position on the track; none ticked leaves the engine's default."""
    chosen = _list(f, "heal[]")
    try:
        return sorted(int(x) for x in chosen) if chosen else None
    except ValueError:
        raise RuleViolation("cubes are chosen by their position on the track", field="heal") from None


def board(request: Request, key: str, context: dict[str, Any]) -> Response:
    """The Lodge as the viewer sees it, from the platform's context (view, feed, phases, flash). The page is
    drawn from the view alone (its choices are what the viewer is offered, ``LODGE.offers``), and the catalogue's
    public card texts: never from the game's state."""
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
    )
    return templates.TemplateResponse(request, "lodge/board.html", context)


def _prepare(request, games, game_id, caller, f):
    cards = {slot: f[f"slot-{slot}"] for slot in SLOTS if f.get(f"slot-{slot}")}
    return attempt(
        request,
        game_id,
        "prepare",
        send(games, game_id, caller, lambda: lc.PrepareSpells(caller.principal, cards)),
        _("Spells prepared face down."),
    )


def _cast(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        f"cast-{f.get('slot')}",
        send(
            games,
            game_id,
            caller,
            lambda: lc.CastSpell(
                caller.principal, f.get("slot", ""), f.get("target") or None, _list(f, "moves[]"), _heal(f)
            ),
        ),
        _("Spell cast."),
    )


def _physical(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        f"physical-{f.get('action')}",
        send(
            games,
            game_id,
            caller,
            lambda: lc.PhysicalAction(
                caller.principal, f.get("action", ""), f.get("target") or None, _list(f, "moves[]"), _heal(f)
            ),
        ),
        _("Physical Action taken."),
    )


def _evocation(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        f"evocation-{f.get('evocation')}",
        send(
            games,
            game_id,
            caller,
            lambda: lc.CommandEvocation(
                caller.principal, f.get("evocation", ""), _list(f, "moves[]"), f.get("attack") or None
            ),
        ),
        _("Evocation commanded."),
    )


def _choose(request, games, game_id, caller, f):
    accept = f.get("accept") != "no"
    return attempt(
        request,
        game_id,
        f"offer-{f.get('offer_id')}",
        send(
            games,
            game_id,
            caller,
            lambda: lc.ResolveFromCell(caller.principal, f.get("offer_id", ""), accept, _list(f, "moves[]"), _heal(f)),
        ),
        _("Persistent Effect resolved from your Cell.") if accept else _("Persistent Effect declined."),
    )


def _answer(request, games, game_id, caller, f):
    choice = f.get("choice_id", "")
    return attempt(
        request,
        game_id,
        f"prompt-{choice}",
        send(games, game_id, caller, lambda: lc.AnswerChoice(caller.principal, choice, f.get("option", ""))),
        _("Choice answered."),
    )


def _pass(request, games, game_id, caller, f):
    return attempt(
        request, game_id, "pass", send(games, game_id, caller, lambda: lc.Pass(caller.principal)), _("You passed.")
    )


@gm_only
def _add_mage(request, games, game_id, caller, f):
    mage = f.get("mage_id", "")
    try:
        games.run(
            caller,
            game_id,
            lc.AddMage(mage, f.get("name", ""), f.get("colour", ""), avatar=f.get("avatar") == "on"),
        )
        token, token_hash = new_token()
        games.run(caller, game_id, ReissueLink(mage, token_hash))
    except DomainError as err:
        return refused(request, game_id, "mages", err)
    web_session(request).set("links", {mage: sign_in_link(request, game_id, token)})
    flash(
        request,
        kind="ok",
        form="mages",
        text=_("{name} seated. Send them their link (shown once).").format(name=f.get("name")),
    )
    return back(game_id, "mages")


@gm_only
def _begin(request, games, game_id, caller, f):
    return attempt(
        request, game_id, "host", send(games, game_id, caller, lambda: lc.BeginGame()), _("The game has begun.")
    )


@gm_only
def _advance(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        "host",
        send(games, game_id, caller, lambda: lc.AdvancePhase(f.get("expected_phase", ""))),
        _("Phase ended."),
    )


@gm_only
def _black_rose(request, games, game_id, caller, f):
    # the page sends a card and its target together (``act``, "card:target"), as offered; ``card`` and ``target``
    # apart are read too (the JSON API's shape)
    card, _sep, target = f["act"].partition(":") if f.get("act") else (f.get("card", ""), "", f.get("target", ""))
    return attempt(
        request,
        game_id,
        "black-rose",
        send(games, game_id, caller, lambda: lc.BlackRoseAct(card, target or None)),
        _("The Black Rose acted."),
    )


FORMS = {
    "prepare": _prepare,
    "cast": _cast,
    "physical": _physical,
    "evocation": _evocation,
    "choose": _choose,
    "answer": _answer,
    "pass": _pass,
    "add-mage": _add_mage,
    "begin": _begin,
    "advance-phase": _advance,
    "black-rose": _black_rose,
}
