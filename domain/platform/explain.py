"""Every result explains itself (issue 29): a derivation of a result, built from the events one viewer was shown.

A derivation is built from a viewer's own events (the export's shape: ``seq``, ``type``, ``data``; the events
``domain.visibility.can_see`` lets that viewer see, as ``GET /games/{id}/export`` gives them), never from the game's
state: what it shows, the viewer was already shown, so a resister sees what P.4 lets them see and the GM everything
but what is sealed. A result is named by a stable id (``action:<id>``, ``post:<id>``...), the same for every viewer.

Its shape (plain JSON):

- ``dice``: each roll it used, with its roll number, faces and (where the viewer holds them) commitment, key and
  Merkle path, so ``emissary verify`` checks it;
- ``steps``: each a term or an operation over earlier terms, with the rule id it applies and the event it was read
  from (the viewer's ``seq``); ``op`` is one of ``OPS``, ``args`` are numbers or ``@<step id>``;
- ``result``: the published outcome, each field naming the step that computes it (``recomputes`` checks every
  step's value from its own terms, and each published field against its step);
- ``withheld``: what exists but this viewer may not see (in words), so nobody mistakes an absence for a zero.

A ruleset derives its own results through ``Ruleset.derive(events) -> {result id: derivation}``; every game gets
the platform's own (``platform_derivations``: a post's ``[roll NdS]``), so a ruleset that derives nothing yet still
answers for those.

A result is derived by the rules of the version in force when it was made: the version the game was created at, then
each version it adopted (issue 29 item 3), from the ``RulesChangeTold`` that told the viewer of the adoption on
(``InForce``, ``rules_of``). A result recorded before the phase the adoption counts from stands derived as it was
decided then; one recorded since and re-decided by the adoption (the board shows it amended) is derived as the adopted
version re-decided it, saying so (``redecided``: the viewer's line numbers it among the viewer's own events).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from domain.errors import DomainError, NotFound
from domain.platform import ruleset as registry
from domain.platform.i18n import N_, _

Events = Sequence[Mapping[str, Any]]
R = TypeVar("R")  # a ruleset's version rules (``rules_of``)
DICE_RULE = "DESIGN-DICE"  # the platform's committed dice (DESIGN "The event model": commit-reveal, roll numbers)


def _value(arg: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(arg, str) and arg.startswith("@"):
        return values[arg[1:]]
    return arg


def _count(args: Mapping[str, Any], dice: Sequence[Mapping[str, Any]], values: Mapping[str, Any]) -> int:
    faces = dice[args["roll"]]["faces"]
    return sum(1 for i in args["dice"] if 0 <= i < len(faces) and faces[i] in args["faces"])


OPS: dict[str, Callable[[Any, Sequence[Mapping[str, Any]], Mapping[str, Any]], Any]] = {
    # a value read from an event (its ``seq`` says which): nothing to recompute
    "given": lambda args, dice, values: None,
    # how many of the named dice of a roll show one of ``faces``
    "count": _count,
    "sum_faces": lambda args, dice, values: sum(dice[args["roll"]]["faces"]),
    "sum": lambda args, dice, values: sum(_value(a, values) for a in args),
    "minus": lambda args, dice, values: _value(args[0], values) - _value(args[1], values),
    "times": lambda args, dice, values: _value(args[0], values) * _value(args[1], values),
    "minus_floor0": lambda args, dice, values: max(0, _value(args[0], values) - _value(args[1], values)),
    "at_least": lambda args, dice, values: _value(args[0], values) >= _value(args[1], values),
    "half_up": lambda args, dice, values: -(-_value(args[0], values) // 2),
    "floor_div": lambda args, dice, values: _value(args[0], values) // _value(args[1], values),
    "min": lambda args, dice, values: min(_value(a, values) for a in args),
    "equals": lambda args, dice, values: _value(args[0], values) == _value(args[1], values),
    # the list of the terms' values, in order
    "list": lambda args, dice, values: [_value(a, values) for a in args],
    # the one label whose term is highest, or None on a tie (a contest: a Certamen)
    "unique_max": lambda args, dice, values: _unique_max({k: _value(v, values) for k, v in args.items()}),
    # a contest (P-BAT-8's goals): the one side with strictly more, and more than nothing; None on a tie, or when the
    # side that would win is ``blocked``
    "contest": lambda args, dice, values: _contest(
        {k: _value(v, values) for k, v in args["sides"].items()}, args.get("blocked")
    ),
    # everyone with the highest score, sorted, once it reaches ``target``; among them, given ``tiebreak`` (a number a
    # side), those with the most (a Reckoning: A-RECK-5, A-AMB-8)
    "top_reaching": lambda args, dice, values: _top_reaching(
        {k: _value(v, values) for k, v in args["scores"].items()},
        _value(args["target"], values),
        {k: _value(v, values) for k, v in args["tiebreak"].items()} if args.get("tiebreak") else None,
    ),
    # the first label in ``order`` whose score is the lowest (a Reckoning's next starting player: A-ORDER-2)
    "first_lowest": lambda args, dice, values: _first_lowest(
        args["order"], {k: _value(v, values) for k, v in args["scores"].items()}
    ),
    # what became of a phrase with this many parts applied and skipped: applied, partly applied or skipped
    "phrase_status": lambda args, dice, values: (
        "applied" if not args[1] else "skipped" if not args[0] else "partly applied"
    ),
}


def _contest(scores: Mapping[str, Any], blocked: str | None) -> str | None:
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    ahead = bool(ranked) and ranked[0][1] > 0 and (len(ranked) == 1 or ranked[0][1] > ranked[1][1])
    return ranked[0][0] if ahead and ranked[0][0] != blocked else None


def _top_reaching(scores: Mapping[str, Any], target: Any, tiebreak: Mapping[str, Any] | None) -> list[str]:
    top = max(scores.values(), default=None)
    if top is None or top < target:
        return []
    best = sorted(k for k, v in scores.items() if v == top)
    if tiebreak is not None:
        most = max(tiebreak[k] for k in best)
        best = [k for k in best if tiebreak[k] == most]
    return best


def _first_lowest(order: Sequence[str], scores: Mapping[str, Any]) -> str | None:
    low = min(scores.values(), default=None)
    return next((k for k in order if scores.get(k) == low), None)


def _unique_max(scores: Mapping[str, Any]) -> str | None:
    top = max(scores.values(), default=None)
    leaders = [k for k, v in scores.items() if v == top]
    return leaders[0] if len(leaders) == 1 else None


@dataclass
class Derivation:
    """A derivation as it is built: dice, steps, the published result and what is withheld."""

    result_id: str
    kind: str
    title: str
    source: Mapping[str, Any]  # the event that published the result: its ``seq`` and ``type``
    dice: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    withheld: list[str] = field(default_factory=list)
    provisional: bool = False

    def roll(self, says: str, roll: Mapping[str, Any], seq: int | None, **params: Any) -> int:
        """Add a roll as the event carries it (faces, roll number, and its proof where shown), labelled ``says``
        (a phrase marked with ``N_``, its values by name in ``params``); its index."""
        shown = {k: roll[k] for k in ("roll_no", "faces", "sides", "commitment", "key", "path") if roll.get(k)}
        words = {"label": says.format(**params), "says": says, "params": params}
        self.dice.append({**words, **shown, "faces": list(roll.get("faces") or []), "seq": seq})
        return len(self.dice) - 1

    def given(self, step_id: str, rule: str, says: str, value: Any, seq: int | None, **params: Any) -> str:
        """A term read from an event (its ``seq``)."""
        return self.step(step_id, rule, says, "given", [], value, seq=seq, **params)

    def step(
        self, step_id: str, rule: str, says: str, op: str, args: Any, value: Any, seq: int | None = None, **params: Any
    ) -> str:
        """An operation over earlier terms (``OPS``), in words ``says`` (a phrase marked with ``N_``, translated where
        it is shown, its values by name in ``params``; ``text`` is it in English); its reference ``@<id>``."""
        words = {"text": says.format(**params), "says": says, "params": params}
        self.steps.append({"id": step_id, "rule": rule, **words, "op": op, "args": args, "value": value})
        if seq is not None:
            self.steps[-1]["seq"] = seq
        return f"@{step_id}"

    def value(self, ref: str) -> Any:
        """The value of a step, by its reference."""
        return next(s["value"] for s in self.steps if s["id"] == ref.lstrip("@"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "result_id": self.result_id,
            "kind": self.kind,
            "title": self.title,
            "source": dict(self.source),
            "provisional": self.provisional,
            "dice": self.dice,
            "steps": self.steps,
            "result": self.result,
            "withheld": self.withheld,
        }


def recomputes(derivation: Mapping[str, Any]) -> list[str]:
    """What does not follow from the derivation's own terms (an empty list when all of it does): each step's value
    from its operation over earlier steps and its dice, and each published result field from the step it names."""
    wrong: list[str] = []
    values: dict[str, Any] = {}
    dice = derivation.get("dice", [])
    for s in derivation.get("steps", []):
        op = OPS.get(s["op"])
        if op is None:
            wrong.append(f"step {s['id']}: unknown operation {s['op']!r}")
            continue
        try:
            got = op(s["args"], dice, values)
        except (KeyError, IndexError, TypeError) as err:
            wrong.append(f"step {s['id']}: its terms do not compute ({type(err).__name__}: {err})")
            continue
        if s["op"] != "given" and got != s["value"]:
            wrong.append(f"step {s['id']} ({s['rule']}): shows {s['value']!r}, its terms give {got!r}")
        values[s["id"]] = s["value"]
    published = derivation.get("result", {}).get("published", {})
    for name, ref in derivation.get("result", {}).get("steps", {}).items():
        if values.get(ref.lstrip("@")) != published.get(name):
            wrong.append(f"result {name}: published {published.get(name)!r}, step {ref} gives {values.get(ref[1:])!r}")
    return wrong


# ---------------------------------------------------------------------- the rules version in force


ADOPTED = "RulesChangeTold"  # each viewer's own line telling it of a rules version adopted (domain.platform.replay)


class InForce:
    """The rules version in force as a viewer's events are read in order (``read`` each): None (the version the game
    was created at) until a ``RulesChangeTold`` tells the viewer of a version adopted, that version from then on.
    A line a rollback undid (``superseded``, as a timeline marks it) holds for the events undone with it alone: the
    game went back to the version it had. Built from the viewer's own events: what it tells, the viewer was told."""

    def __init__(self) -> None:
        self.live: str | None = None
        self.undone: str | None = None

    def read(self, event: Mapping[str, Any]) -> str | None:
        """The version this event was recorded under (None: the one the game was created at), or, for a result an
        adoption re-decided (``redecided``), the version that re-decided it."""
        data = event.get("data") or {}
        if isinstance(event.get(REDECIDED), Mapping):
            return str(event[REDECIDED]["version"])
        if event.get("type") == ADOPTED and isinstance(data.get("rules_version"), str):
            self.undone = data["rules_version"]
            if not event.get("superseded"):
                self.live = self.undone
        return self.undone if event.get("superseded") else self.live


