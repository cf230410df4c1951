"""A fake ruleset on the platform alone (issue 11), its ``PLUGIN``; no ``domain.powers`` (``__init__``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from eventsourcing.domain import event
from pydantic import BaseModel, ConfigDict

from domain import visibility as vis
from domain.errors import Forbidden, RuleViolation
from domain.ids import GM
from domain.platform.commands import Command, Context
from domain.platform.flow import WindowRule, enter, open_window
from domain.platform.game import PlatformGame, fold
from domain.platform.plugin import Plugin
from domain.platform.ruleset import Ruleset, Step
from domain.platform.state import CommittedDice, Seat, ViewerSequences, Window
from emissary_fake.explain import derive
from emissary_fake.throws import Throw, Throws, house, redecide, scores


@dataclass
class TableState(ViewerSequences, CommittedDice):  # the first join commits a seed: posts roll dice
    name: str
    ruleset: str
    rules_version: str
    timezone: str
    options: dict = field(default_factory=dict)
    seats: dict = field(default_factory=dict)  # the platform reads them (PlatformGame.seats_of)
    posts: list = field(default_factory=list)
    credentials: dict = field(default_factory=dict)
    windows: dict = field(default_factory=dict)
    seen: dict = field(default_factory=dict)
    mail_replies: dict = field(default_factory=dict)
    points: dict = field(default_factory=lambda: {"public": {}, "hidden": {}})  # of its throws, by seat (TABLE-2)


@dataclass(frozen=True)
class Join(Command):
    seat_id: str
    name: str


@dataclass(frozen=True)
class Post(Command):
    seat_id: str
    text: str


class TableOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Table(Throws, PlatformGame):
    """Seats join, then post to the table; a post from a seat that has not joined is refused (TABLE-1)."""

    @event("TableCreated")
    def __init__(self, name: str, ruleset: str, rules_version: str, timezone: str, actor: str, audience: list) -> None:
        self.state = TableState(name=name, ruleset=ruleset, rules_version=rules_version, timezone=timezone)

    @classmethod
    def start(cls, name: str, gm: str = "GM", tz: str = "UTC", options: dict | None = None) -> Table:
        TableOptions.model_validate(options or {})
        return cls(name=name, ruleset="table", rules_version="table-1", timezone=tz, actor=GM, audience=[vis.PUBLIC])

    def join(self, cmd: Join, ctx: Context | None = None) -> None:  # a command's handler: (game, command, context)
        if ctx is not None and ctx.principal != GM:
            raise Forbidden("only the GM seats a player", rule="TABLE-0", field="authorization")
        self._joined(seat_id=cmd.seat_id, name=cmd.name, actor=GM, audience=[vis.PUBLIC])
        if ctx is not None and self.state.seed_commitment is None:  # the platform's dice, for [roll NdS] in a post
            self._commit_seed(ctx.entropy(32), phase="table")
        if ctx is not None and len(self.state.seats) == 3:  # the table is full: play begins, its first round opens
            enter(self, "play", ctx.now)

    @event("Joined")
    def _joined(self, seat_id: str, name: str, actor: str, audience: list) -> None:
        self.state.seats[seat_id] = Seat(id=seat_id, name=name)

    def post(self, cmd: Post, ctx: Context | None = None) -> None:
        if cmd.seat_id not in self.state.seats:
            raise RuleViolation("join the table before you post", rule="TABLE-1", field="seat")
        self._posted(seat_id=cmd.seat_id, text=cmd.text, actor=cmd.seat_id, audience=[vis.PUBLIC])

    @event("Posted")
    def _posted(self, seat_id: str, text: str, actor: str, audience: list) -> None:
        self.state.posts.append({"seat": seat_id, "text": text})


def _waits(game: Table, w: Window) -> list[str]:  # a round waits on each seat with no post in it; silence posts
    return sorted(set(game.state.seats) - {p["seat"] for p in game.state.posts[int(w.id.split("-")[1]) :]})


def _open_round(game: Table, now: datetime) -> None:  # what entering play does, and what follows each round
    open_window(game, f"round-{len(game.state.posts)}", "round", now=now, hours=24)


ROUND = WindowRule("round", _waits, closes_early=lambda g, w: not _waits(g, w), early="everyone posted",
                   on_silence=lambda g, w, seat: Post(seat, "(silent)"),
                   then=lambda g, w, ctx: enter(g, "play", ctx.now))  # fmt: skip


def offers(game: Table, principal: str) -> list[Command]:
    """The GM seats ann, bob and cy in turn (TABLE-0); a seat posts (TABLE-1); nobody else sends anything."""
    joins = [Join(p, p.title()) for p in ("ann", "bob", "cy") if p not in game.state.seats][:1]
    posts = [Post(principal, f"post {len(game.state.posts) + 1}")] if principal in game.state.seats else []
    return joins if principal == GM else posts


PLAY = Step("play", windows=(ROUND,), on_entry=_open_round)  # its one step: rounds, the first opened on entry
# fmt: off
FAKE = Ruleset(name="table", version="table-1", options=TableOptions, steps=(PLAY,), redecide=redecide(0), fold=fold,
               aggregate=Table, start=Table.start, commands={Join: Table.join, Post: Table.post, Throw: Table.throw},
               view=lambda g, v: {"seats": sorted(g.state.seats), "posts": list(g.state.posts), **scores(g, v)},
               phase_of=lambda e: {"phase": f"join-{e.seat_id}"} if type(e).__name__ == "Joined" else None,
               seat_of=lambda e: e.seat_id if type(e).__name__ == "Joined" else None, offers=offers, derive=derive)
# fmt: on
PLUGIN = Plugin(FAKE, api="emissary_fake", listed=False, versions=(house(FAKE),))  # hosted, never offered: declared.py
