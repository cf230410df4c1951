"""The preview button of the GM console (issue 29 item 2): a form (``POST /play/{game}/preview``, no JavaScript)
that previews the pending step (``application.preview``) and shows a page of each viewer's outcome: the events in
words, the results with their derivations' published terms. The GM or a host only; anyone else is refused beside
the form, naming the roles that may, and nothing is recorded."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from api.web.forms import Form
from api.web.kit import seat_names, templates
from application import preview as previews
from application.service import Caller, Games
from domain.ids import GM
from domain.platform import feed as words_of
from domain.platform.i18n import _
from domain.platform.preview import OBSERVER
from domain.platform.roles import WINDOWS


def _run(games: Games, game_id: str, caller: Caller, f: Any) -> dict[str, Any]:
    pv = previews.preview(games, caller, game_id, f.get("window_id") or None).as_dict()
    game = games.get_game(game_id, for_update=False)
    return {**pv, "names": seat_names(game), "window": words_of.phase_title(game.ruleset, pv["window_id"])}


def _shown(request: Request, game_id: str, f: Any, pv: dict[str, Any]) -> Response:
    names = pv["names"]
    viewers = [
        {
            "id": viewer,
            "name": _("Observers") if viewer == OBSERVER else names.get(viewer, viewer),
            "events": [e["text"] for e in outcome["events"]],
            "results": [
                {"id": result_id, "title": d.get("title") or result_id, "published": d["result"].get("published", {})}
                for result_id, d in outcome["derivations"].items()
            ],
        }
        for viewer, outcome in pv["viewers"].items()
    ]
    return templates.TemplateResponse(
        request, "preview.html", {"game_id": game_id, "pv": pv, "viewers": viewers, "window": pv["window"]}
    )


PREVIEW_FORM = Form("preview", "windows", "", run=_run, after=_shown)
_REFUSED = dataclasses.replace(PREVIEW_FORM, section="gm").handler()  # a board shows the GM's forms' refusals there


def handle(request: Request, games: Games, game_id: str, caller: Caller, f: Any) -> Response:
    """The console's form, or a host's on its board (the covenant game's host seat, H-14), with its refusals beside
    the windows; anyone else's is refused where a board says so."""
    if caller.principal == GM or games.read(game_id, lambda g: g.may(caller.principal, WINDOWS)):
        return PREVIEW_FORM.handler()(request, games, game_id, caller, f)
    return _REFUSED(request, games, game_id, caller, f)
