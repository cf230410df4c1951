"""The Lodge's state: the platform's seats and windows, and the board as plain data (rooms, models, Mage
Sheets, Evocations, Persistent Tokens, the Evocation deck), changed only by ``apply_change``.

Every Lodge event carries the atomic changes it makes; folding an event applies them in order, so the
engine that computed them and the replay of the stored events reach the same state.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from domain.platform.state import Seat, ViewerSequences

BLACK_ROSE = "black-rose"
DUMMY = "dummy"
COLOURS = ("red", "blue", "green", "yellow")
RESOLVE, DECLINE = "resolve", "decline"  # a Cell offer's prompt (L-PERS-5, LH-5)


@dataclass
class LodgeState(ViewerSequences):
    name: str
    ruleset: str
    rules_version: str
    timezone: str
    options: dict = field(default_factory=dict)
    package: dict = field(default_factory=dict)  # the pinned rules package, as recorded when the game was created
    catalogue: dict = field(default_factory=dict)  # the pinned card catalogue: name, version, sha256 ({}: unpinned)
    powers: dict = field(default_factory=dict)  # the platform's seats (one per Mage)
    credentials: dict = field(default_factory=dict)
    windows: dict = field(default_factory=dict)
    seen: dict = field(default_factory=dict)
    mail_replies: dict = field(default_factory=dict)
    seed: str | None = None
    seed_root: str | None = None
    turn: int = 0
    phase: str = "setup"
    rooms: dict = field(default_factory=dict)  # id -> {side, slots: [owner|None], must_rebuild}
    positions: dict = field(default_factory=dict)  # model id -> room id (absent: in the reserve)
    mages: dict = field(default_factory=dict)  # id -> the Mage Sheet
    evocations: dict = field(default_factory=dict)  # id -> {card, controller, damage, health_mod, rotated, acted}
    tokens: dict = field(default_factory=dict)  # "mage:slot" -> a Persistent Token on its target
    deck: list = field(default_factory=list)  # the Evocation Card deck, top first (nobody sees its order)
    black_rose: dict = field(default_factory=lambda: {"pp": 0, "trophies": []})
    offers: dict = field(default_factory=dict)  # L-PERS-5: optional resolutions from a Cell
    prompts: dict = field(default_factory=dict)  # L.3: choices an effect waits for, each with its window
    next_id: int = 1
    ended: dict | None = None


def pp_holder(state: LodgeState, who: str) -> dict:
    return state.black_rose if who == BLACK_ROSE else state.mages[who]


def damage_track(state: LodgeState, model: str) -> list:
    return state.mages[model]["damage"] if model in state.mages else state.evocations[model]["damage"]


def apply_change(state: LodgeState, ch: dict[str, Any]) -> None:
    """Fold one atomic change onto the board."""
    op = ch["op"]
    fold = _CHANGES.get(op)
    if fold is None:  # pragma: no cover - a change the engine never makes
        raise ValueError(f"unknown change {op!r}")
    fold(state, ch)


def _fold_cube(state: LodgeState, ch: dict[str, Any]) -> None:
    damage_track(state, ch["model"]).append(ch["by"])


def _fold_uncube(state: LodgeState, ch: dict[str, Any]) -> None:
    damage_track(state, ch["model"]).pop(ch["index"])


def _fold_move(state: LodgeState, ch: dict[str, Any]) -> None:
    state.positions[ch["model"]] = ch["room"]


def _fold_instability(state: LodgeState, ch: dict[str, Any]) -> None:
    room = state.rooms[ch["room"]]
    room["slots"][ch["slot"]] = ch["by"]
    room["must_rebuild"] = all(s is not None for s in room["slots"]) and bool(room["slots"])


def _fold_pp(state: LodgeState, ch: dict[str, Any]) -> None:
    pp_holder(state, ch["who"])["pp"] += ch["amount"]


def _fold_trophy(state: LodgeState, ch: dict[str, Any]) -> None:
    if ch.get("from"):
        pp_holder(state, ch["from"])["trophies"].remove(ch["of"])
    else:
        state.mages[ch["of"]]["trophy_tokens"] -= 1
    pp_holder(state, ch["to"])["trophies"].append(ch["of"])


def _fold_summon(state: LodgeState, ch: dict[str, Any]) -> None:
    state.deck.remove(ch["card"])
    state.evocations[ch["evocation"]] = {
        "card": ch["card"],
        "controller": ch["controller"],
        "damage": [],
        "health_mod": 0,
        "rotated": False,
        "acted": False,
    }
    state.mages[ch["controller"]]["bases"] -= 1
    state.positions[ch["evocation"]] = ch["room"]
    state.next_id += 1


def _fold_evocation_gone(state: LodgeState, ch: dict[str, Any]) -> None:
    # defeated (R16) or removed: model out, card to the deck's bottom, base home
    ev = state.evocations.pop(ch["evocation"])
    state.positions.pop(ch["evocation"], None)
    state.deck.append(ev["card"])
    state.mages[ev["controller"]]["bases"] += 1


def _fold_mage_down(state: LodgeState, ch: dict[str, Any]) -> None:
    # a defeated Mage: cubes back to their owners, the Mage in their Cell (house rule)
    state.mages[ch["mage"]]["damage"] = []
    state.positions[ch["mage"]] = ch["cell"]


def _fold_health(state: LodgeState, ch: dict[str, Any]) -> None:
    state.evocations[ch["evocation"]]["health_mod"] += ch["amount"]


def _fold_reveal(state: LodgeState, ch: dict[str, Any]) -> None:
    state.mages[ch["mage"]]["slots"][ch["slot"]]["revealed"] = True
    state.mages[ch["mage"]]["slots"][ch["slot"]]["casts"] += 1


def _fold_discard_spell(state: LodgeState, ch: dict[str, Any]) -> None:
    state.mages[ch["mage"]]["slots"][ch["slot"]] = {"card": None, "revealed": False, "casts": 0}


def _fold_token(state: LodgeState, ch: dict[str, Any]) -> None:
    state.tokens[f"{ch['mage']}:{ch['slot']}"] = {k: ch[k] for k in ("mage", "slot", "card", "kind", "target")}


def _fold_untoken(state: LodgeState, ch: dict[str, Any]) -> None:
    state.tokens.pop(f"{ch['mage']}:{ch['slot']}", None)


def _fold_physical(state: LodgeState, ch: dict[str, Any]) -> None:
    state.mages[ch["mage"]]["physical"][ch["action"]] = ch["side"]


def _fold_acted(state: LodgeState, ch: dict[str, Any]) -> None:
    state.evocations[ch["evocation"]]["acted"] = True


def _fold_offer(state: LodgeState, ch: dict[str, Any]) -> None:
    state.offers[ch["id"]] = {k: v for k, v in ch.items() if k != "op"}
    state.next_id += 1


def _fold_offer_choice(state: LodgeState, ch: dict[str, Any]) -> None:
    # the prompt that asks the offer's Mage (L-PERS-5)
    if ch["id"] in state.offers:
        state.offers[ch["id"]]["choice"] = ch["choice"]


def _fold_offer_done(state: LodgeState, ch: dict[str, Any]) -> None:
    state.offers.pop(ch["id"], None)


def _fold_prompt(state: LodgeState, ch: dict[str, Any]) -> None:
    state.prompts[ch["id"]] = {k: v for k, v in ch.items() if k != "op"}


def _fold_prompt_done(state: LodgeState, ch: dict[str, Any]) -> None:
    state.prompts.pop(ch["id"], None)


def _fold_phase(state: LodgeState, ch: dict[str, Any]) -> None:
    state.turn, state.phase = ch["turn"], ch["phase"]
    for seat in state.powers.values():
        seat.ready = False


def _fold_ready(state: LodgeState, ch: dict[str, Any]) -> None:
    state.powers[ch["mage"]].ready = True


def _fold_mage(state: LodgeState, ch: dict[str, Any]) -> None:
    state.mages[ch["mage"]] = deepcopy({k: v for k, v in ch.items() if k not in ("op", "mage", "room")})
    state.positions[ch["mage"]] = ch["room"]


def _fold_seat(state: LodgeState, ch: dict[str, Any]) -> None:
    state.powers[ch["mage"]] = Seat(id=ch["mage"], name=ch["name"])


def _fold_slots(state: LodgeState, ch: dict[str, Any]) -> None:
    for slot, card in ch["cards"].items():
        state.mages[ch["mage"]]["slots"][slot] = {"card": card, "revealed": False, "casts": 0}


def _fold_deck(state: LodgeState, ch: dict[str, Any]) -> None:
    state.deck = list(ch["order"])


def _fold_rooms(state: LodgeState, ch: dict[str, Any]) -> None:
    state.rooms = {r: {"side": "A", "slots": [None] * n, "must_rebuild": False} for r, n in ch["slots"].items()}


def _fold_flip(state: LodgeState, ch: dict[str, Any]) -> None:
    room = state.rooms[ch["room"]]
    room["side"] = "B" if room["side"] == "A" else "A"
    room["slots"] = [None] * len(room["slots"])
    room["must_rebuild"] = False


def _fold_rotate(state: LodgeState, ch: dict[str, Any]) -> None:
    for ev in state.evocations.values():
        if ev["controller"] == ch["mage"]:
            ev["rotated"] = True


def _fold_new_turn(state: LodgeState, ch: dict[str, Any]) -> None:
    # what a turn uses up is available again
    for sheet in state.mages.values():
        for slot in sheet["slots"].values():
            slot["casts"] = 0
    for ev in state.evocations.values():
        ev["acted"] = False
    state.offers = {}


def _fold_ended(state: LodgeState, ch: dict[str, Any]) -> None:
    state.ended = dict(ch["scores"])
    state.phase = "ended"


# Each atomic change's fold, by its op.
_CHANGES: dict[str, Callable[[LodgeState, dict[str, Any]], None]] = {
    "cube": _fold_cube,
    "uncube": _fold_uncube,
    "move": _fold_move,
    "instability": _fold_instability,
    "pp": _fold_pp,
    "trophy": _fold_trophy,
    "summon": _fold_summon,
    "evocation_gone": _fold_evocation_gone,
    "mage_down": _fold_mage_down,
    "health": _fold_health,
    "reveal": _fold_reveal,
    "discard_spell": _fold_discard_spell,
    "token": _fold_token,
    "untoken": _fold_untoken,
    "physical": _fold_physical,
    "acted": _fold_acted,
    "offer": _fold_offer,
    "offer_choice": _fold_offer_choice,
    "offer_done": _fold_offer_done,
    "prompt": _fold_prompt,
    "prompt_done": _fold_prompt_done,
    "phase": _fold_phase,
    "ready": _fold_ready,
    "mage": _fold_mage,
    "seat": _fold_seat,
    "slots": _fold_slots,
    "deck": _fold_deck,
    "rooms": _fold_rooms,
    "flip": _fold_flip,
    "rotate": _fold_rotate,
    "new_turn": _fold_new_turn,
    "ended": _fold_ended,
}
