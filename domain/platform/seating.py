"""Open seats (issue 28 item 5, mixed into PlatformGame): the GM marks a seat open, and a newcomer takes it.

A seat the GM opens is offered to whoever finds the game; the lobby (``/lobby``, ``api/web/lobby.py``) lists it only
when the GM chose so (``listed``), with the seat's public name and the GM's public note, never its sheet or its
link. Taking an open seat
replaces the seat's sign-in link with the newcomer's (every earlier link stops working) and makes the newcomer's
address its contact; the seat is then no longer open. Which seats are open is public; the credential is sealed and
the contact is the seat's own, as ever (``PlatformGame.issue_credential``, ``set_contact``).

An invitation to observe (``invite_observer``; an ``InvitationSent`` with no seat) makes whoever follows its link an
observer: a principal of its own, ``observer:<invitation>`` (``domain.visibility``), which sees the table as every
observer does, the public audience only, and holds no privilege; withdrawing the invitation once it was accepted
revokes that observer's link.
"""

from __future__ import annotations

import re
from typing import Any

from eventsourcing.domain import Aggregate

from domain import limits
from domain import visibility as vis
from domain.errors import RuleViolation
from domain.ids import RESERVED_VIEWERS

PACES = ("", "brisk", "steady", "leisurely")  # what the GM says of the game's pace in the lobby ("": not said)
LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?")  # a language tag's language (and region): "de", "en-GB"


def reserved(seat_id: str) -> bool:
    """Whether a seat id is one the platform keeps for a viewer (``domain.ids.RESERVED_VIEWERS``, in any case) or is
    shaped like an audience's token (``observer:<invitation>``, ``power:<id>``: a colon names a namespace)."""
    return ":" in seat_id or seat_id.lower() in RESERVED_VIEWERS


def refuse_reserved_seats(game: Any, before: list[str] | None = None) -> None:
    """No seat of any ruleset takes an id the platform keeps for a viewer: a seat called ``observer`` would have every
    observer read its private actions, one called ``public``, ``gm`` or ``observer:x`` would blur an audience.
    Checked on what a command leaves, before anything is saved, so a ruleset that lets such a seat in records
    nothing (RuleViolation, naming the seat). ``before``: the seats the game had before the command, which still play
    whatever their ids (a game recorded before this check); only a new seat is checked."""
    seats = game.seats
    if before is not None and len(seats) == len(before):
        return  # no seat came (the platform's commands seat nobody): nothing to check, at no cost a command
    old = frozenset(before or ())
    for seat in sorted(s for s in seats if s not in old and reserved(s)):
        raise RuleViolation(
            f"a seat may not be called {seat!r}: the platform keeps that name for a viewer "
            "(the GM, the public, observers) and a colon for an audience's; choose another",
            field="seat_id",
        )


def _upcast_listed(state: dict[str, Any]) -> None:
    """Upcast a seat opened at version 1, before the lobby: it was not listed there, with no pace or language."""
    state.update(listed=False, pace="", language="")


def _unlist(game: Any, seat: str) -> None:
    """The seat is open no more (closed, or taken)."""
    game.state.lobby.pop(seat, None)
    game.state.lobby_terms.pop(seat, None)


