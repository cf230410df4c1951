"""Typed ids. At run time they are plain strings, so events stay JSON-native."""

from typing import NewType

GameId = NewType("GameId", str)
PowerId = NewType("PowerId", str)
ActionId = NewType("ActionId", str)
AssetId = NewType("AssetId", str)
WindowId = NewType("WindowId", str)

GM = "gm"
SYSTEM = "system"
