"""The Lodge game aggregate on the platform: Mages at a Lodge, spells and physical actions resolved by the
effect engine, the host's phases from the pinned rules package, and Clean-up (C1-C6 of L.1.1).

The host sits in the platform's GM seat (the platform has no host role yet). Every Lodge event carries
``data`` (what the audit shows) and ``changes`` (what folding it does to the board, ``apply_change``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.copying import deepcopy
from domain.dice import commitment
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.lodge.catalogue import (
    SLOTS,
    Card,
    Catalogue,
    Phrase,
    default_catalogue,
    installed_pin,
    pinned_catalogue,
    with_rooms,
)
from domain.lodge.deck import deck_order
from domain.lodge.engine import Answers, ChoiceNeeded, Choices, Engine, Source, ask
from domain.lodge.offers import choices as board_choices
from domain.lodge.offers import waiting_on
from domain.lodge.package import installed_package
from domain.lodge.redecide import version_rules
from domain.lodge.state import (
    BLACK_ROSE,
    COLOURS,
    DECLINE,
    DUMMY,
    RESOLVE,
    BoardChange,
    LodgeState,
    MageSheet,
    PromptState,
    apply_change,
)
from domain.platform import flow
from domain.platform.game import PlatformGame, check_timezone
from domain.platform.seating import reserved
from domain.platform.state import Seat

RULES_VERSION = "lodge-1"
STOP, NOBODY = "stop", "none"  # an Evocation's prompts: no further step; no attack (L-EVO-1, L-EVO-2)


class LodgeGame(PlatformGame):
    """One game of the Lodge."""

    if TYPE_CHECKING:  # set when the game is created (LodgeCreated), and by a rollback
        state: LodgeState

    @event("LodgeCreated")
    def __init__(
        self,
        name: str,
        ruleset: str,
        rules_version: str,
        timezone: str,
        options: dict[str, Any],
        package: dict[str, Any],
        catalogue: str,
        catalogue_pin: dict[str, str] | None,
        actor: str,
        audience: list[str],
    ) -> None:
        self.state = LodgeState(
            name=name, ruleset=ruleset, rules_version=rules_version, timezone=timezone, options=options
        )
        self.state.package = deepcopy(package)
        self.state.catalogue = deepcopy(catalogue_pin) if catalogue_pin else {}
        slots = {r.id: r.slots for r in self.catalogue.rooms}
        apply_change(self.state, {"op": "rooms", "slots": slots})

    @classmethod
    def start(
        cls, name: str, gm_name: str = "Host", tz: str = "UTC", options: dict[str, Any] | None = None
    ) -> LodgeGame:
        """A new game pins its rules package (LH-7): the whole package is recorded in ``LodgeCreated``."""
        from domain.lodge.ruleset import LodgeOptions

        limits.check_text(name, "name", limits.GAME_NAME, required=True, what="a game's name")
        check_timezone(tz)
        opts = LodgeOptions.model_validate(options or {})
        package = installed_package(opts.package).model_dump(mode="json")
        if opts.defeat_pp is not None:  # a house rule set at creation (L-AMB-4)
            package["defeat_pp"] = list(opts.defeat_pp)
        return cls(
            name=name.strip(),
            ruleset="lodge",
            rules_version=RULES_VERSION,
            timezone=tz,
            options=opts.model_dump(mode="json"),
            package=package,
            catalogue=default_catalogue().version,
            catalogue_pin=installed_pin(),
            actor=GM,
            audience=[vis.PUBLIC],
        )

    # ------------------------------------------------------------------ the events

    class Change(PlatformGame.Event):
        """Base of the Lodge's events: fold ``changes`` onto the board, then count the viewers' sequences."""

        data: dict[str, Any]
        changes: list[BoardChange]
        actor: str
        audience: list[str]

        def apply(self, game: LodgeGame) -> None:
            for ch in self.changes:
                apply_change(game.state, ch)
            super().apply(game)

    class MageAdded(Change): ...

    class SpellsPrepared(Change): ...

    class DeckShuffled(Change): ...

    class DeckCommitted(Change): ...

    class DeckRevealed(Change): ...

    class TurnBegan(Change): ...

    class PhaseBegan(Change): ...

    class SpellRevealed(Change): ...

    class PhysicalActionUsed(Change): ...

    class EvocationCommanded(Change): ...

    class BlackRoseActed(Change): ...

    class PhraseResolved(Change): ...

    class EffectResolved(Change): ...

    class PersistentPlaced(Change): ...

    class PersistentSkipped(Change): ...

    class PersistentEnded(Change): ...

    class CellOfferMade(Change): ...

    class CellOfferClosed(Change): ...

    class ChoiceOffered(Change): ...

    class ChoiceAnswered(Change): ...

    class ChoiceDefaulted(Change): ...

    class ChoiceLapsed(Change): ...

    class Passed(Change): ...

    class CleanupBegan(Change): ...

    class PersistentTokensReturned(Change): ...

    class EvocationsRotated(Change): ...

    class PhysicalActionTokensFlipped(Change): ...

    class RoomsToRebuild(Change): ...

    class RoomScored(Change): ...

    class RoomFlipped(Change): ...

    class GameEnded(Change): ...

    def _emit(
        self,
        kind: str,
        data: dict[str, Any],
        changes: Sequence[BoardChange] | None = None,
        actor: str = SYSTEM,
        audience: list[str] | None = None,
    ) -> None:
        self.trigger_event(
            getattr(self, kind), data=data, changes=changes or [], actor=actor, audience=audience or [vis.PUBLIC]
        )

    # ------------------------------------------------------------------ the platform's questions

    @property
    def catalogue(self) -> Catalogue:
        """The catalogue the game pinned when it was created, or refused (LH-7); a game created before pins
        were recorded (LodgeCreated version 1) plays with the installed one, as it always did."""
        cat = pinned_catalogue(self.state.catalogue) if self.state.catalogue else default_catalogue()
        return with_rooms(cat, self.state.package.get("rooms"))  # a package of Rooms replaces the catalogue's

    @property
    def package(self) -> dict[str, Any]:
        return self.state.package

    seats_field = "powers"  # where a Lodge keeps its seats: its Mages, as its state has always named them

    def seat(self, seat_id: str) -> Any:
        return self.power(seat_id)

    def power(self, power_id: str) -> Seat:
        try:
            return self.state.powers[power_id]
        except KeyError:
            raise NotFound(f"no Mage {power_id!r} in this Lodge", field="mage_id") from None

    def expect_step(self, expected: str | None) -> None:
        if expected is not None and expected != self.state.phase:
            raise RuleViolation(f"the game is at {self.state.phase!r}, not {expected!r}", rule="LH-7", field="phase")

    # ------------------------------------------------------------------ setup

    def add_mage(self, mage_id: str, name: str, colour: str, avatar: bool = False) -> None:
        limits.check_text(mage_id, "mage_id", limits.IDENTIFIER, required=True)
        if self.state.phase != "setup":
            raise RuleViolation("Mages join before the first turn", rule="LH-7", field="mage_id")
        if mage_id in self.state.powers or mage_id in (DUMMY, BLACK_ROSE, STOP, NOBODY) or reserved(mage_id):
            raise RuleViolation(f"{mage_id!r} is taken", field="mage_id")
        if colour not in COLOURS or any(m["colour"] == colour for m in self.state.mages.values()):
            raise RuleViolation(f"choose a free colour of {', '.join(COLOURS)}", field="colour")
        p = self.package
        mage = {
            "op": "mage",
            "mage": mage_id,
            "room": p["start_room"],
            "colour": colour,
            "avatar": avatar,
            "damage": [],
            "trophies": [],
            "trophy_tokens": p["trophy_tokens"],
            "pp": 0,
            "bases": p["evocation_bases"],
            "slots": {s: {"card": None, "revealed": False, "casts": 0} for s in SLOTS},
            "physical": {a.id: "available" for a in self.catalogue.physical_actions},
        }
        self._emit(
            "MageAdded",
            {"mage": mage_id, "name": name, "colour": colour, "avatar": avatar},
            [{"op": "seat", "mage": mage_id, "name": name}, mage],
            actor=GM,
        )

    def begin(self, *, now: datetime, seed: str) -> None:
        """The host starts the game: the Evocation deck is shuffled (its order sealed: nobody sees it, L.4)."""
        if self.state.phase != "setup":
            raise RuleViolation("the game has begun", rule="LH-7", field="phase")
        if len(self.state.mages) < 2:
            raise RuleViolation("a Lodge needs at least two Mages", rule="LH-7", field="mages")
        self._shuffle_deck([e.id for e in self.catalogue.evocations], seed)
        self._begin_turn(1, now)

    def _shuffle_deck(self, cards: list[str], seed: str) -> None:
        """Shuffle ``cards`` into the Evocation deck from ``seed`` (L.4), committed first: a public
        ``DeckCommitted`` gives the cards in the order shuffled from and the seed's hash; the sealed
        ``DeckShuffled`` keeps the order and the seed, which nobody sees until ``_reveal_deck``."""
        self._emit("DeckCommitted", {"cards": list(cards), "commitment": commitment(seed)})
        order = deck_order(seed, cards)
        self._emit(
            "DeckShuffled", {"cards": len(order)}, [{"op": "deck", "order": order, "seed": seed}], audience=[vis.SEALED]
        )

    def _reveal_deck(self) -> None:
        """Open the deck's seed to everyone (its draws are then checked, ``domain.lodge.verify``); a deck shuffled
        before the deck was committed has none to open."""
        seed = self.state.deck_seed
        if seed is not None:
            self._emit("DeckRevealed", {"seed": seed, "commitment": commitment(seed)})

    def rollback(self, to_version: int, restored: Any, *, reason: str, now: datetime, seed: str) -> None:
        """The platform's rollback; then, once the game has begun, the deck it returns to is shuffled afresh from
        ``seed`` (in the cards' sorted order) and the superseded seed revealed: a seed opened at a game's end (or a
        draw seen before the rollback) tells nothing of the cards to come."""
        before = self.state.deck_seed
        super().rollback(to_version, restored, reason=reason, now=now, seed=seed)
        if before is not None and self.state.deck_seed is not None:
            self._emit("DeckRevealed", {"seed": before, "commitment": commitment(before)})
            self._shuffle_deck(sorted(self.state.deck), seed)

    def _begin_turn(self, turn: int, now: datetime) -> None:
        self._emit("TurnBegan", {"turn": turn}, [{"op": "new_turn"}])
        self._begin_phase(turn, self.package["phases"][0], now)

    def _begin_phase(self, turn: int, phase: dict[str, Any], now: datetime) -> None:
        self._emit(
            "PhaseBegan",
            {"turn": turn, "phase": phase["name"], "acts": phase["acts"], "may": phase["may"]},
            [{"op": "phase", "turn": turn, "phase": phase["name"]}],
        )
        flow.open_window(self, f"t{turn}-{phase['name']}", phase["name"], now=now, hours=float(phase["hours"]))

    def phase_acts(self) -> str | None:
        """Who acts in the current phase of the package (LH-7): "every mage", "host", or None outside them."""
        phase = self._phase_rules()
        return phase["acts"] if phase else None

    def _phase_rules(self) -> dict[str, Any] | None:
        return next((p for p in self.package["phases"] if p["name"] == self.state.phase), None)

    def _allowed(self, command: str) -> None:
        phase = self._phase_rules()
        if phase is None or command not in phase["may"]:
            raise RuleViolation(
                f"{command} is not allowed in phase {self.state.phase!r} of this rules package",
                rule="LH-7",
                field="phase",
            )

    def _mage(self, mage_id: str) -> MageSheet:
        self.power(mage_id)
        return self.state.mages[mage_id]

    # ------------------------------------------------------------------ phases

    def prepare_spells(self, mage_id: str, cards: dict[str, str]) -> None:
        """A Mage puts Spell Cards face down in their slots; only they and the host see them (L.4). A card
        replaced leaves the Mage Sheet, which ends its Persistent Effect (L-PERS-4)."""
        self._allowed("PrepareSpells")
        sheet = self._mage(mage_id)
        for slot, card in cards.items():
            if slot not in SLOTS:
                raise RuleViolation(f"slots are {', '.join(SLOTS)}", field="cards")
            if card not in {c.id for c in self.catalogue.spells}:
                raise RuleViolation(f"no Spell Card {card!r}", field="cards")
        for slot in sorted(cards):
            if sheet["slots"][slot]["card"] is not None and f"{mage_id}:{slot}" in self.state.tokens:
                self._emit(
                    "PersistentEnded",
                    {"mage": mage_id, "slot": slot, "why": "its Spell Card left the Mage Sheet"},
                    [{"op": "untoken", "mage": mage_id, "slot": slot}],
                )
        self._emit(
            "SpellsPrepared",
            {"mage": mage_id, "cards": dict(cards)},
            [{"op": "slots", "mage": mage_id, "cards": dict(cards)}],
            actor=mage_id,
            audience=vis.powers([mage_id]),
        )

    def _engine(self) -> Engine:
        """An engine on a copy of the state (``domain.copying``): what it changes is recorded as the effect's
        events, and a refused or suspended effect leaves the game as it was."""
        return Engine(deepcopy(self.state), self.catalogue, self.package, self.state.options, self.version)

    def _check_target(self, card: Card, target: str | None, actor_model: str | None) -> None:
        kind = card.target.kind
        if kind == "none":
            if target is not None:
                raise RuleViolation(f"{card.name} takes no target", field="target")
            return
        if target is None:
            raise RuleViolation(f"{card.name} needs a target", rule="LH-1", field="target")
        if target == DUMMY:
            if kind != "model":
                raise RuleViolation(
                    "the Dummy Target is offered only to effects that target Models", rule="L-DUMMY-1", field="target"
                )
            if card.target.archetype:
                raise RuleViolation("the Dummy Target has no archetype (R23)", rule="L-DUMMY-2", field="target")
            if card.physical_attack:
                raise RuleViolation(
                    "the Dummy Target cannot be the target of a Physical Attack (R27)", rule="L-DUMMY-2", field="target"
                )
            return
        s = self.state
        ok = {
            "room": target in s.rooms,
            "mage": target in s.mages and target in s.positions,
            "evocation": target in s.evocations,
            "model": target in s.positions,
        }[kind]
        if not ok:
            raise RuleViolation(
                f"{target!r} is not a legal target of {card.name} (a {kind})", rule="LH-1", field="target"
            )
        if card.target.archetype:
            ev = s.evocations.get(target)
            if ev is None or self.catalogue.evocation_by_id[ev["card"]].archetype != card.target.archetype:
                raise RuleViolation(f"{card.name} targets a {card.target.archetype}", rule="LH-1", field="target")
        if card.target.range == "same_room" and s.positions.get(target) != s.positions.get(actor_model or ""):
            raise RuleViolation(f"{target!r} is not in your Room", rule="LH-1", field="target")

    def legal_targets(self, card: Card, actor_model: str | None) -> list[str | None]:
        """The targets the server offers for a card (LH-1): the Dummy Target is offered to every effect that
        targets Models, unless it needs an archetype or is a Physical Attack (L-DUMMY-1, L-DUMMY-2)."""
        if card.target.kind == "none":
            return [None]
        s = self.state
        pool = {
            "room": sorted(s.rooms),
            "mage": sorted(m for m in s.mages if m in s.positions),
            "evocation": sorted(s.evocations),
            "model": sorted(s.positions),
        }[card.target.kind]
        out: list[str | None] = []
        for t in pool:
            try:
                self._check_target(card, t, actor_model)
            except RuleViolation:
                continue
            out.append(t)
        if card.target.kind == "model" and not card.target.archetype and not card.physical_attack:
            out.append(DUMMY)
        return out

    def _target(self, card: Card, target: str | None, mage_id: str, choices: Choices) -> str | None:
        """LH-1 (R21, R22): a target the command leaves open is chosen from the legal ones the server computes:
        asked for when more than one is legal, taken when only one is, and refused (``_check_target``) when none
        is. The deadline's default is the Dummy Target when it is offered (R22: it resolves as much of the
        effect as possible without touching any Model), else the Room the Mage stands in when it is legal, else
        the first legal target in the server's order."""
        if target is not None or card.target.kind == "none" or not choices.prompt:
            return target
        legal = [t for t in self.legal_targets(card, mage_id) if t is not None]
        if len(legal) <= 1:
            return legal[0] if legal else None
        here = self.state.positions.get(mage_id)
        default = DUMMY if DUMMY in legal else here if here in legal else legal[0]
        return ask(choices, mage_id, "target", f"the target of {card.name}", legal, default, "LH-1")

    def choices_for(self, mage_id: str) -> dict[str, Any]:
        """What a Mage may do now, as lists to choose from (L.3), read from what she is offered
        (``domain.lodge.offers``): empty outside a phase that allows her anything."""
        return board_choices(self, mage_id)

    def step_rooms(self, mage_id: str) -> list[str]:
        """The Rooms a Mage's ``Move 1`` step may enter: the adjacent ones, never a Cell (L-MOVE-3, R30)."""
        here = self.catalogue.room_by_id[self.state.positions[mage_id]]
        return [r for r in here.adjacent if self.catalogue.room_by_id[r].cell_of is None]

    def _record(self, engine: Engine, actor: str) -> None:
        for kind, data, changes in engine.records:
            self._emit(kind, data, changes, actor=actor)

    def cast_spell(
        self, mage_id: str, slot: str, target: str | None, choices: Choices, now: datetime | None = None
    ) -> None:
        """Reveal the Spell in a slot and resolve its effect; a Persistent spell places its token (L.1.3)."""
        command = {"command": "CastSpell", "mage": mage_id, "slot": slot, "target": target}
        self._resolving(command, choices, now, lambda: self._cast_spell(mage_id, slot, target, choices))

    def _cast_spell(self, mage_id: str, slot: str, target: str | None, choices: Choices) -> None:
        self._allowed("CastSpell")
        sheet = self._mage(mage_id)
        held = sheet["slots"][slot]["card"] if slot in SLOTS else None
        if held is None:
            raise RuleViolation(f"no Spell Card in slot {slot!r}", field="slot")
        if sheet["slots"][slot]["casts"] >= self.package["casts_per_slot_per_turn"]:
            raise RuleViolation(f"slot {slot} was cast this turn already", rule="LH-7", field="slot")
        card = self.catalogue.cards[held]
        target = self._target(card, target, mage_id, choices)
        self._check_target(card, target, mage_id)
        engine = self._engine()
        engine.emit(
            "SpellRevealed",
            {"mage": mage_id, "slot": slot, "card": card.id, "name": card.name, "target": target},
            {"op": "reveal", "mage": mage_id, "slot": slot},
        )
        if card.persistent is not None:
            engine.place_token(mage_id, slot, card, target)
        src = Source(mage_id, "spell", card.id, model=mage_id, forgotten=card.forgotten)
        engine.resolve(card.phrases, src, target, choices)
        self._record(engine, mage_id)

    def physical_action(
        self, mage_id: str, action: str, target: str | None, choices: Choices, now: datetime | None = None
    ) -> None:
        """Spend a Physical Action Token (flipped to its used side until Clean-up C3) and resolve its effect."""
        command: dict[str, Any] = {"command": "PhysicalAction", "mage": mage_id, "action": action, "target": target}
        self._resolving(command, choices, now, lambda: self._physical_action(mage_id, action, target, choices))

    def _physical_action(self, mage_id: str, action: str, target: str | None, choices: Choices) -> None:
        self._allowed("PhysicalAction")
        sheet = self._mage(mage_id)
        card = next((a for a in self.catalogue.physical_actions if a.id == action), None)
        if card is None:
            raise RuleViolation(f"no Physical Action {action!r}", field="action")
        if sheet["physical"][action] != "available":
            raise RuleViolation(f"your {card.name} token is spent until Clean-up", rule="LH-7", field="action")
        if mage_id not in self.state.positions:
            raise RuleViolation("your Mage is not in the Lodge", field="mage_id")
        target = self._target(card, target, mage_id, choices)
        self._check_target(card, target, mage_id)
        engine = self._engine()
        engine.emit(
            "PhysicalActionUsed",
            {"mage": mage_id, "action": action, "target": target},
            {"op": "physical", "mage": mage_id, "action": action, "side": "used"},
        )
        src = Source(mage_id, "physical", card.id, model=mage_id, physical_attack=card.physical_attack)
        engine.resolve(card.phrases, src, target, choices)
        self._record(engine, mage_id)

    # ------------------------------------------------------------------ prompts (L.3)

    def _resolving(
        self, command: dict[str, Any], choices: Choices, now: datetime | None, resolve: Callable[[], None]
    ) -> None:
        """Resolve an effect; when it stops for a choice the command left open, offer it instead: the
        ``ChoiceOffered`` event (seen by the chooser and the host) and a window with a deadline. Cell offers the
        effect made are offered as prompts too (L-PERS-5)."""
        waiting = waiting_on(self, command["mage"])
        if waiting:  # R1: an effect resolves in full before the next begins
            chooser = self.state.prompts[waiting[0]]["mage"]
            whose = "" if chooser == command["mage"] else f" ({chooser}'s to answer)"
            raise RuleViolation(
                f"answer {waiting[0]}{whose} first: the effect waiting for it has not resolved (L-EFF-1)",
                rule="L-EFF-1",
                field="choice_id",
            )
        command = dict(command, moves=list(choices.moves), heal=choices.heal, prompt=choices.prompt)
        try:
            resolve()
        except ChoiceNeeded as need:
            if now is None:  # a caller without a clock cannot wait for an answer
                raise RuleViolation(
                    f"choose {need.question}: one of {', '.join(need.options)}", rule=need.rule
                ) from None
            self._offer_choice(command, list(choices.answers.given), need, now)
            return
        if now is not None:
            self._offer_cells(now)

    def _offer_cells(self, now: datetime) -> None:
        """L-PERS-5 / LH-5: each Cell offer not yet asked becomes a prompt to its Mage: resolve or decline; the
        deadline declines ("may": resolving is the Mage's choice, so nothing happens unless they make it)."""
        for oid, offer in sorted(self.state.offers.items()):
            if offer.get("choice"):
                continue
            card = self.catalogue.cards[offer["card"]]
            need = ChoiceNeeded(
                "cell",
                f"resolve the Persistent Effect of {card.name} on {offer['target']} from your Cell",
                [RESOLVE, DECLINE],
                DECLINE,
                "L-PERS-5",
                "option",
                offer["mage"],
            )
            self._offer_choice({"command": "CellOffer", "mage": offer["mage"], "offer": oid}, [], need, now)

    def _offer_choice(self, command: dict[str, Any], answers: list[str], need: ChoiceNeeded, now: datetime) -> None:
        mage = need.chooser or command["mage"]
        cid = f"choice-{self.version}"
        audience = vis.powers([mage])  # the host sees every event
        offered = {
            "choice": cid,
            "mage": mage,
            "kind": need.kind,
            "question": need.question,
            "options": list(need.options),
            "default": need.default,
            "rule": need.rule,
        }
        prompt = {"op": "prompt", "id": cid, **offered, "command": command, "answers": answers, "field": need.field}
        prompt.pop("choice")
        changes = [prompt]
        if need.kind == "cell":
            changes.append({"op": "offer_choice", "id": command["offer"], "choice": cid})
        self._emit("ChoiceOffered", offered, changes, actor=mage, audience=audience)
        hours = float(self.package.get("choice_hours", 24))
        flow.open_window(self, cid, "choice", now=now, hours=hours, audience=audience)

    def answer_choice(
        self, mage_id: str, choice_id: str, option: str, *, now: datetime, defaulted: bool = False
    ) -> dict[str, str]:
        """The chooser picks one of the options the server computed; anything else is refused naming the rule
        the option would break, and nothing is recorded. An answer among the options is always recorded: if the
        board has changed since it was asked so that the effect can no longer resolve with it, the effect lapses,
        its reason recorded (as at the deadline), and the receipt says so. ``defaulted``: the chooser was silent
        until the window closed, and the platform sent the default (``ChoiceDefaulted``)."""
        prompt = self.state.prompts.get(choice_id)
        if prompt is None or prompt["mage"] != mage_id:
            raise NotFound(f"you have no open choice {choice_id!r}", field="choice_id")
        if prompt["kind"] == "cell" and option == RESOLVE and (waiting := waiting_on(self, mage_id)):
            # L-EFF-1 (R1): resolving from the Cell is a new effect, which waits for hers to resolve first
            raise RuleViolation(
                f"answer {waiting[0]} first: the effect waiting for it has not resolved (L-EFF-1)",
                rule="L-EFF-1",
                field="choice_id",
            )
        if option not in prompt["options"]:
            rule = self._refusing_rule(prompt, option)
            raise RuleViolation(
                f"{option!r} is not a legal answer to {prompt['question']} ({rule}): one of "
                + ", ".join(prompt["options"]),
                rule=rule,
                field="option",
            )
        lapsed = self._settle_choice(choice_id, option, "ChoiceDefaulted" if defaulted else "ChoiceAnswered", now)
        return {"choice": choice_id, "option": option} | ({"lapsed": lapsed} if lapsed else {})

    def _refusing_rule(self, prompt: PromptState, option: str) -> str:
        """The rule an answer outside the options breaks: the prompt's own, or a narrower one the answer names."""
        room = self.catalogue.room_by_id.get(option)
        if prompt["kind"] == "move" and room is not None and room.cell_of is not None:
            return "L-MOVE-3"  # a Mage enters no Cell by moving (R30)
        if prompt["kind"] == "target":
            cmd = prompt["command"]
            if cmd["command"] == "CastSpell":
                held = self.state.mages[cmd["mage"]]["slots"][cmd["slot"]]["card"]
                card = self.catalogue.cards[held] if held is not None else None  # None: discarded while it waited
            else:
                card = self.catalogue.cards[cmd["action"]]
            try:
                if card is not None:
                    self._check_target(card, option, cmd["mage"])
            except RuleViolation as err:
                return err.rule or prompt["rule"]
        if prompt["kind"] == "evocation-attack":
            if option == DUMMY:
                return "L-DUMMY-2"  # R27: never the target of a Physical Attack
            if option in self.state.positions and self._controller(option) == prompt["command"]["mage"]:
                return "L-IMM-2"  # R40
        return str(prompt["rule"])

    def _controller(self, model: str) -> str | None:
        if model in self.state.mages:
            return model
        ev = self.state.evocations.get(model)
        return ev["controller"] if ev else None

    def _close_prompt(self, choice_id: str, option: str, kind: str, now: datetime) -> PromptState:
        prompt = self.state.prompts[choice_id]
        mage = prompt["mage"]
        audience = vis.powers([mage])
        self._emit(
            kind,
            {"choice": choice_id, "mage": mage, "option": option, "rule": prompt["rule"]},
            [{"op": "prompt_done", "id": choice_id}],
            actor=mage if kind == "ChoiceAnswered" else SYSTEM,
            audience=audience,
        )
        self._window_closed(
            window_id=choice_id,
            reason="answered" if kind == "ChoiceAnswered" else "deadline",
            closed_at=now.astimezone(timezone.utc).isoformat(),
            actor=SYSTEM,
            audience=audience,
        )
        return prompt

    def _settle_choice(self, choice_id: str, option: str, kind: str, now: datetime) -> str | None:
        """Record the answer (or the default at the deadline), close the window, and resolve the effect again
        from the start with every answer so far: nothing of it was recorded while it waited. If the board has
        moved on so that it cannot resolve with that answer (a target gone from the Room, a step no longer
        adjacent), the effect lapses, recorded with why (nothing of it happens, as if never begun): the answer
        offered is never refused, and the window closes once. Returns the lapse's reason, if it lapsed."""
        prompt = self._close_prompt(choice_id, option, kind, now)
        try:
            self._resume(prompt, option, now)
        except RuleViolation as err:
            self._lapse(choice_id, prompt, str(err), err.rule)
            return str(err)
        return None

    def _lapse(self, choice_id: str, prompt: PromptState, reason: str, rule: str | None) -> None:
        """Record that the effect a choice waited for lapsed, and why; a Cell offer's lapse closes the offer."""
        cmd = prompt["command"]
        done = [{"op": "offer_done", "id": cmd["offer"]}] if cmd["command"] == "CellOffer" else []
        self._emit(
            "ChoiceLapsed",
            {"choice": choice_id, "mage": prompt["mage"], "reason": reason, "rule": rule},
            done,
            audience=vis.powers([prompt["mage"]]),
        )

    def _resume(self, prompt: PromptState, option: str, now: datetime) -> None:
        cmd = prompt["command"]
        mage = cmd["mage"]
        answers = prompt["answers"]
        if isinstance(answers, dict):  # a prompt offered before answers were kept in order: moves, then cubes
            colours = answers.get("heal_colours")
            answers = list(answers["moves"]) + ([",".join(colours)] if colours is not None else [])
        if cmd["command"] == "CellOffer":
            self.resolve_from_cell(mage, cmd["offer"], option == RESOLVE, Choices(prompt=True), now)
            return
        choices = Choices(
            list(cmd.get("moves", [])),
            cmd.get("heal"),
            prompt=cmd.get("prompt", True),
            answers=Answers([*answers, option]),
        )
        if cmd["command"] == "CastSpell":
            self.cast_spell(mage, cmd["slot"], cmd["target"], choices, now)
        elif cmd["command"] == "PhysicalAction":
            self.physical_action(mage, cmd["action"], cmd["target"], choices, now)
        elif cmd["command"] == "CommandEvocation":
            self.command_evocation(mage, cmd["evocation"], choices.moves, cmd["attack"], now, choices)
        elif cmd["command"] == "BlackRoseAct":
            choices.prompt = True
            self._resolving(cmd, choices, now, lambda: self._black_rose_act(cmd["card"], cmd["target"], choices))
        else:
            self.resolve_from_cell(mage, cmd["offer"], cmd["accept"], choices, now)

    def command_evocation(
        self,
        mage_id: str,
        evocation: str,
        moves: list[str],
        attack: str | None,
        now: datetime | None = None,
        choices: Choices | None = None,
    ) -> None:
        """An Evocation takes up to Speed ``Move 1`` steps (L-EVO-1), then may attack a Model in its Room for
        Damage equal to its Strength, a Physical Attack in its controller's colour (L-EVO-2, L-EVO-3). A command
        that names neither (``choices.prompt``) asks each step and the attack (``_evocation_plan``)."""
        choices = choices or Choices(list(moves))
        command = {"command": "CommandEvocation", "mage": mage_id, "evocation": evocation, "attack": attack}
        self._resolving(
            command, choices, now, lambda: self._command_evocation(mage_id, evocation, moves, attack, choices)
        )

    def _evocation_plan(self, mage_id: str, evocation: str, choices: Choices) -> tuple[list[str], str | None]:
        """L-EVO-1 (R13): each of up to Speed ``Move 1`` steps is asked among the adjacent Rooms, or ``stop``;
        then L-EVO-2 (R14): whom to attack among the Models in the Room it reached, or ``none``: never its own
        side (L-IMM-2, R40) nor the Dummy Target (L-DUMMY-2, R27). At the deadline it stops and attacks nobody,
        so it does not act: the command lapses, recorded, and the Evocation may be commanded again."""
        ev = self.state.evocations[evocation]
        card = self.catalogue.evocation_by_id[ev["card"]]
        room = self.state.positions[evocation]
        moves: list[str] = []
        for step in range(card.speed):
            options = [*self.catalogue.room_by_id[room].adjacent, STOP]
            question = f"Move step {step + 1} of {card.name} ({evocation}) from {room}, or stop"
            answer = ask(choices, mage_id, "evocation-move", question, options, STOP, "L-EVO-1")
            if answer == STOP:
                break
            moves.append(answer)
            room = answer
        foes = sorted(
            m for m, r in self.state.positions.items() if r == room and self._controller(m) not in (mage_id, None)
        )
        if not foes:
            return moves, None
        question = f"whom {card.name} ({evocation}) attacks in {room} for {card.strength} Damage, or none"
        answer = ask(choices, mage_id, "evocation-attack", question, [*foes, NOBODY], NOBODY, "L-EVO-2")
        return moves, None if answer == NOBODY else answer

    def _command_evocation(
        self, mage_id: str, evocation: str, moves: list[str], attack: str | None, choices: Choices
    ) -> None:
        self._allowed("CommandEvocation")
        self._mage(mage_id)
        ev = self.state.evocations.get(evocation)
        if ev is None or ev["controller"] != mage_id:
            raise RuleViolation(f"you control no Evocation {evocation!r}", field="evocation")
        if ev["acted"]:
            raise RuleViolation("this Evocation has acted this turn", rule="LH-7", field="evocation")
        card = self.catalogue.evocation_by_id[ev["card"]]
        if choices.prompt and not moves and attack is None:
            moves, attack = self._evocation_plan(mage_id, evocation, choices)
        if len(moves) > card.speed:
            raise RuleViolation(f"{card.name} has Speed {card.speed}", rule="L-EVO-1", field="moves")
        engine = self._engine()
        engine.emit(
            "EvocationCommanded",
            {"mage": mage_id, "evocation": evocation, "card": card.id, "moves": list(moves), "attack": attack},
            {"op": "acted", "evocation": evocation},
        )
        src = Source(mage_id, "evocation", card.id, model=evocation, physical_attack=True)
        phrases = []
        if moves:
            phrases.append(Phrase(op="move", amount=len(moves), to="self"))
        if attack is not None:
            if attack == DUMMY:
                raise RuleViolation(
                    "the Dummy Target cannot be the target of a Physical Attack (R27)", rule="L-DUMMY-2", field="attack"
                )
            if attack not in self.state.positions:
                raise RuleViolation(f"no Model {attack!r} in the Lodge", field="attack")
            if engine.controller(attack) == mage_id:
                raise RuleViolation(
                    "an Evocation does not inflict Damage on its own side (R40)", rule="L-IMM-2", field="attack"
                )
            where = moves[-1] if moves else self.state.positions.get(evocation)
            if self.state.positions.get(attack) != where:
                raise RuleViolation(f"{attack!r} is not in the Evocation's Room", rule="LH-1", field="attack")
            phrases.append(Phrase(op="damage", amount=card.strength, to="target"))
        if not phrases:
            raise RuleViolation("move or attack", field="moves")
        engine.resolve(phrases, src, attack, Choices(moves=list(moves)))
        self._record(engine, mage_id)

    def black_rose_act(self, card_id: str, target: str | None, now: datetime | None = None) -> None:
        """The host resolves a Black Rose card; the Black Rose scores and takes Trophies like a Mage. Its own
        choices take their defaults (no seat to ask); a Persistent Effect it triggers asks its token's owner."""
        command = {"command": "BlackRoseAct", "mage": BLACK_ROSE, "card": card_id, "target": target}
        choices = Choices(prompt=True)
        self._resolving(command, choices, now, lambda: self._black_rose_act(card_id, target, choices))

    def _black_rose_act(self, card_id: str, target: str | None, choices: Choices) -> None:
        self._allowed("BlackRoseAct")
        card = next((c for c in self.catalogue.black_rose if c.id == card_id), None)
        if card is None:
            raise RuleViolation(f"no Black Rose card {card_id!r}", field="card")
        self._check_target(card, target, None)
        engine = self._engine()
        engine.record("BlackRoseActed", {"card": card.id, "name": card.name, "target": target})
        engine.resolve(card.phrases, Source(BLACK_ROSE, "black_rose", card.id), target, choices)
        self._record(engine, GM)

    def resolve_from_cell(
        self, mage_id: str, offer_id: str, accept: bool, choices: Choices, now: datetime | None = None
    ) -> None:
        """L-PERS-5: a Mage in their Cell resolves (or declines) an offered Persistent Effect (LH-5), by this
        command or by answering the offer's prompt, in whichever phase its condition occurred; the choices its
        effect needs are asked like any other."""
        if not accept:  # declining resolves no effect, so no effect of hers waiting for a choice holds it (L-EFF-1)
            self._resolve_from_cell(mage_id, offer_id, False, choices, now)
            return
        command = {"command": "ResolveFromCell", "mage": mage_id, "offer": offer_id, "accept": accept}
        self._resolving(command, choices, now, lambda: self._resolve_from_cell(mage_id, offer_id, accept, choices, now))

    def _resolve_from_cell(
        self, mage_id: str, offer_id: str, accept: bool, choices: Choices, now: datetime | None
    ) -> None:
        # No phase of the package gates an answer: R10 lets the Mage resolve "whenever the required condition
        # occurs", in the Black Rose's phase as in the Actions phase, and the offer stands until Clean-up (LH-5)
        offer = self.state.offers.get(offer_id)
        if offer is None or offer["mage"] != mage_id:
            raise RuleViolation(f"you have no offer {offer_id!r}", rule="L-PERS-5", field="offer_id")
        sheet = self._mage(mage_id)
        if accept and self.state.positions.get(mage_id) != self.catalogue.cell_of(sheet["colour"]):
            # declining changes nothing, so a Mage who has left her Cell may still decline
            raise RuleViolation("only a Mage in their own Cell resolves from it", rule="L-PERS-5", field="offer_id")
        if now is not None and offer.get("choice") in self.state.prompts:  # the command answers the offer's prompt
            self._close_prompt(offer["choice"], RESOLVE if accept else DECLINE, "ChoiceAnswered", now)
        engine = self._engine()
        engine.emit(
            "CellOfferClosed",
            {"offer": offer_id, "mage": mage_id, "accepted": accept},
            {"op": "offer_done", "id": offer_id},
        )
        if accept:
            card = self.catalogue.cards[offer["card"]]
            assert card.persistent is not None
            src = Source(mage_id, "persistent", card.id, model=mage_id, forgotten=card.forgotten)
            engine.resolve(card.persistent.phrases, src, offer["target"], choices, {"offer": offer_id})
        self._record(engine, mage_id)

    def pass_turn(self, mage_id: str) -> None:
        """A Mage is done for this phase (LH-7), once: a second Pass would record nothing new, so it is refused,
        as it is not offered (``domain.lodge.offers``)."""
        self._allowed("Pass")
        self._mage(mage_id)
        if self.state.powers[mage_id].ready:
            raise RuleViolation("you have passed in this phase already", rule="LH-7", field="mage_id")
        self._emit("Passed", {"mage": mage_id}, [{"op": "ready", "mage": mage_id}], actor=mage_id)

    # ------------------------------------------------------------------ advancing and Clean-up

    def advance(self, *, now: datetime, reason: str = "host") -> None:
        """End the current phase: the next phase of the package, or Clean-up and the next turn."""
        if self.state.phase in ("setup", "ended"):
            raise RuleViolation(f"the game is at {self.state.phase!r}", rule="LH-7", field="phase")
        w = self.open_window(self.state.phase)
        if w is not None:
            self._window_closed(
                window_id=w.id, reason=reason, closed_at=now.isoformat(), actor=GM, audience=[vis.PUBLIC]
            )
        names = [p["name"] for p in self.package["phases"]]
        i = names.index(self.state.phase)
        if i + 1 < len(names):
            self._begin_phase(self.state.turn, self.package["phases"][i + 1], now)
            self._lapse_outlived(now)
            return
        self.cleanup()
        self._lapse_cell_offers(now)
        self._lapse_outlived(now)
        if self.state.turn >= self.package["game_end"]["after_turns"]:
            self._end_game()
        else:
            self._begin_turn(self.state.turn + 1, now)

    def cleanup(self) -> None:
        """Clean-up in the order of L.1.1: C1 tokens back, C2 Evocations rotated (Crown of the Summoner),
        C3 Physical Action Tokens flipped, C4 the Rooms to rebuild, C5 each scored, C6 each flipped."""
        s = self.state
        self._emit("CleanupBegan", {"turn": s.turn}, [{"op": "phase", "turn": s.turn, "phase": "cleanup"}])
        back = [{"op": "untoken", "mage": t["mage"], "slot": t["slot"]} for _, t in sorted(s.tokens.items())]
        self._emit("PersistentTokensReturned", {"tokens": sorted(s.tokens)}, back)  # C1 (R41)
        if s.options.get("crown_of_the_summoner"):  # C2 (R42)
            self._emit(
                "EvocationsRotated", {"mages": sorted(s.mages)}, [{"op": "rotate", "mage": m} for m in sorted(s.mages)]
            )
        flips = [
            {"op": "physical", "mage": m, "action": a, "side": "available"}
            for m, sheet in sorted(s.mages.items())
            for a, side in sorted(sheet["physical"].items())
            if side != "available"
        ]
        self._emit("PhysicalActionTokensFlipped", {"flipped": len(flips)}, flips)  # C3 (R43)
        full = sorted(r for r, room in s.rooms.items() if room["must_rebuild"])
        self._emit("RoomsToRebuild", {"rooms": full})  # C4 (R44)
        for r in full:  # C5 (R45-R50), one event per Room
            room = s.rooms[r]
            counts = dict(Counter(o for o in room["slots"] if o is not None))
            banner = self.package["banners"][r][room["side"]]
            pp = version_rules(self).score(counts, banner, s.options.get("ranking_mode", "dense"))  # as pinned
            self._emit(
                "RoomScored",
                {"room": r, "side": room["side"], "banner": list(banner), "counts": counts, "pp": pp},
                [{"op": "pp", "who": who, "amount": n, "why": f"rebuilt {r}"} for who, n in sorted(pp.items())],
            )
        for r in full:  # C6 (R31): flipped; the cubes go back to their owners (L-AMB-13)
            self._emit(
                "RoomFlipped", {"room": r, "returned": dict(Counter(s.rooms[r]["slots"]))}, [{"op": "flip", "room": r}]
            )

    def _lapse_cell_offers(self, now: datetime) -> None:
        """LH-5: a Cell offer lasts until Clean-up, when the Persistent Tokens go back (C1, L-AMB-8); a prompt
        still open for one is declined then, its lapse recorded, and its window closed."""
        for cid, prompt in sorted(self.state.prompts.items()):
            if prompt["kind"] != "cell":
                continue
            self._close_prompt(cid, DECLINE, "ChoiceDefaulted", now)
            self._emit(
                "ChoiceLapsed",
                {
                    "choice": cid,
                    "mage": prompt["mage"],
                    "reason": "a Cell offer lasts until Clean-up, when the Persistent Tokens go back",
                    "rule": "L-PERS-5",
                },
                [{"op": "offer_done", "id": prompt["command"]["offer"]}],
                audience=vis.powers([prompt["mage"]]),
            )

    def _lapse_outlived(self, now: datetime) -> None:
        """LH-7: a command belongs to the phase of the package that allows it. A choice its effect still waits for
        when that phase ends lapses then (nothing of the effect happens, as at a deadline that finds the phase
        gone), recorded with why, its window closed: so nothing stays offered that the phase now would refuse.
        A choice inside a resolution from a Cell stands until Clean-up, as the offer does (L-PERS-5, L-AMB-8)."""
        phase = self._phase_rules()
        may = set(phase["may"]) if phase else set()
        for cid, prompt in sorted(self.state.prompts.items()):
            command = prompt["command"]["command"]
            if command in may or (phase is not None and command in ("CellOffer", "ResolveFromCell")):
                continue
            why = (
                f"the phase of its {command} ended before the choice was made; {command} may not resolve in "
                f"{self.state.phase!r}"
            )
            self._emit(
                "ChoiceLapsed",
                {"choice": cid, "mage": prompt["mage"], "reason": why, "rule": "LH-7"},
                [{"op": "prompt_done", "id": cid}],
                audience=vis.powers([prompt["mage"]]),
            )
            self._window_closed(
                window_id=cid,
                reason="lapsed",
                closed_at=now.astimezone(timezone.utc).isoformat(),
                actor=SYSTEM,
                audience=vis.powers([prompt["mage"]]),
            )

    def _end_game(self) -> None:
        """The game end of the package: Trophies add Power Points (R37)."""
        per = self.package["game_end"]["trophy_pp"]
        scores = {m: sheet["pp"] + per * len(sheet["trophies"]) for m, sheet in sorted(self.state.mages.items())}
        scores[BLACK_ROSE] = self.state.black_rose["pp"] + per * len(self.state.black_rose["trophies"])
        self._reveal_deck()
        self._emit("GameEnded", {"scores": scores}, [{"op": "ended", "scores": scores}])


