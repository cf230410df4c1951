"""Invitations by address (issue 28 item 5): the GM invites an address to a seat; the mail sent to it carries a link
that takes the seat.

The link is ``/signin/invite/<game>.<invitation>.<proof>``, the proof an HMAC of the game and the invitation under
the service's secret key: nothing secret is stored anywhere (not in the events, not in the mail ledger, which keeps
the mail without its link: the link is written as the mail is sent, as a board link is), it works once (the game
records the invitation used) and stops working when the GM withdraws it. Under ``/signin/`` it is redacted from every
log as every sign-in link is (``projections.logs``, ``api.security.redact``).

The mail goes through the durable outbox (``workers.mail``: the ledger, claims, retries): a row of kind
``invitation <id>`` queued by the projector from ``InvitationSent`` and withdrawn, while unsent, by
``InvitationWithdrawn`` (``projections.invitations``); ``frame`` writes it as it is sent, naming the game and its
ruleset, in the invitee's language when the GM gave it (else the game's, else English), and refuses an invitation no
longer pending (``Withdrawn``: the row is withdrawn, never sent with a dead link).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any
from urllib.parse import quote

from babel import Locale

from application.i18n import DEFAULT, catalog_of, parse, translations_for
from domain.platform import i18n
from domain.platform.i18n import _
from projections.invitations import KIND  # a ledger row's kind: "invitation <id>" (queued by the projector)


class Withdrawn(Exception):  # noqa: N818 (what happened to the invitation, as the ledger says it)
    """An invitation's mail framed after it was withdrawn, used or rolled away: it is not sent."""


def proof(secret: str, game_id: str, invitation: str) -> str:
    message = "\n".join(("invitation", str(game_id).lower(), invitation)).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def link(base: str, secret: str, game_id: str, invitation: str) -> str:
    """The invitation's link (written only into the mail as it is sent)."""
    key = f"{game_id}.{invitation}.{proof(secret, game_id, invitation)}"
    return f"{base.rstrip('/')}/signin/invite/{quote(key, safe='.')}"


def opened(secret: str, key: str) -> tuple[str, str] | None:
    """(game id, invitation id) of a link's key whose proof holds, else None."""
    parts = key.split(".")
    if len(parts) != 3 or not all(parts):
        return None
    game_id, invitation, mac = parts
    return (game_id, invitation) if hmac.compare_digest(proof(secret, game_id, invitation), mac.lower()) else None


def frame(game: Any, item: Any, base: str, secret: str) -> tuple[str, str]:
    """(subject, body) of an invitation's mail as it is sent: the game, its ruleset, the seat, who invites, the link,
    in the invitee's language."""
    from application.mails import names_of, ruleset_title, subject_prefix

    invitation = str(item["kind"])[len(KIND) :]
    found = game.invitations.get(invitation) or {}
    if found.get("state") != "sent":
        raise Withdrawn(invitation)
    tag = found.get("language") or getattr(game.state, "language", None) or DEFAULT
    locale = parse(tag) or Locale.parse(DEFAULT)
    names = names_of(game, gm="the GM")
    seat = names.get(found.get("seat", ""), found.get("seat", ""))
    with i18n.use(translations_for(catalog_of(locale))):
        if not found.get("seat"):  # an invitation to observe (issue 28)
            subject, lines = _to_observe(game, link(base, secret, str(game.id), invitation))
            return " ".join(f"{subject_prefix(game)} {subject}".split()), "\n".join(lines)
        subject = _("You are invited to play {seat}").format(seat=seat)
        lines = [
            _("{game}, a game of {ruleset}: you are invited to play {seat}.").format(
                game=game.state.name, ruleset=ruleset_title(game), seat=seat
            ),
            "",
            _("Follow this link to take the seat (it works once):"),
            "",
            link(base, secret, str(game.id), invitation),
            "",
            _("The seat's notifications will come to this address, and you may sign in by email with it."),
            _("If you do not want to play, ignore this mail: nothing changes."),
        ]
    return " ".join(f"{subject_prefix(game)} {subject}".split()), "\n".join(lines)


def _to_observe(game: Any, url: str) -> tuple[str, list[str]]:
    """(subject, lines) of an invitation to observe, in the catalog in use."""
    from application.mails import ruleset_title

    subject = _("You are invited to observe {game}").format(game=game.state.name)
    return subject, [
        _("{game}, a game of {ruleset}: you are invited to observe it.").format(
            game=game.state.name, ruleset=ruleset_title(game)
        ),
        "",
        _("Follow this link to watch the game (it works once):"),
        "",
        url,
        "",
        _("You will see what the whole table sees, never a seat's secrets; you play no seat and get no notifications."),
        _("If you do not want to watch, ignore this mail: nothing changes."),
    ]
