"""Find and join (issue 28 item 5): the lobby of open seats, the take-seat form, and the GM's seats page.

- ``/lobby`` lists the seats GMs opened and chose to list (``OpenSeat(listed=True)``), from the lobby's read model
  (``projections.lobby``): each game's name and ruleset, the seat's public name, and the GM's note, pace and
  language; filters by ruleset, language and pace are a plain GET form, so no script is needed.
- ``/lobby/<game>/<seat>`` shows one open seat (listed or not: a GM may send its address to whom they choose) and a
  form for the newcomer's address; taking the seat gives it a new secret link (every earlier one stops working),
  makes the address its contact and signs this browser in with the new link, as the link itself would (the link is
  shown nowhere: the newcomer signs in elsewhere by email, with the address the seat now has).
- ``/play/<game>/seats`` is where a role holding ``links`` (the GM; a ruleset's host where it says so) opens a seat
  (listed or not, with a note, the pace and the language) or closes it, invites an address to a seat or to observe,
  and withdraws an invitation or revokes an observer (whose link then stops working).

Everything shown to a stranger is public: the seat's name and the terms the GM wrote (``SeatOpened`` is public).
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from babel import Locale, UnknownLocaleError
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.ratelimit import refusal
from api.security import web_session
from api.web.contact import ask_to_confirm
from api.web.i18n import current_locale
from api.web.kit import NO_REFERRER, caller_for, flash, form_of, games_of, templates, who
from application import invitations
from application.service import SYSTEM_CALLER, Caller, hash_token
from domain import limits
from domain.errors import DomainError
from domain.platform.commands import (
    AcceptInvitation,
    InviteObserver,
    InviteToSeat,
    OpenSeat,
    TakeSeat,
    WithdrawInvitation,
)
from domain.platform.i18n import N_, _
from domain.platform.roles import LINKS
from domain.platform.seating import PACES
from domain.rulesets import INSTALLED
from projections import lobby as lobby_reads

router = APIRouter(include_in_schema=False)
PACE_WORDS = {
    "brisk": N_("brisk: a step every day or two"),
    "steady": N_("steady: a step every few days"),
    "leisurely": N_("leisurely: a step a week or slower"),
}
OBSERVERS = "observers"  # the Seats page's form (and anchor) that invites observers
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pl", "pt", "sv")  # offered when a GM opens a seat


def language_name(code: str) -> str:
    """A language tag in the reader's language ("Deutsch" is "German" to an English reader), or the tag."""
    if not code:
        return ""
    try:
        return Locale.parse(code.replace("-", "_")).get_display_name(current_locale()) or code
    except (UnknownLocaleError, ValueError):
        return code


def _words(row: dict[str, str]) -> dict[str, str]:
    """A seat's row with its ruleset, pace and language in words."""
    return {
        **row,
        "ruleset_title": row["ruleset"].capitalize(),
        "pace_words": _(PACE_WORDS[row["pace"]]) if row.get("pace") in PACE_WORDS else "",
        "language_words": language_name(row.get("language", "")),
    }


@router.get("/lobby", response_class=HTMLResponse)
def lobby_page(request: Request, ruleset: str = "", language: str = "", pace: str = "", after: str = "") -> Response:
    """The lobby: open seats their GMs listed, a page at a time, filtered by ruleset, language and pace."""
    chosen = {
        "ruleset": ruleset[: limits.IDENTIFIER],
        "language": language[: limits.IDENTIFIER],
        "pace": pace if pace in PACES else "",
    }
    db = request.app.state.projector.db
    rows = [_words(r) for r in lobby_reads.listed(db, after=after[: 2 * limits.IDENTIFIER + 1], **chosen)]
    more = len(rows) == lobby_reads.PAGE
    context = {
        "rows": rows,
        "chosen": chosen,
        "rulesets": [(r.name, r.name.capitalize()) for r in INSTALLED],
        "table_languages": [(code, language_name(code)) for code in lobby_reads.languages(db)],
        "paces": [(p, _(w)) for p, w in PACE_WORDS.items()],
        "next": {**chosen, "after": f"{rows[-1]['game_id']}/{rows[-1]['seat']}"} if more else None,
    }
    return templates.TemplateResponse(request, "lobby.html", context)


def _open_seat(request: Request, game_id: str, seat: str) -> dict[str, str] | None:
    """One open seat's public facts, from the game itself (listed in the lobby or not), or None."""
    try:
        game = games_of(request).get_game(game_id, for_update=False)
    except DomainError:
        return None
    if seat not in game.open_seats or seat not in game.seats:
        return None
    terms = game.seat_terms.get(seat) or {}
    row = {
        "game_id": game_id,
        "seat": seat,
        "game_name": game.state.name,
        "ruleset": game.ruleset.name,
        "seat_name": str(getattr(game.seats[seat], "name", "") or seat),
        "note": game.open_seats[seat],
        "pace": str(terms.get("pace", "")),
        "language": str(terms.get("language", "")),
    }
    return _words(row)


