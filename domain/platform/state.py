"""The platform's pieces of a game's state: windows (deadlines, extensions, reminders), every viewer's
sequence, and the open seats and invitations (``SeatingState``).

A ruleset's state holds these (``domain.powers.state.GameState.windows``). Snapshots name each state
class by its class name (``emissary.Window``), so a class keeps its name when it moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import visibility as vis


def _upcast_requests(requests: dict[str, dict[str, Any]]) -> None:
    """Extension requests a snapshot kept before they named their seat ``seat``: they used Powers' word for it.
    (Snapshots decode a window by its fields, so its requests are upcast when it is made.)"""
    for key, request in requests.items():
        if "power" in request:
            requests[key] = {"seat" if name == "power" else name: value for name, value in request.items()}


@dataclass
class Window:
    id: str
    kind: str
    opened_at: str
    closes_at: str
    closed: bool = False
    reason: str | None = None
    closed_at: str | None = None
    extensions: dict[str, str] = field(default_factory=dict)  # seat -> its own deadline (ISO, UTC)
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)  # request id -> the request
    reminded: list[float] = field(default_factory=list)  # the reminders' offsets (hours before closing) sent
    # A close whose default for silence a rule refused (GameBlocked): rule, seats, reason, at, version; else None
    blocked: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        _upcast_requests(self.requests)

    def deadline_for(self, seat: str | None) -> str:
        """This seat's deadline (ISO, UTC): the window's, or its own extension (GM-8)."""
        return self.extensions.get(seat, self.closes_at) if seat else self.closes_at

    @property
    def final_closes_at(self) -> str:
        """When the window closes for everyone: the latest of its deadline and every extension."""
        return max([self.closes_at, *self.extensions.values()], key=datetime.fromisoformat)


@dataclass
class Seat:
    """A seat with what the platform keeps for it; a ruleset with more to keep declares its own (Powers:
    ``PowerState``) with these fields."""

    id: str
    name: str
    timezone: str | None = None
    email: str | None = None
    mail_mode: str = "immediate"
    language: str | None = None  # the language its mail is written in (issue 28; None: the game's)
    grants: list[dict[str, Any]] = field(default_factory=list)
    ready: bool = False
    extension_hours_used: float = 0.0
    roles: list[str] = field(default_factory=list)  # besides the ruleset's seated role (domain.platform.roles)


@dataclass(kw_only=True)
class SeatingState:
    """The open seats and the invitations (``domain.platform.seating``), in every ruleset's state through
    ``ViewerSequences`` (keyword-only fields, after the ruleset's own): so a snapshot, a fork's copy and a rules
    change's re-fold carry them as the rest of the state, and a rollback carries them over as it does the
    credentials (``PlatformGame.StateRestored``). Before issue 28's audit they were kept beside the state on the
    aggregate; a snapshot of that time is upcast (``PlatformGame.upcast_v2_v3``)."""

    lobby: dict[str, str] = field(default_factory=dict)  # open seat -> the GM's public note
    lobby_terms: dict[str, dict[str, Any]] = field(default_factory=dict)  # open seat -> listed, pace, language
    invited: dict[str, dict[str, str]] = field(default_factory=dict)  # invitation -> seat, email, language, state


SEATING_FIELDS = ("lobby", "lobby_terms", "invited")


class ViewerSequences(SeatingState):
    """Every viewer's gap-free count of the events they may see (``seen``: audience token -> count).

    A mixin of a ruleset's state dataclass, which declares ``seen: dict``; it adds no field of its own (its base,
    ``SeatingState``, adds the open seats and invitations).
    """

    if TYPE_CHECKING:  # the ruleset's state dataclass declares it
        seen: dict[str, int]

    def count_seen(self, audience: list[str]) -> None:
        """Advance each viewer's gap-free sequence of the events they may see."""
        if "sealed" in audience:
            return
        self.seen["gm"] = self.seen.get("gm", 0) + 1
        for token in audience:
            if token != "gm":
                self.seen[token] = self.seen.get(token, 0) + 1

    def sequence_for(self, viewer: str) -> int:
        """How many events this viewer ('gm' or a seat id) may see so far."""
        if viewer == "gm":
            return self.seen.get("gm", 0)
        return self.seen.get("public", 0) + self.seen.get(vis.seat(viewer), 0)


@dataclass(kw_only=True)
class CommittedDice:
    """The seed commit-reveal's fields (domain.platform.game ``_commit_seed``, domain.dice): a ruleset's state
    that rolls through the platform mixes these in (keyword-only, so they follow its own fields)."""

    seed: str | None = None  # sealed: nobody sees it until it is revealed
    seed_commitment: str | None = None
    seed_root: str | None = None
    seed_first_roll: int = 0
    next_roll: int = 0
