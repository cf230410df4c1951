"""The Lodge's state: the platform's seats and windows, and the board as plain data (rooms, models, Mage
Sheets, Evocations, Persistent Tokens, the Evocation deck), changed only by ``apply_change``.

Every Lodge event carries the atomic changes it makes; folding an event applies them in order, so the
engine that computed them and the replay of the stored events reach the same state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict, cast

from domain.platform.state import Seat, ViewerSequences, Window

BLACK_ROSE = "black-rose"
DUMMY = "dummy"
COLOURS = ("red", "blue", "green", "yellow")
RESOLVE, DECLINE = "resolve", "decline"  # a Cell offer's prompt (L-PERS-5, LH-5)

# One atomic change an event carries: its ``op`` and that op's fields (``apply_change`` folds it).
BoardChange = Mapping[str, Any]

# The board's pieces are plain dicts, so stored events and snapshots keep their shape: typed here by their keys.


class SpellSlot(TypedDict):
    """A slot of a Mage Sheet: its Spell Card (None: empty), face up or down, casts this turn."""

    card: str | None
    revealed: bool
    casts: int


class MageSheet(TypedDict):
    """A Mage Sheet; ``damage`` holds who placed each cube, left to right; ``physical`` each Physical Action
    Token's side ("available" or "used")."""

    colour: str
    avatar: bool
    damage: list[str]
    trophies: list[str]
    trophy_tokens: int
    pp: int
    bases: int
    slots: dict[str, SpellSlot]
    physical: dict[str, str]


class BlackRoseSheet(TypedDict):
    pp: int
    trophies: list[str]


class RoomState(TypedDict):
    """A Room on the board: the side up, each Instability slot's owner (None: vacant), whether it is full."""

    side: str
    slots: list[str | None]
    must_rebuild: bool


class EvocationState(TypedDict):
    card: str
    controller: str
    damage: list[str]
    health_mod: int
    rotated: bool
    acted: bool


class TokenState(TypedDict):
    """A Persistent Token in play: its Mage's slot and card, and what it lies on (a room, mage or evocation)."""

    mage: str
    slot: str
    card: str
    kind: str
    target: str


class OfferState(TypedDict):
    """A Cell offer (L-PERS-5): the token whose effect a Mage in her Cell may resolve, and its prompt once asked."""

    id: str
    mage: str
    token: str
    card: str
    target: str
    choice: NotRequired[str]


class PromptState(TypedDict):
    """A choice an effect waits for (L.3): whom it asks, the options, the default, and the command to resume with
    the answers so far (``answers`` is a dict in prompts offered before answers were kept in order)."""

    id: str
    mage: str
    kind: str
    question: str
    options: list[str]
    default: str
    rule: str
    command: dict[str, Any]
    answers: list[str] | dict[str, Any]
    field: str


@dataclass
class LodgeState(ViewerSequences):
    name: str
    ruleset: str
    rules_version: str
    timezone: str
    options: dict[str, Any] = field(default_factory=dict)
    # the pinned rules package, as recorded when the game was created
    package: dict[str, Any] = field(default_factory=dict)
    catalogue: dict[str, str] = field(default_factory=dict)  # the pinned card catalogue: name, version, sha256
    powers: dict[str, Seat] = field(default_factory=dict)  # the platform's seats (one per Mage)
    credentials: dict[str, str] = field(default_factory=dict)
    windows: dict[str, Window] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)
    mail_replies: dict[str, dict[str, Any]] = field(default_factory=dict)
    seed: str | None = None
    seed_root: str | None = None
    turn: int = 0
    phase: str = "setup"
    rooms: dict[str, RoomState] = field(default_factory=dict)
    positions: dict[str, str] = field(default_factory=dict)  # model id -> room id (absent: in the reserve)
    mages: dict[str, MageSheet] = field(default_factory=dict)
    evocations: dict[str, EvocationState] = field(default_factory=dict)
    tokens: dict[str, TokenState] = field(default_factory=dict)  # "mage:slot" -> a Persistent Token on its target
    deck: list[str] = field(default_factory=list)  # the Evocation Card deck, top first (nobody sees its order)
    deck_seed: str | None = None  # the seed its order was shuffled from (sealed; revealed at the game's end)
    black_rose: BlackRoseSheet = field(default_factory=lambda: BlackRoseSheet(pp=0, trophies=[]))
    offers: dict[str, OfferState] = field(default_factory=dict)  # L-PERS-5: optional resolutions from a Cell
    prompts: dict[str, PromptState] = field(default_factory=dict)  # L.3: choices an effect waits for
    next_id: int = 1
    ended: dict[str, int] | None = None


