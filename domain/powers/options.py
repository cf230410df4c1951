"""The options of a Powers game and of its powers, as typed schemas with bounds.

An option that is unknown, of the wrong type or out of range is refused when the game (or the
power) is created, naming the option; nothing is recorded. Every option here is read by the
rules: there are no options that are accepted and then ignored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from domain import limits
from domain.errors import RuleViolation
from domain.platform.posts import PostOptions
from domain.powers.rules import ADVERSARY

# A window may be set as long as a year: games last years, and a GM may pause one this way.
MAX_WINDOW_HOURS = 24 * 366


def _whole(value: float) -> float:
    return int(value) if value.is_integer() else value  # 30 h stays "30 h" in messages, not "30.0 h"


Hours = Annotated[float, Field(gt=0, le=MAX_WINDOW_HOURS), AfterValidator(_whole)]
CapHours = Annotated[float, Field(ge=0, le=MAX_WINDOW_HOURS), AfterValidator(_whole)]

DEFAULT_OPTIONS: dict[str, Any] = {
    "planning_hours": 72,
    "resistance_hours": 24,  # P-RES-2
    "reminder_hours": [24, 1],
    "extension_cap_hours_per_window": 24,  # per power, per window (GM-8)
    "extension_cap_hours_per_season": 48,  # per power, per season
    "critical_mode": "rolled",  # P-AMB-5
    "resister_sees_assets": "pool_size",  # P-AMB-3
    "notify_resister_at": "resolution",  # P-AMB-4
    "multi_resist_mode": "by_effect",  # P-AMB-7
    "levelup_bonuses": 3,  # P-AMB-18
    "show_earlier_text": False,  # posts (domain.platform.posts)
    "host_reads_private_threads": False,
    "battle_declared_by": "controller",  # P-AMB-1: a controlling power declares (the GM may, for any)
    "battle_hours": 24,  # how long each step of a battle waits for decisions (P.1.3 by post)
    "battle_timing": "every_month",  # P-AMB-1
    "goal_threshold_order": "defender_attacker",  # P-AMB-13
}


class _Options(BaseModel):
    # strict: "72" or true is not a number of hours; allow_inf_nan: NaN and Infinity are not either.
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class PowersOptions(_Options, PostOptions):
    """A game's options; each defaults to the recommendation of rules/ANALYSIS.md."""

    months_per_season: Literal[2, 3] = Field(
        2,
        description="GM-28, P-AMB-2: how many months a season lasts, 2 or 3 (the GM may change it as the game goes); "
        "the game keeps it as its calendar, not among these options",
    )
    planning_hours: Hours = Field(DEFAULT_OPTIONS["planning_hours"], description="How long Planning stays open (P.1.2)")
    resistance_hours: Hours = Field(
        DEFAULT_OPTIONS["resistance_hours"], description="How long the resistance window stays open (P-RES-2)"
    )
    reminder_hours: list[Hours] = Field(
        DEFAULT_OPTIONS["reminder_hours"],
        max_length=5,
        description="Remind who has not acted this many hours before a deadline",
    )
    extension_cap_hours_per_window: CapHours = Field(
        DEFAULT_OPTIONS["extension_cap_hours_per_window"], description="GM-8: most extension per power per window"
    )
    extension_cap_hours_per_season: CapHours = Field(
        DEFAULT_OPTIONS["extension_cap_hours_per_season"], description="GM-8: most extension per power per season"
    )
    critical_mode: Literal["rolled", "rank"] = Field(
        DEFAULT_OPTIONS["critical_mode"],
        description="P-AMB-5: a critical asset triples its rolled successes, or (rank) three times its rank",
    )
    resister_sees_assets: Literal["pool_size", "assets"] = Field(
        DEFAULT_OPTIONS["resister_sees_assets"],
        description="P-AMB-3: what a resister is told of the pool against it: its size only (every rank, the "
        "GM-hidden and assured ones too), or (assets) also the name, class and rank of each asset the GM has not "
        "hidden, never whether one is assured or critical",
    )
    notify_resister_at: Literal["resolution", "submission"] = Field(
        DEFAULT_OPTIONS["notify_resister_at"],
        description="P-AMB-4: when a power that may resist an action is told of it: when the Resolution is "
        "published, or as soon as the action is submitted with its roll locked",
    )
    multi_resist_mode: Literal["by_effect", "summed"] = Field(
        DEFAULT_OPTIONS["multi_resist_mode"],
        description="P-AMB-7: several resisters of one action: their successes add up against an outcome that "
        "concerns everyone and each reduces only its own share of an effect per target (by_effect), or they "
        "always add up, against every target's share too (summed)",
    )
    levelup_bonuses: Literal[2, 3] = Field(
        DEFAULT_OPTIONS["levelup_bonuses"],
        description="P-AMB-18: bonuses chosen at each level-up (a Levy's new class is one of them)",
    )
    battle_declared_by: Literal["controller", "gm"] = Field(
        DEFAULT_OPTIONS["battle_declared_by"],
        description="P-AMB-1: who declares a battle where opposed armies meet: a controlling power, or the GM only",
    )
    battle_hours: Hours = Field(
        DEFAULT_OPTIONS["battle_hours"], description="How long each step of a battle stays open (P.1.3)"
    )
    battle_timing: Literal["every_month", "season_end"] = Field(
        DEFAULT_OPTIONS["battle_timing"],
        description="P-AMB-1: when opposed armies may fight: in every month's Battle step, or (season_end, as "
        "[003:561] says: when they end a season in one hex) only in the Battle step of the season's last month",
    )
    goal_threshold_order: Literal["defender_attacker", "attacker_defender"] = Field(
        DEFAULT_OPTIONS["goal_threshold_order"],
        description="P-AMB-13: how a goal's printed thresholds a/b (Stone Walls 2/4) are read: defender/attacker, so "
        "stronger walls are harder for the attackers, or attacker/defender",
    )


