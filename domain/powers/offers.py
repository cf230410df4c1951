"""What a principal of a Powers game may send now (``Ruleset.offers``, issue 24): fully formed commands, in a stable
order, each one its handler accepts.

``proposals`` names what the rules give each principal at each step (P.1.1, P.1.2): in Planning a seat declares
itself ready or submits a simple action (a bare pool, one of its own skills, or one another power may resist, in
each slot it has left); in the resistance window a resister waives or resists each action it may (P-RES-1,
P-AMB-39); in a battle the seat the step waits on passes, holds or answers as that step allows (P.1.3); at any
step a seat accepts each consequence the GM offers on its own actions and reactions (GM-3, P-AMB-6); the GM
advances the calendar, resolves the month, and closes an open window (its default for silence applies) where each
is legal, and acts for the adversaries (GM-10).
``offers`` then runs every proposal through its own handler on a copy of the game, at the game's own time (when
its latest open window opened: a window still open has not met its deadline), and keeps the accepted ones: so what
is offered is accepted by construction, and a guard added later narrows the offers with it. It is what random play
picks among (tests/contract/test_liveness.py), not the whole of what a player may write (titles, targets,
collaborators and assets are free text and choices of their own).
"""

from __future__ import annotations

import pickle
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from domain.errors import DomainError
from domain.ids import GM
from domain.platform.commands import CloseWindow, Command, Context, DeclareReady, trial_context
from domain.powers import battle as pb
from domain.powers import commands as pc
from domain.powers import rules

if TYPE_CHECKING:
    from domain.powers.game import Game

SLOTS = ("private", "public")


def offers(game: Game, principal: str) -> list[Command]:
    """The commands ``principal`` (a power's id, or ``gm``) may send now: the ``proposals`` its handlers accept on a
    copy of the game."""
    proposed = proposals(game, principal)
    if not proposed:
        return []
    frozen = pickle.dumps(game, pickle.HIGHEST_PROTOCOL)
    return [c for c in proposed if _accepted(game, frozen, principal, c)]


def proposals(game: Game, principal: str) -> list[Command]:
    """The commands the rules name for ``principal`` now, before their handlers check them."""
    s = game.state
    out: list[Command] = []
    if principal == GM:
        out += _gm(game)
        for seat in sorted(s.powers):  # GM-10: the GM acts for the adversaries
            if game.acts_for(GM, seat):
                out += _seat(game, seat)
    elif principal in s.powers:
        out += _seat(game, principal)
    return out


def _gm(game: Game) -> list[Command]:
    s = game.state
    step = s.step
    out: list[Command] = []
    open_windows = [w for w in s.windows.values() if not w.closed]
    if step == "resolution":
        out.append(pc.Resolve(expected_step=step))
    elif not (step == "resistance" and open_windows) and not (step == "battle" and game.active_battles()):
        out.append(pc.Advance(expected_step=step))  # P.1.1, P.1.2: the calendar moves on
    out += [CloseWindow(w.id, expected_step=step) for w in sorted(open_windows, key=lambda w: w.id)]
    return out


def _seat(game: Game, seat: str) -> list[Command]:
    s = game.state
    out = _consequences(game, seat)
    if s.step == "planning":
        return out + _planning(game, seat)
    if s.step == "resistance":
        return out + _resistance(game, seat)
    if s.step == "battle":
        return out + _battles(game, seat)
    return out


def _consequences(game: Game, seat: str) -> list[Command]:
    """GM-3, P-AMB-6: accept each consequence the GM offers on the seat's own actions and reactions."""
    s = game.state
    out: list[Command] = [
        pc.AcceptConsequence(a.id, c.id)
        for a in sorted(game.actions_of(seat), key=lambda a: a.id)
        for c in a.consequences
        if c.status == "proposed"
    ]
    out += [
        pc.AcceptReactionConsequence(r.id, c.id)
        for r in sorted(s.reactions.values(), key=lambda r: r.id)
        if r.power == seat
        for c in r.consequences
        if c.status == "proposed"
    ]
    return out


