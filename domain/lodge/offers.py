"""What a Lodge principal may send now, each command fully formed (issue 24, DESIGN "no game gets stuck").

``offers(game, principal)`` is the one source of what is offered: the board's choices, its prompts' answers
and its Cell offers are read from it (``choices``), seeded random play picks among it, and the contract holds
every command in it to be accepted. Choices an effect needs beyond its target (each ``Move 1`` step, which
cubes to heal, an Evocation's steps and attack) are left to the prompts the engine asks (L.3), so a command
offered here names only what the server can check before it resolves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.ids import GM
from domain.lodge.catalogue import SLOTS, Card
from domain.lodge.commands import (
    AddMage,
    AdvancePhase,
    AnswerChoice,
    BeginGame,
    BlackRoseAct,
    CastSpell,
    CommandEvocation,
    Pass,
    PhysicalAction,
    PrepareSpells,
    ResolveFromCell,
)
from domain.lodge.state import BLACK_ROSE, COLOURS, DECLINE, RESOLVE
from domain.platform.commands import Command

if TYPE_CHECKING:
    from domain.lodge.game import LodgeGame


def offers(game: LodgeGame, principal: str) -> list[Command]:
    """The commands ``principal`` (a Mage's seat, or the host in the GM's seat) may send now, in a stable order:
    its prompts' answers, its Cell offers, then its phase's commands in the package's order, Pass last."""
    if principal == GM:
        return _host(game)
    if principal not in game.state.mages or game.state.phase in ("setup", "ended"):
        return []
    return _mage(game, principal)


def waiting_on(game: LodgeGame, resolver: str) -> list[str]:
    """L-EFF-1 (R1): the open choices an effect of ``resolver`` waits for (a Cell offer's own prompt aside, being
    optional); while there is one, ``resolver`` starts no other effect."""
    return sorted(c for c, p in game.state.prompts.items() if p["kind"] != "cell" and p["command"]["mage"] == resolver)


def _phase_may(game: LodgeGame) -> list[str]:
    phase = next((p for p in game.package["phases"] if p["name"] == game.state.phase), None)
    return list(phase["may"]) if phase else []


def _host(game: LodgeGame) -> list[Command]:
    """Setup: a Mage of each free colour, and the first turn once two are seated; in a turn: each Black Rose
    card on each legal target while its phase allows it (LH-7), and ending the phase."""
    s = game.state
    if s.phase == "setup":
        taken = {m["colour"] for m in s.mages.values()}
        out: list[Command] = [
            AddMage(c, c.title(), c) for c in COLOURS if c not in taken and c not in s.powers and c not in s.mages
        ]
        return out + ([BeginGame()] if len(s.mages) >= 2 else [])
    if s.phase == "ended":
        return []
    out = []
    if "BlackRoseAct" in _phase_may(game) and not waiting_on(game, BLACK_ROSE):
        for card in game.catalogue.black_rose:
            out += [BlackRoseAct(card.id, t) for t in game.legal_targets(card, None)]
    return [*out, AdvancePhase(s.phase)]


def in_own_cell(game: LodgeGame, mage: str) -> bool:
    """L-AMB-14: "the Cell" of R10 is the Mage's own."""
    return game.state.positions.get(mage) == game.catalogue.cell_of(game.state.mages[mage]["colour"])


def _answers(game: LodgeGame, mage: str) -> list[Command]:
    """Each open choice of ``mage``'s, with each option that is accepted now: a Cell offer's resolution only while
    she is in her Cell (L-PERS-5), and not while an effect of hers waits for a choice (L-EFF-1); declining, always."""
    out: list[Command] = []
    resolves = not waiting_on(game, mage) and in_own_cell(game, mage)
    for cid, p in sorted(game.state.prompts.items()):
        if p["mage"] != mage:
            continue
        options = [o for o in p["options"] if p["kind"] != "cell" or o != RESOLVE or resolves]
        out += [AnswerChoice(mage, cid, o) for o in options]
    return out


def _cell_offers(game: LodgeGame, mage: str) -> list[Command]:
    """L-PERS-5 / LH-5: each Cell offer of ``mage``'s, resolved (while she is in her Cell and no effect of hers
    waits for a choice, L-EFF-1) or declined (always: declining resolves nothing); it stands until Clean-up, in
    whatever phase its condition occurred ("whenever the required condition occurs")."""
    resolves = not waiting_on(game, mage) and in_own_cell(game, mage)
    out: list[Command] = []
    for oid, offer in sorted(game.state.offers.items()):
        if offer["mage"] != mage:
            continue
        if resolves:
            out.append(ResolveFromCell(mage, oid, True))
        out.append(ResolveFromCell(mage, oid, False))
    return out


def _walks(card: Card) -> bool:
    """A Physical Action that is one ``Move 1`` step of its Mage (Walk): offered once per Room it may enter."""
    return card.target.kind == "none" and [(p.op, p.amount, p.to) for p in card.phrases] == [("move", 1, "self")]


