"""Pages. Every form posts, the service records or refuses, and the page is shown again (POST,
redirect, GET) with a receipt, or with the error next to the field it concerns. Pages work without
JavaScript; a little script adds the countdown and the live conversion preview."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone
from functools import cache
from types import ModuleType
from typing import Any
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo, available_timezones

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

from api import declare, rulesets
from api.schemas import PageSize, Position
from api.security import CsrfRefused, web_session
from api.web import decision as open_decision
from api.web import i18n, options_form
from api.web.forms import Confirm, Form, handlers
from api.web.i18n import local_time
from api.web.kit import (
    NO_REFERRER,
    back,
    caller_for,
    flash,
    form_of,
    games_of,
    local_receipt,
    seat_link_does_not_work,
    seat_names,
    sign_in_link,
    signed_in,
    templates,
    who,
)
from api.web.preview import PREVIEW_FORM
from api.web.preview import handle as preview_form
from api.web.status import status_strip
from application.service import Games, hash_token
from domain import limits
from domain import rulesets as installed
from domain import visibility as vis
from domain.errors import DomainError, RuleViolation, Unauthorized
from domain.ids import GM
from domain.platform import feed as words_of
from domain.platform.commands import (
    CloseWindow,
    DeclareReady,
    GrantExtension,
    RefuseExtension,
    ReissueLink,
    RequestExtension,
)
from domain.platform.i18n import N_, _
from domain.platform.ruleset import Ruleset
from domain.platform.ruleset import registered as registered_rulesets

router = APIRouter(include_in_schema=False)

BOARD_FEED = 40  # the newest events of the feed a board shows
BOARD_PHASES = 60  # the latest phases a board offers to look back at (any other: ?phase=)
AUDIT_PAGE = 100  # rows a page of the audit shows unless asked for more (PageSize: at most limits.PAGE; issue 28)


def csrf_refused(request: Request, exc: CsrfRefused) -> Response:
    return templates.TemplateResponse(
        request, "message.html", {"title": _("This form was refused"), "text": exc.detail}, status_code=403
    )


def kept_links(request: Request, game_id: str) -> dict[str, dict[str, str]]:
    """The sign-in links this browser was shown for a game, each kept until the GM dismisses it (issue 17):
    a form that makes a link leaves it in the session's ``links``; the next page keeps it under its game."""
    session = web_session(request)
    fresh = session.pop("links", None) or {}
    kept = session.get("kept_links") or {}
    if fresh:
        kept = {**kept, game_id: {**kept.get(game_id, {}), **fresh}}
        session.set("kept_links", kept)
    return kept.get(game_id, {})


def rollback_banner(projector: Any, key: str, ruleset: Any, phases: list[dict], rolled: Any = "unread") -> dict | None:
    """The latest rollback, while no phase has begun since it (every board shows it with its reason). ``rolled``:
    the latest rollback (or None, there is none), when the caller has read it already (``latest_rollback``)."""
    if rolled == "unread":
        rolled = latest_rollback(projector, key)
    if rolled is None:
        return None
    if phases and phases[-1]["version"] > rolled["from_version"]:
        return None  # a phase began after the rollback: the table has moved on
    to = [p for p in phases if p["version"] == rolled["to_version"]]
    return {
        "reason": rolled.get("reason") or "",
        "to": words_of.phase_title(ruleset, to[-1]["phase"])
        if to
        else _("version {number}").format(number=i18n.number(rolled["to_version"])),
    }


def latest_rollback(projector: Any, key: str) -> dict | None:
    """The game's latest rollback (its from and to versions), if any."""
    latest = projector.latest_of_type(key, "GameRolledBack", 1)
    return latest[0] if latest else None


