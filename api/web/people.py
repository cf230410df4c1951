"""A person, not a link (issue 17): signing in by a link mailed to an address gathers every seat whose
contact is that address, in every game and ruleset, on any device; a seat's secret link still works alone.

- ``/signin`` asks for an address and answers the same whatever it is (so it tells nobody who plays). If
  some seat's contact is that address, a one-time link is mailed there (``projections.people``: only its
  hash is kept; it works once, expires, and an address gets a few an hour).
- The link (``/signin/email/<token>``) shows a button; pressing it signs the browser in as that person. A
  mail scanner that fetches the link uses nothing.
- ``/me`` lists the person's seats: each game with its ruleset, phase, the deadlines in the person's zone,
  and "waiting on you" where an open window still waits for the seat. A seat's board opens without its link
  (``api.web.kit.who``), and every form it sends is checked against the seat's contact again.

The mail goes out over the outgoing SMTP of ``workers.mail.Mailer`` after the page is answered (so the
answer takes as long whatever the address), and is recorded in the mail ledger with its link redacted.
"""

from __future__ import annotations

import logging
import smtplib
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.background import BackgroundTask

from api.security import redact, site_base, web_session
from api.web.i18n import local_time, number
from api.web.kit import NO_REFERRER, flash, form_of, games_of, templates
from domain import limits
from domain.errors import DomainError
from domain.platform import feed as words_of
from domain.platform import i18n
from domain.platform.i18n import N_, _
from projections import people
from projections.db import ReadModelDB
from projections.settings import Settings
from workers import mail

log = logging.getLogger("emissary.people")
router = APIRouter(include_in_schema=False)
SENT = N_(
    "If a seat in a game here has that address as its contact, a sign-in link is on its way to it. "
    "It works once, within {minutes} minutes."
)


def links(request: Request) -> people.SignInLinks:
    return request.app.state.signin_links


@router.get("/signin", response_class=HTMLResponse)
def signin_page(request: Request) -> Response:
    """Ask for a sign-in link by email."""
    return templates.TemplateResponse(
        request, "signin.html", {"flash": web_session(request).pop("flash", None), "email": ""}
    )


@router.post("/signin", response_class=HTMLResponse)
async def ask_for_link(request: Request) -> Response:
    """Mail a one-time sign-in link to the address if any seat's contact is it; answer the same either way."""
    f = await form_of(request)
    settings: Settings = request.app.state.settings
    try:
        email = limits.check_email(str(f.get("email", "")).strip())
    except DomainError as err:  # a mistyped address tells nothing about who plays
        return templates.TemplateResponse(
            request,
            "signin.html",
            {"flash": {"kind": "error", "form": "signin", "field": "email", "text": err.message}, "email": ""},
            status_code=422,
        )
    task = None
    db = request.app.state.projector.db
    # A link is issued (its hash stored, the address's share counted) whatever the address, so that the
    # answer costs the same; it is mailed only where some seat's contact is the address.
    token = links(request).issue(email)
    if token is None:
        log.info("sign-in link refused: too many asked for this address lately")
    elif people.seats_of(db, email):
        url = f"{site_base(request, settings)}/signin/email/{token}"
        task = BackgroundTask(send_link, settings, db, email, url, games_of(request), i18n.current())
    minutes = number(settings.signin_link_minutes)
    return templates.TemplateResponse(
        request,
        "signin.html",
        {"sent": _(SENT).format(minutes=minutes), "email": "", "flash": None},
        background=task,
    )


