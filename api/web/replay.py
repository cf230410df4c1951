"""The GM's page for rules changes (issue 29 item 3): ``/play/{game}/rules`` shows the version the game is pinned at
and the versions installed; a form (no JavaScript) replays the game's history under one in a scratch copy and shows
the difference, event by event (the result fields before and after, the scores and the rest of the view that move,
the rule ids); another adopts it from a phase, every seat told. It calls what the JSON routes call
(``application.replay``), so a refusal reads the same; anyone but the GM or a host is refused, nothing recorded."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse

from api.security import web_session
from api.web.kit import caller_for, flash, form_of, games_of, seat_names, templates, who
from application import replay as replays
from domain.errors import DomainError
from domain.platform import feed as words_of
from domain.platform import replay as rules
from domain.platform import ruleset as rulesets
from domain.platform.i18n import _

router = APIRouter(include_in_schema=False)
PHASES = 60  # the latest phases offered to count from, besides setup


def _page(game_id: str) -> RedirectResponse:
    return RedirectResponse(f"/play/{game_id}/rules", status_code=303)


def _context(request: Request, game_id: str, me: str) -> dict[str, Any]:
    """What the page shows besides a difference: the pin, the versions installed, the phases to count from."""
    games = games_of(request)
    game = games.get_game(game_id, for_update=False)
    rules.require_replayer(game, me)
    pinned = game.state.rules_version
    phases = ["setup", *dict.fromkeys(p["phase"] for p in games.recent_phases(game_id, PHASES))]
    return {
        "game_id": game_id,
        "name": game.state.name,
        "pinned": pinned,
        "versions": [
            {"version": v, "changes": rulesets.version(game.state.ruleset, v).changes}
            for v in rulesets.installed_versions(game.state.ruleset)
        ],
        "phases": [(p, words_of.phase_title(game.ruleset, p)) for p in phases],
        "flash": web_session(request).pop("flash", None),
    }


def _in_words(out: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A replay as the page shows it: each event's kind in words, each seat in a path by its name."""

    def path(p: str) -> str:
        return ".".join(names.get(part, part) for part in p.split("."))

    def paths(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**d, "path": path(d["path"])} for d in found]

    shown = [{**d, "type": words_of.words(d["type"]), "state": paths(d.get("state") or [])} for d in out["differences"]]
    return {**out, "differences": shown, "final": paths(out.get("final") or [])}


def _refused(request: Request, err: DomainError) -> Response:
    return templates.TemplateResponse(
        request, "message.html", {"title": _("Rules changes"), "text": err.message}, status_code=err.status
    )


@router.get("/play/{game_id}/rules", response_class=HTMLResponse)
def rules_page(request: Request, game_id: str) -> Response:
    """GM or host: the version the game is pinned at, and the form that replays it under another."""
    try:
        context = _context(request, game_id, who(request, game_id))
    except DomainError as err:
        return _refused(request, err)
    return templates.TemplateResponse(request, "rules.html", {**context, "replayed": None})


@router.post("/play/{game_id}/rules/replay", response_class=HTMLResponse)
async def replay_form(request: Request, game_id: str) -> Response:
    """GM or host: the game's history replayed under the version chosen, from the phase chosen; nothing recorded."""
    f = await form_of(request)

    def run() -> dict[str, Any]:
        me = who(request, game_id)
        context = _context(request, game_id, me)
        phase = f.get("from_phase") or None
        out = replays.replay(games_of(request), caller_for(request, game_id, me), game_id, f.get("version", ""), phase)
        game = games_of(request).get_game(game_id, for_update=False)
        return {**context, "replayed": _in_words(out, seat_names(game))}

    try:
        context = await run_in_threadpool(run)
    except DomainError as err:
        flash(request, kind="error", form="rules", field=err.field, rule=err.rule, text=err.message)
        return _page(game_id)
    return templates.TemplateResponse(request, "rules.html", context)


@router.post("/play/{game_id}/rules/adopt")
async def adopt_form(request: Request, game_id: str) -> Response:
    """GM or host: adopt the version chosen from the phase chosen; every seat is told what it may see."""
    f = await form_of(request)

    def run() -> dict[str, Any]:
        me = who(request, game_id)
        caller = caller_for(request, game_id, me)
        return replays.adopt(games_of(request), caller, game_id, f.get("version", ""), f.get("from_phase", ""))

    try:
        done = await run_in_threadpool(run)
    except DomainError as err:
        flash(request, kind="error", form="rules", field=err.field, rule=err.rule, text=err.message)
        return _page(game_id)
    result = done["result"]
    text = _("Version {version} adopted from {phase}: every seat was told what changes for it.")
    flash(request, kind="ok", form="rules", text=text.format(version=result["pinned"], phase=result["from_phase"]))
    return _page(game_id)
