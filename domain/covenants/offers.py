"""What a principal of a covenant game may send now (``Ruleset.offers``): fully formed commands, in a stable order.

Each phase proposes the commands its rules name (A.1.2: the seat at turn, and what any covenant may do at any
time: pay a tax, attend the Tribunal, answer a trade, convert in the Main Phase); then every proposal is run
against a copy of the game through its own handler and kept only if that handler accepts it. So an offered
command is accepted by construction, whatever the guards say, and a guard added later narrows the offers
with it. The allocations offered are the ones silence makes (``battle.default_allocation``), so the
choices a seat sees and its default at the deadline are the same rule.
"""

from __future__ import annotations

import copy
import pickle
from datetime import datetime, timezone
from typing import Any

from domain.covenants import battle, certamen, hazards, reckoning, rules, track
from domain.covenants import commands as cc
from domain.covenants.game import BANDITS_MIGHT, ENEMIES, CovenantGame
from domain.covenants.house import FORMS, TECHNIQUES
from domain.errors import DomainError
from domain.platform.commands import CloseWindow, Command, Context, trial_context
from domain.platform.roles import RULE, WINDOWS

# Proposals built from the very check their handler applies, so no trial is needed: the legal squares
# (``legal_moves``, the inverse of ``rules.check_move``) and support with what silence starves (``default_starved``
# runs the Reckoning's own tally); a trial of the last Support would end the season and commit a seed.
CERTAIN = (cc.Move, cc.Support)
ATTACHABLE = ("weapon", "shield", "armor", "enchanted_item", "book", "art", "familiar")
BEINGS = ("mage", "companion", "specialist", "villagers", "grogs", "livestock", "familiar")
TRADES = (({"gold": 1}, {"vis": 1}), ({"vis": 1}, {"gold": 2}))  # a small offer each way (H-10)


def offers(game: CovenantGame, principal: str) -> list[Command]:
    """The commands ``principal`` (a seat, the auditor ``gm``, a seat holding the host role) may send now: every
    proposal of ``proposals`` that its handler accepts on a copy of the game."""
    proposed = proposals(game, principal)
    if not proposed:
        return []
    frozen = pickle.dumps(_trimmed(game), pickle.HIGHEST_PROTOCOL)
    return [c for c in proposed if isinstance(c, CERTAIN) or _accepted(frozen, game.state.house, principal, c)]


def _trimmed(game: CovenantGame) -> CovenantGame:
    """The game as a trial run needs it: its closed windows left out (a game keeps every turn's window, and no
    handler reads a closed one), and its house package shared, not copied (no handler changes it): a trial's
    copy then costs the same in the first season and the twentieth."""
    state = copy.copy(game.state)
    state.windows = {k: w for k, w in game.state.windows.items() if not w.closed}
    state.house = {}
    clone = copy.copy(game)
    clone.__dict__["state"] = state
    return clone


def moves(game: CovenantGame, seat: str) -> list[cc.Move]:
    """A-TRACK-1, H-2: the Move commands of the seat at turn in the Move phase, one per legal square (the view's
    ``legal_moves`` reads these)."""
    s = game.state
    if s.phase != "move" or not s.turn or s.turn[0] != seat:
        return []
    return [cc.Move(seat, square) for square in track.legal_moves(game, seat)]


def proposals(game: CovenantGame, principal: str) -> list[Command]:
    """The commands the rules name for ``principal`` now, before its handler checks them (``offers`` keeps the
    accepted ones)."""
    s = game.state
    if s.phase == "over":
        return []
    out: list[Command] = []
    if principal in s.powers and s.phase != "setup":
        out += _seat(game, principal)
    if game.may(principal, RULE):
        if s.phase == "setup" and len(s.powers) == int(s.options.get("players", 0) or len(s.powers)):
            out.append(cc.BeginGame())
        for i, a in enumerate(s.actions):  # H-8: the custom actions awaiting a ruling
            if a["ruling"] is None:
                out += [cc.RuleOnAction(i, True), cc.RuleOnAction(i, False)]
    if game.may(principal, WINDOWS):  # H-9: the host or the auditor closes a turn now; silence counts
        out += [CloseWindow(w.id, expected_step=s.phase) for w in s.windows.values() if not w.closed]
    return out


