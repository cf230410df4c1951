"""Powers' pages: the board of a power and the GM's console (``templates/``). The forms they post are declared
with Powers' commands (``api.powers.declared``) and dispatched by ``POST /play/{game_id}/{form}`` of
``api.web.routes``; each builds a Powers command and sends it through ``Games.run``."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.powers.forms import GM_COMMAND
from api.powers.hexwords import hex_words
from api.powers.map_forms import MAP_FORMS, editor
from api.powers.mapsvg import map_figure, picked
from api.routes.results import board_derivations, said
from api.web import decision
from api.web.forms import handlers
from api.web.kit import templates
from api.web.talk import tied_posts
from domain.ids import GM
from domain.platform import explain as derivations
from domain.platform import ruleset as registry
from domain.platform.i18n import N_, _
from domain.powers import rules
from domain.powers.feed import result_words, state_word, step_word
from domain.powers.ruleset import phase_id

templates.env.globals["hex_words"] = hex_words  # a hex in words on Powers' pages (issue 28)

# The console's button for the next step (translated where shown: ``_(next_step[g.step])``).
NEXT_STEP = {
    "setup": N_("Begin the game (Tidings)"),
    "tidings": N_("Open month 1 Planning"),
    "planning": N_("Close Planning"),
    "resistance": N_("Go to Battle"),
    "battle": N_("End the month"),
    "cleanup": N_("Begin the next season"),
}


def board(request: Request, key: str, context: dict[str, Any]) -> Response:
    """A power's board, or the GM's console, from the platform's context (view, feed, phases, flash)."""
    board_context(request, key, context)
    page = "powers/console.html" if context["me"] == GM else "powers/board.html"
    return templates.TemplateResponse(request, page, decision.serve(request, context))


def observer_board(request: Request, game: Any, view: dict[str, Any]) -> dict[str, Any]:
    """An observer's map (issue 28 item 1): drawn from the view every observer shares (the public audience's:
    terrain, towns, public features and claims, the visible armies' public cards, the battles; no influence, no
    hidden army or feature), each hex a link (``?hex=``) that says what the table knows of it, and forms none."""
    names = {p["power_id"]: p["name"] for p in view["powers"]}
    fig = map_figure(view, names)
    return {
        "board_template": "powers/observer_board.html",
        "view": view,
        "fig": fig,
        "names": names,
        "pick": picked(view, fig, request.query_params),
        "viewer_is_gm": False,
        "map_title": _("The map as the table sees it"),
    }


def board_context(request: Request, key: str, context: dict[str, Any]) -> dict[str, Any]:
    """What a power's board or the GM's console is drawn from, on top of the platform's context; the board and its
    live answer (``GET /play/{game}/live``) alike. The open decision (issue 28 item 6) is the power's
    ``decision.html``, the GM's ``console_decision.html``; a refused compose form's values and a clicked hex are
    the page's own, not the decision's."""
    context.update(
        skills=rules.SKILLS, asset_classes=rules.ASSET_CLASSES, subclasses=rules.SUBCLASSES, next_step=NEXT_STEP
    )
    # The map is drawn from the viewer's own view (``board_view``'s "map"), never from the game's state.
    names = {p["power_id"]: p["name"] for p in context["view"]["powers"]}
    fig = map_figure(context["view"], names)
    context.update(
        names=names,
        fig=fig,
        pick=picked(context["view"], fig, request.query_params),  # a clicked hex fills the forms in (issue 28)
        viewer_is_gm=context["me"] == GM,
        map_title=_("The map as the GM sees it")
        if context["me"] == GM
        else _("The map as {power} knows it").format(power=names.get(context["me"], context["me"])),
    )
    context.update(
        kept=kept_compose(context.get("flash")),
        resistance_assets=resistance_assets,
        result_words=result_words,
        step_word=step_word,
        state_word=state_word,
    )
    if context["phase"] is None and context["view"]["game"]["step"] in ("resistance", "battle"):
        # This month's resolution, as the GM announced it (a public event), on every board and the console.
        published = request.app.state.projector.latest_of_type(key, "ResolutionPublished", 1)
        context["announcement"] = published[0].get("announcement") if published else None
    context.update(derivations=month_derivations(request, key, context), why_said=said)
    ties = ties_on_page(context["view"], context["phase"])
    context.update(phase_tie=ties[0], tied=tied_posts(request, context, ties))
    context.update(decide=decides(context["view"], context["phase"] is not None))
    context.update(decision_neutral={"kept": kept_compose(None), "pick": None})
    if context["me"] == GM:
        context["rollback_default"] = rollback_default(context["view"]["game"], context["phases"])
        context["flips"] = request.app.state.projector.latest_of_type(key, "TiesBroken", 10)[::-1]
        if context["phase"] is None:  # the map editor, filled from the chosen hex (issue 28)
            context["map_edit"] = editor(request.app.state.games, key, context["pick"], context.get("flash"))
        context["decision_template"] = "powers/console_decision.html"
    else:
        context["decision_template"] = "powers/decision.html"
    return context


