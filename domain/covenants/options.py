"""The covenant game's campaign options: each defaults to the recommendation of ANALYSIS A.6 and names it.

The rules read them through ``option``, which also reads a game created before an option had its present name
(its stored options keep the name they were given then).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import AliasChoices, ConfigDict, Field

from domain.platform.posts import PostOptions

MainPhaseMode = Literal["passes_then_extra_round", "until_everyone_passes", "one_round"]
WinnerTiebreak = Literal["shared", "unconverted_surplus"]
MultiTargetResistance = Literal["highest", "per_target"]


class CovenantOptions(PostOptions):
    """A game's options: how many covenants (2-4), which house rules package, the score that wins, and the
    campaign options ANALYSIS A.6 leaves to each table."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    players: int = Field(3, ge=2, le=4, description="How many covenants play: two to four ([000:4])")
    house: Literal["default", "custom"] = Field(
        "default", description="A-AMB-1: the house rules package, the one shipped or (custom) house_package"
    )
    house_package: dict[str, Any] | None = Field(
        None, description="A-AMB-1: a custom house rules package (generators, events, actions, winnings)"
    )
    target_score: int = Field(25, ge=1, le=200, description="A-RECK-5: the score that wins at a Yearly Reckoning")
    main_phase_mode: MainPhaseMode = Field(
        "passes_then_extra_round",
        description="A-AMB-5: the Main Phase runs rounds of one action each until a round where everyone passes, "
        "then its end-of-phase events, then one extra round (passes_then_extra_round); or it ends at that round "
        "(until_everyone_passes); or it is exactly one round ([000:17] one_round)",
    )
    yearly_conversion_consumes: bool = Field(
        True,
        validation_alias=AliasChoices("yearly_conversion_consumes", "yearly_consumes"),
        description="A-AMB-9: the gold and vis the Yearly Reckoning turns into points are spent (false: kept)",
    )
    certamen_rechallenge_gap: int = Field(
        2,
        ge=1,
        le=4,
        description="A-AMB-7: seasons from a challenge until its challenger may challenge the same player again "
        "(2: the next season but one, a whole season in between; 1: the next season)",
    )
    winner_tiebreak: WinnerTiebreak = Field(
        "shared",
        description="A-AMB-8: a tie for the highest score of 25 or more is a shared victory (shared), or won by "
        "the larger surplus left unconverted, a pawn of vis worth 2 gold (unconverted_surplus)",
    )
    multi_target_resistance: MultiTargetResistance = Field(
        "highest",
        description="A-AMB-17: a spell with several targets reaches them past the highest Magical Resistance among "
        'them, all or none (highest); or each past its own, "calculated independently" ([000:87] per_target)',
    )
    turn_hours: float = Field(
        48,
        gt=0,
        le=24 * 14,
        description='H-9: hours a covenant has for its turn (its pass or "satisfied") before silence counts as '
        "its default choice",
    )
    extension_cap_hours_per_window: float = Field(
        48, ge=0, le=24 * 14, description="Most extension per covenant per turn's window, in hours"
    )
    extension_cap_hours_per_season: float = Field(
        96, ge=0, le=24 * 28, description="Most extension per covenant per season, in hours"
    )
    reminder_hours: list[float] = Field(
        [24, 2], max_length=5, description="Remind the seat at turn this many hours before its deadline (H-9)"
    )


# Options stored under an earlier name by games created before they had their present one.
_EARLIER = {"yearly_conversion_consumes": "yearly_consumes"}


def option(options: Mapping[str, Any], name: str) -> Any:
    """The value of a campaign option in a game's stored options; its default if the game predates it."""
    if name in options:
        return options[name]
    if name in _EARLIER and _EARLIER[name] in options:
        return options[_EARLIER[name]]
    if name == "main_phase_mode" and options.get("main_extra_round") is False:  # its earlier flag
        return "until_everyone_passes"
    return CovenantOptions.model_fields[name].default