def feed_page(
    projector: Any, game: Any, me: str, zone: ZoneInfo, before: int | None = None, up_to: int | None = None
) -> list[dict]:
    """A page of the viewer's feed, newest first, in words and in their zone: ``BOARD_FEED`` events and one
    more (which says an older page exists). From the viewer's own timeline: what their board shows."""
    events = projector.timeline(
        str(game.id), me, limit=BOARD_FEED + 1, newest_first=True, before=before, up_to_version=up_to
    )
    names = seat_names(game)
    public = getattr(game.ruleset, "feed_names", None)
    words = {**public(game), **names} if public is not None else names  # the seats' names win
    from api.web.disputes import marks  # a disputed event's line says so (issue 29)

    disputed = marks(projector, game, me)
    return [
        dict(
            e,
            local=local_time(e["at"], zone),
            text=words_of.describe_event(game.ruleset, e["type"], e["data"], words),
            by=words_of.who(e["actor"], names),
            dispute=disputed.get(e["seq"]),
        )
        for e in events
    ]


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    """My games, with their phase (in the ruleset's words) and my next deadline."""
    games = games_of(request)
    rows = []
    for game_id in web_session(request).grants():
        try:
            me = who(request, game_id)
            view = games.view(game_id, me)
        except DomainError:
            continue
        # only what every ruleset's game answers: its name and seats, and the deadlines of the status strip every
        # board draws (the windows the viewer's view shows), never a ruleset's own view keys
        game = games.get_game(game_id, for_update=False)
        phases = games.recent_phases(game_id, 1)
        zone = ZoneInfo(game.timezone_for(me))
        deadlines = status_strip(game, me, view, zone, phases)["deadlines"]
        rows.append(
            {
                "game_id": game_id,
                "name": game.state.name,
                "me": me,
                "seat": seat_names(game).get(me, me),
                "deadline": deadlines[0] if deadlines else None,
                "zone": zone.key,
                "phase": words_of.phase_title(game.ruleset, phases[-1]["phase"]) if phases else _("Setting up"),
            }
        )
    return templates.TemplateResponse(request, "home.html", {"rows": rows})


@router.get("/language")
def choose_language(request: Request, lang: str = "", next: str = "") -> Response:
    """The footer's choice of language: kept in a cookie for a year (a preference, not a credential, so a
    plain GET), then back to the page it was chosen on (the Referer's path; pages do not echo their own
    address, which may name what the viewer may not see). Only our own paths are returned to."""
    if not next:
        referer = urlsplit(request.headers.get("referer", ""))
        here = urlsplit(str(request.base_url))
        if referer.netloc == here.netloc:
            next = referer.path + (f"?{referer.query}" if referer.query else "")
    target = next if next.startswith("/") and not next.startswith("//") and "\\" not in next else "/"
    response = RedirectResponse(target, status_code=303)
    if lang in i18n.catalogs():
        settings = request.app.state.settings
        secure = settings.public_url.startswith("https://") or request.url.scheme == "https"  # as the session's
        response.set_cookie(i18n.COOKIE, lang, max_age=365 * 24 * 3600, samesite="lax", httponly=True, secure=secure)
    else:
        response.delete_cookie(i18n.COOKIE)  # "as my browser asks"
    return response


@router.get("/signin/{game_id}/{token}")
def sign_in(request: Request, game_id: str, token: str) -> Response:
    """The secret link, exchanged at once for a server-side session (the cookie holds only a random id)
    and a redirect, so that the token leaves the address bar and is never sent as a Referer."""
    try:
        principal = games_of(request).authenticate(game_id, token)
    except DomainError:
        return seat_link_does_not_work(request)
    session = web_session(request)
    session.rotate()
    session.grant(game_id, principal, hash_token(token))
    return RedirectResponse(f"/play/{game_id}", status_code=303, headers=NO_REFERRER)


@router.post("/signout/{game_id}")
async def sign_out(request: Request, game_id: str) -> Response:
    """Sign this browser out of a game."""
    await form_of(request)
    session = web_session(request)
    if game_id not in session.grants() and session.person() is not None:
        session.sign_out_person()  # at this board as a person signed in by email (issue 17)
    session.revoke(game_id)
    return RedirectResponse("/", status_code=303)