REDECIDED = "redecided"  # the mark of an event an adoption re-decided, as a derivation reads it (``redecided``)


def _same_adoption(a: Mapping[str, Any] | None, b: Mapping[str, Any]) -> bool:
    if a is None or a.get("type") != ADOPTED:
        return False
    x, y = a.get("data") or {}, b.get("data") or {}
    return all(x.get(k) == y.get(k) for k in ("rules_version", "previous_version", "from_phase"))


def redecided(events: Events) -> tuple[list[Mapping[str, Any]], dict[int, dict[str, Any]]]:
    """The events as their viewer's board shows them: each result a rules version adopted from an earlier phase
    re-decided (its ``RulesChangeTold``'s ``amended``, by the viewer's own numbers) carries its amended fields and the
    mark ``redecided`` (the version, the phase it counts from, the rule ids, the line that told it); and those marks
    by the result's number. A viewer's own line is the first of an adoption's lines it was shown (the GM's before the
    seats' it sees too, a seat's before the observers' public one). A line a rollback undid amends only the events
    undone with it: the game went back to the results as recorded."""
    marks: dict[int, dict[str, Any]] = {}
    previous: Mapping[str, Any] | None = None
    for e in events:
        if e.get("type") == ADOPTED and not _same_adoption(previous, e):
            data = e.get("data") or {}
            for a in data.get("amended") or []:
                if isinstance(a, Mapping) and isinstance(a.get("seq"), int) and a.get("result"):
                    marks[a["seq"]] = {
                        "version": data.get("rules_version"),
                        "from_phase": data.get("from_phase"),
                        "rules": list(a.get("rules") or []),
                        "result": dict(a["result"]),
                        "told": e.get("seq"),
                        "undone": bool(e.get("superseded")),
                    }
        previous = e
    out: list[Mapping[str, Any]] = []
    applied: dict[int, dict[str, Any]] = {}
    for e in events:
        mark = marks.get(e.get("seq"))  # type: ignore[arg-type]
        if mark is None or (mark["undone"] and not e.get("superseded")):
            out.append(e)
            continue
        after = {k: v.get("after") for k, v in mark["result"].items() if isinstance(v, Mapping)}
        applied[e["seq"]] = mark
        out.append({**e, "data": {**(e.get("data") or {}), **after}, REDECIDED: mark})
    return out, applied


