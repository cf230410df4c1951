"""Powers' pages and forms: the board of a power and the GM's console (``templates/``), and the forms they
post (``FORMS``, dispatched by ``POST /play/{game_id}/{form}`` of ``api.web.routes``). Each form builds a
Powers command and sends it through ``Games.run``."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.powers.army_forms import ARMY_GM_FORMS
from api.powers.forms import FEATURE_FORMS
from api.powers.mapsvg import map_figure
from api.security import web_session
from api.web.kit import attempt, back, confirm_first, flash, gm_only, integer, refused, send, sign_in_link, templates
from api.web.talk import tied_posts
from application.service import new_token
from domain.errors import DomainError
from domain.ids import GM
from domain.platform.i18n import N_, _
from domain.powers import commands as pc
from domain.powers import rules
from domain.powers.feed import result_words, state_word, step_word
from domain.powers.ruleset import phase_id

# The console's button for the next step (translated where shown: ``_(next_step[g.step])``).
NEXT_STEP = {
    "setup": N_("Begin the game (Tidings)"),
    "tidings": N_("Open month 1 Planning"),
    "planning": N_("Close Planning"),
    "resistance": N_("Go to Battle"),
    "battle": N_("End the month"),
    "cleanup": N_("Begin the next season"),
}


def _picked_assets(f: dict) -> list[dict]:
    chosen = f.get("asset[]", [])
    chosen = chosen if isinstance(chosen, list) else [chosen]
    return [{"asset_id": a, "mode": f.get(f"mode-{a}", "normal")} for a in chosen if a]


def board(request: Request, key: str, context: dict[str, Any]) -> Response:
    """A power's board, or the GM's console, from the platform's context (view, feed, phases, flash)."""
    context.update(
        skills=rules.SKILLS, asset_classes=rules.ASSET_CLASSES, subclasses=rules.SUBCLASSES, next_step=NEXT_STEP
    )
    # The map is drawn from the viewer's own view (``board_view``'s "map"), never from the game's state.
    names = {p["power_id"]: p["name"] for p in context["view"]["powers"]}
    context.update(
        names=names,
        fig=map_figure(context["view"], names),
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
    ties = ties_on_page(context["view"], context["phase"])
    context.update(phase_tie=ties[0], tied=tied_posts(request, context, ties))
    if context["me"] == GM:
        context["rollback_default"] = rollback_default(context["view"]["game"], context["phases"])
        context["flips"] = request.app.state.projector.latest_of_type(key, "TiesBroken", 10)[::-1]
        return templates.TemplateResponse(request, "powers/console.html", context)
    return templates.TemplateResponse(request, "powers/board.html", context)


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


def submit_command(me: str, f: dict) -> pc.SubmitAction:
    """The action the compose form means."""
    targets = f.get("target[]", [])
    targets = targets if isinstance(targets, list) else [targets]
    collaborators = f.get("collaborator[]", [])
    collaborators = collaborators if isinstance(collaborators, list) else [collaborators]
    propose = f.get("propose") == "on"
    return pc.SubmitAction(
        power_id=me,
        title=f.get("title", ""),
        description=f.get("description", ""),
        skill=f.get("skill") or None,
        slot=f.get("slot", "private"),
        location=f.get("location") or None,
        targets=[t for t in targets if t],
        resistible=f.get("resistible") == "on",
        difficulty=integer(f.get("difficulty")),
        assets=[] if propose else _picked_assets(f),
        extra_actions=1 if f.get("extra_action") == "on" else 0,
        roll=not propose,
        collaborators=[c for c in collaborators if c],  # P-DICE-11: they join with their own pools
        dungeon=f.get("dungeon") == "on",  # P-ASSET-4: inside a dungeon, Delve joins one other skill
    )


def _submit(request, games, game_id, caller, f):
    propose = f.get("propose") == "on"
    return attempt(
        request,
        game_id,
        "compose",
        send(games, game_id, caller, lambda: submit_command(caller.principal, f)),
        _("Action recorded. The server rolled your dice below: choose your conversions and confirm.")
        if not propose
        else _("Proposal sent: the GM will set its difficulty, then you roll."),
        "actions",
        keep=f,
    )


def _roll(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        f"action-{f.get('action_id')}",
        send(
            games,
            game_id,
            caller,
            lambda: pc.RollAction(
                f.get("action_id", ""),
                assets=_picked_assets(f),
                extra_actions=1 if f.get("extra_action") == "on" else 0,
            ),
        ),
        _("Rolled. Choose your conversions and confirm."),
    )


def _convert(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        f"action-{f.get('action_id')}",
        send(
            games,
            game_id,
            caller,
            lambda: pc.LockConversions(f.get("action_id", ""), convert=integer(f.get("convert"), 0)),
        ),
        _("Conversions fixed. Your receipt:"),
    )


def _discard(request, games, game_id, caller, f):
    ask = confirm_first(
        request,
        game_id,
        f,
        _("Discard this action?"),
        _("A discarded action is not resolved, and the action it used stays spent for this month."),
        _("Yes, discard it"),
    )
    if ask is not None:
        return ask
    return attempt(
        request,
        game_id,
        f"action-{f.get('action_id')}",
        send(games, game_id, caller, lambda: pc.DiscardAction(f.get("action_id", ""))),
        _("Action discarded (it stays spent)."),
    )


def _accept(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        f"action-{f.get('action_id')}",
        send(games, game_id, caller, lambda: pc.AcceptConsequence(f.get("action_id", ""), f.get("consequence_id", ""))),
        _("Consequence accepted."),
    )


def _react(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        f"resist-{f.get('action_id')}",
        send(
            games,
            game_id,
            caller,
            lambda: pc.DeclareReaction(
                caller.principal, f.get("action_id", ""), _picked_assets(f), integer(f.get("convert"), 0)
            ),
        ),
        _("Reaction recorded. You will learn the outcome when the window closes."),
    )


def _waive(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        "resistance",
        send(games, game_id, caller, lambda: pc.WaiveReactions(caller.principal)),
        _("You waived your reaction."),
    )


@gm_only
def _advance(request, games, game_id, caller, f):
    if f.get("expected_step") == "planning":
        ask = confirm_first(
            request,
            game_id,
            f,
            _("Close Planning now?"),
            _("No power can submit, roll or change an action once Planning is closed, even before its deadline."),
            _("Yes, close Planning"),
        )
        if ask is not None:
            return ask
    return attempt(
        request,
        game_id,
        "calendar",
        send(games, game_id, caller, lambda: pc.Advance(f.get("expected_step") or None, str(f.get("tidings", "")))),
        _("The calendar moved on."),
    )


@gm_only
def _resolve(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        "calendar",
        send(games, game_id, caller, lambda: pc.Resolve(f.get("expected_step") or None, f.get("announcement", ""))),
        _("Resolved and published; the resistance window is open."),
    )


@gm_only
def _difficulty(request, games, game_id, caller, f):
    tiers = {}
    for line in (f.get("tiers") or "").splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            tiers[k.strip()] = v.strip()
    value = integer(f.get("value"))
    if value is None:
        flash(
            request,
            kind="error",
            form=f"gm-action-{f.get('action_id')}",
            field="value",
            rule="GM-2",
            text=_("give the difficulty as a whole number"),
        )
        return back(game_id, f"gm-action-{f.get('action_id')}")
    return attempt(
        request,
        game_id,
        f"gm-action-{f.get('action_id')}",
        send(
            games,
            game_id,
            caller,
            lambda: pc.SetDifficulty(f.get("action_id", ""), value, sealed=f.get("sealed") == "on", tiers=tiers),
        ),
        _("Difficulty recorded."),
    )


@gm_only
def _consequence(request, games, game_id, caller, f):
    effects: list[dict] = []
    if integer(f.get("lose_actions"), 0):
        effects.append({"kind": "lose_actions", "count": integer(f.get("lose_actions"))})
    if f.get("disclose_to") and f.get("disclose_text"):
        effects.append({"kind": "disclose", "to": f["disclose_to"], "text": f["disclose_text"]})
    return attempt(
        request,
        game_id,
        f"gm-action-{f.get('action_id')}",
        send(games, game_id, caller, lambda: pc.ProposeConsequence(f.get("action_id", ""), f.get("text", ""), effects)),
        _("Consequence offered to the player."),
    )


@gm_only
def _add_power(request, games, game_id, caller, f):
    cls, _sep, sub = (f.get("kind") or "::").partition(":")
    token, token_hash = new_token()
    try:
        receipt = games.run(caller, game_id, pc.AddPower(f.get("name", ""), cls, sub, token_hash))
    except DomainError as err:
        return refused(request, game_id, "powers", err)
    web_session(request).set("links", {receipt.result["power_id"]: sign_in_link(request, game_id, token)})
    added = _("{name} added. Send them their link (shown once).").format(name=f.get("name"))
    flash(request, kind="ok", form="powers", text=added)
    return back(game_id, "powers")


@gm_only
def _asset(request, games, game_id, caller, f):
    return attempt(
        request,
        game_id,
        "powers",
        send(
            games,
            game_id,
            caller,
            lambda: pc.GrantAsset(
                f.get("power_id", ""),
                f.get("name", ""),
                f.get("cls", ""),
                integer(f.get("rank"), 0) or 0,
                assured=f.get("assured") == "on",
                critical=f.get("critical") == "on",
                novel=f.get("novel") == "on",
            ),
        ),
        _("Asset granted."),
    )


FORMS = {
    "submit": _submit,
    "roll": _roll,
    "convert": _convert,
    "discard": _discard,
    "accept": _accept,
    "react": _react,
    "waive": _waive,
    "advance": _advance,
    "resolve": _resolve,
    "difficulty": _difficulty,
    "consequence": _consequence,
    "add-power": _add_power,
    "asset": _asset,
    **FEATURE_FORMS,
    **ARMY_GM_FORMS,
}