@router.post("/signout/{game_id}/everywhere")
async def sign_out_everywhere(request: Request, game_id: str) -> Response:
    """Sign every browser signed in as me out of this game (the link itself keeps working)."""
    await form_of(request)
    try:
        me = who(request, game_id)
    except DomainError:
        return RedirectResponse("/", status_code=303)
    request.app.state.sessions.end_principal(game_id, me)
    return RedirectResponse("/", status_code=303)


def _new_game_rulesets() -> list[Ruleset]:
    """Every registered ruleset a game may be created with, the default first (none its plugin keeps unlisted)."""
    offered = (r for r in registered_rulesets().values() if r.name not in installed.UNLISTED)
    return sorted(offered, key=lambda r: (r.name != installed.DEFAULT, r.name))


def _new_game_url(ruleset: str) -> str:
    return "/new" if ruleset == installed.DEFAULT else f"/new?{urlencode({'ruleset': ruleset})}"


@cache
def new_game_zones() -> list[str]:
    """The time zones a game may be created in (the IANA zones this machine knows), in order."""
    return sorted(available_timezones())


@router.get("/new", response_class=HTMLResponse)
def new_game_page(request: Request, ruleset: str = installed.DEFAULT) -> Response:
    """The form that starts a game of a ruleset (the default unless ``ruleset`` names another), with its campaign
    options at their defaults, and links to the other rulesets' forms."""
    choices = _new_game_rulesets()
    chosen = next((r for r in choices if r.name == ruleset), None)
    if chosen is None:
        text = _("No ruleset is named {name}; the rulesets are {names}.").format(
            name=ruleset[: limits.IDENTIFIER], names=", ".join(r.name for r in choices)
        )
        return templates.TemplateResponse(
            request, "message.html", {"title": _("Start a game"), "text": text}, status_code=404
        )
    flashed = web_session(request).pop("flash", None)
    kept = (flashed or {}).get("values") if (flashed or {}).get("form") == "new" else None
    controls = options_form.controls(chosen, kept)
    person = web_session(request).person()
    context = {
        "flash": flashed,
        "ruleset": chosen,
        "others": [(r, _new_game_url(r.name)) for r in choices if r is not chosen],
        "options": controls,
        "kept": kept or {},
        "zones": new_game_zones(),
        # the zone the form starts at: the one the person chose on My games, else UTC (a script may guess better)
        "zone": (person.timezone if person and person.timezone else "UTC"),
        "guess_zone": not (person and person.timezone),
        # the options are shown open when one of them was refused
        "options_open": bool(flashed and str(flashed.get("field") or "").startswith(options_form.PREFIX)),
        "placed": ["name", "gm_name", "timezone", *(c["name"] for c in controls)],
    }
    return templates.TemplateResponse(request, "new.html", context)


@router.post("/new")
async def new_game(request: Request) -> Response:
    """Create a game of the chosen ruleset with the campaign options set on the form; this browser becomes its GM.
    A refused value (an option is named ``options.<name>``) creates nothing and shows the form again."""
    f = await form_of(request)
    name = str(f.get("ruleset") or installed.DEFAULT)[: limits.IDENTIFIER]
    chosen = registered_rulesets().get(name)  # None: the service refuses the name (UnknownRuleset)
    try:
        game_id, token, _version = games_of(request).create_game(
            f.get("name", ""),
            f.get("gm_name") or "GM",
            f.get("timezone") or "UTC",
            options_form.read_options(chosen, f) if chosen else None,
            ruleset=name,
        )
    except DomainError as err:
        field = options_form.control_of(chosen, err.field or "")
        # A refused form is shown again as it was filled in, but for a value longer than any field takes (kept in
        # the session, and echoed: a megabyte refused is not a megabyte stored and shown back).
        values = {k: v for k, v in f.items() if k != "csrf" and len(str(v)) <= limits.DESCRIPTION}
        flash(request, kind="error", form="new", field=field, rule=err.rule, text=err.message, values=values)
        return RedirectResponse(_new_game_url(chosen.name if chosen else installed.DEFAULT), status_code=303)
    assert token is not None, "a game created without an idempotency key returns its GM token"
    session = web_session(request)
    session.rotate()
    session.grant(game_id, GM, hash_token(token))
    session.set("links", {GM: sign_in_link(request, game_id, token)})
    return RedirectResponse(f"/play/{game_id}", status_code=303)