# Every Lodge event type's version (DESIGN "Event evolution"): a changed shape bumps it and adds an upcaster;
# tests/domain/test_lodge_game.py holds the fields of each version in tests/fixtures/lodge_event_manifest.json.
EVENT_VERSIONS: dict[str, int] = {
    name: 1
    for name in (
        "MageAdded",
        "SpellsPrepared",
        "DeckShuffled",
        "DeckCommitted",
        "DeckRevealed",
        "TurnBegan",
        "PhaseBegan",
        "SpellRevealed",
        "PhysicalActionUsed",
        "EvocationCommanded",
        "BlackRoseActed",
        "PhraseResolved",
        "EffectResolved",
        "PersistentPlaced",
        "PersistentSkipped",
        "PersistentEnded",
        "CellOfferMade",
        "CellOfferClosed",
        "ChoiceOffered",
        "ChoiceAnswered",
        "ChoiceDefaulted",
        "ChoiceLapsed",
        "Passed",
        "CleanupBegan",
        "PersistentTokensReturned",
        "EvocationsRotated",
        "PhysicalActionTokensFlipped",
        "RoomsToRebuild",
        "RoomScored",
        "RoomFlipped",
        "GameEnded",
    )
} | {"LodgeCreated": 2}  # 2: the catalogue pinned by name, version and content hash


def lodge_event_types() -> dict[str, type]:
    """The event classes the Lodge defines (the platform's own are versioned with the platform)."""
    return {name: getattr(LodgeGame, name) for name in EVENT_VERSIONS}


for _name, _cls in lodge_event_types().items():
    setattr(_cls, "class_version", EVENT_VERSIONS[_name])  # typed as a plain type here


def _upcast_created_v1_v2(state: dict[str, Any]) -> None:
    """Version 1 recorded only the catalogue's version: no pin, so the game keeps the installed catalogue."""
    state["catalogue_pin"] = None


setattr(lodge_event_types()["LodgeCreated"], "upcast_v1_v2", staticmethod(_upcast_created_v1_v2))