def _may_act(game: LodgeGame, evocation: str) -> bool:
    """An Evocation commanded without steps or an attack is asked each (L-EVO-1, L-EVO-2); one of Speed 0 with
    nobody to attack in its Room would be asked nothing, and "move or attack" refuses it."""
    s = game.state
    ev = s.evocations[evocation]
    if game.catalogue.evocation_by_id[ev["card"]].speed > 0:
        return True
    here = s.positions.get(evocation)
    return any(
        r == here
        and m not in (evocation, ev["controller"])
        and (s.evocations[m]["controller"] if m in s.evocations else None) != ev["controller"]
        for m, r in s.positions.items()
    )


def _mage(game: LodgeGame, mage: str) -> list[Command]:
    """A Mage's answers and Cell offers, then what her phase allows (LH-7): each Spell on each card, each slot's
    card on each legal target (LH-1), each Physical Action left (a Walk to each Room it may enter, L-MOVE-3), each
    Evocation that has not acted, and Pass once."""
    s = game.state
    sheet = s.mages[mage]
    may = _phase_may(game)
    free = not waiting_on(game, mage)  # L-EFF-1: no new effect while one of hers waits
    out: list[Command] = [*_answers(game, mage), *_cell_offers(game, mage)]
    for command in may:
        if command == "PrepareSpells":
            out += [PrepareSpells(mage, {slot: c.id}) for slot in SLOTS for c in game.catalogue.spells]
        elif command == "CastSpell" and free:
            for slot in SLOTS:
                held = sheet["slots"][slot]
                if held["card"] is None or held["casts"] >= game.package["casts_per_slot_per_turn"]:
                    continue
                card = game.catalogue.cards[held["card"]]
                out += [CastSpell(mage, slot, t) for t in game.legal_targets(card, mage)]
        elif command == "PhysicalAction" and free and mage in s.positions:
            for a in game.catalogue.physical_actions:
                if sheet["physical"][a.id] != "available":
                    continue
                if _walks(a):
                    out += [PhysicalAction(mage, a.id, None, [r]) for r in game.step_rooms(mage)]
                else:
                    out += [PhysicalAction(mage, a.id, t) for t in game.legal_targets(a, mage)]
        elif command == "CommandEvocation" and free:
            out += [
                CommandEvocation(mage, e)
                for e, ev in sorted(s.evocations.items())
                if ev["controller"] == mage and not ev["acted"] and _may_act(game, e)
            ]
    if "Pass" in may and not s.powers[mage].ready:
        out.append(Pass(mage))
    return out


def host_choices(game: LodgeGame) -> dict[str, Any]:
    """The host's choices on the board, read from ``offers``: the commands offered by name, and each Black Rose card
    with each target it may take now (LH-7); the host answers no Mage's choice."""
    offered = offers(game, GM)
    return {
        "may": sorted({type(c).__name__ for c in offered}),
        "black_rose": [{"card": c.card, "target": c.target} for c in offered if isinstance(c, BlackRoseAct)],
        "answers": {},
        "cell_offers": {},
    }


def choices(game: LodgeGame, mage: str, offered: list[Command] | None = None) -> dict[str, Any]:
    """The board's choices for ``mage`` (L.3), read from ``offers``: the commands offered by name, each slot's
    card and targets, the Physical Actions and their targets, the Rooms a Walk may enter, the Evocations, the
    cards each slot may be prepared with, and for each open choice and Cell offer the answers offered."""
    out: dict[str, Any] = {
        "may": [],
        "spells": {},
        "physical_actions": {},
        "steps": [],
        "evocations": {},
        "prepare": {},
        "answers": {},
        "cell_offers": {},
    }
    for c in offers(game, mage) if offered is None else offered:
        name = type(c).__name__
        if name not in out["may"]:
            out["may"].append(name)
        if isinstance(c, CastSpell):
            card = game.state.mages[mage]["slots"][c.slot]["card"]
            out["spells"].setdefault(c.slot, {"card": card, "targets": []})["targets"].append(c.target)
        elif isinstance(c, PhysicalAction):
            targets = out["physical_actions"].setdefault(c.action, [])
            if c.moves:
                out["steps"] += [r for r in c.moves if r not in out["steps"]]
                if not targets:
                    targets.append(None)
            else:
                targets.append(c.target)
        elif isinstance(c, CommandEvocation):
            ev = game.state.evocations[c.evocation]
            out["evocations"][c.evocation] = {
                "speed": game.catalogue.evocation_by_id[ev["card"]].speed,
                "room": game.state.positions.get(c.evocation),
            }
        elif isinstance(c, PrepareSpells):
            for slot, card_id in c.cards.items():
                out["prepare"].setdefault(slot, []).append(card_id)
        elif isinstance(c, AnswerChoice):
            out["answers"].setdefault(c.choice_id, []).append(c.option)
        elif isinstance(c, ResolveFromCell):
            out["cell_offers"].setdefault(c.offer_id, []).append(RESOLVE if c.accept else DECLINE)
    out["may"].sort()
    return out