@router.get("/play/{game_id}", response_class=HTMLResponse)
def board(
    request: Request, game_id: str, phase: str | None = None, at: str | None = None, before: Position | None = None
) -> Response:
    """A power's board, or the GM's console; with ``phase``, my view as it stood then."""
    me = signed_in(request, game_id)
    if isinstance(me, Response):
        return me
    if vis.is_observer(me):  # an invited observer (issue 28): the table's public record, no seat's board
        return observe(request, game_id, me, before)
    context = board_context(request, game_id, me, phase=phase, at=at, before=before)
    pages = ruleset_web(games_of(request), game_id)
    if pages is None:
        return templates.TemplateResponse(
            request,
            "message.html",
            {
                "title": _("No board here"),
                "text": _("This game's ruleset has no pages yet; play it through the JSON API."),
            },
        )
    return pages.board(request, context["key"], context)


def board_context(
    request: Request,
    game_id: str,
    me: str,
    *,
    phase: str | None = None,
    at: str | None = None,
    before: Position | None = None,
    live: bool = False,
) -> dict[str, Any]:
    """What every ruleset's board is drawn from (the viewer's view, feed, phases, strip, talk), for the board and
    for its live answer alike (``live``: no flash or kept links are read, so the board shows them still)."""
    games = games_of(request)
    # Bounded at any game length: the state (a cached aggregate), the latest phases and a page of the feed.
    game = games.get_game(game_id, for_update=False)
    ruleset = game.ruleset
    phases = [
        dict(p, title=words_of.phase_title(ruleset, p["phase"])) for p in games.recent_phases(game_id, BOARD_PHASES)
    ]
    zone = ZoneInfo(games.timezone_for(game_id, me))
    key = str(game.id)
    context: dict[str, Any] = {
        "game_id": game_id,
        "key": key,
        "me": me,
        "phases": phases,
        "phase": phase,
        "phase_title": words_of.phase_title(ruleset, phase) if phase else None,
        "phase_at": "start" if at == "start" else "end",
        "flash": None if live else local_receipt(web_session(request).pop("flash", None), zone),
        "links": {} if live else kept_links(request, game_id),
        # A board folds all but the open decision away (issue 28): ``?show=feed`` (a fold's name, or "all") opens
        # that fold, one step off; the templates compare it with their folds' names only.
        "show": "" if live else request.query_params.get("show", ""),
    }
    up_to = None
    if phase:
        try:
            start, end = games.phase_span(game_id, phase)
            up_to = start if at == "start" else end
            context["view"] = games.view_at(game_id, me, phase=phase, version=up_to)
        except DomainError as err:
            up_to = None
            context["view"] = games.view(game_id, me)
            context["flash"] = {
                "kind": "error",
                "form": "phase",
                "field": "phase",
                "rule": err.rule,
                "text": err.message,
            }
            context["phase"] = None
            context["phase_title"] = None
    else:
        context["view"] = games.view(game_id, me)
    projector = request.app.state.projector
    rolled = latest_rollback(projector, key)  # read once: the banner and the strip's timeline both need it
    context["rollback_banner"] = None if phase else rollback_banner(projector, key, ruleset, phases, rolled)
    events = feed_page(projector, game, me, zone, before=before, up_to=up_to)
    context["feed"] = events[:BOARD_FEED]
    context["strip"] = status_strip(game, me, context["view"], zone, phases, rolled, past=phase is not None)
    # The strip polls for itself (and the feed's first page) only on the board as it is now (issue 17).
    context["strip_live"] = None if phase else ("?feed=1" if before is None else "")
    keep = {"phase": phase, "at": at} if phase else {}
    keep = {k: v for k, v in keep.items() if v}
    top = context["feed"][0]["seq"] if context["feed"] else None
    context["feed_pages"] = {
        "older": urlencode({**keep, "before": context["feed"][-1]["seq"]}) if len(events) > BOARD_FEED else None,
        "newer": urlencode({**keep, "before": top + BOARD_FEED + 1}) if before is not None and top else None,
        "newest": urlencode(keep) if before is not None else None,
    }
    context["zone"] = zone.key
    from api.web.talk import talk_summary  # the talk box of every ruleset's board (issue 16)

    context["talk"] = talk_summary(request, game_id, me)
    context["seated"] = me in game.seats  # a seat sets its own contact and notifications (api.web.contact)
    context["help_ruleset"] = ruleset.name  # the footer's Help opens this ruleset's help (issue 28 item 8)
    context["disputes_open"] = sum(1 for d in game.disputes_for(me) if d["outcome"] is None)  # issue 29
    return context


