"""Results that explain themselves (issue 29): how a result came about, from the events the caller was shown."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from api.deps import GamesDep, Principal
from api.help import model as help_model
from api.schemas import GAME_READ
from domain import limits
from domain.platform import explain as derivations

router = APIRouter(tags=["history"])
PAGE = 5000
PAGE_BACK = 500  # a page of the viewer's timeline read newest first
BOARD_EVENTS = 300  # at most this many of a viewer's newest events are read for a board's derivations (a page of
# a long game costs what a page of a short one does: tests/integration/test_reads.py); the endpoint reads any
FEED_EVENTS = 500  # the newest events a feed's "Why?" reads: more than a feed page shows

ResultId = Annotated[
    str,
    Path(
        max_length=limits.IDENTIFIER * 2,
        description="the result's id, as the board and the derivations name it: ``action:<id>``, ``post:<id>``...",
    ),
]


def viewer_events(games: Any, game_id: str, viewer: str) -> list[dict]:
    """Every event ``viewer`` may see, in their order (their timeline, a page at a time)."""
    out: list[dict] = []
    while True:
        page = games.visible_events(game_id, viewer, after=out[-1]["seq"] if out else 0, limit=PAGE)
        out.extend(page)
        if len(page) < PAGE:
            return out


def scoped(projector: Any, ruleset: Any, key: str, viewer: str, result_id: str) -> dict | None:
    """The result's derivation from the viewer's events of its group of phases (``Ruleset.result_scope``: Powers'
    month, the covenant game's cycle, the Lodge's turn), read newest first a group at a time until the result is
    found: a result of this month costs this month's events, at any game length. None if no group shows it."""
    group_of = ruleset.result_scope or (lambda phase: "")
    first = projector.timeline(key, viewer, after=0, limit=1)  # the game's creation: its options
    told = projector.rules_told(key, viewer)  # each adoption it was told of, in whichever group (issue 29)
    bucket: list[dict] = []
    group: str | None = None
    before: int | None = None
    while True:
        page = projector.timeline(key, viewer, newest_first=True, before=before, limit=PAGE_BACK)
        for item in page:
            g = group_of(str(item.get("phase") or ""))
            if group is not None and g != group:
                found = derivations.derivations(ruleset, derivations.with_told(told, first, bucket)).get(result_id)
                if found is not None:
                    return found
                bucket = []
            group = g
            bucket.append(item)
        if len(page) < PAGE_BACK:
            return derivations.derivations(ruleset, derivations.with_told(told, first, bucket)).get(result_id)
        before = page[-1]["seq"]


@router.get("/games/{game_id}/results/{result_id}/explain", responses=GAME_READ)
def explain(game_id: str, result_id: ResultId, request: Request, games: GamesDep, me: Principal) -> dict:
    """How a result came about: its dice with their roll numbers, its assets and modifiers, resistance, the
    difficulty (a sealed one once opened), each step with its rule id, and the result; built from the events you
    were shown alone, so it shows nothing you may not see (404 for a result you were not shown, as for none)."""
    game = games.get_game(game_id, for_update=False)
    projector = getattr(request.app.state, "projector", None)
    if projector is not None:
        found = scoped(projector, game.ruleset, str(game.id), me, result_id)
        if found is None:
            derivations.explain(game.ruleset, [], result_id)  # NotFound, in its own words
    else:  # no read models: the viewer's events from the store
        found = derivations.explain(game.ruleset, viewer_events(games, game_id, me), result_id)
    assert found is not None
    return {**linked(found, game.ruleset.name), "recomputes": not derivations.recomputes(found)}


def linked(derivation: dict, ruleset: str) -> dict:
    """The derivation with each step's rule linked to its text, where the ruleset's shipped rules index holds it
    (``rule_url``: ``/help/<ruleset>/rules#<id>``; None where it does not, as the platform's own dice)."""
    rules = help_model.ruleset_help(ruleset).rules if ruleset in help_model.names() else None
    steps = []
    for step in derivation["steps"]:
        anchor = rules.anchor(step["rule"]) if rules is not None else None
        steps.append({**step, "rule_url": f"/help/{ruleset}/rules#{anchor}" if anchor else None})
    return {**derivation, "steps": steps}


def said(part: dict, field: str) -> str:
    """A step's or a roll's words in the viewer's language (``domain.platform.explain.said``)."""
    return derivations.said(part, field)


def board_derivations(
    projector: Any, ruleset: Any, key: str, viewer: str, belongs: Callable[[str], bool], limit: int = BOARD_EVENTS
) -> dict[str, dict]:
    """The derivations a board shows behind its "Why?": from the viewer's own events of the phases ``belongs``
    accepts (read newest first, until the first of another phase: the cost of the current month, not of the game),
    the game's first event (its options) and the lines that told the viewer of each rules change adopted."""
    items: list[dict] = []
    before = None
    while len(items) < limit:
        size = min(500, limit - len(items))
        page = projector.timeline(key, viewer, newest_first=True, before=before, limit=size)
        kept = list(itertools.takewhile(lambda item: belongs(str(item.get("phase") or "")), page))
        items.extend(kept)
        if len(kept) < len(page) or len(page) < size:
            break
        before = page[-1]["seq"]
    first = projector.timeline(key, viewer, after=0, limit=1)
    told = projector.rules_told(key, viewer)  # each adoption it was told of, however long ago (issue 29)
    found = derivations.derivations(ruleset, derivations.with_told(told, first, items))
    return {k: linked(d, ruleset.name) for k, d in found.items()}


def by_source(projector: Any, ruleset: Any, key: str, viewer: str, limit: int = FEED_EVENTS) -> dict[int, dict]:
    """The derivations of the results among the viewer's newest ``limit`` events, by the ``seq`` of the event that
    published each (a feed shows its "Why?" beside that event); one whose earlier events fell outside those read, and
    so does not recompute, is left out rather than shown in part."""
    found = board_derivations(projector, ruleset, key, viewer, lambda phase: True, limit=limit)
    return {d["source"]["seq"]: d for d in found.values() if not derivations.recomputes(d)}