def _seat(game: CovenantGame, seat: str) -> list[Command]:
    s = game.state
    at_turn = bool(s.turn) and s.turn[0] == seat
    phase = s.phase
    out: list[Command] = []
    by_phase = {
        "move": _move, "create": _create, "events": _events, "service": _service, "chaos": _chaos, "main": _main,
        "hedge": _hedge, "bandits": _bandits, "battle": _battle, "plague": _plague, "certamen": _certamen,
        "reckoning": _reckoning,
    }  # fmt: skip
    if phase in by_phase:
        out += by_phase[phase](game, seat, at_turn)
    out += _casts(game, seat, at_turn)
    p = s.powers[seat]
    if p.tax_owed:  # A-EVT-4: any time before the seat's Reckoning
        out.append(cc.PayTax(seat))
    if p.marked and "Gathering of the Tribunal" in s.events_in_play:
        out.append(cc.AttendTribunal(seat))
    for tr in s.trades.values():  # H-10: the covenant offered a trade accepts or refuses it; the offerer withdraws
        if tr["to"] == seat:
            out += [cc.AnswerTrade(seat, tr["id"], True), cc.AnswerTrade(seat, tr["id"], False)]
        elif tr["from"] == seat:
            out.append(cc.AnswerTrade(seat, tr["id"], False))
    return out