def pp_holder(state: LodgeState, who: str) -> MageSheet | BlackRoseSheet:
    return state.black_rose if who == BLACK_ROSE else state.mages[who]


def damage_track(state: LodgeState, model: str) -> list[str]:
    return state.mages[model]["damage"] if model in state.mages else state.evocations[model]["damage"]


def apply_change(state: LodgeState, ch: BoardChange) -> None:
    """Fold one atomic change onto the board."""
    op = ch["op"]
    fold = _CHANGES.get(op)
    if fold is None:  # pragma: no cover - a change the engine never makes
        raise ValueError(f"unknown change {op!r}")
    fold(state, ch)


def _fold_cube(state: LodgeState, ch: BoardChange) -> None:
    damage_track(state, ch["model"]).append(ch["by"])


def _fold_uncube(state: LodgeState, ch: BoardChange) -> None:
    damage_track(state, ch["model"]).pop(ch["index"])


def _fold_move(state: LodgeState, ch: BoardChange) -> None:
    state.positions[ch["model"]] = ch["room"]


def _fold_instability(state: LodgeState, ch: BoardChange) -> None:
    room = state.rooms[ch["room"]]
    room["slots"][ch["slot"]] = ch["by"]
    room["must_rebuild"] = all(s is not None for s in room["slots"]) and bool(room["slots"])


def _fold_pp(state: LodgeState, ch: BoardChange) -> None:
    pp_holder(state, ch["who"])["pp"] += ch["amount"]


def _fold_trophy(state: LodgeState, ch: BoardChange) -> None:
    if ch.get("from"):
        pp_holder(state, ch["from"])["trophies"].remove(ch["of"])
    else:
        state.mages[ch["of"]]["trophy_tokens"] -= 1
    pp_holder(state, ch["to"])["trophies"].append(ch["of"])


def _fold_summon(state: LodgeState, ch: BoardChange) -> None:
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


def _fold_evocation_gone(state: LodgeState, ch: BoardChange) -> None:
    # defeated (R16) or removed: model out, card to the deck's bottom, base home
    ev = state.evocations.pop(ch["evocation"])
    state.positions.pop(ch["evocation"], None)
    state.deck.append(ev["card"])
    state.mages[ev["controller"]]["bases"] += 1


def _fold_mage_down(state: LodgeState, ch: BoardChange) -> None:
    # a defeated Mage: cubes back to their owners, the Mage in their Cell (house rule)
    state.mages[ch["mage"]]["damage"] = []
    state.positions[ch["mage"]] = ch["cell"]


def _fold_health(state: LodgeState, ch: BoardChange) -> None:
    state.evocations[ch["evocation"]]["health_mod"] += ch["amount"]


def _fold_reveal(state: LodgeState, ch: BoardChange) -> None:
    state.mages[ch["mage"]]["slots"][ch["slot"]]["revealed"] = True
    state.mages[ch["mage"]]["slots"][ch["slot"]]["casts"] += 1


def _fold_discard_spell(state: LodgeState, ch: BoardChange) -> None:
    state.mages[ch["mage"]]["slots"][ch["slot"]] = {"card": None, "revealed": False, "casts": 0}


def _fold_token(state: LodgeState, ch: BoardChange) -> None:
    token = {k: ch[k] for k in ("mage", "slot", "card", "kind", "target")}
    state.tokens[f"{ch['mage']}:{ch['slot']}"] = cast(TokenState, token)