def send_link(
    settings: Settings,
    db: ReadModelDB,
    email: str,
    url: str,
    games: Any = None,
    words: Any = None,
) -> None:
    """Mail the link now (it is not kept, so it cannot wait in the outbox), in the language the page was asked in
    (``words``: its catalog), naming the games and rulesets it opens (issue 28); the ledger records the mail, its
    link redacted."""
    with i18n.use(words or i18n.ENGLISH):
        subject, body = link_mail(settings, db, email, url, games)
    try:
        message_id = mail.Mailer(settings).send(email, subject, body)
        status, error = "sent", None
    except (OSError, smtplib.SMTPException, ValueError) as err:
        message_id, status, error = None, "failed", str(err)[:500]
        log.warning("sign-in link not sent: %s", error)
    row = mail.record(
        db,
        game_id="-",
        version=None,
        recipient="person",
        address=email,
        kind=f"signin {people.token_hash(url)[:16]}",
        subject=subject,
        body=redact(body),
        status=status,
    )
    if row is not None:
        mail.mark(db, row, status, message_id=message_id, error=error, attempt=True)


def link_mail(settings: Settings, db: ReadModelDB, email: str, url: str, games: Any) -> tuple[str, str]:
    """The sign-in mail's subject and body, in the current language: the seats of the address, each with its game
    and ruleset (the address is their contact: its reader may know them)."""
    seats = []
    for game_id, seat in people.seats_of(db, email) if games is not None else []:
        try:
            seats.append(games.read(game_id, lambda g, seat=seat: seat_line(g, seat)))
        except DomainError:
            continue
    listed = "".join(f"- {line}\n" for line in sorted(seats))
    subject = _("Your sign-in link to Emissary")
    body = (
        _("Someone, we hope you, asked to sign in to Emissary as {email}.").format(email=email)
        + "\n\n"
        + (_("Your seats:") + "\n" + listed + "\n" if listed else "")
        + _("Follow this link to see every game where this address is a seat's contact:")
        + f"\n\n{url}\n\n"
        + _(
            "It works once, within {minutes} minutes. If you did not ask for it, ignore this mail: nothing happens."
        ).format(minutes=number(settings.signin_link_minutes))
        + "\n"
    )
    return subject, body


def seat_line(game: Any, seat: str) -> str:
    held = game.seats.get(seat)
    name = getattr(held, "name", None) or seat
    ruleset = str(game.state.ruleset)
    return _("{seat} in {game} ({ruleset})").format(
        seat=name, game=game.state.name, ruleset=ruleset[:1].upper() + ruleset[1:]
    )


def _link_does_not_work(request: Request) -> Response:
    return templates.TemplateResponse(
        request,
        "signin.html",
        {
            "failed": _(
                "This sign-in link does not work: it was used already, it expired, or it was mistyped. "
                "Ask for a new one below."
            ),
            "email": "",
            "flash": None,
        },
        status_code=401,
        headers=NO_REFERRER,
    )


@router.get("/signin/email/{token}", response_class=HTMLResponse)
def confirm_page(request: Request, token: str) -> Response:
    """The mailed link: a button that signs in (a mail scanner that fetches the link uses nothing)."""
    if not links(request).is_live(token):
        return _link_does_not_work(request)
    # Same-origin only: its own form must still send an Origin (with no-referrer a browser sends "null").
    headers = {"Referrer-Policy": "same-origin", "Cache-Control": "no-store"}
    return templates.TemplateResponse(request, "signin_confirm.html", {"token": token}, headers=headers)


@router.post("/signin/email/{token}")
async def use_link(request: Request, token: str) -> Response:
    """Use the link once: this browser is signed in as the person it was mailed to, in a fresh session."""
    await form_of(request)
    email = links(request).use(token)
    if email is None:
        return _link_does_not_work(request)
    web_session(request).sign_in_person(email)
    return RedirectResponse("/me", status_code=303, headers=NO_REFERRER)


@router.post("/me/signout")
async def sign_out(request: Request) -> Response:
    """Sign this browser out as a person (games opened by their secret links stay signed in)."""
    await form_of(request)
    web_session(request).sign_out_person()
    return RedirectResponse("/signin", status_code=303)