def _not_open(request: Request) -> Response:
    text = _("This seat is not open: it was taken or closed, or the address was mistyped. The lobby lists those open.")
    return templates.TemplateResponse(
        request, "message.html", {"title": _("No open seat here"), "text": text}, status_code=404
    )


@router.get("/lobby/{game_id}/{seat}", response_class=HTMLResponse)
def take_page(request: Request, game_id: str, seat: str) -> Response:
    """One open seat, and the form that takes it."""
    row = _open_seat(request, game_id, seat)
    if row is None:
        return _not_open(request)
    flashed = web_session(request).pop("flash", None)
    kept = (flashed or {}).get("values") if (flashed or {}).get("form") == "take" else None
    return templates.TemplateResponse(request, "lobby_take.html", {"row": row, "flash": flashed, "kept": kept or {}})


@router.post("/lobby/{game_id}/{seat}")
async def take(request: Request, game_id: str, seat: str) -> Response:
    """Take an open seat: a new secret link for it, the address as its contact, and this browser signed in."""
    f = await form_of(request)
    email = str(f.get("email", ""))[: limits.EMAIL]
    if _open_seat(request, game_id, seat) is None:
        return _not_open(request)
    refused = await refusal(request, "lobby_takes")
    if refused is not None:
        flash(request, kind="error", form="take", field=None, rule=None, text=refused, values={"email": email})
        return RedirectResponse(f"/lobby/{game_id}/{seat}#take", status_code=303)
    token = secrets.token_urlsafe(32)
    try:  # the seat's being open is the guard (domain.platform.commands.take_seat); the newcomer has no link yet
        address = limits.check_email(email.strip())
        # no contact until the address's reader confirms it: a stranger's address typed here gets one mail, the link
        games_of(request).run(Caller.of(seat), game_id, TakeSeat(seat, hash_token(token), None))
    except DomainError as err:
        kept = {"email": email}
        flash(request, kind="error", form="take", field=err.field, rule=err.rule, text=err.message, values=kept)
        return RedirectResponse(f"/lobby/{game_id}/{seat}#take", status_code=303)
    session = web_session(request)
    session.rotate()
    session.grant(game_id, seat, hash_token(token))
    asked = ask_to_confirm(request, game_id, seat, address, "immediate")
    text = asked[1] if asked is not None else _("Too many links went to this address lately; set it here later.")
    flash(request, kind="ok", form="contact", text=text)
    back = f"/play/{game_id}/contact#contact"  # the seat's notifications: it says a link is on its way
    return RedirectResponse(back, status_code=303, headers=NO_REFERRER, background=asked[0] if asked else None)


# ---------------------------------------------------------------------------------------------- the GM's side


def _opener(request: Request, game_id: str) -> tuple[Any, str] | None:
    """The game and the principal of this browser, if it may open seats (holds ``links``)."""
    try:
        me = who(request, game_id)
        game = games_of(request).get_game(game_id, for_update=False)
    except DomainError:
        return None
    return (game, me) if game.may(me, LINKS) else None


def _gm_only(request: Request) -> Response:
    text = _("Only the GM (or the host, where the game has one) opens seats. Open your console with your secret link.")
    return templates.TemplateResponse(request, "message.html", {"title": _("GM only"), "text": text}, status_code=403)


def _kept(flashed: dict[str, Any] | None, form: str) -> dict[str, Any] | None:
    """What a refused form of this name was sent with, to show it again."""
    return (flashed or {}).get("values") if (flashed or {}).get("form") == form else None


def _watching(invitation: dict[str, str], state: str) -> bool:
    """Whether an invitation is one to observe, in this state (sent: pending; accepted: its observer watches)."""
    return not invitation["seat"] and invitation["state"] == state