def observe(request: Request, game_id: str, me: str, before: int | None) -> Response:
    """An observer's page: the game, who sits at it, and the feed of what the whole table sees (the public events;
    ``domain.visibility``: an observer sees the public audience only), a page at a time."""
    projector = request.app.state.projector
    game = games_of(request).get_game(game_id, for_update=False)
    zone = ZoneInfo(game.state.timezone)
    events = feed_page(projector, game, me, zone, before=before)
    feed = events[:BOARD_FEED]
    top = feed[0]["seq"] if feed else None
    context = {
        "game_id": game_id,
        "me": me,
        "game_name": game.state.name,
        "ruleset_title": game.ruleset.name.capitalize(),
        "seat_names": [str(getattr(seat, "name", "") or seat_id) for seat_id, seat in game.seats.items()],
        "feed": feed,
        "feed_heading": _("What the table sees"),
        "feed_pages": {
            "older": urlencode({"before": feed[-1]["seq"]}) if len(events) > BOARD_FEED else None,
            "newer": urlencode({"before": top + BOARD_FEED + 1}) if before is not None and top else None,
            "newest": "" if before is not None else None,
        },
        "zone": zone.key,
        "phase": None,
        "seated": False,
        "observing": True,  # an observer raises no dispute (issue 29: a seat's or a host's)
    }
    # The ruleset's board drawn for the observer (issue 28 item 1), from the view every observer shares (the public
    # audience's: ``Games.view`` reads an observer as ``observer``), never from the game's state.
    pages = _web_of(game.ruleset.name)
    if pages is not None and hasattr(pages, "observer_board"):
        context.update(pages.observer_board(request, game, games_of(request).view(game_id, me)))
    return templates.TemplateResponse(request, "observe.html", context)


@router.get("/play/{game_id}/live", response_class=HTMLResponse)
def live(request: Request, game_id: str, feed: str | None = None, decision: str | None = None) -> Response:
    """The status strip again (and with ``feed=1`` the feed's first page), and the open decision when it is not
    the version ``decision`` the page holds (issue 28 item 6), these two swapped in by htmx out of band: what a
    board polls every few seconds (issue 17). Drawn from the same context as the board (``board_context``, then
    the ruleset's own), for the same viewer, so it carries nothing that viewer's board would not."""
    try:
        me = who(request, game_id)
    except (Unauthorized, DomainError):
        return PlainTextResponse(_("sign in first"), status_code=401)
    if vis.is_observer(me):  # an observer's page has no status strip: it is a seat's or the GM's (issue 28)
        return PlainTextResponse(_("an observer's page does not change live: reload it"), status_code=403)
    context = board_context(request, game_id, me, live=True)
    context["strip_live"] = "?feed=1" if feed else ""
    if feed:
        context.update(feed_oob=True, feed_heading=_("Everything") if me == GM else _("My feed"))
    pages = ruleset_web(games_of(request), game_id)
    if pages is not None and hasattr(pages, "board_context"):
        pages.board_context(request, context["key"], context)
        open_decision.serve(request, context)
        context["decision_oob"] = bool(context.get("decision_version")) and decision != context["decision_version"]
    return templates.TemplateResponse(request, "live.html", context, headers={"Cache-Control": "no-store"})


