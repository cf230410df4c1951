"""The partial rules of the catalogue (ANALYSIS.md P-DICE-13, P-ACT-1, P-ACT-6, P.2.12): dice outside challenges,
quotas that change in play, Blighted Neighborhood, Dread Growth and true locations.

Its events evolve ``GameState``; ``Catalogue`` names each, so it is stored under the topic it has always had,
``domain.powers.catalogue:Catalogue.<Name>``.
"""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any, cast

from domain import limits
from domain import visibility as vis
from domain.dice import Roller
from domain.errors import RuleViolation
from domain.ids import GM
from domain.powers import catalogue_rules as cr
from domain.powers import hexmap, rules
from domain.powers.catalogue_state import CatalogueEvent, cat, claims_of, map_town, record
from domain.powers.options import validate_power_options

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState

MONTHLY = ("extra_reactions", "triggered", "kinds", "shares")
QUOTA_PERKS = ("leading_army", "subtle_titan", "subtle_titan_upgraded")


def month_began(s: GameState) -> None:
    """Fold: a month's Planning clears the month's catalogue records and extra reactions (P-RES-1)."""
    month: dict[str, object] = cast("dict[str, object]", cat(s))
    for key in MONTHLY:
        month.pop(key, None)  # absent, not empty: a month without catalogue records folds as before it existed
    for p in s.powers.values():
        p.reaction_allowance = 1


def month_opened(game: Game) -> None:
    """At the start of each month: Little Cruelties gains 1 Fear ([003:957], P.2.12)."""
    for p in sorted(game.state.powers.values(), key=lambda p: p.id):
        if p.options.get("little_cruelties"):
            game.earn(p.id, "fear", 1, "Little Cruelties: a month begins ([003:957])")


def roll_dice(
    game: Game,
    roll_id: str,
    *,
    roller: Roller,
    dice: str | None = None,
    purpose: str | None = None,
    power_id: str | None = None,
    params: dict[str, Any] | None = None,
    public: bool = False,
    actor: str = GM,
) -> dict[str, Any]:
    """Roll NdX outside a challenge from the month's committed seed (P-DICE-13): explicit dice, or one of
    the rolls the rules fix (``purpose``). The roll carries its key and Merkle path, for its audience."""
    s = game.state
    limits.check_text(roll_id, "roll_id", limits.IDENTIFIER)
    params = dict(params or {})
    if power_id is not None:
        game.power(power_id)
    if (dice is None) == (purpose is None):
        raise RuleViolation("give either the dice (NdX) or the rule's roll (purpose)", rule="P-DICE-13")
    if dice is not None:
        spec, label = cr.parse_dice(dice), "gm"
    else:
        influence = s.powers[power_id].influence if power_id else {}
        spec, label = cr.fixed_roll(str(purpose), params, influence), str(purpose)
    if s.seed is None or s.seed_commitment is None:
        raise RuleViolation(
            "dice come from the month's committed seed, and no month is open: roll during a month",
            rule="P-DICE-13",
        )
    roll_no = s.next_roll
    proof = game._roll_proof(roll_no)
    faces = roller.faces(roll_no, spec.count, sides=spec.sides)
    if len(faces) != spec.count or not all(1 <= f <= spec.sides for f in faces):
        raise AssertionError(f"roll {roll_no} is not {spec.text}: {faces}")
    result = cr.dice_result(spec, faces)
    audience = [vis.PUBLIC] if public else (vis.powers([power_id]) if power_id else [vis.GM_ONLY])
    record(
        game,
        ExtraDiceRolled,
        roll_id=roll_id,
        power_id=power_id,
        purpose=label,
        dice=spec.text,
        count=spec.count,
        sides=spec.sides,
        modifier=spec.modifier,
        params=params,
        roll_no=roll_no,
        commitment=s.seed_commitment,
        faces=list(faces),
        result=result,
        actor=actor,
        audience=audience,
        **proof,
    )
    return {"roll_id": roll_id, "roll_no": roll_no, "dice": spec.text, "faces": list(faces), **result}


def change_quota_perk(game: Game, power_id: str, perk: str, value: bool) -> dict[str, int]:
    """GM: a perk that changes a power's monthly quota is gained, lost, or starts to apply (P-ACT-1): the
    Paragon leading an army, the Dragon's Subtle Titan and its upgrade. Slots already spent stay spent."""
    ps = game.power(power_id)
    if perk not in QUOTA_PERKS:
        raise RuleViolation(f"the perks that change a quota are {', '.join(QUOTA_PERKS)}", rule="P-ACT-1")
    options = {**ps.options, perk: bool(value)}
    options = validate_power_options(ps.subclass, options)
    q = rules.quota(ps.subclass, options)
    record(
        game,
        QuotaChanged,
        power_id=power_id,
        options=options,
        public=q.public,
        private=q.private,
        actor=GM,
        audience=[vis.PUBLIC],
    )
    return {"public": q.public, "private": q.private}


