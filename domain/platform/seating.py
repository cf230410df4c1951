"""Open seats (issue 28 item 5, mixed into PlatformGame): the GM marks a seat open, and a newcomer takes it.

A seat the GM opens is offered to whoever finds the game (what a lobby may list: the seat's public name and the
GM's public note, never its sheet or its link; the lobby page itself is still to come). Taking an open seat
replaces the seat's sign-in link with the newcomer's (every earlier link stops working) and makes the newcomer's
address its contact; the seat is then no longer open. Which seats are open is public; the credential is sealed and
the contact is the seat's own, as ever (``PlatformGame.issue_credential``, ``set_contact``).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import Aggregate

from domain import limits
from domain import visibility as vis
from domain.errors import RuleViolation


class Seating:
    """Which seats are open, and the events that open, close and fill them."""

    @property
    def open_seats(self) -> dict[str, str]:
        """The seats open to newcomers now: seat id -> the GM's note (a public line, possibly empty)."""
        found: dict[str, str] = self.__dict__.get("lobby") or {}
        return found

    def open_seat(self, by: str, seat: str, note: str) -> None:
        """Offer a seat to newcomers, with a public note (what the seat plays, what the table wants)."""
        self.seat(seat)  # type: ignore[attr-defined]
        note = limits.check_text(note, "note", limits.TITLE, what="a note")
        if seat in self.open_seats:
            raise RuleViolation(f"the seat {seat!r} is open already", field="seat")
        self.trigger_event(self.SeatOpened, seat=seat, note=note, actor=by, audience=[vis.PUBLIC])  # type: ignore[attr-defined]

    class SeatOpened(Aggregate.Event):
        seat: str
        note: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.__dict__.setdefault("lobby", {})[self.seat] = self.note
            game.state.count_seen(self.audience)

    def close_seat(self, by: str, seat: str) -> None:
        """Offer an open seat no more."""
        self._require_open(seat)
        self.trigger_event(self.SeatClosed, seat=seat, actor=by, audience=[vis.PUBLIC])  # type: ignore[attr-defined]

    class SeatClosed(Aggregate.Event):
        seat: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.__dict__.get("lobby", {}).pop(self.seat, None)
            game.state.count_seen(self.audience)

    def take_seat(self, seat: str, token_hash: str, email: str) -> None:
        """A newcomer takes an open seat: a new sign-in link (the old ones stop working), their address as its
        contact, and the seat closed to others."""
        self._require_open(seat)
        email = limits.check_email(email)
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
            game.__dict__.get("lobby", {}).pop(self.seat, None)
            game.state.count_seen(self.audience)

    def _require_open(self, seat: str) -> None:
        self.seat(seat)  # type: ignore[attr-defined]
        if seat not in self.open_seats:
            raise RuleViolation(f"the seat {seat!r} is not open to newcomers", field="seat")