@router.post("/play/{game_id}/{command}")
async def command(request: Request, game_id: str, command: str) -> Response:
    """Every form of the board and the console: each builds a command and sends it through ``Games.run``."""
    games = games_of(request)
    f = await form_of(request)
    try:
        me = who(request, game_id)
    except DomainError:
        return RedirectResponse(f"/play/{game_id}", status_code=303)
    name = games.get_game(game_id, for_update=False).ruleset.name
    handler = (
        FORMS.get(command) or declare.forms_of(name).get(command) or getattr(_web_of(name), "FORMS", {}).get(command)
    )
    if handler is None:
        return PlainTextResponse(_("no such form"), status_code=404)
    caller = caller_for(request, game_id, me)
    return handler(request, games, game_id, caller, f)


def ruleset_web(games: Games, game_id: str) -> ModuleType | None:
    """The pages and forms of the game's ruleset (its package's ``web`` module), or None if it has none."""
    return _web_of(games.get_game(game_id, for_update=False).ruleset.name)


def _web_of(ruleset: str) -> ModuleType | None:
    return rulesets.part(ruleset, "web") if ruleset in rulesets.API_PACKAGES else None


def _hours(f: dict) -> float:
    try:
        return float(f.get("hours", ""))
    except ValueError:
        raise RuleViolation(_("give a number of hours"), rule="GM-8", field="hours") from None


def _window(games: Games, game_id: str, f: dict) -> dict[str, str]:
    title = words_of.phase_title(games.get_game(game_id, for_update=False).ruleset, f.get("window_id", ""))
    return {"window": title or _("this window")}


def _rollback_to(games: Games, game_id: str, f: dict) -> dict[str, str]:
    ruleset = games.get_game(game_id, for_update=False).ruleset
    return {
        "phase": words_of.phase_title(ruleset, f.get("phase") or "") or _("the phase"),
        "reason": f.get("reason", ""),
    }


# The platform's forms that send a command (or roll back), written as every form is (``api.web.forms``).
COMMAND_FORMS = (
    Form("ready", "ready", N_("Marked ready for this phase."), make=lambda f, me: DeclareReady(me)),
    Form(
        "extension",
        "extension",
        N_("Extension requested: the GM will answer."),
        make=lambda f, me: RequestExtension(me, _hours(f), f.get("window_id", ""), f.get("reason", "")),
    ),
    Form(
        "grant",
        "windows",
        N_("Extension granted."),
        make=lambda f, me: GrantExtension(f.get("request_id", "")),
        gm=True,
    ),
    Form(
        "refuse",
        "windows",
        N_("Extension refused."),
        make=lambda f, me: RefuseExtension(f.get("request_id", ""), f.get("reason", "")),
        gm=True,
    ),
    Form(
        "close",
        "windows",
        N_("Window closed."),
        make=lambda f, me: CloseWindow(f.get("window_id", ""), f.get("expected_step") or None),
        gm=True,
        confirm=Confirm(
            N_("Close {window} now?"),
            N_("Nobody can act in it once it is closed, even before its deadline."),
            N_("Yes, close it now"),
            "windows",
            about=_window,
        ),
    ),
    Form(
        "rollback",
        "rewind",
        N_("Rolled back. Every player's feed says so."),
        run=lambda games, game_id, caller, f: games.rollback(
            game_id, caller.principal, f.get("reason", ""), phase=f.get("phase") or None
        ),
        gm=True,
        confirm=Confirm(
            N_("Roll the game back to the start of {phase}?"),
            N_(
                "Everything after it is undone for every player (the audit keeps it, marked superseded); every board "
                "shows your reason until the next phase: “{reason}”."
            ),
            N_("Yes, roll back"),
            "rewind",
            about=_rollback_to,
        ),
    ),
)