def _move(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    return list(moves(game, seat))


def _create(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    if not at_turn:
        return []
    s = game.state
    out: list[Command] = []
    if not s.turn_done:
        out.append(cc.Generate(seat))
        out += [cc.Generate(seat, mouse=m) for m in (-2, -1, 1, 2)]  # A-GEN-1: an active Mouse, once a season
    mine = game.covenant_cards(seat)
    for c in game.covenant_cards(seat, pending=True):
        if not c.pending:
            continue
        out.append(cc.Keep(seat, c.id))
        if c.kind in ATTACHABLE:
            out += [cc.Keep(seat, c.id, attach_to=b.id) for b in mine if b.kind in BEINGS]
        if c.kind == "art":  # H-4: the Art it carries
            mages = [b for b in mine if b.kind == "mage"]
            for art in TECHNIQUES + FORMS:
                out.append(cc.Keep(seat, c.id, art=art))
                out += [cc.Keep(seat, c.id, attach_to=m.id, art=art) for m in mages if art not in m.arts]
        if c.name in game.house.cards and game.house.cards[c.name].teaches == "spell":  # A-SPELL-1: a Grimoire
            spells = sorted(game.house.spells)
            out += [cc.Keep(seat, c.id, attach_to=m.id, spell=sp) for m in mine if m.kind == "mage" for sp in spells]
        out.append(cc.Discard(seat, c.id))
        out += [cc.UseMouse(seat, c.id, by) for by in (-2, -1, 1, 2)]
    out.append(cc.Pass(seat))
    return out


def _events(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    s = game.state
    pe = s.pending_event
    if pe is not None and pe["seat"] == seat:  # H-5, H-13: play (on a target), hold, or discard
        out: list[Command] = [cc.DecideEvent(seat, "play", target) for target in s.order]
        out += [cc.DecideEvent(seat, "hold", season=season) for season in rules.SEASONS]
        out.append(cc.DecideEvent(seat, "discard"))
        return out
    if not at_turn:
        return []
    mice = [cc.DrawEvent(seat, mouse=m) for m in (-2, -1, 1, 2)]  # A-GEN-1: an active Mouse, once a season
    return [cc.DrawEvent(seat), *mice, cc.Pass(seat)]


def _service(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    if not at_turn:
        return []
    grogs = [c.id for c in game.covenant_cards(seat) if c.kind == "grogs" and c.active]
    if grogs:
        return [cc.AnswerService(seat, grogs=g) for g in grogs]
    return [cc.AnswerService(seat, pay=True), cc.AnswerService(seat, pay=False)]


def _chaos(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    if not at_turn:
        return []
    ch = game.state.chaos
    answering = ch.get("answering")
    if answering is not None and answering["rival"] == seat:
        return [cc.AvertBattle(seat, True), cc.AvertBattle(seat, False)]
    if ch.get("choosing") == seat:
        return [cc.ChooseRival(seat, rival) for rival in game.state.order if rival != seat]
    return [cc.RollChaos(seat)]


def _main(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    s = game.state
    out: list[Command] = []
    if at_turn:
        out.append(cc.Pass(seat))
        out += [cc.TakeAction(seat, a, "a custom action" if a == "custom" else "") for a in game.house.main_actions]
        mine = [c for c in game.covenant_cards(seat) if c.kind == "mage" and c.active]
        theirs = [c for c in s.cards.values() if c.kind == "mage" and c.active and c.owner not in (None, seat)]
        out += [cc.Challenge(seat, m.id, t.id) for m in mine for t in theirs]
        cards = game.covenant_cards(seat)
        healers = [c for c in cards if c.active and c.name in game.house.cards and game.house.cards[c.name].heals]
        hurt = [c for c in cards if c.damage]
        out += [cc.Heal(seat, h.id, t.id) for h in healers for t in hurt if t.id != h.id]
        for other in s.order:
            if other != seat:
                out += [cc.OfferTrade(seat, other, dict(give), dict(get)) for give, get in TRADES]
    if game.out_of_play(seat):  # A-EVT-3: the Quaesitors' dice, once per Main Phase
        out.append(cc.Investigate(seat))
    if "Market Fair" in s.events_in_play or any(c.kind == "town" for c in game.covenant_cards(seat)):  # A-ECON-1
        out += [cc.Convert(seat, give, pay, get) for (give, get), (pay, _) in sorted(rules.RATES.items())]
    return out


def _casts(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    """A-SPELL-1..8: each active mage's spells of this phase whose Arts it has (in the Main Phase, on the seat's
    turn; A-AMB-20: a spell whose text names another phase, in that phase), at each target of the spell's kind,
    with the fewest pawns the spell takes; a spell that chooses a target for every N pawns, also at as many of
    each covenant's targets as the seat's vis and the spell's maximum allow (A-AMB-17); and a counter to each spell
    another covenant cast this phase, one pawn stronger than it (A-SPELL-5). The handler decides the rest."""
    s = game.state
    out: list[Command] = []
    vis = s.powers[seat].vis
    for mage in [c for c in game.covenant_cards(seat) if c.kind == "mage" and c.active]:
        for name, sp in sorted(game.house.spells.items()):
            if s.phase not in sp.phases or not set(sp.arts) <= set(game.mage_arts(mage)):
                continue
            if sp.counters:
                hits = [x for x in s.spells_cast if x["seat"] != seat and x["strength"] + 1 <= vis]
                out += [cc.Cast(seat, mage.id, name, x["id"], x["strength"] + 1) for x in hits]
                continue
            pawns = max(1, sp.min_vis)
            if pawns > vis or (s.phase == "main" and not at_turn):
                continue
            if sp.target == "covenant":
                targets = list(s.order)
            else:
                targets = [
                    c.id
                    for c in s.cards.values()
                    if not c.pending
                    and (not sp.forms or c.substance in sp.forms)
                    and (sp.target != "mage" or c.kind == "mage")
                ]
            out += [cc.Cast(seat, mage.id, name, target, pawns) for target in targets]
            many = min(vis, sp.max_vis) // sp.pawns_per_target if sp.pawns_per_target else 0
            for owner in s.order if many > 1 else []:
                group = [t for t in targets if t in s.cards and s.cards[t].owner == owner][:many]
                pawns = max(sp.min_vis, len(group) * sp.pawns_per_target)
                if len(group) > 1 and pawns <= vis:
                    out.append(cc.Cast(seat, mage.id, name, group[0], pawns, more_targets=group[1:]))
    return out


def _hedge(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    if not at_turn:
        return []
    sources = [c.id for c in game.covenant_cards(seat) if c.kind == "vis_source"]
    return [*(cc.FaceHedgeMage(seat, give_up=v) for v in sources), cc.FaceHedgeMage(seat, None)]


def _bandits(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    if not at_turn:
        return []
    return [
        cc.FaceBandits(seat, False),
        cc.FaceBandits(seat, True, battle.default_allocation(game, seat, BANDITS_MIGHT)),
    ]


def _battle(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    s = game.state
    if s.deferred is not None:  # H-15: any seat still to confirm, in any order
        return [cc.NoCounter(seat)] if seat in s.turn else []
    if not at_turn or s.battle is None:
        return []
    bt = s.battle
    enemy = bt["b"] if bt["a"] == seat else bt["a"]
    out: list[Command] = [
        cc.AllocateDamage(seat, battle.default_allocation(game, seat, battle.damage_to_allocate(game, seat)))
    ]
    if ENEMIES.get(enemy) is not None:
        out.append(cc.AllocateDamage(seat, {}, pay_off=True))
    return out


def _plague(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    if not at_turn:
        return []
    victims = [c.id for c in hazards.plague_victims(game, seat)]
    return [cc.ChoosePlagued(seat, victims[: min(game.state.plague.get("counters", 0), len(victims))])]


def _certamen(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    s = game.state
    out: list[Command] = []
    vis = s.powers[seat].vis
    for ch in sorted(s.challenges.values(), key=lambda c: c["id"]):
        if seat not in (ch["challenger"], ch["target"]):
            continue
        if seat == ch["challenger"] and ch["technique"] is None:  # A-CERT-2
            out += [cc.ChooseArt(seat, ch["id"], art) for art in TECHNIQUES]
        if seat == ch["target"] and ch["form"] is None:
            out += [cc.ChooseArt(seat, ch["id"], art) for art in FORMS]
        if seat not in ch["sealed"]:  # A-AMB-7: a sealed bid of what the covenant holds
            out += [cc.SealBid(seat, ch["id"], bid) for bid in sorted({0, min(1, vis), vis // 2, vis})]
        if seat == certamen.resolver(game, ch) and at_turn:  # A-AMB-7: on the turn of the first of the two clockwise
            out.append(cc.ResolveCertamen(seat, ch["id"]))
        if seat == ch["target"]:
            out.append(cc.Forfeit(seat, ch["id"]))
    return out


def _reckoning(game: CovenantGame, seat: str, at_turn: bool) -> list[Command]:
    """A-RECK-1: support everything the covenant can pay for, starving the fewest cards, costliest first (what
    silence does); starving more is the seat's to send, not offered."""
    if not at_turn:
        return []
    return [cc.Support(seat, reckoning.default_starved(game, seat))]


def _accepted(frozen: bytes, house: dict[str, Any], principal: str, command: Command) -> bool:
    """Whether the command's handler accepts it on a copy of the game (the copy is dropped either way)."""
    game: CovenantGame = pickle.loads(frozen)  # noqa: S301 - our own bytes, just made
    game.state.house = house
    handler = game.ruleset.handler(command)
    try:
        handler(game, command, _context(game, principal))
    except DomainError:
        return False
    return True


def _context(game: CovenantGame, principal: str) -> Context:
    """A trial run's context at the game's own time (its last event)."""
    return trial_context(
        game, principal, getattr(game, "modified_on", None) or datetime(2000, 1, 1, tzinfo=timezone.utc)
    )


__all__ = ["moves", "offers", "proposals"]
