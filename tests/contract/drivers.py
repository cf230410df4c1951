"""How the contract suite plays each registered ruleset: one driver per ruleset name, here for the rulesets of this
project and, for a ruleset installed as a plugin of its own, from the module its distribution names under the
entry-point group ``emissary.contract`` (``contract_modules``; the fake's is ``emissary_fake/contract.py``).

A driver plays a short game through the application service (``application.service.Games``, with
every ruleset's commands mixed in as the composition root builds it) and names what the
contract needs: a command the rules refuse, the phases to roll back to and fork from, what a
rollback deliberately keeps moving (sequences, seeds, deadlines, what nobody can unsee), and what
each viewer must never see (the no-leak check).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from types import ModuleType

from application.service import Caller, Games
from domain.covenants.commands import Move
from domain.powers import commands as pc
from tests.covenants.play import play_to_a_sealed_bid
from tests.scenarios import play_rich_month


@dataclass(frozen=True)
class Played:
    game_id: str
    viewers: list[str]  # "gm" and every seat
    secrets: dict = field(default_factory=dict)  # what the play learned that some viewers must not see


@dataclass(frozen=True)
class Driver:
    play: Callable[[Games], Played]
    refused: Callable[[Games, Played], None]  # runs one command that the rules refuse
    rollback_phase: str
    fork_phase: str
    earlier_phases: tuple[str, ...]  # phases up to and including fork_phase
    comparable: Callable[[dict, str], dict]  # a view without what a rollback keeps moving
    hidden: Callable[[Played], dict[str, list[str]]]  # viewer -> texts no event or view of theirs may carry


def _powers_play(games: Games) -> Played:
    m = play_rich_month(games)
    return Played(m.game_id, ["gm", *m.powers.values()])


def _powers_refused(games: Games, played: Played) -> None:
    # The month is at battle: Planning is closed, so a new action is refused (P.1.2).
    games.send(played.game_id, played.viewers[1], pc.SubmitAction(played.viewers[1], title="too late", roll=False))


def _powers_comparable(view: dict, viewer: str) -> dict:
    view = {k: v for k, v in view.items() if k not in ("sequence", "windows", "at")}
    view["game"] = {k: v for k, v in view["game"].items() if k not in ("seed_commitment", "seed_root", "rollbacks")}
    if viewer == "gm":
        view.pop("sheets")
    else:  # what nobody can unsee survives a rollback: what a power learned, Secrets shared with it (P.4)
        view["me"] = {k: v for k, v in view["me"].items() if k != "learned"}
        view["me"]["assets"] = [a for a in view["me"]["assets"] if a["cls"] != "secret"]
    return view


def _powers_hidden(played: Played) -> dict[str, list[str]]:
    # play_rich_month's powers, in the order added: wiz, circ, cult, sov (P.4: private actions, a Secret
    # shared with wiz only, a disclosure to sov only, a seeking result for wiz only). cult is on circ's
    # plot, so it sees the plot and its consequence.
    gm, wiz, circ, cult, sov = played.viewers
    return {
        gm: [],
        wiz: ["PRIVATE-CULT-RITE", "DESC-CIRC", "DISCLOSED-CIRC-TO-SOV"],
        circ: ["PRIVATE-CULT-RITE", "SEEKING-FOUND-CULT-SHRINE"],
        cult: ["PRIVATE-WIZ-DUEL", "SECRET-ASSET-CIRC", "SEEKING-FOUND-CULT-SHRINE"],
        sov: ["PRIVATE-CULT-RITE", "DESC-CIRC", "SECRET-ASSET-CIRC", "SEEKING-FOUND-CULT-SHRINE"],
    }


def _covenants_play(games: Games) -> Played:
    t = play_to_a_sealed_bid(games)
    return Played(t.game_id, ["gm", *t.seats], secrets=dict(t.notes))


def _covenants_refused(games: Games, played: Played) -> None:
    games.run(Caller.of("bob"), played.game_id, Move("bob", 9))  # the Resolve Certamen phase, not Move (A-ORDER-1)


def _covenants_comparable(view: dict, viewer: str) -> dict:
    view = {k: v for k, v in view.items() if k not in ("sequence", "at", "windows")}
    view["game"] = {k: v for k, v in view["game"].items() if k != "seed_commitment"}
    return view


def _covenants_hidden(played: Played) -> dict[str, list[str]]:
    # A.4: Ann's sealed Certamen bid (its nonce) stays hers, and the auditor's, until both bids are in.
    nonce = played.secrets["ann_nonce"]
    return {"gm": [], "ann": [], "bob": [nonce], "cy": [nonce]}


DRIVERS: dict[str, Driver] = {
    "powers": Driver(
        play=_powers_play,
        refused=_powers_refused,
        rollback_phase="s1m1-planning",
        fork_phase="s1m1-resolution",
        earlier_phases=("s1-tidings", "s1m1-planning", "s1m1-resolution"),
        comparable=_powers_comparable,
        hidden=_powers_hidden,
    ),
    "covenants": Driver(
        play=_covenants_play,
        refused=_covenants_refused,
        rollback_phase="y1-spring-c1-main",
        fork_phase="y1-spring-c1-certamen",
        earlier_phases=("y1-spring-c1-move", "y1-spring-c1-create", "y1-spring-c1-main", "y1-spring-c1-certamen"),
        comparable=_covenants_comparable,
        hidden=_covenants_hidden,
    ),
}


# ---------------------------------------------------------------------- lodge (issue 15)


def _lodge_play(games: Games) -> Played:
    from domain.lodge.ruleset import AdvancePhase, CastSpell
    from tests.domain.lodge_helpers import play_lodge_turn

    game_id = play_lodge_turn(games)
    # Turn 2's Actions: Cy casts her face-down Plunder without a target, so a prompt names the card and lists its
    # targets; it waits for her, and only she and the host may see it (L.3, L.4).
    games.run(Caller.of("gm"), game_id, AdvancePhase("prepare"))
    games.run(Caller.of("cy"), game_id, CastSpell("cy", "III"))
    return Played(game_id, ["gm", "ann", "bob", "cy"])


def _lodge_refused(games: Games, played: Played) -> None:
    from domain.lodge.ruleset import PrepareSpells

    # The game is at t2-actions: preparing is not among the phase's commands (LH-7).
    games.run(Caller.of("ann"), played.game_id, PrepareSpells("ann", {"I": "firebolt"}))


def _lodge_comparable(view: dict, viewer: str) -> dict:
    return {k: v for k, v in view.items() if k not in ("sequence", "windows", "at")}


def _lodge_hidden(played: Played) -> dict[str, list[str]]:
    # Each Mage's slot III card stays face down: only its owner and the host see it (L.4).
    # Cy's prompt names her face-down Plunder: only she and the host see it (L.3, L.4).
    secret = {"ann": ["oblivion"], "bob": ["restoration"], "cy": ["plunder", "the target of Plunder"]}
    return {"gm": [], **{v: [c for m, cs in secret.items() if m != v for c in cs] for v in secret}}


DRIVERS["lodge"] = Driver(
    play=_lodge_play,
    refused=_lodge_refused,
    rollback_phase="t1-actions",
    fork_phase="t1-black-rose",
    earlier_phases=("t1-prepare", "t1-actions", "t1-black-rose"),
    comparable=_lodge_comparable,
    hidden=_lodge_hidden,
)


# ---------------------------------------------------------------------- rulesets installed as plugins (issue 26)


def contract_modules() -> dict[str, ModuleType]:
    """Ruleset name -> the module that says how the contract plays it (entry-point group ``emissary.contract``)."""
    return {point.name: point.load() for point in entry_points(group="emissary.contract")}


def plugin_driver(m: ModuleType) -> Driver:
    """A plugin's driver from its contract module: ``play(games, as_)`` -> (game id, viewers), ``refused(games,
    game_id, as_)``, ``ROLLBACK_PHASE``, ``FORK_PHASE``, ``EARLIER_PHASES``, ``comparable`` and ``hidden(viewers)``."""
    return Driver(
        play=lambda games: Played(*m.play(games, Caller.of)),
        refused=lambda games, played: m.refused(games, played.game_id, Caller.of),
        rollback_phase=m.ROLLBACK_PHASE,
        fork_phase=m.FORK_PHASE,
        earlier_phases=tuple(m.EARLIER_PHASES),
        comparable=m.comparable,
        hidden=lambda played: m.hidden(played.viewers),
    )


DRIVERS.update({name: plugin_driver(m) for name, m in contract_modules().items()})
