"""The web kit every ruleset's pages share (issue 26): the templates (the platform's and each ruleset's, under its
name), who is signed in, running a form's command and showing its receipt or its refusal next to the form, and
the small parsers a form needs. A ruleset's ``web`` module imports these, never ``api.web.routes``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, overload
from zoneinfo import ZoneInfo

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, FileSystemLoader, PrefixLoader, pass_context
from markupsafe import Markup

from api import rulesets
from api.security import check_csrf, check_origin, site_base, web_session
from api.web import i18n
from api.web.i18n import local_time
from application.mail_addresses import reply_address
from application.service import Caller, Games
from domain.errors import DomainError, Unauthorized
from domain.ids import GM
from domain.platform.i18n import _
from projections import people

HERE = Path(__file__).parent  # api/web: the platform's templates
# The answer to a page reached by a secret link: never sent on as a Referer, never kept by a cache.
NO_REFERRER = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
templates = Jinja2Templates(directory=str(HERE / "templates"))
# A ruleset's templates are named after it ("powers/board.html") and may extend the platform's ("base.html").
templates.env.loader = ChoiceLoader(
    [FileSystemLoader(str(HERE / "templates")), PrefixLoader(rulesets.template_loaders())]
)


@pass_context
def csrf_field(context: Any) -> Markup:
    """The hidden field every ``<form method="post">`` carries: this session's CSRF token."""
    return Markup('<input type="hidden" name="csrf" value="{}">').format(web_session(context["request"]).csrf())


templates.env.globals["csrf_field"] = csrf_field


i18n.install(templates.env)  # {% trans %}, _() and the viewer's formats of dates and numbers


def games_of(request: Request) -> Games:
    return request.app.state.games


def who(request: Request, game_id: str) -> str:
    """The principal this browser is signed in as, for this game. A session whose token was replaced
    is signed out of the game."""
    session = web_session(request)
    grant = session.grants().get(game_id)
    if grant is None:
        seat = person_seat(request, game_id)  # a person signed in by email, at a seat whose contact is theirs
        if seat is not None:
            return seat
        raise Unauthorized(_("sign in with the secret link your GM sent you"), field="session")
    try:
        principal = games_of(request).authenticate_hash(game_id, grant.token_hash)
    except Unauthorized:
        session.revoke(game_id)
        raise
    return principal


def signed_in(request: Request, game_id: str) -> str | Response:
    """The principal this browser is signed in as for this game (``who``), or the 401 page that says to sign in."""
    try:
        return who(request, game_id)
    except DomainError:
        return templates.TemplateResponse(
            request,
            "message.html",
            {"title": _("Sign in first"), "text": _("Open the secret link your GM sent you.")},
            status_code=401,
        )


def person_seat(request: Request, game_id: str) -> str | None:
    """The seat a person signed in by email holds in this game (the one they chose on My games if several):
    one the read model lists under their address, whose contact the game itself still says is theirs."""
    person = web_session(request).person()
    if person is None:
        return None
    listed = [seat for g, seat in people.seats_of(request.app.state.projector.db, person.email) if g == game_id]
    chosen = (web_session(request).get("seats") or {}).get(game_id)
    games = games_of(request)
    for seat in sorted(listed, key=lambda s: s != chosen):
        try:
            email = games.contact_of(game_id, seat)[0]
        except DomainError:
            return None
        if email and people.address_key(email) == people.address_key(person.email):
            return seat
    return None


def caller_for(request: Request, game_id: str, me: str) -> Caller:
    """The caller a form runs as: with the hash of the link's token, or as the person signed in by email."""
    session = web_session(request)
    grant = session.grants().get(game_id)
    person = session.person()
    if grant is not None:
        return Caller.of(me, grant.token_hash)
    if person is not None:
        return Caller.of_person(me, person.email)
    raise Unauthorized(_("sign in first"), field="session")


def flash(request: Request, **message: Any) -> None:
    web_session(request).set("flash", message)


def back(game_id: str, anchor: str = "") -> RedirectResponse:
    return RedirectResponse(f"/play/{game_id}{('#' + anchor) if anchor else ''}", status_code=303)


