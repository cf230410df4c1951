"""A seat's own contact address and notification mode (issue 28 item 5), set from its board (``/play/<game>/contact``,
linked as Notifications) or from My games; and, on the same page, the one place for its preferences (issue 31, item
3): per channel (mail, push) each kind of news at once, in the daily digest or not, quiet hours in its zone
(``SetNotifications``), and the game's webhooks as the GM set them (read only: the kinds they announce, never a URL's
path).

The mode, or an address kept or removed, is recorded at once: the seat's own ``SetContact`` through the service,
as every channel sends it. A new address is used for nothing until its reader confirms it: a one-time link (the
sign-in links' store, ``projections.people.SignInLinks``: only its hash is kept, it works once, expires, and an
address gets a few an hour) is mailed to it, bound to the game, the seat and the mode by an HMAC under the service's
secret key, so that the link cannot be turned to another seat. Following it shows a button (a mail scanner uses
nothing); pressing it records the seat's ``SetContact`` and signs that browser in as the address's person.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import smtplib
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.background import BackgroundTask

from api.security import redact, site_base, web_session
from api.web.i18n import number
from api.web.kit import NO_REFERRER, caller_for, flash, form_of, games_of, templates, who
from application import webhooks
from application.service import Caller
from domain import limits
from domain.errors import DomainError, Unauthorized
from domain.platform.commands import SetContact, SetNotifications
from domain.platform.i18n import N_, _
from domain.platform.notifications import CHANNELS, CHOICES, KINDS
from projections import people
from projections.db import ReadModelDB
from projections.settings import Settings
from workers import mail

log = logging.getLogger("emissary.contact")
router = APIRouter(include_in_schema=False)
MODES = {"immediate": N_("each at once"), "digest": N_("a daily digest"), "off": N_("none")}
KIND_WORDS = {
    "phase": N_("a phase begins (one that waits on you is your move)"),
    "move": N_("something waits on you"),
    "deadline": N_("a deadline approaches"),
    "results": N_("results are published"),
    "mention": N_("a post that mentions you"),
    "post": N_("a post at the table"),
    "private": N_("a post for you alone or your thread"),
    "end": N_("the game ends"),
    "other": N_("anything else"),
}
CHANNEL_WORDS = {"mail": N_("Mail"), "push": N_("Push")}
CHOICE_WORDS = {"now": N_("at once"), "digest": N_("in the daily digest"), "off": N_("not at all")}


def _signature(settings: Settings, game_id: str, seat: str, email: str, mode: str, token: str) -> str:
    message = "\n".join((game_id, seat, people.address_key(email), mode, token)).encode()
    return hmac.new(settings.secret_key.encode(), message, hashlib.sha256).hexdigest()


def _page(request: Request, game_id: str, me: str, status: int = 200) -> Response:
    games = games_of(request)
    game = games.get_game(game_id, for_update=False)
    email, mode = games.contact_of(game_id, me)
    context = {
        "game_id": game_id,
        "me": me,
        "seated": True,
        "game_name": game.state.name,
        "seat_name": getattr(game.seats[me], "name", me),
        "email": email or "",
        "mode": mode,
        "modes": [(m, _(w)) for m, w in MODES.items()],
        "flash": web_session(request).pop("flash", None),
        **_preferences(request, game, me),
    }
    return templates.TemplateResponse(request, "contact.html", context, status_code=status)


def _preferences(request: Request, game: Any, me: str) -> dict[str, Any]:
    """What the page shows of the seat's preferences, and of the game's webhooks as its GM set them."""
    hooks = webhooks.listing(request.app.state.projector.db, str(game.id))
    return {
        "prefs": game.preferences_of(me),
        "zone": game.timezone_for(me),
        "kinds": [(k, _(KIND_WORDS[k])) for k in KINDS],
        "channels": [(c, _(CHANNEL_WORDS[c])) for c in CHANNELS],
        "choices": [(c, _(CHOICE_WORDS[c])) for c in CHOICES],
        "hooks": [
            {"url": h["url"], "format": h["format"], "paused": h["status"] == "paused", "kinds": h["kinds"]}
            for h in hooks
        ],
        "kind_words": {k: _(w) for k, w in KIND_WORDS.items()},
    }


def _seat(request: Request, game_id: str) -> str | None:
    """The seat this browser plays in the game (None for the GM's console or a stranger)."""
    try:
        me = who(request, game_id)
        return me if me in games_of(request).get_game(game_id, for_update=False).seats else None
    except DomainError:
        return None


@router.get("/play/{game_id}/contact", response_class=HTMLResponse)
def contact_page(request: Request, game_id: str) -> Response:
    """My seat's contact address and how its notifications come."""
    me = _seat(request, game_id)
    if me is None:
        text = _("Only a seat has notifications: open your board with the secret link your GM sent you.")
        return templates.TemplateResponse(
            request, "message.html", {"title": _("Sign in first"), "text": text}, status_code=401
        )
    return _page(request, game_id, me)


def _refuse(request: Request, game_id: str, field: str, text: str, values: dict[str, Any]) -> Response:
    flash(request, kind="error", form="contact", field=field, rule=None, text=text, values=values)
    return RedirectResponse(f"/play/{game_id}/contact#contact", status_code=303)


@router.post("/play/{game_id}/contact")
async def set_contact(request: Request, game_id: str) -> Response:
    """Keep the mode (and the address, or none) at once; a new address waits for its reader's confirmation."""
    f = await form_of(request)
    me = _seat(request, game_id)
    if me is None:
        raise Unauthorized(_("sign in first"), field="session")
    values = {"email": str(f.get("email", ""))[: limits.EMAIL], "mode": str(f.get("mode", ""))[: limits.IDENTIFIER]}
    email, mode = values["email"].strip(), values["mode"]
    if mode not in MODES:
        return _refuse(request, game_id, "mode", _("notifications are immediate, digest or off"), values)
    if email:
        try:
            email = limits.check_email(email)
        except DomainError as err:
            return _refuse(request, game_id, "email", err.message, values)
    games = games_of(request)
    current = games.contact_of(game_id, me)[0]
    if not email or (current and people.address_key(current) == people.address_key(email)):
        try:
            games.run(caller_for(request, game_id, me), game_id, SetContact(me, email or None, mode))
        except DomainError as err:
            return _refuse(request, game_id, err.field or "email", err.message, values)
        flash(request, kind="ok", form="contact", text=_("Saved."))
        return RedirectResponse(f"/play/{game_id}/contact#contact", status_code=303)
    asked = ask_to_confirm(request, game_id, me, email, mode)
    if asked is None:
        return _refuse(request, game_id, "email", _("Too many links went to this address lately; try later."), values)
    task, text = asked
    flash(request, kind="ok", form="contact", text=text)
    return RedirectResponse(f"/play/{game_id}/contact#contact", status_code=303, background=task)


@router.post("/play/{game_id}/notifications")
async def set_notifications(request: Request, game_id: str) -> Response:
    """Keep the seat's preferences: per channel and kind now, digest or off, and its quiet hours."""
    f = await form_of(request)
    me = _seat(request, game_id)
    if me is None:
        raise Unauthorized(_("sign in first"), field="session")
    chosen = {c: {k: str(f.get(f"{c}.{k}", "now"))[:10] for k in KINDS} for c in CHANNELS}
    quiet = {q: str(f.get(q, "")).strip()[:8] or None for q in ("quiet_from", "quiet_until")}
    try:
        command = SetNotifications(me, chosen["mail"], chosen["push"], quiet["quiet_from"], quiet["quiet_until"])
        games_of(request).run(caller_for(request, game_id, me), game_id, command)
    except DomainError as err:
        values = {**{f"{c}.{k}": v for c in CHANNELS for k, v in chosen[c].items()}, **quiet}
        flash(request, kind="error", form="prefs", field=err.field, rule=None, text=err.message, values=values)
        return RedirectResponse(f"/play/{game_id}/contact#prefs", status_code=303)
    flash(request, kind="ok", form="prefs", text=_("Saved."))
    return RedirectResponse(f"/play/{game_id}/contact#prefs", status_code=303)


def ask_to_confirm(
    request: Request, game_id: str, seat: str, email: str, mode: str
) -> tuple[BackgroundTask, str] | None:
    """Mail ``email`` a one-time link that makes it ``seat``'s contact once its reader follows it: the task that sends
    it and the words that say so; None when too many links went to that address lately. Until it is followed the
    seat's notifications go where they went before (a newcomer from the lobby: nowhere)."""
    settings: Settings = request.app.state.settings
    token = request.app.state.signin_links.issue(email)
    if token is None:
        return None
    query = urlencode(
        {
            "game": game_id,
            "seat": seat,
            "email": email,
            "mode": mode,
            "sig": _signature(settings, game_id, seat, email, mode, token),
        }
    )
    url = f"{site_base(request, settings)}/contact/confirm/{token}?{query}"
    name = games_of(request).get_game(game_id, for_update=False).state.name
    task = BackgroundTask(send_confirmation, settings, request.app.state.projector.db, game_id, email, name, url)
    minutes = number(settings.signin_link_minutes)
    text = _(
        "A link to confirm {email} is on its way to it; it works once, within {minutes} minutes. Until it is "
        "followed, notifications go where they went before."
    ).format(email=email, minutes=minutes)
    return task, text


def send_confirmation(settings: Settings, db: ReadModelDB, game_id: str, email: str, game: str, url: str) -> None:
    """Mail the confirmation link now (it is not kept, so it cannot wait in the outbox); the ledger records the
    mail, its link redacted."""
    subject = f"Confirm your address for {game} on Emissary"
    body = (
        f"Someone, we hope you, asked that a seat's notifications in the game {game} go to {email}.\n\n"
        f"Follow this link to confirm it:\n\n{url}\n\n"
        f"It works once, within {settings.signin_link_minutes:g} minutes. If you did not ask for it, ignore this "
        "mail: nothing changes.\n"
    )
    try:
        message_id = mail.Mailer(settings).send(email, subject, body)
        status, error = "sent", None
    except (OSError, smtplib.SMTPException, ValueError) as err:
        message_id, status, error = None, "failed", str(err)[:500]
        log.warning("contact confirmation not sent: %s", error)
    row = mail.record(
        db,
        game_id=game_id,
        version=None,
        recipient="person",
        address=email,
        kind=f"contact {people.token_hash(url)[:16]}",
        subject=subject,
        body=redact(body),
        status=status,
    )
    if row is not None:
        mail.mark(db, row, status, message_id=message_id, error=error, attempt=True)


def _asked(request: Request, token: str) -> dict[str, str] | None:
    """The change a confirmation link asks for, if its signature holds (a link turned to another seat does not)."""
    q = request.query_params
    asked = {k: q.get(k, "") for k in ("game", "seat", "email", "mode", "sig")}
    if asked["mode"] not in MODES or not all(asked.values()):
        return None
    want = _signature(request.app.state.settings, asked["game"], asked["seat"], asked["email"], asked["mode"], token)
    return asked if hmac.compare_digest(want, asked["sig"]) else None


def _does_not_work(request: Request) -> Response:
    text = _("This link does not work: it was used already, it expired, or it was mistyped. Ask for a new one.")
    return templates.TemplateResponse(
        request, "message.html", {"title": _("Confirm an address"), "text": text}, status_code=401, headers=NO_REFERRER
    )


@router.get("/contact/confirm/{token}", response_class=HTMLResponse)
def confirm_page(request: Request, token: str) -> Response:
    """The mailed link: a button that confirms the address (a mail scanner that fetches the link uses nothing)."""
    asked = _asked(request, token)
    if asked is None or not request.app.state.signin_links.is_live(token):
        return _does_not_work(request)
    try:
        game = games_of(request).get_game(asked["game"], for_update=False)
    except DomainError:
        return _does_not_work(request)
    seat = game.seats.get(asked["seat"])
    context = {
        "asked": asked,
        "game_name": game.state.name,
        "seat_name": getattr(seat, "name", asked["seat"]),
        "mode_word": _(MODES[asked["mode"]]),
        "action": f"{request.url.path}?{request.url.query}",
    }
    headers = {"Referrer-Policy": "same-origin", "Cache-Control": "no-store"}
    return templates.TemplateResponse(request, "contact_confirm.html", context, headers=headers)


@router.post("/contact/confirm/{token}")
async def confirm(request: Request, token: str) -> Response:
    """Use the link once: the seat's contact becomes the address, and this browser is signed in as its person."""
    await form_of(request)
    asked = _asked(request, token)
    if asked is None:
        return _does_not_work(request)
    email = request.app.state.signin_links.use(token)
    if email is None or email != people.address_key(asked["email"]):
        return _does_not_work(request)
    game_id, seat = asked["game"], asked["seat"]
    try:  # the seat's own command, as its board sends it; the mailed link stands for the seat's session
        games_of(request).run(Caller.of(seat), game_id, SetContact(seat, asked["email"], asked["mode"]))
    except DomainError as err:
        flash(request, kind="error", form="contact", field=err.field, rule=err.rule, text=err.message)
        return _does_not_work(request)
    web_session(request).sign_in_person(asked["email"])
    return RedirectResponse("/me", status_code=303, headers=NO_REFERRER)
