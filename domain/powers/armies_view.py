"""Who sees what of the armies (P.4, [003:326]): "Scores and keywords of visible armies are default public"; a
non-visible army (Stealthy, dispersed, or hidden by the GM, e.g. inside an outpost) is seen by its controller, the
GM and those the GM says detected it. Wounds, routs, Experience (an asset, [003:324]), fees owed and pending
level-ups are the controller's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.copying import deepcopy
from domain.ids import GM
from domain.powers import army_rules as ar
from domain.powers import army_types as at
from domain.powers.armies_state import visible

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def public_card(army: dict[str, Any]) -> dict[str, Any]:
    """What the table sees of a visible army: its scores and keywords ([003:326]), where it stands, its size."""
    return {
        "army_id": army["id"],
        "name": army["name"],
        "controller": army["controller"],
        "hex": army["hex"],
        "rank": army["rank"],
        "cls": army["cls"],
        "ancestry": army["ancestry"],
        "tier": at.TIERS[army["tier"]],
        "size": ar.size(army),
        "attack": dict(army["attack"]),
        "morale": dict(army["morale"]),
        "presence": dict(army["presence"]),
        "defense": army["defense"],
        "armor": ar.armor(army),
        "mobility": army["mobility"],
        "fee": army["fee"],
        "element": army["element"],
        "keywords": list(army["keywords"]),
        "premium": army["premium"],
        "titanic": army["titanic"],
        "garrison": army["garrison"],
        "mustered": army["mustered"],
    }


def full_card(s: GameState, army: dict[str, Any]) -> dict[str, Any]:
    """What the controller and the GM see of an army: its card, wounds, Experience, fees and level-up."""
    return {
        **public_card(army),
        "units": deepcopy(army["units"]),
        "wounds_to_die": army["wounds_to_die"],
        "loyal": army["loyal"],
        "personal": army["personal"],
        "visible": visible(army),
        "origin_town": army["origin_town"],
        "experience": [
            {"asset_id": x, "rank": s.assets[x].rank, "used_up": s.assets[x].used_up}
            for x in army["experience"]
            if x in s.assets
        ],
        "statuses": dict(army["statuses"]),
        "fee_due": army["fee_due"],
        "level_up": deepcopy(army["level_up"]),
        "keep_scars": army.get("keep_scars", False),
    }


def armies_view(game: Game, viewer: str) -> dict[str, Any]:
    """The armies part of a viewer's board (P.4): the GM sees every army in full; a power its own in full, the
    visible armies' public cards, and hidden armies only where it detected them."""
    s = game.state
    out: dict[str, Any] = {"types": deepcopy(s.armies.types), "armies": []}
    for _, army in sorted(s.armies.armies.items()):
        if viewer == GM or army["controller"] == viewer:
            out["armies"].append(full_card(s, army))
        elif visible(army) or viewer in army["seen_by"]:
            out["armies"].append(public_card(army))
    if viewer == GM:
        out["dispersed"] = deepcopy(s.armies.dispersed)
        out["support"] = {pid: _support(game, pid) for pid in sorted(s.powers)}
    elif viewer in s.powers:
        out["support"] = {viewer: _support(game, viewer)}
        out["cards"] = sorted(k for k, c in s.armies.cards.items() if c["controller"] == viewer)
    return out


def _support(game: Game, power_id: str) -> dict[str, Any]:
    return {
        "limit": game.support_limit(power_id),
        "units": game.units_counted(power_id),
        "due": game.support_due(power_id),
        "settled": deepcopy(game.state.armies.support.get(power_id)),
    }