class Seating:
    """Which seats are open, and the events that open, close and fill them (kept in the game's state:
    ``domain.platform.state.SeatingState``)."""

    @property
    def open_seats(self) -> dict[str, str]:
        """The seats open to newcomers now: seat id -> the GM's note (a public line, possibly empty)."""
        found: dict[str, str] = self.state.lobby  # type: ignore[attr-defined]
        return found

    @property
    def seat_terms(self) -> dict[str, dict[str, Any]]:
        """The open seats' public terms: seat id -> listed (whether the lobby lists it), pace and language."""
        terms: dict[str, dict[str, Any]] = self.state.lobby_terms  # type: ignore[attr-defined]
        return terms

    @property
    def listed_seats(self) -> dict[str, dict[str, str]]:
        """The open seats the GM chose to list in the lobby: seat id -> the public terms (note, pace, language)."""
        terms = self.seat_terms
        return {
            seat: {"note": note, "pace": terms[seat]["pace"], "language": terms[seat]["language"]}
            for seat, note in self.open_seats.items()
            if terms.get(seat, {}).get("listed")
        }

    def open_seat(  # noqa: PLR0913 (the terms a GM words a seat in)
        self, by: str, seat: str, note: str, listed: bool = False, pace: str = "", language: str = ""
    ) -> None:
        """Offer a seat to newcomers, with a public note (what the seat plays, what the table wants); ``listed``:
        the lobby lists it, with the game's ``pace`` and ``language`` (else only those told of the game find it)."""
        self.seat(seat)  # type: ignore[attr-defined]
        note = limits.check_text(note, "note", limits.TITLE, what="a note")
        if seat in self.open_seats:
            raise RuleViolation(f"the seat {seat!r} is open already", field="seat")
        if not isinstance(listed, bool):
            raise RuleViolation("listed: true or false", field="listed")
        if pace not in PACES:
            raise RuleViolation(f"pace: one of {', '.join(p for p in PACES if p)}, or empty", field="pace")
        if not isinstance(language, str) or (language and not LANGUAGE.fullmatch(language)):
            raise RuleViolation("language: a language tag such as de or en-GB, or empty", field="language")
        self.trigger_event(  # type: ignore[attr-defined]
            self.SeatOpened,
            seat=seat,
            note=note,
            listed=listed,
            pace=pace,
            language=language,
            actor=by,
            audience=[vis.PUBLIC],
        )

    class SeatOpened(Aggregate.Event):
        class_version = 2  # 2: ``listed``, whether the lobby lists the seat (issue 28)
        upcast_v1_v2 = staticmethod(_upcast_listed)

        seat: str
        note: str
        actor: str
        audience: list[str]
        listed: bool
        pace: str
        language: str

        def apply(self, game: Any) -> None:
            game.state.lobby[self.seat] = self.note
            game.state.lobby_terms[self.seat] = {"listed": self.listed, "pace": self.pace, "language": self.language}

    def close_seat(self, by: str, seat: str) -> None:
        """Offer an open seat no more."""
        self._require_open(seat)
        self.trigger_event(self.SeatClosed, seat=seat, actor=by, audience=[vis.PUBLIC])  # type: ignore[attr-defined]

    class SeatClosed(Aggregate.Event):
        seat: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            _unlist(game, self.seat)

    def take_seat(self, seat: str, token_hash: str, email: str | None) -> None:
        """A newcomer takes an open seat: a new sign-in link (the old ones stop working), their address as its
        contact (or none: the one before is dropped either way, so the seat's last holder gets none of its mail),
        and the seat closed to others."""
        self._require_open(seat)
        email = limits.check_email(email) if email is not None else None
        self.trigger_event(self.SeatTaken, seat=seat, actor=seat, audience=[vis.PUBLIC])  # type: ignore[attr-defined]
        game: Any = self
        game._credentials_revoked(principal=seat, actor=seat, audience=[vis.SEALED])
        game._credential_issued(principal=seat, token_hash=token_hash, actor=seat, audience=[vis.SEALED])
        game._contact_set(seat=seat, email=email, mode="immediate", actor=seat, audience=vis.seats([seat]))

    class SeatTaken(Aggregate.Event):
        seat: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            _unlist(game, self.seat)

    def _require_open(self, seat: str) -> None:
        self.seat(seat)  # type: ignore[attr-defined]
        if seat not in self.open_seats:
            raise RuleViolation(f"the seat {seat!r} is not open to newcomers", field="seat")

    # ------------------------------------------------------------------ invitations by address (issue 28 item 5)

    @property
    def invitations(self) -> dict[str, dict[str, str]]:
        """Every invitation sent: id -> seat (empty: to observe), address, language and state (sent, accepted,
        withdrawn). The GM's."""
        found: dict[str, dict[str, str]] = self.state.invited  # type: ignore[attr-defined]
        return found

    def invite(self, by: str, invitation: str, seat: str, email: str, language: str = "") -> None:  # noqa: PLR0913
        """Invite an address to a seat: whoever follows the link mailed to it takes the seat (a new sign-in link,
        the address as its contact). The address is the GM's and the seat's to know (``gm`` audience)."""
        self.seat(seat)  # type: ignore[attr-defined]
        self._invitation_sent(by, invitation, seat, email, language)

    def invite_observer(self, by: str, invitation: str, email: str, language: str = "") -> None:
        """Invite an address to observe (issue 28): whoever follows the link mailed to it watches the table as an
        observer (the public audience only), with a link of its own; no seat, no contact, no privilege."""
        self._invitation_sent(by, invitation, "", email, language)

    def _invitation_sent(self, by: str, invitation: str, seat: str, email: str, language: str) -> None:  # noqa: PLR0913
        email = limits.check_email(email)
        if not isinstance(language, str) or (language and not LANGUAGE.fullmatch(language)):
            raise RuleViolation("language: a language tag such as de or en-GB, or empty", field="language")
        if not isinstance(invitation, str) or not re.fullmatch(r"[0-9a-f]{8,64}", invitation):
            raise RuleViolation("invitation: an id of 8 to 64 hexadecimal digits", field="invitation")
        if invitation in self.invitations:
            raise RuleViolation("this invitation was sent already", field="invitation")
        self.trigger_event(  # type: ignore[attr-defined]
            self.InvitationSent,
            invitation=invitation,
            seat=seat,
            email=email,
            language=language,
            actor=by,
            audience=[vis.GM_ONLY],
        )

    class InvitationSent(Aggregate.Event):
        invitation: str
        seat: str
        email: str
        language: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.invited[self.invitation] = {
                "seat": self.seat,
                "email": self.email,
                "language": self.language,
                "state": "sent",
            }

    def _pending(self, invitation: str) -> dict[str, str]:
        found = self.invitations.get(invitation) if isinstance(invitation, str) else None
        if found is None or found["state"] != "sent":
            raise RuleViolation("this invitation was used or withdrawn, or was never sent", field="invitation")
        return found

    def accept_invitation(self, invitation: str, token_hash: str) -> str:
        """The invitee takes the seat: a new sign-in link (every earlier one stops working), the invited address as
        its contact; the invitation is used (once). Returns the seat, or an observer's principal: an invitation to
        observe gives its own principal a link, and nothing else."""
        found = self._pending(invitation)
        seat = found["seat"]
        if seat:
            self.seat(seat)  # type: ignore[attr-defined]
        if not isinstance(token_hash, str) or not re.fullmatch(r"[0-9a-f]{64}", token_hash):
            raise RuleViolation("token_hash: the SHA-256 of the new sign-in link, in hex", field="token_hash")
        game: Any = self
        if not seat:
            principal = vis.observer(invitation)
            self.trigger_event(  # type: ignore[attr-defined]
                self.InvitationAccepted, invitation=invitation, seat="", actor=principal, audience=[vis.GM_ONLY]
            )
            game._credential_issued(principal=principal, token_hash=token_hash, actor=principal, audience=[vis.SEALED])
            return principal
        self.trigger_event(  # type: ignore[attr-defined]
            self.InvitationAccepted, invitation=invitation, seat=seat, actor=seat, audience=vis.seats([seat])
        )
        game._credentials_revoked(principal=seat, actor=seat, audience=[vis.SEALED])
        game._credential_issued(principal=seat, token_hash=token_hash, actor=seat, audience=[vis.SEALED])
        game._contact_set(seat=seat, email=found["email"], mode="immediate", actor=seat, audience=vis.seats([seat]))
        return seat

    class InvitationAccepted(Aggregate.Event):
        invitation: str
        seat: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.invited[self.invitation]["state"] = "accepted"
            _unlist(game, self.seat)  # an open seat taken by invitation is open no more

    def withdraw_invitation(self, by: str, invitation: str) -> None:
        """Withdraw an invitation not yet accepted: its link stops working; or revoke an observer's: the link it
        was given stops working (a seat taken by invitation is its holder's: the GM reissues its link instead)."""
        found = self.invitations.get(invitation) if isinstance(invitation, str) else None
        watching = found is not None and not found["seat"] and found["state"] == "accepted"
        if not watching:
            self._pending(invitation)
        self.trigger_event(  # type: ignore[attr-defined]
            self.InvitationWithdrawn, invitation=invitation, actor=by, audience=[vis.GM_ONLY]
        )
        if watching:
            game: Any = self
            game._credentials_revoked(principal=vis.observer(invitation), actor=by, audience=[vis.SEALED])

    class InvitationWithdrawn(Aggregate.Event):
        invitation: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.invited[self.invitation]["state"] = "withdrawn"