def refused(request: Request, game_id: str, form: str, err: DomainError, keep: dict | None = None) -> RedirectResponse:
    """Show a refusal, with its rule and field, next to the form it concerns (with ``keep``, the posted form: shown
    again with what was typed)."""
    values = {k: v for k, v in (keep or {}).items() if k != "csrf"} or None
    flash(request, kind="error", form=form, field=err.field, rule=err.rule, text=err.message, values=values)
    return back(game_id, form)


def attempt(
    request: Request, game_id: str, form: str, fn, ok: str, anchor: str = "", keep: dict | None = None
) -> RedirectResponse:
    """Run a command; remember its receipt or its refusal (with rule and field) for the next page. With
    ``keep`` (the posted form), a refused form is shown again with what was typed (``values``)."""
    try:
        receipt = fn()
    except DomainError as err:
        values = {k: v for k, v in (keep or {}).items() if k != "csrf"} or None
        flash(request, kind="error", form=form, field=err.field, rule=err.rule, text=err.message, values=values)
        return back(game_id, anchor or form)
    detail = getattr(receipt, "sequence", None)
    flash(
        request,
        kind="ok",
        form=form,
        text=ok,
        receipt={"sequence": receipt.sequence, "digest": receipt.digest, "at": receipt.recorded_at}
        if detail is not None
        else None,
    )
    return back(game_id, anchor or form)


async def form_of(request: Request) -> dict[str, Any]:
    """A posted form, once its origin and its CSRF token are checked (else 403)."""
    check_origin(request, request.app.state.settings)
    data = await request.form()
    out: dict[str, Any] = {}
    for key in data.keys():
        values = data.getlist(key)
        out[key] = values if len(values) > 1 or key.endswith("[]") else values[0]
    check_csrf(request, out)
    return out


@overload
def integer(value: Any, default: int) -> int: ...
@overload
def integer(value: Any, default: None = None) -> int | None: ...
def integer(value: Any, default: int | None = None) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def local_receipt(message: dict | None, zone: ZoneInfo) -> dict | None:
    """A flash whose receipt carries its time in the viewer's zone as well (``at_local``)."""
    if message and message.get("receipt") and message["receipt"].get("at"):
        message = {**message, "receipt": {**message["receipt"], "at_local": local_time(message["receipt"]["at"], zone)}}
    return message


def seat_names(game: Any) -> dict[str, str]:
    """Every seat's public name (the GM's too), for lines in words."""
    names = {pid: getattr(seat, "name", pid) for pid, seat in game.seats.items()}
    return {GM: _("the GM"), **names}


def confirm_first(
    request: Request, game_id: str, f: dict[str, Any], question: str, detail: str, button: str, anchor: str = ""
) -> Response | None:
    """A destructive form asks once more on a page of its own (no JavaScript needed): None once the form
    carries ``confirm=yes``, else the page that posts it again, with every field it had, and that answer."""
    if f.get("confirm") == "yes":
        return None
    fields = [
        (k, v)
        for k, values in f.items()
        if k not in ("csrf", "confirm")
        for v in (values if isinstance(values, list) else [values])
    ]
    return templates.TemplateResponse(
        request,
        "confirm.html",
        {
            "game_id": game_id,
            "action": request.url.path,
            "fields": fields,
            "question": question,
            "detail": detail,
            "button": button,
            "anchor": anchor,  # "No, go back" returns to the form (and so to its tab of the console)
        },
    )


def sign_in_link(request: Request, game_id: str, token: str) -> dict[str, str]:
    """The secret sign-in link, and the secret reply address for turns by email."""
    settings = request.app.state.settings
    return {
        "url": f"{site_base(request, settings)}/signin/{game_id}/{token}",
        "address": reply_address(settings.mail_domain, game_id, token),
    }


def gm_only(fn):
    def wrapped(request, games, game_id, caller, f):
        if caller.principal != GM:
            flash(request, kind="error", form="gm", field=None, rule=None, text=_("only the GM may do this"))
            return back(game_id)
        return fn(request, games, game_id, caller, f)

    return wrapped


def seat_link_does_not_work(request: Request) -> Response:
    """401 for a seat's sign-in link (or its mail's board link) that does not open the seat."""
    return templates.TemplateResponse(
        request,
        "message.html",
        {
            "title": _("This link does not work"),
            "text": _("The link was mistyped, or the GM has replaced it. Ask your GM for a new one."),
        },
        status_code=401,
        headers=NO_REFERRER,
    )