def _reissued(request: Request, game_id: str, f: dict, token: str) -> None:
    """The old link's sessions end with it: everywhere it was used, that browser is signed out."""
    request.app.state.sessions.end_principal(game_id, f.get("who", ""))
    if f.get("who") == GM:
        web_session(request).grant(game_id, GM, hash_token(token))
    return None


def _fork_of(games: Games, game_id: str, f: dict) -> dict[str, str]:
    ruleset = games.get_game(game_id, for_update=False).ruleset
    return {"phase": words_of.phase_title(ruleset, f.get("phase") or "") or _("this phase")}


def _forked(request: Request, game_id: str, f: dict, forked: tuple[str, Any]) -> Response:
    """The browser goes to the new game, signed in there as here."""
    new_id, _receipt = forked
    grant = web_session(request).grants()[game_id]
    web_session(request).grant(new_id, grant.principal, grant.token_hash)
    return RedirectResponse(f"/play/{new_id}", status_code=303)


def _link_dismissed(request: Request, game_id: str, f: dict, _nothing: None) -> Response:
    """Stop listing a sign-in link in this browser (the link itself keeps working)."""
    session = web_session(request)
    kept = session.get("kept_links") or {}
    mine = {k: v for k, v in kept.get(game_id, {}).items() if k != f.get("who")}
    session.set("kept_links", {**kept, game_id: mine})
    return back(game_id, "links")


# The platform's forms that do more in this browser than show a receipt (``Form.after``): a new link (its old
# sessions end), a fork (the browser goes to the new game), a link no longer listed in this browser.
BROWSER_FORMS = (
    Form(
        "reissue",
        "seats",
        N_("The old link no longer works. The new one is shown once."),
        make=lambda f, me: ReissueLink(f.get("who", ""), ""),
        gm=True,
        link=lambda f, receipt: f.get("who", ""),
        after=_reissued,
    ),
    Form(
        "fork",
        "rewind",
        "",
        run=lambda games, game_id, caller, f: games.fork(
            game_id, caller.principal, f.get("name", ""), f.get("reason", ""), phase=f.get("phase") or None
        ),
        gm=True,
        confirm=Confirm(
            N_("Fork a sandbox game from {phase}?"),
            N_("A new game is made from this one's history up to that phase; this game goes on unchanged."),
            N_("Yes, fork"),
            "rewind",
            about=_fork_of,
        ),
        after=_forked,
    ),
    Form("dismiss-link", "links", "", after=_link_dismissed),
    PREVIEW_FORM,  # the pending step's preview, shown on a page of its own (issue 29)
)

FORMS = {**handlers((*COMMAND_FORMS, *BROWSER_FORMS)), "preview": preview_form}
"""The platform's forms; a ruleset's are declared with its commands (``api.declare``), or the ``FORMS`` of its
``web`` module (``api.rulesets``)."""


