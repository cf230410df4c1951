"""The spells and rituals a Powers game starts with, as data (P-AMB-42: the engine stays data-driven).

The rules' "Example Spells" section ([003:513]–[003:519]) is empty, so this catalogue ships only the spells
the text names with a cost: Fireball ([003:509]) and Aaron's ritual of conjuration ([003:237]). Freeze River
([003:507]) is named without a cost, so it is not shipped. Decision (P-AMB-42, "catalogue data has to come from
the designer"): its cost is the GM's, set with ``DefineSpell`` like any other spell or approved design (GM-15);
until then teaching it is refused naming P-AMB-42 (``NAMED_WITHOUT_COST``). Those definitions are events of
that game.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SPEEDS = ("fast", "slow", "ritual")


@dataclass(frozen=True)
class Spell:
    """A spell or ritual. ``cost`` is written as the rules write it (``2FF``: two generic, two Fire).

    ``range`` is in hexes from the hex cast through (P-MAG-5); 0 reaches that hex only.
    ``difficulty`` overrides a ritual's computed difficulty (P-AMB-35); ``power_specific`` keeps a ritual's
    cost inflation per power (a ritual granted by a power's own rules, P-MAG-4); ``permanent`` rituals can
    be dispelled at their original difficulty (P-RES-6). ``for_power``: a design only that power may learn.
    """

    id: str
    name: str
    speed: str
    cost: str
    range: int = 0
    difficulty: int | None = None
    power_specific: bool = False
    permanent: bool = False
    for_power: str | None = None
    source: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# Spells the rules name without a cost: the GM defines them before anyone learns them (P-AMB-42).
NAMED_WITHOUT_COST: dict[str, str] = {"freeze-river": "Freeze River ([003:507])"}

CATALOGUE: dict[str, Spell] = {
    s.id: s
    for s in (
        Spell(
            id="fireball",
            name="Fireball",
            speed="fast",
            cost="2FF",
            source="[003:509] Fireball's Cost is a fast spell with cost 2FF",
        ),
        Spell(
            id="aarons-ritual",
            name="Aaron's ritual of conjuration",
            speed="ritual",
            cost="WWWWAAAAA",
            difficulty=6,  # stated, though the cost has no generic part (P-AMB-35)
            permanent=True,
            source="[003:237] Cast Aaron's ritual of conjuration to summon the blade. Cost: WWWWAAAAA, Difficulty 6.",
        ),
    )
}
