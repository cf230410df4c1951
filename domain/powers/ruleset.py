"""Powers as a ruleset value: the platform looks it up by the name a game was created with.

A first slice of DESIGN "Rulesets on one platform": the fields point at the existing Powers code
(the aggregate's command methods, ``board_view``, the mail grammar, the notification texts, the export
verifier). The steps
are declared as data from P.1.1/P.1.2, their windows as rules the platform runs (``domain.powers.windows``).
"""

from __future__ import annotations

from typing import Any

from domain.platform.plugin import Plugin
from domain.platform.ruleset import Ruleset, Step, register
from domain.powers import rules
from domain.powers.commands import POWERS_COMMANDS
from domain.powers.explain import derive as derive_results
from domain.powers.feed import describe, phase_title
from domain.powers.game import Game, fold
from domain.powers.mail import parse_turn
from domain.powers.notify import notify
from domain.powers.offers import offers
from domain.powers.options import PowersOptions
from domain.powers.redecide import redecide
from domain.powers.state import STATE_TYPES
from domain.powers.verify import VERIFY_POWERS
from domain.powers.views import board_view
from domain.powers.windows import BATTLE, PLANNING, RESISTANCE

POWERS_STEPS = (
    Step("setup", entry="the GM adds powers and grants their starting assets"),
    Step("tidings", entry="a new season begins; the GM narrates (P.1.1)"),
    Step(
        "planning",
        opens=("planning",),
        closes_on=("deadline", "every power ready", "gm advanced"),
        entry="commit the month seed; open the planning window (P.1.2)",
        windows=(PLANNING,),
    ),
    Step(
        "resolution",
        closes_on=("gm publishes the resolution",),
        entry="lock every submission; unused actions become schemes ([003:26])",
    ),
    Step(
        "resistance",
        opens=("resistance",),
        closes_on=("deadline", "every resister acted or waived"),
        entry="offer resistance to the targets of resistible actions (P-RES-1, P-RES-2)",
        windows=(RESISTANCE,),
    ),
    Step("battle", entry="finalise the month's actions; the GM resolves battles", windows=(BATTLE,)),
    Step("cleanup", entry="the season ends; reveal the month seed to the GM"),
)
assert tuple(s.name for s in POWERS_STEPS) == rules.STEPS, "POWERS_STEPS must follow rules.STEPS"


def phase_id(season: int, month: int, step: str) -> str:
    """A phase's name: ``s1-tidings``, ``s1m2-planning``, ``s1-cleanup``."""
    if step in ("tidings", "cleanup", "setup"):
        return f"s{season}-{step}" if step != "setup" else "setup"
    return f"s{season}m{month}-{step}"


def phase_of(event: Any) -> dict[str, Any] | None:
    """The phase a ``StepBegan`` begins (the version it is recorded at is the phase's start); else None."""
    if type(event).__name__ != "StepBegan":
        return None
    return {
        "phase": phase_id(event.season, event.month, event.step),
        "season": event.season,
        "month": event.month,
        "step": event.step,
    }


def seat_of(event: Any) -> str | None:
    """The power a ``PowerAdded`` adds to the table; else None."""
    return event.power_id if type(event).__name__ == "PowerAdded" else None


POWERS = register(
    Ruleset(
        name="powers",
        version=rules.RULES_VERSION,
        options=PowersOptions,
        steps=POWERS_STEPS,
        aggregate=Game,
        start=Game.start,
        commands=POWERS_COMMANDS,
        state_types=STATE_TYPES,
        view=board_view,
        mail_grammar=parse_turn,
        notify=notify,
        verify=VERIFY_POWERS,
        derive=derive_results,
        redecide=redecide,  # issue 29: a rules change replayed re-decides each resolved action (P-DICE-4)
        result_scope=lambda phase: phase.split("-", 1)[0],
        fold=fold,
        phase_of=phase_of,
        seat_of=seat_of,
        marks=frozenset({"StepBegan", "PowerAdded"}),
        phase_labels={"season": 0, "month": 0},
        seat_fields=frozenset({"power_id", "power", "from_power"}),
        describe=describe,
        phase_title=phase_title,
        announces={"ResolutionPublished": "results"},  # issue 31: what a game's webhooks announce
        offers=offers,
        description="Powers: seasons of secret actions, dice pools and resistance",
    )
)

# what its entry point names (pyproject.toml, group emissary.rulesets): with its pages under api.powers
PLUGIN = Plugin(POWERS, api="api.powers", order=0)