def _told_redecided(derivation: dict[str, Any], mark: Mapping[str, Any]) -> None:
    """Say in a derivation that the result it explains was re-decided by an adoption: the version, the phase it counts
    from and the rule, as a term read from the line that told the viewer (the first step)."""
    rule = mark["rules"][0] if mark["rules"] else ADOPTED
    says = N_("re-decided under {version} from {phase}, when the game adopted it")
    params = {"version": mark["version"], "phase": mark["from_phase"]}
    step = {"id": "redecided", "rule": rule, "text": says.format(**params), "says": says, "params": params}
    derivation["steps"].insert(0, {**step, "op": "given", "args": [], "value": mark["version"], "seq": mark["told"]})
    derivation["redecided"] = {k: mark[k] for k in ("version", "from_phase", "rules")}


def rules_of(name: str, version: str | None, printed: R) -> R:
    """The rules (``Ruleset.redecide``, of the type of ``printed``) of the installed version ``version`` of the ruleset
    ``name``; ``printed`` for None, or a version that is not installed or declares rules of another kind."""
    if version is None:
        return printed
    try:
        found = registry.version(name, version).redecide
    except DomainError:
        return printed
    return found if isinstance(found, type(printed)) else printed


# ---------------------------------------------------------------------- the platform's own: a post's dice