class PowerOptions(_Options):
    """Perks of a player power that change what the rules compute for it."""

    personal_touch: bool = Field(False, description="[003:885] actions spent as assets are rank 2")
    incorruptible: bool = Field(False, description="[003:761] sees the influence layer")
    subtle_titan: bool = Field(False, description="Dragon [003:1354]: half the actions are private")
    subtle_titan_upgraded: bool = Field(False, description="Dragon: every action is private")
    leading_army: bool = Field(False, description="Paragon [003:1386]: public actions while leading an army")
    # Perks read by the class catalogue (domain.powers.catalogue).
    confident_duelist: bool = Field(False, description="[003:867] ignore the 1st and 5th consequences when dueling")
    confident_negotiator: bool = Field(False, description="[003:869] the same when negotiating")
    confident_crafter: bool = Field(False, description="[003:871] the same when crafting")
    confident_ritualist: bool = Field(False, description="[003:873] the same when casting rituals")
    flexible_summoning: bool = Field(False, description="Cult [003:1228]: ignore the 2nd consequence summoning")
    desperate_reaction: bool = Field(False, description="[003:875] an extra reaction for an action of next month")
    prepared_reaction: bool = Field(False, description="[003:883] an extra reaction for a scheme")
    mystic_reactions: bool = Field(False, description="[003:911] an extra reaction for an A mana")
    inquisition: bool = Field(False, description="[003:955] the Inquisition action")
    health_drive: bool = Field(False, description="[003:947] the Health Drive action")
    big_family: bool = Field(False, description="Sovereign: up to 5 heirs instead of 3 ([003:1009])")
    many_masters: bool = Field(False, description="Circle: up to 4 masters instead of 3 ([003:1177])")
    molotovs: bool = Field(False, description="Cause [003:1270]: Saboteurs may inflict Burn, difficulty +1")
    little_cruelties: bool = Field(False, description="[003:957] gain 1 Fear at the start of each month")
    blighted_neighborhood: bool = Field(
        False, description="[003:959] a claimed town loses 1 population and wealth each Cleanup, for 5 Fear"
    )


class AdversaryOptions(PowerOptions):
    """A GM adversary takes fewer actions than a player power: 0 to 4 a month ([003:15], GM-10)."""

    public_actions: int = Field(0, ge=0, le=4)
    private_actions: int = Field(2, ge=0, le=4)


# Perks that only one subclass has: elsewhere they would be accepted and read nowhere.
SUBCLASS_PERKS = {
    "subtle_titan": "dragon",
    "subtle_titan_upgraded": "dragon",
    "leading_army": "paragon",
    "flexible_summoning": "cult",
    "big_family": "sovereign",
    "many_masters": "circle",
    "molotovs": "cause",
}


def _refusal(err: ValidationError, prefix: str, model: type[BaseModel]) -> RuleViolation:
    first = err.errors()[0]
    name = limits.field_name(first["loc"])
    field = f"{prefix}.{name}" if name else prefix
    if first["type"] == "extra_forbidden":
        known = ", ".join(model.model_fields)
        return RuleViolation(f"{field} is not an option; the options are {known}", field=field)
    return RuleViolation(f"{field}: {first['msg']}", field=field)


def _parse(model: type[BaseModel], options: Any, prefix: str) -> dict[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise RuleViolation(f"{prefix} must be an object of named options", field=prefix)
    try:
        return model.model_validate(options).model_dump(exclude_unset=True)
    except ValidationError as err:
        raise _refusal(err, prefix, model) from None


def validate_game_options(options: Any) -> dict[str, Any]:
    """The options a game was created with, checked; only those given (defaults fill in when read)."""
    return _parse(PowersOptions, options, "options")


def validate_power_options(subclass: str, options: Any) -> dict[str, Any]:
    """A power's options, checked for its subclass (an adversary's action counts, perks)."""
    model = AdversaryOptions if subclass == ADVERSARY else PowerOptions
    parsed = _parse(model, options, "options")
    for perk, owner in SUBCLASS_PERKS.items():
        if parsed.get(perk) and subclass != owner:
            raise RuleViolation(
                f"options.{perk} is a perk of a {owner}, not of a {subclass}", rule="P-ACT-1", field=f"options.{perk}"
            )
    return parsed
