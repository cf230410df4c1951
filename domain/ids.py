"""Typed ids. At run time they are plain strings, so events stay JSON-native."""

from typing import NewType

GameId = NewType("GameId", str)
PowerId = NewType("PowerId", str)
ActionId = NewType("ActionId", str)
AssetId = NewType("AssetId", str)
WindowId = NewType("WindowId", str)

GM = "gm"
SYSTEM = "system"

# The ids the platform keeps for viewers that are no seat: the GM, the service itself, the public audience, a sealed
# event's audience and the one view every observer shares (domain.visibility). A seat of one of these ids would be
# shown what that viewer is shown, or show it its own (an observer would read a seat called "observer"'s private
# actions), so no ruleset may seat one (domain.platform.seating.refuse_reserved_seats holds it for every ruleset).
RESERVED_VIEWERS = frozenset({GM, SYSTEM, "public", "sealed", "observer"})
