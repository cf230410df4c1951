"""The table's throws (TABLE-2): a seat throws a die for points, publicly or hidden (its own and the GM's to see).
The rule has two installed versions (issue 29, a rules change to replay): ``table-1`` scores the die, ``table-2``'s
house rule the die plus one; ``house`` makes the second from the first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain import visibility as vis
from domain.errors import Forbidden, RuleViolation
from domain.ids import GM
from domain.platform.commands import Command, Context
from domain.platform.ruleset import Ruleset


@dataclass(frozen=True)
class Throw(Command):
    seat_id: str
    hidden: bool = False  # a hidden throw: only the seat (and the GM) see it and its points


def throw_total(faces: list[int], modifier: int) -> int:
    """A throw scores its die plus the version's modifier (TABLE-2: +0; table-2's house rule: +1)."""
    return sum(faces) + modifier


class Throws:
    """The throwing half of the table's aggregate (a mixin: its event becomes the table's)."""

    if TYPE_CHECKING:
        state: Any
        trigger_event: Any

    class Thrown(Aggregate.Event):
        seat_id: str
        roll_no: int
        faces: list[int]
        modifier: int
        total: int
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            kept = game.state.points["public" if vis.PUBLIC in self.audience else "hidden"]
            kept[self.seat_id] = kept.get(self.seat_id, 0) + self.total
            game.state.next_roll = self.roll_no + 1  # the game's base event counts it in its viewers' sequences

    def throw(self, cmd: Throw, ctx: Context, modifier: int = 0) -> None:
        """Throw one die from the game's committed seed (its next roll number) and score it (TABLE-2)."""
        if cmd.seat_id not in self.state.seats:
            raise RuleViolation("join the table before you throw", rule="TABLE-1", field="seat")
        if ctx.principal not in (cmd.seat_id, GM):
            raise Forbidden("a seat throws for itself", rule="TABLE-2", field="authorization")
        roll_no = self.state.next_roll
        faces = list(ctx.roller(self).faces(roll_no, 1, 6))
        self.trigger_event(
            self.Thrown,
            seat_id=cmd.seat_id,
            roll_no=roll_no,
            faces=faces,
            modifier=modifier,
            total=throw_total(faces, modifier),
            actor=cmd.seat_id,
            audience=vis.seats([cmd.seat_id]) if cmd.hidden else [vis.PUBLIC],
        )


def scores(game: Any, viewer: str) -> dict[str, Any]:
    """The points a viewer may see: every public throw's, and the hidden ones of its own (the GM: all)."""
    points = game.state.points
    shown: dict[str, Any] = {"scores": dict(points["public"])} if points["public"] else {}
    hidden = {s: n for s, n in points["hidden"].items() if viewer in (s, GM)}
    return {**shown, "hidden_scores": hidden} if hidden else shown


def redecide(modifier: int) -> Callable[[Any, Any], tuple[dict[str, Any], list[str]] | None]:
    """A recorded throw as a version decides it: the same die, this version's modifier (TABLE-2)."""

    def again(game: Any, e: Any) -> tuple[dict[str, Any], list[str]] | None:
        if type(e).__name__ != "Thrown":
            return None
        return {"modifier": modifier, "total": throw_total(list(e.faces), modifier)}, ["TABLE-2"]

    return again


def house(table_1: Ruleset) -> Ruleset:
    """table-2: table-1 with the house rule that a throw scores one more (TABLE-2)."""
    return replace(
        table_1,
        version="table-2",
        redecide=redecide(1),
        changes="a throw scores its die plus one (TABLE-2)",
        commands={**table_1.commands, Throw: lambda g, c, ctx: Throws.throw(g, c, ctx, modifier=1)},
    )
