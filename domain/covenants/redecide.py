"""Rules changes replayed in the covenant game (issue 29 item 3, ``Ruleset.redecide``): a recorded Yearly Reckoning as a
version's rules decide it from the terms it recorded (``reckoning._terms``: each covenant's Winter surplus, what it
keeps unconverted, curse 6, whether it is out of play, its score before and the tribute it owes; the target, the
campaign's conversion flag, the seats in the order the next starting player is looked for).

``reckoned`` computes a ``YearReckoned``'s points, scores, gold and vis spent, winners and next starting player from
those terms as ``reckoning._yearly_reckoning`` does (A-RECK-3..6, A-AMB-8, A-AMB-9, A-ORDER-2), with the year's points
rule a parameter: a version of the game whose Reckoning differs (a house rule) is this ruleset with
``redecide=VersionRules(provision_per_point=n)`` (the rule as data, so a derivation shows it step by step), a game that
adopts it reckons every later year by it, and the "why" of each year reckoned after the adoption is derived by it. A
Reckoning recorded before it kept its terms stands as recorded."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.covenants import rules
from domain.platform.explain import rules_of

Points = Callable[..., int]  # (provision, gold, vis, *, curse6) -> the year's points (A-RECK-3, A-RECK-6)
RULES = ["A-RECK-3", "A-RECK-4", "A-RECK-5", "A-ORDER-2"]


def reckoned(terms: Mapping[str, Any], points_rule: Points = rules.yearly_points) -> dict[str, Any]:
    """The Yearly Reckoning these terms make under ``points_rule``: points, scores, spent, winners, starting."""
    seats: Mapping[str, Mapping[str, Any]] = terms["seats"]
    points, spent = {}, {}
    for seat, x in seats.items():
        gold, vis = int(x["gold"]) - int(x.get("kept_gold") or 0), int(x["vis"]) - int(x.get("kept_vis") or 0)
        points[seat] = points_rule(int(x["provision"]), gold, vis, curse6=bool(x["curse6"]))
        spent[seat] = {"gold": gold // 2 * 2, "vis": vis} if terms["consumes"] else {"gold": 0, "vis": 0}
        if x["out"]:  # A-EVT-4: a covenant out of play neither scores nor spends
            points[seat], spent[seat] = 0, {"gold": 0, "vis": 0}
    scores = {seat: int(x["score"]) for seat, x in seats.items()}
    gained = dict.fromkeys(seats, 0)
    for seat, x in seats.items():  # A-RECK-4: off this year's points, then the score; a covenant is paid its share
        owed = [] if x["out"] else list(x["tribute"])
        scores[seat], from_year, from_score = rules.apply_tribute(
            points[seat], scores[seat], sum(int(t["points"]) for t in owed)
        )
        paid = from_year + from_score
        for t in owed:
            take = min(int(t["points"]), paid)
            paid -= take
            if t["to"] is not None:
                gained[t["to"]] += take
    scores = {seat: scores[seat] + gained[seat] for seat in seats}
    surplus = None  # A-AMB-8's optional tiebreak, kept in the terms only when the campaign plays it
    if any(x.get("unconverted") is not None for x in seats.values()):
        surplus = {
            k: int(x["gold"]) - spent[k]["gold"] + 2 * (int(x["vis"]) - spent[k]["vis"]) for k, x in seats.items()
        }
    won = rules.winners(scores, int(terms["target"]), surplus=surplus)
    order = list(terms["order"])  # clockwise after the starter, the starter last (A-ORDER-2, A-AMB-8)
    low = min(scores[s] for s in order)
    starting = None if won else next(s for s in order if scores[s] == low)
    return {"points": points, "scores": scores, "spent": spent, "winners": won, "starting": starting}


@dataclass(frozen=True)
class VersionRules:
    """The rules a version of the covenant game may decide otherwise, and its ``Ruleset.redecide``."""

    provision_per_point: int = 4  # A-RECK-3 as printed: a point per 4 provision
    rule_ids: tuple[str, ...] = tuple(RULES)

    def points(self, provision: int, gold: int, vis: int, *, curse6: bool = False) -> int:
        """The year's points as this version has A-RECK-3 (and A-RECK-6)."""
        return rules.yearly_points(provision, gold, vis, curse6=curse6, provision_per_point=self.provision_per_point)

    def __call__(self, game: Any, e: Any) -> tuple[dict[str, Any], list[str]] | None:
        """A recorded ``YearReckoned`` as this version reckons its terms; one recorded without terms stands."""
        if type(e).__name__ != "YearReckoned" or not getattr(e, "terms", None):
            return None
        return reckoned(e.terms, self.points), list(self.rule_ids)


def version_rules(game: Any) -> VersionRules:
    """The rules of the version a game is pinned at (the printed ones if that version declares none of its own)."""
    found = game.ruleset.redecide
    return found if isinstance(found, VersionRules) else VersionRules()


def in_force(version: str | None) -> VersionRules:
    """The rules of the installed version of the covenant game named ``version`` (a Reckoning's derivation is made
    by the version in force when it was reckoned); the printed ones for None, or one not installed or declaring none."""
    return rules_of("covenants", version, VersionRules())


redecide = VersionRules()
