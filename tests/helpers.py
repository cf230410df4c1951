"""Helpers shared by tests across areas."""

from __future__ import annotations

from application.service import CommandKey, Games, Receipt, issued
from domain.powers import commands as pc


def add_power(
    games: Games,
    game_id: str,
    principal: str,
    name: str,
    cls: str,
    subclass: str,
    options: dict | None = None,
    *,
    key: CommandKey | None = None,
) -> tuple[str, str | None, Receipt]:
    """The GM seats a Powers power (``pc.AddPower`` through ``Games.send``): its id, its sign-in token (issued here,
    shown once; None on a replayed key) and the receipt."""
    command, token = issued(pc.AddPower(name, cls, subclass, "", options))
    receipt = games.send(game_id, principal, command, key)
    return receipt.result["power_id"], None if receipt.replayed else token, receipt