@router.get("/play/{game_id}/seats", response_class=HTMLResponse)
def seats_page(request: Request, game_id: str) -> Response:
    """The GM's seats: each open or not, with the form that opens it (listed in the lobby or not) or closes it."""
    found = _opener(request, game_id)
    if found is None:
        return _gm_only(request)
    game, _me = found
    flashed = web_session(request).pop("flash", None)
    terms = game.seat_terms
    seats = [
        {
            "id": seat_id,
            "name": str(getattr(seat, "name", "") or seat_id),
            "open": seat_id in game.open_seats,
            "note": game.open_seats.get(seat_id, ""),
            "listed": bool((terms.get(seat_id) or {}).get("listed")),
            "kept": _kept(flashed, f"open-{seat_id}"),
            "invite_kept": _kept(flashed, f"invite-{seat_id}"),
            "invited": [
                {"id": i, "email": inv["email"]}
                for i, inv in sorted(game.invitations.items())
                if inv["seat"] == seat_id and inv["state"] == "sent"
            ],
        }
        for seat_id, seat in game.seats.items()
    ]
    watchers = sorted(game.invitations.items())
    context = {
        "game_id": game_id,
        "game_name": game.state.name,
        "seats": seats,
        "observers": {
            "kept": _kept(flashed, OBSERVERS) or {},
            "invited": [{"id": i, "email": inv["email"]} for i, inv in watchers if _watching(inv, "sent")],
            "watching": [{"id": i, "email": inv["email"]} for i, inv in watchers if _watching(inv, "accepted")],
        },
        "flash": flashed,
        "paces": [("", _("not said")), *((p, _(w)) for p, w in PACE_WORDS.items())],
        "table_languages": [("", _("not said")), *((c, language_name(c)) for c in LANGUAGES)],
        "base": str(request.base_url).rstrip("/"),
    }
    return templates.TemplateResponse(request, "seats.html", context)


@router.post("/play/{game_id}/seats/{seat}")
async def open_or_close(request: Request, game_id: str, seat: str) -> Response:
    """Open a seat (listed in the lobby or not, with a note, pace and language), or close it (``close``)."""
    f = await form_of(request)
    found = _opener(request, game_id)
    if found is None:
        return _gm_only(request)
    _game, me = found
    form = f"open-{seat[: limits.IDENTIFIER]}"
    values = {k: str(f.get(k, ""))[: limits.TITLE] for k in ("note", "pace", "language", "listed")}
    if f.get("close"):
        command = OpenSeat(seat, open=False)
    else:
        command = OpenSeat(
            seat, values["note"], listed=bool(f.get("listed")), pace=values["pace"], language=values["language"]
        )
    try:
        games_of(request).run(caller_for(request, game_id, me), game_id, command)
    except DomainError as err:
        flash(request, kind="error", form=form, field=err.field, rule=err.rule, text=err.message, values=values)
        return RedirectResponse(f"/play/{game_id}/seats#{form}", status_code=303)
    flash(request, kind="ok", form=form, text=_("Closed.") if f.get("close") else _("Opened."))
    return RedirectResponse(f"/play/{game_id}/seats#{form}", status_code=303)


# ---------------------------------------------------------------------------------------------- invitations


@router.post("/play/{game_id}/seats/{seat}/invite")
async def invite(request: Request, game_id: str, seat: str) -> Response:
    """Invite an address to a seat: the mail sent to it carries the link that takes the seat."""
    f = await form_of(request)
    found = _opener(request, game_id)
    if found is None:
        return _gm_only(request)
    _game, me = found
    form = f"invite-{seat[: limits.IDENTIFIER]}"
    values = {"email": str(f.get("email", ""))[: limits.EMAIL], "language": str(f.get("language", ""))[:20]}
    refused = await refusal(request, "invitations")
    if refused is not None:
        flash(request, kind="error", form=form, field=None, rule=None, text=refused, values=values)
        return RedirectResponse(f"/play/{game_id}/seats#{form}", status_code=303)
    invitation = uuid.uuid4().hex
    try:
        command = InviteToSeat(invitation, seat, values["email"].strip(), values["language"])
        games_of(request).run(caller_for(request, game_id, me), game_id, command)
    except DomainError as err:
        flash(request, kind="error", form=form, field=err.field, rule=err.rule, text=err.message, values=values)
        return RedirectResponse(f"/play/{game_id}/seats#{form}", status_code=303)
    text = _("An invitation is on its way to {email}.").format(email=values["email"].strip())
    flash(request, kind="ok", form=form, text=text)
    return RedirectResponse(f"/play/{game_id}/seats#{form}", status_code=303)