def decides(view: dict[str, Any], past: bool) -> dict[str, bool]:
    """What a power's board opens on besides composing and resisting (issue 28 item 2): a battle's form in the
    Battle step, else my actions; my actions too while an offer of the GM's waits for my answer."""
    battles = view["game"]["step"] == "battle" and bool(view.get("battles"))
    offered = any(c["status"] == "proposed" for a in view.get("my_actions", []) for c in a["consequence_offers"])
    return {"battles": battles, "actions": not battles or (offered and not past)}


def month_derivations(request: Request, key: str, context: dict[str, Any]) -> dict[str, dict]:
    """The derivations behind each result's "Why?" (issue 29), from the viewer's own events of this month; none on
    a board of the past."""
    g = context["view"]["game"]
    if context["phase"] is not None or not g.get("month"):
        return {}
    prefix = f"s{g['season']}m{g['month']}-"
    found = board_derivations(
        request.app.state.projector, registry.get("powers"), key, context["me"], lambda p: p.startswith(prefix)
    )
    # one whose earlier events fell outside those read (a month longer than a board reads) is left out, not shown
    # in part: the endpoint explains it whole
    return {k: v for k, v in found.items() if k.startswith(("action:", "battle:")) and not derivations.recomputes(v)}


def ties_on_page(view: dict[str, Any], phase: str | None) -> list[str]:
    """What the page shows posts tied to (issue 16): the phase shown, each action card (the GM's every action,
    a power's own) and each battle."""
    g = view["game"]
    actions = view["actions"] if "actions" in view else view.get("my_actions", [])
    return [
        f"phase:{phase or phase_id(g['season'], g['month'], g['step'])}",
        *(f"action:{a['action_id']}" for a in actions),
        *(f"battle:{b['battle_id']}" for b in view.get("battles", [])),
    ]


def kept_compose(message: dict | None) -> dict[str, Any]:
    """What was typed into the compose form, when it was refused (shown again; issue 17); else nothing."""
    kept: dict[str, Any] = {}
    if message and message.get("kind") == "error" and message.get("form") == "compose":
        kept = dict(message.get("values") or {})
    for key in ("target[]", "asset[]", "collaborator[]"):
        value = kept.get(key, [])
        kept[key] = value if isinstance(value, list) else [value]
    return kept


def resistance_assets(assets: list[dict], action_skill: str | None) -> list[dict]:
    """The assets a resister may put in its pool, one row for identical ones (three schemes alike are one
    choice: a pool holds one of a class, P-ASSET-1): not used up (P-ASSET-8), no agent, industry or army
    already used this season (P-ASSET-12), and of skills only the one answering the action's (P-ASSET-3)."""
    skill = rules.reaction_skill_for(action_skill)
    seen: set[tuple] = set()
    out = []
    for a in assets:
        if a.get("used_up") or (a["cls"] in rules.ONCE_PER_SEASON and a.get("used_this_season")):
            continue
        if a["cls"] == "skill" and skill and a["name"] != skill:
            continue
        same = (a["name"], a["cls"], a["rank"], a.get("assured"), a.get("critical"), a.get("novel"))
        if same not in seen:
            seen.add(same)
            out.append(a)
    return out


def rollback_default(g: dict, phases: list[dict]) -> str | None:
    """The phase a rollback offers first: the latest phase before the one the game is in (issue 17), never
    the earliest."""
    current = phase_id(g["season"], g["month"], g["step"])
    here = max((i for i, p in enumerate(phases) if p["phase"] == current), default=len(phases))
    earlier = [p["phase"] for p in phases[:here] if p["phase"] != current]
    return earlier[-1] if earlier else None


# The forms of Powers' commands are declared with them (``api.powers.declared``); the GM's catch-all and the map
# editor's (``api.powers.map_forms``) are forms of their own.
FORMS = handlers([GM_COMMAND, *MAP_FORMS])
