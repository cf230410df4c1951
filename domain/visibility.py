"""Who may see an event (P.4). Every event carries an ``audience``: a list of these tokens.

- ``public``: everyone at the table;
- ``gm``: the GM only (the GM sees every audience except ``sealed``);
- ``power:<id>``: that power;
- ``sealed``: nobody through any view until a later event discloses it (the month seed,
  credential hashes). A sealed event is never shown by the API, to the GM included.

An observer (``observer:<invitation>``, a principal the GM invited to watch: issue 28) sees the ``public`` audience
alone, whatever a recorded token says: it is no seat, and no view shows it more than ``observer``'s.

An audience never changes once recorded: when something becomes visible to more people
(a disclosure, a resolved action, a revealed seed) that is a new event with a wider audience.
"""

from __future__ import annotations

from collections.abc import Iterable

PUBLIC = "public"
GM_ONLY = "gm"
SEALED = "sealed"
OBSERVER = "observer"  # the viewer every observer sees the table as: the public audience only


def observer(invitation: str) -> str:
    """The principal of an observer the GM invited (its invitation's id): ``observer:<invitation>``."""
    return f"{OBSERVER}:{invitation}"


def is_observer(principal: str) -> bool:
    """Whether this principal watches the table (an invited observer, or the observer viewer itself)."""
    return principal == OBSERVER or principal.startswith(f"{OBSERVER}:")


def seat(seat_id: str) -> str:
    """The audience token of one seat: ``power:<id>``, as every recorded event carries it (a token never changes)."""
    return f"power:{seat_id}"


def seats(ids: Iterable[str]) -> list[str]:
    """Audience for a set of seats (the GM always sees it too)."""
    return sorted({seat(p) for p in ids}) or [GM_ONLY]


power, powers = seat, seats  # Powers' words for the same tokens


def can_see(audience: Iterable[str], viewer: str) -> bool:
    """Whether ``viewer`` (``'gm'`` or a power id) may see an event with this audience."""
    audience = list(audience)
    if SEALED in audience:
        return False
    if is_observer(viewer):
        return PUBLIC in audience
    if PUBLIC in audience or viewer == "gm":
        return True
    return power(viewer) in audience