def _fold_untoken(state: LodgeState, ch: BoardChange) -> None:
    state.tokens.pop(f"{ch['mage']}:{ch['slot']}", None)


def _fold_physical(state: LodgeState, ch: BoardChange) -> None:
    state.mages[ch["mage"]]["physical"][ch["action"]] = ch["side"]


def _fold_acted(state: LodgeState, ch: BoardChange) -> None:
    state.evocations[ch["evocation"]]["acted"] = True


def _fold_offer(state: LodgeState, ch: BoardChange) -> None:
    state.offers[ch["id"]] = cast(OfferState, {k: v for k, v in ch.items() if k != "op"})
    state.next_id += 1


def _fold_offer_choice(state: LodgeState, ch: BoardChange) -> None:
    # the prompt that asks the offer's Mage (L-PERS-5)
    if ch["id"] in state.offers:
        state.offers[ch["id"]]["choice"] = ch["choice"]


def _fold_offer_done(state: LodgeState, ch: BoardChange) -> None:
    state.offers.pop(ch["id"], None)


def _fold_prompt(state: LodgeState, ch: BoardChange) -> None:
    state.prompts[ch["id"]] = cast(PromptState, {k: v for k, v in ch.items() if k != "op"})


def _fold_prompt_done(state: LodgeState, ch: BoardChange) -> None:
    state.prompts.pop(ch["id"], None)


def _fold_phase(state: LodgeState, ch: BoardChange) -> None:
    state.turn, state.phase = ch["turn"], ch["phase"]
    for seat in state.powers.values():
        seat.ready = False


def _fold_ready(state: LodgeState, ch: BoardChange) -> None:
    state.powers[ch["mage"]].ready = True


def _fold_mage(state: LodgeState, ch: BoardChange) -> None:
    sheet = deepcopy({k: v for k, v in ch.items() if k not in ("op", "mage", "room")})
    state.mages[ch["mage"]] = cast(MageSheet, sheet)
    state.positions[ch["mage"]] = ch["room"]


def _fold_seat(state: LodgeState, ch: BoardChange) -> None:
    state.powers[ch["mage"]] = Seat(id=ch["mage"], name=ch["name"])


def _fold_slots(state: LodgeState, ch: BoardChange) -> None:
    for slot, card in ch["cards"].items():
        state.mages[ch["mage"]]["slots"][slot] = {"card": card, "revealed": False, "casts": 0}


def _fold_deck(state: LodgeState, ch: BoardChange) -> None:
    state.deck = list(ch["order"])
    state.deck_seed = ch.get("seed")  # absent in games shuffled before the deck was committed


def _fold_rooms(state: LodgeState, ch: BoardChange) -> None:
    state.rooms = {r: {"side": "A", "slots": [None] * n, "must_rebuild": False} for r, n in ch["slots"].items()}


def _fold_flip(state: LodgeState, ch: BoardChange) -> None:
    room = state.rooms[ch["room"]]
    room["side"] = "B" if room["side"] == "A" else "A"
    room["slots"] = [None] * len(room["slots"])
    room["must_rebuild"] = False


def _fold_rotate(state: LodgeState, ch: BoardChange) -> None:
    for ev in state.evocations.values():
        if ev["controller"] == ch["mage"]:
            ev["rotated"] = True


def _fold_new_turn(state: LodgeState, ch: BoardChange) -> None:
    # what a turn uses up is available again
    for sheet in state.mages.values():
        for slot in sheet["slots"].values():
            slot["casts"] = 0
    for ev in state.evocations.values():
        ev["acted"] = False
    state.offers = {}


def _fold_ended(state: LodgeState, ch: BoardChange) -> None:
    state.ended = dict(ch["scores"])
    state.phase = "ended"


# Each atomic change's fold, by its op.
_CHANGES: dict[str, Callable[[LodgeState, BoardChange], None]] = {
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