@router.post("/me/signout/everywhere")
async def sign_out_everywhere(request: Request) -> Response:
    """Sign every browser signed in as this person out of it."""
    await form_of(request)
    person = web_session(request).person()
    if person is not None:
        request.app.state.sessions.end_person(person.email)
        web_session(request).sign_out_person()
    return RedirectResponse("/signin", status_code=303)


@router.post("/me/timezone")
async def set_timezone(request: Request) -> Response:
    """The zone a person sees deadlines in (empty: each seat's own)."""
    f = await form_of(request)
    zone = str(f.get("timezone", "")).strip() or None
    if zone is not None:
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            wrong = _("{zone} is not a time zone").format(zone=repr(zone))
            flash(request, kind="error", form="timezone", field="timezone", text=wrong)
            return RedirectResponse("/me#timezone", status_code=303)
    web_session(request).set_person_timezone(zone)
    return RedirectResponse("/me", status_code=303)


@router.get("/me/play/{game_id}")
def open_seat(request: Request, game_id: str, seat: str = "", to: str = "") -> Response:
    """Open one of my seats' boards (which seat, when an address holds several in a game), or with
    ``to=contact`` its notifications."""
    session = web_session(request)
    person = session.person()
    if person is None:
        return RedirectResponse("/signin", status_code=303)
    if (game_id, seat) in people.seats_of(request.app.state.projector.db, person.email):  # only my own are kept
        session.set("seats", {**(session.get("seats") or {}), game_id: seat})
    return RedirectResponse(f"/play/{game_id}{'/contact' if to == 'contact' else ''}", status_code=303)


@router.get("/me", response_class=HTMLResponse)
def my_games(request: Request) -> Response:
    """My games: every seat whose contact is my address, with its phase, deadlines and whether it waits on me."""
    person = web_session(request).person()
    if person is None:
        return RedirectResponse("/signin", status_code=303)
    rows = my_seats(request, person.email, person.timezone)
    return templates.TemplateResponse(
        request,
        "me.html",
        {
            "person": person,
            "rows": rows,
            "zones": sorted(available_timezones()),
            "flash": web_session(request).pop("flash", None),
        },
    )


def my_seats(request: Request, email: str, zone: str | None) -> list[dict[str, Any]]:
    """A row per seat of mine: those the read model lists under my address whose contact the game itself
    says is mine (only public facts of the game and my seat's own)."""
    games = games_of(request)
    mine = people.address_key(email)
    out = []
    for game_id, seat in people.seats_of(request.app.state.projector.db, email):
        try:
            game = games.get_game(game_id, for_update=False)
        except DomainError:
            continue
        s = game.state
        held = game.seats.get(seat)
        if held is None or not held.email or people.address_key(held.email) != mine:
            continue
        shown_zone = zone or game.timezone_for(seat)
        windows = []
        for w in s.windows.values():
            if w.closed:
                continue
            try:
                waiting = game.waits_on(w, seat)
            except NotImplementedError:
                waiting = False
            deadline = datetime.fromisoformat(w.deadline_for(seat)).astimezone(ZoneInfo(shown_zone))
            windows.append(
                {
                    "kind": w.kind.split(":")[0].replace("_", " "),  # "move:bob:1:1" is a move window
                    "deadline": deadline.isoformat(),
                    "local": local_time(deadline, shown_zone),
                    "waiting": waiting,
                }
            )
        windows.sort(key=lambda w: w["deadline"])
        phases = games.recent_phases(game_id, 1)
        out.append(
            {
                "game_id": game_id,
                "seat": seat,
                "seat_name": held.name,
                "name": s.name,
                "ruleset": s.ruleset,
                "phase": words_of.phase_title(game.ruleset, phases[-1]["phase"]) if phases else _("Setting up"),
                "windows": windows,
                "waiting": any(w["waiting"] for w in windows),
                "zone": shown_zone,
            }
        )
    out.sort(key=lambda r: (not r["waiting"], r["windows"][0]["deadline"] if r["windows"] else "~", r["name"]))
    return out