@router.post("/play/{game_id}/observers/invite")
async def invite_observer(request: Request, game_id: str) -> Response:
    """Invite an address to observe: the mail sent to it carries the link that makes its follower an observer."""
    f = await form_of(request)
    found = _opener(request, game_id)
    if found is None:
        return _gm_only(request)
    _game, me = found
    values = {"email": str(f.get("email", ""))[: limits.EMAIL], "language": str(f.get("language", ""))[:20]}
    back = RedirectResponse(f"/play/{game_id}/seats#{OBSERVERS}", status_code=303)
    refused = await refusal(request, "invitations")
    if refused is not None:
        flash(request, kind="error", form=OBSERVERS, field=None, rule=None, text=refused, values=values)
        return back
    try:
        command = InviteObserver(uuid.uuid4().hex, values["email"].strip(), values["language"])
        games_of(request).run(caller_for(request, game_id, me), game_id, command)
    except DomainError as err:
        flash(request, kind="error", form=OBSERVERS, field=err.field, rule=err.rule, text=err.message, values=values)
        return back
    text = _("An invitation to observe is on its way to {email}.").format(email=values["email"].strip())
    flash(request, kind="ok", form=OBSERVERS, text=text)
    return back


@router.post("/play/{game_id}/invitations/{invitation}/withdraw")
async def withdraw(request: Request, game_id: str, invitation: str) -> Response:
    """Withdraw an invitation not yet accepted: its link stops working."""
    await form_of(request)
    found = _opener(request, game_id)
    if found is None:
        return _gm_only(request)
    game, me = found
    found_invitation = game.invitations.get(invitation) or {}
    seat = found_invitation.get("seat", "")
    form = f"invite-{seat}" if seat else OBSERVERS
    watched = found_invitation.get("state") == "accepted"
    try:
        games_of(request).run(caller_for(request, game_id, me), game_id, WithdrawInvitation(invitation[:64]))
    except DomainError as err:
        flash(request, kind="error", form=form, field=err.field, rule=err.rule, text=err.message)
        return RedirectResponse(f"/play/{game_id}/seats#{form}", status_code=303)
    flash(
        request,
        kind="ok",
        form=form,
        text=_("Revoked: that observer's link no longer works.") if watched else _("Withdrawn."),
    )
    return RedirectResponse(f"/play/{game_id}/seats#{form}", status_code=303)


def _invited(request: Request, key: str) -> tuple[Any, str, dict[str, str]] | None:
    """The game, invitation id and invitation a link's key opens, if its proof holds and it is still pending."""
    opened = invitations.opened(request.app.state.settings.secret_key, key)
    if opened is None:
        return None
    game_id, invitation = opened
    try:
        game = games_of(request).get_game(game_id, for_update=False)
    except DomainError:
        return None
    found = game.invitations.get(invitation)
    return (game, invitation, found) if found and found["state"] == "sent" else None


def _invitation_does_not_work(request: Request) -> Response:
    text = _("This invitation does not work: it was used already, withdrawn, or mistyped. Ask your GM for a new one.")
    return templates.TemplateResponse(
        request,
        "message.html",
        {"title": _("An invitation"), "text": text},
        status_code=401,
        headers=NO_REFERRER,
    )


@router.get("/signin/invite/{key}", response_class=HTMLResponse)
def invitation_page(request: Request, key: str) -> Response:
    """The mailed link: the seat offered and a button that takes it (a mail scanner that fetches the link uses
    nothing)."""
    found = _invited(request, key)
    if found is None:
        return _invitation_does_not_work(request)
    game, _invitation, inv = found
    context = {
        "game_name": game.state.name,
        "ruleset_title": game.ruleset.name.capitalize(),
        "observe": not inv["seat"],  # an invitation to observe (issue 28)
        "seat_name": str(getattr(game.seats[inv["seat"]], "name", "") or inv["seat"]) if inv["seat"] else "",
        "email": inv["email"],
        "action": request.url.path,
    }
    # same-origin, not no-referrer: the button's POST must carry this origin (a no-referrer page's says "null")
    headers = {"Referrer-Policy": "same-origin", "Cache-Control": "no-store"}
    return templates.TemplateResponse(request, "invitation.html", context, headers=headers)


@router.post("/signin/invite/{key}")
async def accept(request: Request, key: str) -> Response:
    """Use the invitation once: the seat gets a new secret link (every earlier one stops working), the invited
    address becomes its contact, and this browser is signed in at its board."""
    await form_of(request)
    found = _invited(request, key)
    if found is None:
        return _invitation_does_not_work(request)
    game, invitation, inv = found
    game_id = str(game.id)
    token = secrets.token_urlsafe(32)
    try:  # the link's proof was checked above; the service sends the seat's acceptance
        receipt = games_of(request).run(SYSTEM_CALLER, game_id, AcceptInvitation(invitation, hash_token(token)))
    except DomainError:
        return _invitation_does_not_work(request)
    session = web_session(request)
    session.rotate()
    session.grant(game_id, str(receipt.result["principal"]), hash_token(token))  # the seat, or the observer
    return RedirectResponse(f"/play/{game_id}", status_code=303, headers=NO_REFERRER)