def choose_blighted_town(game: Game, power_id: str, town_id: str) -> None:
    """Blighted Neighborhood ([003:959]): "Choose a town you claim ... if you claim no town chosen this way,
    choose another claimed town." A town once chosen stays chosen while the power claims it."""
    ps = game.power(power_id)
    if not ps.options.get("blighted_neighborhood"):
        raise RuleViolation("choosing a blighted town needs Blighted Neighborhood", rule="P.2.12", field="power_id")
    town = map_town(game.state, town_id)
    if town is None or town not in {t for t, _ in claims_of(game.state, power_id)}:
        raise RuleViolation(f"{ps.name} claims no town {town_id!r}", rule="P.2.12", field="town_id")
    held = cat(game.state).get("blighted", {}).get(power_id)
    if held is not None and held in {t for t, _ in claims_of(game.state, power_id)}:
        raise RuleViolation(
            "you still claim the town you chose; choose another only once you claim it no more [003:959]",
            rule="P.2.12",
            field="town_id",
        )
    record(
        game,
        BlightedTownChosen,
        power_id=power_id,
        town_id=town,
        actor=power_id,
        audience=vis.powers([power_id]),
    )


def cleanup(game: Game) -> None:
    """At each Cleanup, the blighted town loses 1 population and 1 wealth and its power gains 5 Fear
    ([003:959]); a town the power no longer claims is spared."""
    for power_id, town in sorted(cat(game.state).get("blighted", {}).items()):
        p = game.state.powers.get(power_id)
        if p is None or not p.options.get("blighted_neighborhood"):
            continue
        if town not in {t for t, _ in claims_of(game.state, power_id)}:
            continue
        game.harm_town(town, {"population": -1, "wealth": -1}, "Blighted Neighborhood [003:959]", None)
        game.earn(power_id, "fear", 5, "Blighted Neighborhood: Cleanup ([003:959])")


def dread_growth(game: Game, power_id: str, units: int) -> dict[str, int]:
    """A Dragon's army grows each Tidings: 1 unit, or 2 below the most it has had ([003:1327]). ``units`` is
    the army's size now (armies belong to the map); the catalogue keeps the maximum reached."""
    ps = game.power(power_id)
    if ps.subclass != "dragon":
        raise RuleViolation("Dread Growth is a Dragon's [003:1327]", rule="P.2.12", field="power_id")
    if game.state.step != "tidings":
        raise RuleViolation("Dread Growth happens during Tidings [003:1327]", rule="P.2.12")
    if not isinstance(units, int) or isinstance(units, bool) or not 0 <= units <= 100:
        raise RuleViolation("units is a whole number from 0 to 100", rule="P.2.12", field="units")
    k = cat(game.state).get("counters", {}).get(power_id, {})
    if k.get("dread_growth_season") == game.state.season:
        raise RuleViolation("the army has grown this season", rule="P.2.12")
    gain, maximum = cr.dread_growth(units, int(k.get("dread_maximum", units)))
    record(
        game,
        DreadGrown,
        power_id=power_id,
        units=units,
        gain=gain,
        maximum=maximum,
        season=game.state.season,
        actor=GM,
        audience=vis.powers([power_id]),  # a Subtle Titan's army is Stealthy: its size is not the table's
    )
    return {"gain": gain, "units": units + gain, "maximum": maximum}


def record_location(game: Game, power_id: str, hex_id: str) -> None:
    """GM: where a power's champion or leader truly is; a duel declared elsewhere is lost (P-ACT-6)."""
    game.power(power_id)
    hexmap.parse_hex(hex_id)
    record(game, TrueLocationRecorded, power_id=power_id, hex_id=hex_id, actor=GM, audience=[vis.GM_ONLY])


# ---------------------------------------------------------------------- events


class ExtraDiceRolled(CatalogueEvent):
    roll_id: str
    power_id: str | None
    purpose: str
    dice: str
    count: int
    sides: int
    modifier: int
    params: dict[str, Any]
    roll_no: int
    commitment: str
    faces: list[int]
    result: dict[str, Any]
    actor: str
    audience: list[str]
    key: str | None = None
    path: list[str] | None = None

    def evolve(self, s: GameState) -> None:
        s.next_roll = self.roll_no + 1


class QuotaChanged(CatalogueEvent):
    power_id: str
    options: dict[str, Any]
    public: int
    private: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        p = s.powers[self.power_id]
        p.options, p.public, p.private = deepcopy(self.options), self.public, self.private


class BlightedTownChosen(CatalogueEvent):
    power_id: str
    town_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        cat(s).setdefault("blighted", {})[self.power_id] = self.town_id


class DreadGrown(CatalogueEvent):
    power_id: str
    units: int
    gain: int
    maximum: int
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        k = cat(s).setdefault("counters", {}).setdefault(self.power_id, {})
        k["dread_maximum"], k["dread_growth_season"] = self.maximum, self.season


class TrueLocationRecorded(CatalogueEvent):
    power_id: str
    hex_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        cat(s).setdefault("locations", {})[self.power_id] = self.hex_id
