"""Powers as a ruleset value: the platform looks it up by the name a game was created with.

A first slice of DESIGN "Rulesets on one platform": the fields point at the existing Powers code
(the aggregate's command methods, ``board_view``, the mail grammar, the export verifier). The steps
are declared as data from P.1.1/P.1.2; the aggregate still runs them itself.
"""

from __future__ import annotations

from domain.mailturns import parse_turn
from domain.platform.ruleset import Ruleset, Step, register
from domain.powers import rules
from domain.powers.game import Game, fold
from domain.powers.options import PowersOptions
from domain.powers.views import board_view
from domain.verify import verify_events

POWERS_STEPS = (
    Step("setup", on_entry="the GM adds powers and grants their starting assets"),
    Step("tidings", on_entry="a new season begins; the GM narrates (P.1.1)"),
    Step("planning", opens=("planning",), closes_on=("deadline", "every power ready", "gm advanced"),
         on_entry="commit the month seed; open the planning window (P.1.2)"),
    Step("resolution", closes_on=("gm publishes the resolution",),
         on_entry="lock every submission; unused actions become schemes ([003:26])"),
    Step("resistance", opens=("resistance",), closes_on=("deadline", "every resister acted or waived"),
         on_entry="offer resistance to the targets of resistible actions (P-RES-1, P-RES-2)"),
    Step("battle", on_entry="finalise the month's actions; the GM resolves battles"),
    Step("cleanup", on_entry="the season ends; reveal the month seed to the GM"),
)
assert tuple(s.name for s in POWERS_STEPS) == rules.STEPS, "POWERS_STEPS must follow rules.STEPS"

POWERS_COMMANDS = {name: getattr(Game, name) for name in (
    "add_power", "grant_asset", "set_months", "advance", "submit_action", "roll_action", "lock_conversions",
    "discard_action", "set_difficulty", "set_ruling", "propose_consequence", "accept_consequence",
    "grant_visibility", "grant_mana", "share_secret", "set_influence", "set_timezone", "set_deadline",
    "request_extension", "grant_extension", "refuse_extension", "declare_ready", "queue_reminders", "set_contact",
    "resolve", "declare_reaction", "lock_reaction", "waive_reactions", "close_window", "issue_credential",
    "reissue_credential", "rollback", "mark_forked",
)}

POWERS = register(Ruleset(
    name="powers",
    version=rules.RULES_VERSION,
    options=PowersOptions,
    steps=POWERS_STEPS,
    aggregate=Game,
    start=Game.start,
    commands=POWERS_COMMANDS,
    view=board_view,
    mail_grammar=parse_turn,
    verify=verify_events,
    fold=fold,
    description="Powers: seasons of secret actions, dice pools and resistance",
))
