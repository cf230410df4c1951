"""Every viewer's sequence is gap-free and counts each event they may see exactly once, for every ruleset and the
fake one (DESIGN: receipts, feeds and exports number what a viewer sees 1, 2, 3...; a dispute names an event by that
number). The events the platform's mixins record (open seats, invitations, a seat's notifications) are counted by
the game's base event like every other; one that also counted itself moved a viewer's number by two and pointed a
later ``seq`` at the wrong event."""

from __future__ import annotations

from typing import Any

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Caller, Games
from domain.platform.commands import InviteToSeat, OpenSeat, SetNotifications, WithdrawInvitation
from domain.platform.roles import LINKS


def numbered(game: Any, viewer: str) -> int:
    """The number the game gives ``viewer``'s newest event (its receipts and feed count from it)."""
    return int(game.state.sequence_for(viewer))


def shown(games: Games, game_id: str, viewer: str) -> int:
    """How many events ``viewer`` may see, counted from the stored events (``Games.visible_events`` with no read
    models: each event whose audience the viewer is in)."""
    count = 0
    while page := games.visible_events(game_id, viewer, after=count, limit=500):
        count += len(page)
    return count


def test_each_viewers_number_is_the_count_of_events_they_may_see_after_the_platforms_own_events(games, played):
    gid = played.game_id
    game = games.get_game(gid, for_update=False)
    opener = next(p for p in played.viewers if game.may(p, LINKS))
    seat = next(v for v in played.viewers if v in game.seats and v != opener)
    for command in (
        OpenSeat(seat, "seeks a player"),
        OpenSeat(seat, open=False),
        InviteToSeat("abcd1234", seat, "newcomer@example.org"),
        WithdrawInvitation("abcd1234"),
    ):
        games.run(Caller.of(opener), gid, command)
    games.run(Caller.of(seat), gid, SetNotifications(seat, quiet_from="22:00", quiet_until="07:00"))
    game = games.get_game(gid, for_update=False)
    for viewer in played.viewers:
        assert numbered(game, viewer) == shown(games, gid, viewer), viewer
