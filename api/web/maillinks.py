"""The board link in a seat's mail (issue 28): ``/signin/mail/<game>.<seat>.<mac>`` opens that seat's board, as the
seat's secret link does, while the seat's link stands (``application.mail_addresses.board_link``)."""

from __future__ import annotations

from urllib.parse import unquote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from api.security import web_session
from api.web.kit import NO_REFERRER, games_of, seat_link_does_not_work
from application.mail_addresses import BOARD, board_holder
from domain.errors import DomainError

router = APIRouter(include_in_schema=False)


@router.get("/signin/mail/{key}")
def board_from_mail(request: Request, key: str) -> Response:
    """A mail's board link: this browser signs in as the seat it was made for, then sees its board."""
    m = BOARD.match(key)
    held = None
    if m is not None:
        secret = request.app.state.settings.secret_key
        seat = unquote(m.group("seat"))
        try:
            held = games_of(request).read(m.group("game"), lambda g: board_holder(secret, g, seat, m.group("mac")))
        except DomainError:
            held = None
    if m is None or held is None:
        return seat_link_does_not_work(request)
    session = web_session(request)
    session.rotate()
    session.grant(m.group("game"), seat, held)
    return RedirectResponse(f"/play/{m.group('game')}", status_code=303, headers=NO_REFERRER)