def platform_derivations(events: Events) -> dict[str, dict[str, Any]]:
    """A post's ``[roll NdS]`` (issue 16), for every ruleset: each roll's faces and their sum."""
    out: dict[str, dict[str, Any]] = {}
    for e in events:
        data = e.get("data") or {}
        if e.get("type") != "PostMade" or not data.get("rolls"):
            continue
        d = Derivation(f"post:{data['post_id']}", "post-roll", str(data["post_id"]), _source(e))
        totals = []
        for n, r in enumerate(data["rolls"]):
            dice = str(r.get("dice", ""))
            i = d.roll(N_("{dice} in a post"), r, e.get("seq"), dice=dice)
            says = N_("the sum of {dice}")
            totals.append(d.step(f"roll{n + 1}", DICE_RULE, says, "sum_faces", {"roll": i}, sum(r["faces"]), dice=dice))
        d.result = {
            "published": {f"roll{n + 1}": sum(r["faces"]) for n, r in enumerate(data["rolls"])},
            "steps": {f"roll{n + 1}": ref for n, ref in enumerate(totals)},
        }
        out[d.result_id] = d.as_dict()
    return out


def _source(event: Mapping[str, Any]) -> dict[str, Any]:
    return {"seq": event.get("seq"), "type": event.get("type")}


def derivations(ruleset: Any, events: Events) -> dict[str, dict[str, Any]]:
    """Every result these events let their viewer explain: the platform's, then the ruleset's own
    (``Ruleset.derive``; a ruleset without one has the platform's alone)."""
    shown, applied = redecided(events)  # a result re-decided by an adoption, as the board shows it (issue 29)
    out = platform_derivations(shown)
    derive = getattr(ruleset, "derive", None)
    if derive is not None:
        out.update(derive(shown))
    for d in out.values():
        mark = applied.get((d.get("source") or {}).get("seq"))  # type: ignore[arg-type]
        if mark is not None:
            _told_redecided(d, mark)
    return out


def explain(ruleset: Any, events: Events, result_id: str) -> dict[str, Any]:
    """The derivation of one result from a viewer's events; NotFound, in the same words whether the result does not
    exist or this viewer was not shown it."""
    found = derivations(ruleset, events).get(result_id)
    if found is None:
        shown = result_id if len(result_id) <= 120 else result_id[:120] + "..."
        raise NotFound(f"no result {shown!r} that you may see", field="result_id")
    return found


def with_first(first: Sequence[Mapping[str, Any]], newest_first: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The game's first event (its options), then events read newest first, in their order: the first event once,
    whether those events reach back to it or not."""
    seen = {e["seq"] for e in first}
    return [*first, *(e for e in reversed(newest_first) if e["seq"] not in seen)]


def with_told(
    told: Sequence[Mapping[str, Any]], first: Sequence[Mapping[str, Any]], newest_first: Sequence[Mapping[str, Any]]
) -> list[Any]:
    """``with_first``, with the lines that told the viewer of each rules change adopted (``RulesChangeTold``) merged in
    by their numbers, wherever they fall: a result is derived by the version in force when it was made, or as an
    adoption re-decided it since (issue 29)."""
    events = with_first(first, newest_first)
    seen = {e["seq"] for e in events}
    return sorted([*events, *(t for t in told if t["seq"] not in seen)], key=lambda e: e["seq"])


def said(part: Mapping[str, Any], field: str) -> str:
    """A step's or a roll's words in the reader's language (``i18n.use``): its phrase translated, then its values
    put in (``field``, the words as built, where it has no phrase)."""
    says, params = part.get("says"), part.get("params") or {}
    if not isinstance(says, str):
        return str(part.get(field, ""))
    try:
        return _(says).format(**params)
    except (KeyError, IndexError, ValueError):  # a translation that names a value the phrase does not have
        return says.format(**params)
