"""The covenant game as a ruleset value (DESIGN "Rulesets on one platform"): registered as ``covenants``.

No GM: the organising credential is the auditor (A.4 "Host / auditor: everything"), one seat may hold
the host role (rulings on gaps and custom actions, windows; H-8, H-14), and a host who plays sees the
table as a player.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from domain import limits
from domain import visibility as vis
from domain.covenants import feed, rules
from domain.covenants import house as houses
from domain.covenants.commands import COVENANT_COMMANDS
from domain.covenants.errors import RuleViolation
from domain.covenants.explain import derive as derive_results
from domain.covenants.game import CovenantGame
from domain.covenants.mail import parse_turn
from domain.covenants.offers import offers
from domain.covenants.options import CovenantOptions
from domain.covenants.redecide import redecide
from domain.covenants.state import Card, CovenantSeat, CovenantState
from domain.covenants.turns import TURNS
from domain.covenants.verify import VERIFY_COVENANTS
from domain.covenants.views import table_view
from domain.ids import GM
from domain.platform.game import fold
from domain.platform.i18n import N_, _, word_of
from domain.platform.plugin import Plugin
from domain.platform.roles import AUDITOR, HOST, OBSERVER, PLAYER, PRIVILEGES, RULE, WINDOWS, Roles
from domain.platform.ruleset import Ruleset, Step, register
from domain.platform.state import Window

COVENANT_ROLES = Roles(
    declared=(HOST, PLAYER, OBSERVER, AUDITOR),
    organiser=AUDITOR,
    seated=PLAYER,
    grants=MappingProxyType({HOST: frozenset({RULE, WINDOWS}), AUDITOR: PRIVILEGES}),
)


def start(name: str, gm_name: str = "", tz: str = "UTC", options: dict[str, Any] | None = None) -> CovenantGame:
    limits.check_text(name, "name", limits.GAME_NAME, required=True, what="a game's name")
    from pydantic import ValidationError

    try:
        opts = CovenantOptions.model_validate(options or {})
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "options"
        raise RuleViolation(f"option {where}: {first.get('msg')}", field=where) from None
    if opts.house == "default" and opts.house_package is not None:
        raise RuleViolation("a house_package is read only with house 'custom'", rule="A-AMB-1", field="house_package")
    if opts.house == "default":
        package = houses.DEFAULT
    elif opts.house == "custom" and opts.house_package is not None:
        package = houses.load(opts.house_package)
    else:
        raise RuleViolation("house is 'default', or 'custom' with a house_package", rule="A-GEN-0", field="house")
    stored = opts.model_dump(mode="json", exclude={"house_package"})
    return CovenantGame(
        name=name.strip(),
        ruleset="covenants",
        rules_version=rules.RULES_VERSION,
        timezone=tz,
        options=stored,
        house=package.model_dump(mode="json"),
        pin=package.pin(),
        actor=GM,
        audience=[vis.PUBLIC],
    )


# each step with turns runs them on the platform's flow (domain.covenants.turns.TURNS): a window on every turn, a
# default on silence
STEPS = (
    Step("setup", entry="the organiser or host seats two to four covenants"),
    Step(
        "move",
        opens=("move",),
        windows=(TURNS,),
        closes_on=("every player moved", "a token reached End"),
        entry="A.1.2 #1",
    ),
    Step(
        "create", opens=("create",), windows=(TURNS,), closes_on=("every player generated or passed",), entry="A.1.2 #2"
    ),
    Step(
        "events",
        opens=("events",),
        windows=(TURNS,),
        closes_on=("the event was played, held or discarded",),
        entry="A.1.2 #3",
    ),
    Step(
        "service",
        opens=("service",),
        windows=(TURNS,),
        closes_on=("each covenant sent a Grogs, paid 3 gold, accepted the tribute or was excused",),
        entry="Call to Service [000:669], at the beginning of the Main Phase",
    ),
    Step(
        "chaos",
        opens=("chaos",),
        windows=(TURNS,),
        closes_on=("every player rolled, chose a rival on an even roll, and the rival paid or accepted",),
        entry="Season of Chaos [000:691], at the beginning of the Main Phase",
    ),
    Step(
        "main",
        opens=("main",),
        windows=(TURNS,),
        closes_on=("a round where everyone passed, the end of the Main Phase's events, then one more round (A-AMB-5)",),
        entry="#4",
    ),
    Step(
        "hedge",
        opens=("hedge",),
        windows=(TURNS,),
        closes_on=("each claimed covenant gave up a Vis Source or faced the curse",),
        entry="Hedge Mage Attack [000:748], at the end of the Main Phase",
    ),
    Step(
        "bandits",
        opens=("bandits",),
        windows=(TURNS,),
        closes_on=("each covenant paid the bandits off or fought them",),
        entry="Wave of Bandits [000:679], at the end of the Main Phase",
    ),
    Step(
        "battle",
        opens=("battle",),
        windows=(TURNS,),
        closes_on=("each side of every battle allocated the damage it took",),
        entry="A-BAT-1: the battles events cause, at the end of the Main Phase, in order",
    ),
    Step(
        "plague",
        opens=("plague",),
        windows=(TURNS,),
        closes_on=("each covenant chose the Animate Co beings the Plague damages",),
        entry="Plague [000:671], at the end of the Main Phase",
    ),
    Step("certamen", opens=("certamen",), windows=(TURNS,), closes_on=("every challenge resolved",), entry="A.1.2 #5"),
    Step(
        "reckoning",
        opens=("reckoning",),
        windows=(TURNS,),
        closes_on=("every player allocated support",),
        entry="A.1.2 R",
    ),
    Step("over", entry="a score of 25 or more at the Yearly Reckoning: the highest wins (A-RECK-5)"),
)


def phase_of(event: Any) -> dict[str, Any] | None:
    """A ``PhaseBegan`` begins a phase: ``y1-spring-c2-main``."""
    if type(event).__name__ != "PhaseBegan":
        return None
    season = rules.SEASONS[event.season]
    return {"phase": f"y{event.year}-{season}-c{event.cycle}-{event.phase}", "step": event.phase}


# The seasons and phases in words (events and views carry their names): marked here for translation (issue 17),
# translated where shown. A name the tables lack is shown as it is.
SEASON_WORDS = {"spring": N_("spring"), "summer": N_("summer"), "autumn": N_("autumn"), "winter": N_("winter")}
PHASE_WORDS = {
    "setup": N_("setup"),
    "move": N_("move"),
    "create": N_("create"),
    "events": N_("events"),
    "service": N_("service"),
    "chaos": N_("chaos"),
    "main": N_("main"),
    "hedge": N_("hedge"),
    "bandits": N_("bandits"),
    "battle": N_("battle"),
    "plague": N_("plague"),
    "certamen": N_("certamen"),
    "reckoning": N_("reckoning"),
    "over": N_("over"),
}


def season_word(season: str) -> str:
    """A season in the reader's language ("spring")."""
    return word_of(SEASON_WORDS, season)