def _skills(game: Game, seat: str) -> list[tuple[str, str]]:
    """The seat's own skill assets, usable now, as (skill, asset id), in a stable order (P-ASSET-3)."""
    found = []
    for a in sorted(game.state.assets.values(), key=lambda a: a.id):
        if a.cls == "skill" and a.name in rules.SKILLS and seat in a.holders and not a.used_up:
            found.append((a.name, a.id))
    return found


def _planning(game: Game, seat: str) -> list[Command]:
    """P.1.2: a simple action in each slot the seat has left (a bare pool, each of its skills, one resistible by each
    other power), or ready."""
    n = len(game.actions_of(seat)) + 1
    out: list[Command] = []
    for slot in SLOTS:
        title = f"Action {n} ({slot})"
        out.append(pc.SubmitAction(seat, title, slot=slot, convert=0))
        for skill, asset_id in _skills(game, seat):
            out.append(pc.SubmitAction(seat, title, skill=skill, slot=slot, assets=[{"asset_id": asset_id}], convert=0))
        for target in sorted(p for p in game.state.powers if p != seat):  # P-RES-1: one its target may resist
            out.append(pc.SubmitAction(seat, title, slot=slot, targets=[target], resistible=True, convert=0))
    if not game.state.powers[seat].ready:  # P-AMB-39: ready once; a ready power may still submit until Planning closes
        out.append(DeclareReady(seat))
    return out


def _resistance(game: Game, seat: str) -> list[Command]:
    """P-RES-1, P-AMB-39: resist each provisional action the seat may (a bare pool, or one of its skills), or waive."""
    if seat not in game.pending_resisters():
        return []
    out: list[Command] = []
    for a in sorted(game.state.actions.values(), key=lambda a: a.id):
        if a.status == "provisional" and seat in game.eligible_resisters(a):
            out.append(pc.DeclareReaction(seat, a.id, convert=0))
            out += [
                pc.DeclareReaction(seat, a.id, assets=[{"asset_id": asset_id}], convert=0)
                for _, asset_id in _skills(game, seat)
            ]
    out.append(pc.WaiveReactions(seat))
    return out


def _battles(game: Game, seat: str) -> list[Command]:
    """P.1.3: in each battle whose step waits on the seat, what passes that step (or holds, or answers terms)."""
    out: list[Command] = []
    for b in game.active_battles():
        if seat not in game.battle_pending(b):
            continue
        bid, step = b["id"], b["step"]
        mine = sorted(a["id"] for a in game._armies_at(b["hex"]) if a["controller"] == seat)
        if step == "setup":
            out.append(pb.SubmitBattleSetup(bid, seat, armies=mine))
        elif step == "deployment":
            out.append(pb.DeployArmies(bid, seat, []))
        elif step == "spellcasting":
            out.append(pb.CastBattleSpell(bid, seat, None))
        elif step == "commands":
            out += [pb.GiveCommand(bid, seat, army, "hold") for army in mine]
        elif step == "goals":
            out.append(pb.OfferTerms(bid, seat, None))
        elif step == "surrender":
            out += [pb.AnswerTerms(bid, seat, True), pb.AnswerTerms(bid, seat, False)]
        elif step == "cleanup":
            out.append(pb.RetreatArmies(bid, seat))
    return out


def _accepted(game: Game, frozen: bytes, principal: str, command: Command) -> bool:
    """Whether the command's handler accepts it on a copy of the game (the copy is dropped either way)."""
    trial = pickle.loads(frozen)  # noqa: S301 - our own bytes, just made
    try:
        handler = trial.ruleset.handler(command)
        handler(trial, command, _context(game, principal))
    except DomainError:
        return False
    return True


def _context(game: Game, principal: str) -> Context:
    """A trial run's context at the game's own time: when its latest open window opened, else its last event."""
    opened = [datetime.fromisoformat(w.opened_at) for w in game.state.windows.values() if not w.closed]
    now = max(opened) if opened else getattr(game, "modified_on", None) or datetime(2000, 1, 1, tzinfo=timezone.utc)
    return trial_context(game, principal, now)


__all__ = ["offers", "proposals"]
