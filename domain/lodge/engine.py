"""The effect resolution machine (L.1.2, R1-R4) and the Persistent Effect lifecycle (L.1.3, R5-R10).

``Engine`` resolves effects on a scratch copy of the state and returns what happened as event records
``(kind, data, changes)``: one ``PhraseResolved`` per phrase, in printed order (R2), each applied in full
or with the parts that cannot apply skipped and the reason and rule recorded (R3); then ``EffectResolved``
even if nothing applied (R4), after which "after an Effect resolves" triggers fire (L-EFF-3). The game
records the same records as events; folding their changes reproduces the scratch state.

A player's choices (targets, each ``Move 1`` step, which cubes to heal) arrive with the command (L.3), or,
when the command leaves them to a prompt (``Choices.prompt``), the engine stops at the first one it needs
and raises ``ChoiceNeeded`` with the legal options it computed and who chooses; nothing of the effect is
recorded until the chooser answers (or the deadline picks the default) and the effect resolves again from
the start with every answer so far (``Answers``, consumed in the order the choices are asked, through the
Persistent Effects it triggers too). A choice the rules do not allow is refused before anything is recorded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from domain.errors import RuleViolation
from domain.lodge.catalogue import Card, Catalogue, Phrase, describe
from domain.lodge.scoring import score_defeat
from domain.lodge.state import BLACK_ROSE, DUMMY, BoardChange, LodgeState, TokenState, apply_change, damage_track

Record = tuple[str, dict[str, Any], list[BoardChange]]  # an event's kind, its data and its changes
Skipped = dict[str, str]  # a part of a phrase that did not apply: part, reason, rule (R3)
Outcome = tuple[list[str], list[Skipped]]  # what a phrase applied, and what it skipped


@dataclass(frozen=True)
class Source:
    """Who resolves an effect and from what: the resolver (a Mage id or the Black Rose), the Model that
    acts for it (the Mage, or an Evocation), the kind of source and whether it is a Forgotten Spell."""

    resolver: str
    kind: str  # spell, physical, evocation, black_rose, persistent
    card: str
    model: str | None = None
    forgotten: bool = False
    physical_attack: bool = False
    token: str | None = None  # the Persistent Token whose effect this is


@dataclass
class Answers:
    """The answers to a command's prompts so far, in the order they were asked; resolving again from the start
    consumes them in the same order, and asks the first choice beyond them."""

    given: list[str] = field(default_factory=list)
    used: int = 0

    def next(self) -> str | None:
        if self.used < len(self.given):
            self.used += 1
            return self.given[self.used - 1]
        return None


@dataclass
class Choices:
    moves: list[str] = field(default_factory=list)  # one Room per Move 1 step (LH-2)
    heal: list[int] | None = None  # which cubes, by position on the track left to right (LH-3)
    prompt: bool = False  # a step not answered in advance is asked for (ChoiceNeeded) rather than refused
    heal_colours: list[str] | None = None  # whose cubes to heal, each the rightmost of its owner
    answers: Answers = field(default_factory=Answers)  # the prompts' answers so far (L.3)


class ChoiceNeeded(Exception):
    """The effect needs a choice the command did not make: ``options`` are the legal ones, ``default`` the one
    the deadline takes, ``rule`` the rule an answer outside ``options`` breaks, ``chooser`` the Mage asked."""

    def __init__(
        self, kind: str, question: str, options: list[str], default: str, rule: str, field: str, chooser: str = ""
    ) -> None:
        super().__init__(question)
        self.kind, self.question, self.options, self.default = kind, question, options, default
        self.rule, self.field, self.chooser = rule, field, chooser


def ask(choices: Choices, chooser: str, kind: str, question: str, options: list[str], default: str, rule: str) -> str:
    """The answer to a choice: the next one given, checked against the options computed now; or, when none is
    left, ``ChoiceNeeded``. The Black Rose has no seat to ask: its choices take their default (LH-7, the host
    plays its cards as printed)."""
    if chooser == BLACK_ROSE:
        return default
    answer = choices.answers.next()
    if answer is None:
        raise ChoiceNeeded(kind, question, options, default, rule, "option", chooser)
    if answer not in options:
        raise RuleViolation(
            f"{answer!r} is not a legal answer to {question} ({rule}): one of {', '.join(options)}",
            rule=rule,
            field="option",
        )
    return answer


class Engine:
    def __init__(
        self, state: LodgeState, catalogue: Catalogue, package: dict[str, Any], options: dict[str, Any], at: int = 0
    ) -> None:
        self.s = state
        self.at = at  # the game's version when the command began: effect ids are unique in the game
        self.cat = catalogue
        self.package = package
        self.options = options
        self.records: list[Record] = []
        self._changes: list[BoardChange] = []
        self._occurred: list[tuple[str, str, str]] = []  # (trigger, where, model) seen while resolving
        self._fired: set[str] = set()  # tokens fired in this chain (L-AMB-9)
        self._current_target: str | None = None
        self._target_room: str | None = None

    # ------------------------------------------------------------------ plumbing

    def change(self, ch: BoardChange) -> None:
        apply_change(self.s, ch)
        self._changes.append(ch)

    def record(self, kind: str, data: dict[str, Any], changes: list[BoardChange] | None = None) -> None:
        self.records.append((kind, data, changes if changes is not None else []))

    def emit(self, kind: str, data: dict[str, Any], *changes: BoardChange) -> None:
        """Apply these changes to the scratch board and record them as one event."""
        self._changes = []
        for ch in changes:
            self.change(ch)
        self.record(kind, data, self._changes)

    def colour_of(self, who: str) -> str:
        return "black" if who == BLACK_ROSE else self.s.mages[who]["colour"]

    def controller(self, model: str) -> str | None:
        if model in self.s.mages:
            return model
        ev = self.s.evocations.get(model)
        return ev["controller"] if ev else None

    def health(self, model: str) -> int:
        if model in self.s.mages:
            return int(self.package["mage_health"])
        ev = self.s.evocations[model]
        return self.cat.evocation_by_id[ev["card"]].health + ev["health_mod"]

    def room_of(self, model: str | None) -> str | None:
        return self.s.positions.get(model) if model else None

    def models_in(self, room: str) -> list[str]:
        return sorted(m for m, r in self.s.positions.items() if r == room)

    def is_cell(self, room: str) -> bool:
        return self.cat.room_by_id[room].cell_of is not None

    # ------------------------------------------------------------------ R1-R4

    def resolve(
        self,
        phrases: list[Phrase],
        source: Source,
        target: str | None,
        choices: Choices | None = None,
        trigger: dict[str, Any] | None = None,
    ) -> None:
        """Resolve one effect, then the persistent effects it triggered (each at most once per chain)."""
        choices = choices or Choices()
        self._resolve_one(phrases, source, target, choices, trigger)
        self._fire_triggers(source, choices)

    def _resolve_one(
        self,
        phrases: list[Phrase],
        source: Source,
        target: str | None,
        choices: Choices,
        trigger: dict[str, Any] | None,
    ) -> None:
        effect = f"{source.card}@{self.at}.{len(self.records)}"
        self._current_target = target
        self._target_room = target if target in self.s.rooms else None
        moves = list(choices.moves)
        statuses = []
        for i, phrase in enumerate(phrases):  # R2: in printed order
            self._changes = []
            applied, skipped = self._phrase(phrase, source, target, choices, moves)
            status = "applied" if not skipped else "skipped" if not applied else "partly applied"
            statuses.append(status)
            self.record(
                "PhraseResolved",
                {
                    "effect": effect,
                    "card": source.card,
                    "resolver": source.resolver,
                    "index": i,
                    "words": describe(phrase),
                    "phrase": phrase.model_dump(exclude_defaults=True),
                    "status": status,
                    "applied": applied,
                    "skipped": skipped,
                },
                self._changes,
            )
        if moves:
            raise RuleViolation("more Move steps were chosen than the effect allows", rule="L-MOVE-1", field="moves")
        self._changes = []
        self.record(  # R4: resolved once every phrase was attempted, even if none applied
            "EffectResolved",
            {
                "effect": effect,
                "card": source.card,
                "resolver": source.resolver,
                "target": target,
                "statuses": statuses,
                "trigger": trigger,
            },
        )
        self._occurred.append(("effect_resolved", source.token or "", ""))

    def _fire_triggers(self, root: Source, choices: Choices) -> None:
        """L-PERS-1: every active Persistent Token whose condition occurred resolves its effect; a token fires
        at most once per chain and its own resolution cannot trigger it again (L-AMB-9). A choice a triggered
        effect needs is its token owner's, always asked (nobody answers it in advance): it shares the chain's
        answers, so the chain resolves again in the same order once it is answered."""
        if root.token:
            self._fired.add(root.token)
        while self._occurred:
            trig, where, model = self._occurred.pop(0)
            for key, tok in sorted(self.s.tokens.items()):
                if key in self._fired:
                    continue
                card = self.cat.cards[tok["card"]]
                assert card.persistent is not None
                if card.persistent.trigger != trig:
                    continue
                if trig == "enters_room" and not (tok["kind"] == "room" and tok["target"] == where):
                    continue
                if trig == "damaged" and tok["target"] != where:
                    continue
                if trig == "effect_resolved" and where == key:
                    continue
                self._fired.add(key)
                target = model if trig == "enters_room" else tok["target"]
                src = Source(
                    tok["mage"], "persistent", tok["card"], model=tok["mage"], forgotten=card.forgotten, token=key
                )
                self._offer_from_cells(key, tok, target, trig)
                self._resolve_one(
                    card.persistent.phrases,
                    src,
                    target,
                    Choices(prompt=True, answers=choices.answers),
                    {"token": key, "on": trig, "model": model},
                )

    def _offer_from_cells(self, key: str, tok: TokenState, target: str, trig: str) -> None:
        """L-PERS-5 (R10): a Mage in their own Cell may also resolve a Revealed Card's Persistent Effect
        when its condition occurs; the offer waits for their choice (LH-5) until Clean-up. "Also": the token's
        own Mage resolves it as it fires, so she is not offered it a second time from her Cell."""
        if not self.s.mages[tok["mage"]]["slots"][tok["slot"]]["revealed"]:
            return
        for mage, sheet in sorted(self.s.mages.items()):
            if mage != tok["mage"] and self.s.positions.get(mage) == self.cat.cell_of(sheet["colour"]):
                oid = f"offer-{self.s.next_id}"
                self._changes = []
                self.change(
                    {"op": "offer", "id": oid, "mage": mage, "token": key, "card": tok["card"], "target": target}
                )
                self.record(
                    "CellOfferMade", {"offer": oid, "mage": mage, "card": tok["card"], "on": trig}, self._changes
                )

    # ------------------------------------------------------------------ targets

    def reach(self, phrase: Phrase, source: Source, target: str | None) -> Outcome:
        """The Models (or Rooms) a phrase reaches, and the parts skipped because there are none."""
        if phrase.to == "target":
            return ([target] if target else []), ([] if target else [self.skip("target", "no target", "R3")])
        if phrase.to == "self":
            if source.model is None:
                return [], [self.skip("self", "the Black Rose has no Model", "R3")]
            return [source.model], []
        room = self.room_of(source.model)
        if room is None:
            return [], [self.skip(phrase.to, "the resolver is not in the Lodge", "R3")]
        if phrase.to == "here":
            return [room], []
        models = self.models_in(room)
        return models, ([] if models else [self.skip("models", f"no Model in {room}", "R3")])

    @staticmethod
    def skip(part: str, reason: str, rule: str) -> Skipped:
        return {"part": part, "reason": reason, "rule": rule}

    # ------------------------------------------------------------------ the phrases

    def _phrase(self, p: Phrase, source: Source, target: str | None, choices: Choices, moves: list[str]) -> Outcome:
        targets, skipped = self.reach(p, source, target)
        applied: list[str] = []
        for t in targets:
            a, s = _PRIMITIVES[p.op](self, p, source, t, choices, moves)
            applied += a
            skipped += s
        return applied, skipped

    def _dummy(self, t: str, what: str, rule: str) -> list[Skipped] | None:
        return [self.skip(what, f"the Dummy Target ignores this ({rule})", "L-DUMMY-2")] if t == DUMMY else None

    def _damage(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        amount = p.amount or 0
        if (d := self._dummy(t, f"{amount} Damage", "R24")) is not None:
            return [], d
        if t not in self.s.positions:
            return [], [self.skip(f"{amount} Damage to {t}", f"{t} is not in the Lodge", "R3")]
        own = self.controller(t) == src.resolver
        if own and not p.hits_own:
            rule = "L-IMM-2" if src.kind == "evocation" else "L-IMM-1"
            return [], [self.skip(f"{amount} Damage to {t}", f"{t} ignores Damage from its own side", rule)]
        placed = 0
        for _ in range(amount):
            if len(damage_track(self.s, t)) >= self.health(t):
                break
            self.change({"op": "cube", "model": t, "by": src.resolver, "dealt_by": src.model})
            placed += 1
        skipped = []
        if placed < amount:
            skipped.append(self.skip(f"{amount - placed} Damage to {t}", f"{t} was defeated first", "L-AMB-10"))
        if placed:
            self._occurred.append(("damaged", t, t))
        if len(damage_track(self.s, t)) >= self.health(t):
            self._defeat(t, src)
        return ([f"{placed} Damage to {t}"] if placed else []), skipped

    def _defeat(self, t: str, src: Source) -> None:
        """L-EVO-4 for an Evocation; for a Mage, L-DEF-1 and L-DEF-2, then the package's house rule."""
        track = damage_track(self.s, t)
        returned = dict(Counter(track))
        if t in self.s.evocations:  # L-EVO-4 (R16)
            self.change({"op": "evocation_gone", "evocation": t, "returned": returned, "defeated_by": src.resolver})
            return
        by = src.resolver  # L-DEF-1 (R36): the trophy goes to whoever inflicted the defeating Damage
        if by != t and self.s.mages[t]["trophy_tokens"] > 0:
            self.change({"op": "trophy", "to": by, "of": t})
        for who, pp in sorted(score_defeat(returned, self.package.get("defeat_pp", [])).items()):  # L-DEF-2
            self.change({"op": "pp", "who": who, "amount": pp, "why": f"defeat of {t}"})
        cell = self.cat.cell_of(self.s.mages[t]["colour"])
        self.change({"op": "mage_down", "mage": t, "returned": returned, "cell": cell, "defeated_by": by})

    def _defeat_op(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        """An Effect that defeats a Mage outright: its resolver takes the Trophy (R36)."""
        if (d := self._dummy(t, "defeat", "R24")) is not None:
            return [], d
        if t not in self.s.mages or t not in self.s.positions:
            return [], [self.skip("defeat", f"{t} is not a Mage in the Lodge", "R3")]
        self._defeat(t, src)
        return [f"{t} defeated"], []

    def _heal(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        amount = p.amount or 0
        if (d := self._dummy(t, f"Heal {amount}", "R26")) is not None:
            return [], d
        if t not in self.s.positions:
            return [], [self.skip(f"Heal {amount} on {t}", f"{t} is not in the Lodge", "R3")]
        track = damage_track(self.s, t)
        n = min(amount, len(track))
        rightmost = list(range(len(track) - n, len(track)))
        avatar = src.model in self.s.mages and self.s.mages[src.model]["avatar"] and t in self.s.mages
        if ch.heal is None and ch.heal_colours is None and ch.prompt and not avatar and n < len(track):
            # LH-3 / LH-4 (L-AMB-7): Heal N on more than N cubes applies in full several ways; the resolving Mage
            # picks whose cubes (the cubes of one owner are alike); the default is the rightmost N, as before
            options = sorted({",".join(sorted(c)) for c in combinations(track, n)})
            if len(options) > 1:
                default = ",".join(sorted(track[len(track) - n :]))
                answer = ask(ch, src.resolver, "heal", f"whose {n} cubes to heal on {t}", options, default, "L-HEAL-1")
                ch = Choices(ch.moves, None, ch.prompt, answer.split(",") if answer else [], ch.answers)
        if ch.heal is None and ch.heal_colours is not None:
            left = list(enumerate(track))
            picked = []
            for colour in ch.heal_colours:
                i = next(i for i, c in reversed(left) if c == colour)
                left = [(j, c) for j, c in left if j != i]
                picked.append(i)
            ch = Choices(ch.moves, sorted(picked), answers=ch.answers)
        chosen = sorted(set(ch.heal)) if ch.heal is not None else rightmost
        if len(chosen) > amount or any(not 0 <= i < len(track) for i in chosen):
            raise RuleViolation(
                f"choose at most {amount} of the {len(track)} cubes on {t}", rule="L-HEAL-1", field="heal"
            )
        if avatar and chosen != list(range(len(track) - len(chosen), len(track))):
            raise RuleViolation("an Avatar heals a Mage's cubes starting from the right", rule="L-HEAL-2", field="heal")
        owners = []
        for i in sorted(chosen, reverse=True):
            owners.append(track[i])
            self.change({"op": "uncube", "model": t, "index": i, "returned_to": track[i]})
        skipped = []
        if len(chosen) < amount:
            skipped.append(
                self.skip(f"Heal {amount - len(chosen)}", f"only {len(chosen)} cubes healed on {t}", "L-HEAL-1")
            )
        return ([f"healed {len(chosen)} on {t}: " + ", ".join(owners)] if chosen else []), skipped

    def _step_rooms(self, model: str) -> list[str]:
        here = self.s.positions[model]
        rooms = self.cat.room_by_id[here].adjacent
        return [r for r in rooms if not (model in self.s.mages and self.is_cell(r))]

    def _move(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        amount = p.amount or 0
        if (d := self._dummy(t, f"Move {amount}", "R25")) is not None:
            return [], d
        if t not in self.s.positions:
            return [], [self.skip(f"Move {amount}", f"{t} is not in the Lodge", "R3")]
        applied: list[str] = []
        for step in range(amount):  # L-MOVE-1: N single steps, each to an adjacent Room
            legal = self._step_rooms(t)
            if not legal:
                return applied, [self.skip(f"Move {amount - step}", "no adjacent Room it may enter", "L-MOVE-3")]
            if not mv and ch.prompt:
                # LH-2: the player picks; at the deadline the first adjacent Room in the catalogue's order, so
                # the phrase still applies in full as R2 asks
                room = ask(ch, src.resolver, "move", f"Move step {step + 1} of {t}", legal, legal[0], "L-MOVE-1")
                self.change({"op": "move", "model": t, "from": self.s.positions[t], "room": room})
                self._occurred.append(("enters_room", room, t))
                applied.append(f"{t} to {room}")
                continue
            if not mv:
                raise RuleViolation(
                    f"choose a Room for Move step {step + 1} of {t}: one of {', '.join(legal)}",
                    rule="L-MOVE-1",
                    field="moves",
                )
            room = mv.pop(0)
            if room not in legal:
                rule = "L-MOVE-3" if room in self.cat.room_by_id and self.is_cell(room) else "L-MOVE-1"
                raise RuleViolation(
                    f"{t} cannot move to {room!r}; it may move to {', '.join(legal)}", rule=rule, field="moves"
                )
            self.change({"op": "move", "model": t, "from": self.s.positions[t], "room": room})
            self._occurred.append(("enters_room", room, t))
            applied.append(f"{t} to {room}")
        return applied, []

    def _place(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        if (d := self._dummy(t, "Place", "R25")) is not None:
            return [], d
        if p.room == "own_cell":
            if t not in self.s.mages:
                return [], [self.skip("Place", f"{t} has no Cell", "L-MOVE-3")]
            room = self.cat.cell_of(self.s.mages[t]["colour"])
        elif p.room == "here":
            room = self.room_of(src.model)
        else:
            room = self._target_room
        if room is None:
            return [], [self.skip("Place", "no Room to place in", "R3")]
        if t in self.s.mages and self.is_cell(room) and room != self.cat.cell_of(self.s.mages[t]["colour"]):
            return [], [self.skip("Place", f"a Mage is placed only in their own Cell, not {room}", "L-MOVE-3")]
        came = self.s.positions.get(t)
        self.change({"op": "move", "model": t, "from": came, "room": room, "from_reserve": came is None})
        self._occurred.append(("enters_room", room, t))
        return [f"{t} placed in {room}" + (" from the reserve" if came is None else "")], []

    def _instability(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        amount = p.amount or 0
        if t not in self.s.rooms:
            return [], [self.skip(f"{amount} Instability", f"{t} is not a Room", "R3")]
        slots = self.s.rooms[t]["slots"]
        placed = 0
        for i, s in enumerate(slots):  # L-INST-1 (R32): vacant slots from the left
            if placed == amount:
                break
            if s is None:
                self.change({"op": "instability", "room": t, "slot": i, "by": src.resolver})
                placed += 1
        skipped = []
        if placed < amount:
            skipped.append(self.skip(f"{amount - placed} Instability", f"no vacant slot in {t}", "L-INST-1"))
        return ([f"{placed} Instability in {t}"] if placed else []), skipped

    def _gain_pp(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        amount = p.amount
        if p.per is not None:
            target = self._current_target
            if target == DUMMY:
                return [], [self.skip(f"Power Points per {p.per}", "refers to a Dummy Target value (R26)", "L-DUMMY-2")]
            if p.per == "target_strength":
                ev = self.s.evocations.get(target or "")
                if ev is None:
                    return [], [self.skip("Power Points per Strength", "the target has no Strength", "R3")]
                amount = self.cat.evocation_by_id[ev["card"]].strength
            else:
                if target not in self.s.mages:
                    return [], [self.skip("Power Points per Trophy", "the target has no Trophies", "R3")]
                amount = len(self.s.mages[target]["trophies"])
        who = src.resolver
        self.change({"op": "pp", "who": who, "amount": amount or 0, "why": src.card})
        return [f"{who} gains {amount} Power Points"], []

    def _steal_pp(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        amount = p.amount or 0
        if (d := self._dummy(t, f"steal {amount} Power Points", "R24")) is not None:
            return [], d
        owner = self.controller(t)
        if owner is None or owner == src.resolver:
            return [], [self.skip("steal Power Points", "nobody else's to steal", "R3")]
        n = min(amount, self.s.mages[owner]["pp"])
        if n:
            self.change({"op": "pp", "who": owner, "amount": -n, "why": src.card})
            self.change({"op": "pp", "who": src.resolver, "amount": n, "why": src.card})
        skipped = [self.skip(f"steal {amount - n}", f"{owner} has only {n}", "R3")] if n < amount else []
        return ([f"{n} Power Points from {owner}"] if n else []), skipped

    def _steal_trophy(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        if (d := self._dummy(t, "take a Trophy", "R24")) is not None:
            return [], d
        if t not in self.s.mages or not self.s.mages[t]["trophies"]:
            return [], [self.skip("take a Trophy", f"{t} holds no Trophy", "R3")]
        held = self.s.mages[t]["trophies"]
        of = held[-1]
        owners = sorted(set(held))
        if ch.prompt and len(owners) > 1:
            # LH-4 / L-AMB-7: "take a Trophy" applies in full several ways when the target holds Trophies of
            # several Mages; the resolver picks whose; the default is the one the target gained last
            of = ask(ch, src.resolver, "trophy", f"whose Trophy to take from {t}", owners, of, "L-EFF-2")
        self.change({"op": "trophy", "to": src.resolver, "of": of, "from": t})
        return [f"Trophy of {of} from {t}"], []

    def _summon(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        who = src.resolver
        if who not in self.s.mages or self.s.mages[who]["bases"] <= 0:
            return [], [self.skip("summon", "no Evocation Base left", "R3")]
        if not self.s.deck:
            return [], [self.skip("summon", "the Evocation deck is empty", "R3")]
        if t not in self.s.rooms:
            return [], [self.skip("summon", f"{t} is not a Room", "R3")]
        room = t
        eid = f"ev{self.s.next_id}"
        card = self.s.deck[0]
        self.change({"op": "summon", "evocation": eid, "card": card, "controller": who, "room": room})
        self._occurred.append(("enters_room", room, eid))
        return [f"{self.cat.evocation_by_id[card].name} ({eid}) summoned in {room}"], []

    def _remove_evocation(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        if (d := self._dummy(t, "remove", "R25")) is not None:
            return [], d
        ev = self.s.evocations.get(t)
        if ev is None:
            return [], [self.skip("remove", f"{t} is not an Evocation in the Lodge", "R3")]
        own = ev["controller"] == src.resolver
        # a Persistent Effect is a Spell Effect (R5): R17/R18 hold for it whatever L-AMB-6's option says
        spell = src.kind in ("spell", "persistent")
        restricted = spell or self.options.get("non_spell_removal_restricted", True)
        if not own and not src.forgotten and restricted:  # L-EVO-5: R19, R20, then R17 and R18
            card = self.cat.evocation_by_id[ev["card"]]
            if card.forgotten:
                return [], [
                    self.skip(
                        "remove", "a non-Forgotten Spell cannot remove another's Forgotten Evocation (R17)", "L-EVO-5"
                    )
                ]
            if self.health(t) > 3:
                return [], [self.skip("remove", f"its current Health is {self.health(t)} > 3 (R18)", "L-EVO-5")]
        self.change(
            {
                "op": "evocation_gone",
                "evocation": t,
                "returned": dict(Counter(ev["damage"])),
                "removed_by": src.resolver,
            }
        )
        return [f"{t} removed"], []

    def _health(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        if (d := self._dummy(t, "Health", "R26")) is not None:
            return [], d
        if t not in self.s.evocations:
            return [], [self.skip("Health", f"{t} is not an Evocation", "R3")]
        self.change({"op": "health", "evocation": t, "amount": p.amount})
        return [f"{t} Health +{p.amount}"], []

    def _discard_spell(self, p: Phrase, src: Source, t: str, ch: Choices, mv: list[str]) -> Outcome:
        if (d := self._dummy(t, "discard a Spell", "R24")) is not None:
            return [], d
        slot = p.slot or "I"
        if t not in self.s.mages or self.s.mages[t]["slots"][slot]["card"] is None:
            return [], [self.skip("discard", f"no Spell in slot {slot} of {t}", "R3")]
        self.discard(t, slot, "its Spell Card was discarded")
        return [f"{t} discards slot {slot}"], []

    def discard(self, mage: str, slot: str, why: str) -> None:
        """A Spell Card leaves the Mage Sheet: its Persistent Effect ends and the token returns (L-PERS-4)."""
        self.change({"op": "discard_spell", "mage": mage, "slot": slot})
        if f"{mage}:{slot}" in self.s.tokens:
            self.change({"op": "untoken", "mage": mage, "slot": slot, "why": why})

    def place_token(self, mage: str, slot: str, card: Card, target: str | None) -> None:
        """L-PERS-2/3 (R7, R8): the caster's token of the slot goes on the target: a Mage's Sheet, an Evocation's
        card, or in a Room; one token per slot, so a slot whose token is out places none."""
        self._changes = []
        key = f"{mage}:{slot}"
        if key in self.s.tokens:
            self.record(
                "PersistentSkipped",
                {
                    "mage": mage,
                    "slot": slot,
                    "card": card.id,
                    "reason": f"the Persistent Token of slot {slot} is already in play (L-PERS-2)",
                },
            )
            return
        if target is None or target == DUMMY:
            self.record(
                "PersistentSkipped",
                {
                    "mage": mage,
                    "slot": slot,
                    "card": card.id,
                    "reason": "no target to hold the Persistent Token (L-DUMMY-2)",
                },
            )
            return
        kind = "room" if target in self.s.rooms else "mage" if target in self.s.mages else "evocation"
        on = {"room": f"in {target}", "mage": f"on the Mage Sheet of {target}", "evocation": f"on the card of {target}"}
        self.change({"op": "token", "mage": mage, "slot": slot, "card": card.id, "kind": kind, "target": target})
        self._fired.add(key)  # the effect that places a token does not also trigger it (L-AMB-9)
        self.record(
            "PersistentPlaced",
            {"mage": mage, "slot": slot, "card": card.id, "target": target, "on": on[kind]},
            self._changes,
        )


# Each primitive's resolution on one target, by the op a phrase names (domain.lodge.catalogue.OPS).
_PRIMITIVES: dict[str, Callable[[Engine, Phrase, Source, str, Choices, list[str]], Outcome]] = {
    "damage": Engine._damage,
    "heal": Engine._heal,
    "move": Engine._move,
    "place": Engine._place,
    "instability": Engine._instability,
    "gain_pp": Engine._gain_pp,
    "steal_pp": Engine._steal_pp,
    "steal_trophy": Engine._steal_trophy,
    "summon": Engine._summon,
    "remove_evocation": Engine._remove_evocation,
    "health": Engine._health,
    "discard_spell": Engine._discard_spell,
    "defeat": Engine._defeat_op,
}