def phase_word(phase: str) -> str:
    """A phase in the reader's language, as the table names it ("main")."""
    return word_of(PHASE_WORDS, phase)


def phase_title(phase: str) -> str | None:
    """``y1-spring-c2-main`` -> "Year 1, spring, cycle 2: Main"; a turn's window (``w24``) -> "The turn"."""
    if feed.TURN_WINDOW.fullmatch(phase):
        return _("The turn")
    parts = phase.split("-")
    if len(parts) != 4 or not parts[0][1:].isdigit() or not parts[2][1:].isdigit():
        return None
    step = phase_word(parts[3])
    return _("Year {year}, {season}, cycle {cycle}: {phase}").format(
        year=parts[0][1:], season=season_word(parts[1]), cycle=parts[2][1:], phase=step[:1].upper() + step[1:]
    )


def describe(kind: str, data: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """A covenant game's event in words (its feed; the platform's words for the rest). A rollback names the
    auditor: the table has no GM, and only the auditor holds ``history`` (``COVENANT_ROLES``)."""
    if kind == "PhaseBegan":
        season = rules.SEASONS[data["season"]]
        name = "y{}-{}-c{}-{}".format(data["year"], season, data["cycle"], data["phase"])
        return _("{phase} began.").format(phase=phase_title(name))
    if kind == "GameRolledBack":
        reason = data.get("reason") or _("no reason given")
        return _("The auditor rolled the game back: {reason}.").format(reason=reason)
    return feed.describe_cards(kind, data, names) or feed.describe_windows(kind, data, names, phase_word)


def seat_of(event: Any) -> str | None:
    """The covenant a ``CovenantAdded`` seats at the table; else None."""
    return event.seat_id if type(event).__name__ == "CovenantAdded" else None


COVENANTS = register(
    Ruleset(
        name="covenants",
        version=rules.RULES_VERSION,
        options=CovenantOptions,
        steps=STEPS,
        aggregate=CovenantGame,
        start=start,
        commands=COVENANT_COMMANDS,
        view=table_view,
        verify=VERIFY_COVENANTS,
        derive=derive_results,
        redecide=redecide,  # issue 29: a rules change replayed re-decides each Yearly Reckoning (A-RECK-3..5)
        result_scope=lambda phase: "-".join(phase.split("-")[:3]),
        mail_grammar=parse_turn,
        fold=fold,
        phase_of=phase_of,
        seat_of=seat_of,
        marks=frozenset({"PhaseBegan", "CovenantAdded"}),
        phase_title=phase_title,
        announces={"SeasonEnded": "results"},  # issue 31: the reckoning of a season is its results
        describe=describe,
        feed_names=feed.feed_names,
        offers=offers,
        roles=COVENANT_ROLES,
        state_types=(CovenantSeat, Card, CovenantState, Window),
        description="The covenant game (Ars Magica seed): 2-4 covenants, no GM, played to 25 points",
    )
)

# what its entry point names (pyproject.toml, group emissary.rulesets): with its pages under api.covenants
PLUGIN = Plugin(COVENANTS, api="api.covenants", order=10)