@router.get("/play/{game_id}/audit", response_class=HTMLResponse)
def audit_page(
    request: Request,
    game_id: str,
    seat: str | None = None,
    phase: str | None = None,
    type: str | None = None,
    actor: str | None = None,
    format: str | None = None,
    after: Position = 0,
    limit: PageSize = AUDIT_PAGE,
) -> Response:
    """GM: the audit log, filtered, a page at a time (``after`` a version); as CSV with ``format=csv``."""
    games = games_of(request)
    try:
        me = who(request, game_id)
        games.require_gm(me)
    except DomainError as err:
        return templates.TemplateResponse(
            request, "message.html", {"title": _("GM only"), "text": err.message}, status_code=403
        )
    projector = request.app.state.projector
    game = games.get_game(game_id, for_update=False)
    key = str(game.id)
    zone = ZoneInfo(games.timezone_for(game_id, me))
    names = {**seat_names(game), "system": _("the service")}
    choices = {
        "seat": [(sid, name) for sid, name in names.items() if sid not in (GM, "system")],
        "actor": list(names.items()),
        "type": [(t, words_of.words(t)) for t in _event_kinds(game)],
        "phase": [  # each phase once, even if a rollback began it again
            (name, words_of.phase_title(game.ruleset, name))
            for name in dict.fromkeys(
                ["setup", *(p["phase"] for p in games.recent_phases(game_id, BOARD_PHASES, undone=True))]
            )
        ],
    }
    # Filters are choices by name; a value typed into the address is matched by id or name, in any case.
    seat = rulesets.query_value(request.query_params, "seat")  # or the filter's first name, a ruleset's clients'
    seat, actor, type, phase = (
        _choice(value, choices[name])
        for name, value in (("seat", seat), ("actor", actor), ("type", type), ("phase", phase))
    )
    start, size = after, limit
    rows, next_after = projector.audit_page(
        key,
        seat=seat or None,
        phase=phase or None,
        event_type=type or None,
        actor=actor or None,
        after=start,
        limit=size,
    )
    filters = {"seat": seat, "phase": phase, "type": type, "actor": actor}
    query = {k: v for k, v in filters.items() if v}
    prev_after = projector.audit_page_before(
        key, phase=phase or None, event_type=type or None, actor=actor or None, after=start, limit=size
    )
    pages = {
        "after": start,
        "limit": size,
        "next": urlencode({**query, "after": next_after, "limit": size}) if next_after is not None else None,
        "prev": urlencode({**query, **({"after": prev_after} if prev_after else {}), "limit": size})
        if prev_after is not None
        else None,
        "first": urlencode({**query, "limit": size}) if start and prev_after else None,
    }
    if format == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["version", "type", "actor", "at", "phase", "shown_to", "superseded_by", "data"])
        for r in rows:
            writer.writerow(
                [
                    r["version"],
                    r["type"],
                    r["actor"],
                    r["at"],
                    r["phase"],
                    " ".join(r["shown_to"]),
                    r["superseded_by"] or "",
                    json.dumps(r["data"], sort_keys=True),
                ]
            )
        headers = (
            {}
            if next_after is None
            else {
                "X-Next-After": str(next_after),
                "Link": f'</play/{game_id}/audit?format=csv&{pages["next"]}>; rel="next"',
            }
        )
        return PlainTextResponse(out.getvalue(), media_type="text/csv", headers=headers)
    from api.web.disputes import audit_marks  # a disputed event's row says so (issue 29)

    disputed = audit_marks(projector, game)
    for r in rows:
        r["dispute"] = disputed.get(r["version"])
        r["local"] = local_time(r["at"], zone)
        r["words"] = words_of.words(r["type"])
        r["phase_words"] = words_of.phase_title(game.ruleset, r["phase"]) if r.get("phase") else ""
    return templates.TemplateResponse(
        request,
        "audit.html",
        {
            "game_id": game_id,
            "rows": rows,
            "filters": filters,
            "choices": choices,
            "names": names,
            "zone": zone.key,
            "pages": pages,
            "now": datetime.now(timezone.utc),
        },
    )


def _event_kinds(game: Any) -> list[str]:
    """Every kind of event the game's aggregate can record, sorted: known from its classes, so the audit's
    choices cost nothing however long the game is (a DISTINCT over the audit grew with the history)."""
    base = type(game).Event
    kinds = {
        name
        for klass in type(game).__mro__
        for name, value in vars(klass).items()
        if isinstance(value, type) and issubclass(value, base) and name not in ("Event", "Created")
    }
    return sorted(kinds)


def _choice(value: str | None, choices: list[tuple[str, str]]) -> str | None:
    """The id of the choice a filter value names, by id or by name, in any case (else the value as given)."""
    if not value:
        return None
    wanted = value.strip().casefold()
    for key, label in choices:
        if wanted in (key.casefold(), str(label).casefold()):
            return key
    return value
