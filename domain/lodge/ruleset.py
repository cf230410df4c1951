"""The Lodge as a ruleset value (issue 15), registered as "lodge": its options, steps as data, typed
commands and handlers, and the view for a viewer (L.4).

The host sits in the platform's GM seat until the platform has a host role.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import ConfigDict, Field

from domain import visibility as vis
from domain.ids import GM
from domain.lodge import words
from domain.lodge.catalogue import SLOTS
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
from domain.lodge.engine import Choices
from domain.lodge.explain import derive as derive_results
from domain.lodge.game import RULES_VERSION, LodgeGame
from domain.lodge.offers import choices as board_choices
from domain.lodge.offers import host_choices, offers
from domain.lodge.package import DEFAULT_PACKAGE, installed_package
from domain.lodge.redecide import redecide
from domain.lodge.state import BLACK_ROSE, DUMMY, LodgeState
from domain.lodge.verify import VERIFY_LODGE
from domain.platform.commands import Command, Context, require_gm, require_seat
from domain.platform.flow import WindowRule
from domain.platform.game import fold
from domain.platform.i18n import N_, _, word_of
from domain.platform.plugin import Plugin
from domain.platform.posts import PostOptions
from domain.platform.ruleset import Ruleset, Step, register
from domain.platform.state import Window

if TYPE_CHECKING:
    from domain.lodge.mail import LodgeTurn


class LodgeOptions(PostOptions):
    """A Lodge game's options, fixed when it is created."""

    model_config = ConfigDict(extra="forbid", strict=True)

    package: str = Field(
        default=DEFAULT_PACKAGE,
        description="The host's rules package the game pins (LH-7): the phases, banners, game end and, in "
        "lodge-wide-rooms, Rooms of 6 and 7 slots.",
    )
    ranking_mode: Literal["dense", "competition"] = Field(
        default="dense",
        description="L-AMB-1: who gains the central banner of a rebuilt Room after a tie for the most cubes: "
        "dense, the second highest number (recommended); competition, the second place (1-1-3).",
    )
    non_spell_removal_restricted: bool = Field(
        default=True,
        description="L-AMB-6: a non-Forgotten Effect that is not a Spell (a Room, a Physical Action, the Black "
        "Rose) removes another Mage's Evocation only as a non-Forgotten Spell may (R17, R18); recommended on.",
    )
    crown_of_the_summoner: bool = Field(
        default=False,
        description="LH-6 (R42): the optional Crown of the Summoner rule: at Clean-up each Mage rotates all "
        "their Evocation Cards horizontally.",
    )
    reminder_hours: list[Annotated[float, Field(gt=0, le=24 * 14)]] = Field(
        default=[12, 2],
        description="Hours before a window's deadline (a phase's, or a prompt's) to remind whoever has not acted "
        "(L.3).",
    )
    defeat_pp: list[Annotated[int, Field(ge=0, le=20)]] | None = Field(
        default=None,
        max_length=6,
        description="L-AMB-4: the defeat Power Point table, ranked by Damage dealt to the defeated Mage (R38); "
        "none (recommended) keeps the package's, off until the source is found.",
    )


def _add_mage(game: LodgeGame, cmd: AddMage, ctx: Context) -> None:
    require_gm(ctx, "seat a Mage")
    game.add_mage(cmd.mage_id, cmd.name, cmd.colour, cmd.avatar)


def _begin(game: LodgeGame, cmd: BeginGame, ctx: Context) -> None:
    require_gm(ctx, "begin the game")
    game.begin(now=ctx.now, seed=ctx.entropy(32))


def _advance(game: LodgeGame, cmd: AdvancePhase, ctx: Context) -> dict[str, int | str]:
    require_gm(ctx, "end a phase")
    game.expect_step(cmd.expected_phase)
    game.advance(now=ctx.now)
    return {"turn": game.state.turn, "phase": game.state.phase}


def _prepare(game: LodgeGame, cmd: PrepareSpells, ctx: Context) -> None:
    require_seat(game, ctx, cmd.mage_id)
    game.prepare_spells(cmd.mage_id, dict(cmd.cards))


def _cast(game: LodgeGame, cmd: CastSpell, ctx: Context) -> None:
    require_seat(game, ctx, cmd.mage_id)
    # choices named in the command answer in advance; a command naming none leaves each to a prompt (L.3)
    choices = Choices(list(cmd.moves), cmd.heal, prompt=not cmd.moves and cmd.heal is None)
    game.cast_spell(cmd.mage_id, cmd.slot, cmd.target, choices, ctx.now)


def _physical(game: LodgeGame, cmd: PhysicalAction, ctx: Context) -> None:
    require_seat(game, ctx, cmd.mage_id)
    choices = Choices(list(cmd.moves), cmd.heal, prompt=not cmd.moves and cmd.heal is None)
    game.physical_action(cmd.mage_id, cmd.action, cmd.target, choices, ctx.now)


def _answer(game: LodgeGame, cmd: AnswerChoice, ctx: Context) -> dict[str, str]:
    require_seat(game, ctx, cmd.mage_id)
    return game.answer_choice(cmd.mage_id, cmd.choice_id, cmd.option, now=ctx.now, defaulted=ctx.silent)


def _evocation(game: LodgeGame, cmd: CommandEvocation, ctx: Context) -> None:
    require_seat(game, ctx, cmd.mage_id)
    # naming neither steps nor an attack leaves each to a prompt (L-EVO-1, L-EVO-2)
    choices = Choices(list(cmd.moves), prompt=not cmd.moves and cmd.attack is None)
    game.command_evocation(cmd.mage_id, cmd.evocation, list(cmd.moves), cmd.attack, ctx.now, choices)


def _black_rose(game: LodgeGame, cmd: BlackRoseAct, ctx: Context) -> None:
    require_gm(ctx, "act for the Black Rose")
    game.black_rose_act(cmd.card, cmd.target, ctx.now)


def _from_cell(game: LodgeGame, cmd: ResolveFromCell, ctx: Context) -> None:
    require_seat(game, ctx, cmd.mage_id)
    choices = Choices(list(cmd.moves), cmd.heal, prompt=not cmd.moves and cmd.heal is None)
    game.resolve_from_cell(cmd.mage_id, cmd.offer_id, cmd.accept, choices, ctx.now)


def _pass(game: LodgeGame, cmd: Pass, ctx: Context) -> None:
    require_seat(game, ctx, cmd.mage_id)
    game.pass_turn(cmd.mage_id)


C = TypeVar("C", bound=Command)
R = TypeVar("R")
Handler = Callable[[LodgeGame, C, Context], R]


def _pinned(handler: Handler[C, R]) -> Handler[C, R]:
    """Every command first finds the catalogue the game pinned, so a game whose catalogue is gone is refused
    before anything happens in it (LH-7), whatever the command touches."""

    def run(game: LodgeGame, cmd: C, ctx: Context) -> R:
        game.catalogue  # noqa: B018 - raises RuleViolation when the pinned catalogue is not installed or kept
        return handler(game, cmd, ctx)

    run.__doc__ = handler.__doc__
    return run


# each command's handler, behind the catalogue's check; a handler takes the command of its own class
LODGE_COMMANDS: dict[type[Command], Callable[..., object]] = {
    AddMage: _pinned(_add_mage),
    BeginGame: _pinned(_begin),
    AdvancePhase: _pinned(_advance),
    PrepareSpells: _pinned(_prepare),
    CastSpell: _pinned(_cast),
    PhysicalAction: _pinned(_physical),
    CommandEvocation: _pinned(_evocation),
    BlackRoseAct: _pinned(_black_rose),
    ResolveFromCell: _pinned(_from_cell),
    AnswerChoice: _pinned(_answer),
    Pass: _pinned(_pass),
}

# ---------------------------------------------------------------------- views (L.4)


def board_view(game: LodgeGame, viewer: str) -> dict[str, Any]:
    """The Lodge as ``viewer`` sees it: everything physical on the board for everyone; unrevealed Spell Cards
    for their owner and the host only; the Evocation deck's order for nobody (its size only)."""
    s: LodgeState = game.state
    host = viewer == "gm"
    # what the viewer is offered now (domain.lodge.offers), with the answers to its prompts and Cell offers it may
    # send: the board offers nothing that would be refused
    mine = board_choices(game, viewer) if viewer in s.mages and s.phase not in ("setup", "ended") else None
    if host:
        mine = host_choices(game)

    return {
        "game": {
            "name": s.name,
            "ruleset": s.ruleset,
            "rules_version": s.rules_version,
            "turn": s.turn,
            "phase": s.phase,
            "acts": game.phase_acts(),  # who acts in this phase of the package (LH-7): "every mage", "host" or None
            "package": {
                "id": s.package["id"],
                "version": s.package["version"],
                "house_rules": s.package["house_rules"],
            },
        },
        "rooms": {
            r: {"side": room["side"], "slots": list(room["slots"]), "must_rebuild": room["must_rebuild"]}
            for r, room in sorted(s.rooms.items())
        },
        "mages": {m: _mage_sheet(s, m, viewer, host) for m in sorted(s.mages)},
        "evocations": _evocations(s),
        "persistent_tokens": [dict(t) for _, t in sorted(s.tokens.items())],
        "evocation_deck": {"cards": len(s.deck)},
        "black_rose": {"power_points": s.black_rose["pp"], "trophies": list(s.black_rose["trophies"])},
        "offers": [dict(o) for _, o in sorted(s.offers.items()) if host or o["mage"] == viewer],
        "prompts": _prompts(s, viewer, host),
        "dummy": DUMMY,
        "choices": mine,
        "ended": s.ended,
        "sequence": s.sequence_for(viewer),
        # a choice's window is its chooser's (and the host's): its existence says nothing to anyone else
        "windows": [
            {"id": w.id, "kind": w.kind, "closes_at": w.closes_at}
            for w in s.windows.values()
            if not w.closed and (w.id not in s.prompts or host or s.prompts[w.id]["mage"] == viewer)
        ],
    }


def _mage_sheet(s: LodgeState, mage: str, viewer: str, host: bool) -> dict[str, Any]:
    """A mage's sheet: its Spell Cards face down to all but itself and the host until revealed."""
    m = s.mages[mage]
    slots = {}
    for slot in SLOTS:
        card = m["slots"][slot]
        shown = card["revealed"] or host or viewer == mage
        slots[slot] = {
            "card": card["card"] if shown else None,
            "face": "up" if card["revealed"] else ("down" if card["card"] else "empty"),
            "casts": card["casts"],
        }
    return {
        "name": s.powers[mage].name,
        "colour": m["colour"],
        "avatar": m["avatar"],
        "room": s.positions.get(mage),
        "damage": list(m["damage"]),
        "trophies": list(m["trophies"]),
        "power_points": m["pp"],
        "evocation_bases": m["bases"],
        "physical_actions": dict(m["physical"]),
        "slots": slots,
        "ready": s.powers[mage].ready,
    }


def _evocations(s: LodgeState) -> dict[str, dict[str, Any]]:
    """Every Evocation on the board, which everyone sees."""
    return {
        e: {
            "card": ev["card"],
            "controller": ev["controller"],
            "room": s.positions.get(e),
            "damage": list(ev["damage"]),
            "health_mod": ev["health_mod"],
            "rotated": ev["rotated"],
            "acted": ev["acted"],
        }
        for e, ev in sorted(s.evocations.items())
    }


def _prompts(s: LodgeState, viewer: str, host: bool) -> list[dict[str, Any]]:
    """The open prompts the viewer answers (all of them for the host), each with its window's close."""
    return [
        {
            "choice": c,
            **{k: p[k] for k in ("mage", "kind", "question", "options", "default", "rule")},
            "closes_at": s.windows[c].closes_at if c in s.windows else None,
        }
        for c, p in sorted(s.prompts.items())
        if host or p["mage"] == viewer
    ]


def phase_of(event: Any) -> dict[str, Any] | None:
    """``t1-prepare``, ``t1-actions``, ``t1-cleanup``: the phase a PhaseBegan or CleanupBegan begins."""
    name = type(event).__name__
    if name == "PhaseBegan":
        return {
            "phase": f"t{event.data['turn']}-{event.data['phase']}",
            "season": event.data["turn"],
            "month": 0,
            "step": event.data["phase"],
        }
    if name == "CleanupBegan":
        return {"phase": f"t{event.data['turn']}-cleanup", "season": event.data["turn"], "month": 0, "step": "cleanup"}
    return None


# The phases of the default package, and the moments around them, in words: marked here for translation
# (issue 17), translated where shown. A package's own phase the table lacks is shown as it is named.
PHASE_WORDS = {
    "setup": N_("setup"),
    "prepare": N_("prepare"),
    "actions": N_("actions"),
    "black-rose": N_("black-rose"),
    "cleanup": N_("cleanup"),
    "ended": N_("ended"),
}


def phase_word(phase: str) -> str:
    """A phase in the reader's language, as the package names it ("prepare")."""
    return word_of(PHASE_WORDS, phase)


def phase_title(phase: str) -> str | None:
    """``t1-prepare`` -> "Turn 1: Prepare"."""
    turn, step = phase.split("-", 1) if "-" in phase else (phase, "")
    if not (turn[1:].isdigit() and step):
        return None
    return _("Turn {turn}: {phase}").format(turn=turn[1:], phase=phase_word(step).capitalize())


def describe(kind: str, payload: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """A Lodge event in words (its feed, in the reader's language): the texts a Mage is mailed; the platform's
    words for the rest, but a rollback names the host (who sits in the GM's seat)."""
    if kind == "GameRolledBack":
        reason = dict(payload).get("reason") or _("no reason given")
        return _("The host rolled the game back: {reason}.").format(reason=reason)
    line = words.describe_lines(kind, dict(payload).get("data", {}), names, PHASE_WORDS)
    if line is not None:
        return line
    note = _texts(kind, dict(payload), _)
    return note["text"] if note is not None else None


def notify(kind: str, payload: Mapping[str, Any], names: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The texts a Mage is sent: a phase begins, a Room is rebuilt and scored, the game ends, in the current
    language (the projector keeps them in English; each mail is worded again in its reader's, issue 28)."""
    return _texts(kind, payload, _, names or {})


def _texts(
    kind: str, payload: Mapping[str, Any], tr: Callable[[str], str], names: Mapping[str, str] | None = None
) -> dict[str, str] | None:
    """``notify``'s texts, each phrase marked for translation and read through ``tr`` (``_``, or ``str``)."""
    d = payload.get("data", {})
    if kind == "PhaseBegan":
        who = tr(N_("every Mage")) if d["acts"] == "every mage" else tr(N_("the host"))
        step = tr(PHASE_WORDS[d["phase"]]) if d["phase"] in PHASE_WORDS else d["phase"]
        return {
            "subject": tr(N_("Turn {turn}: {phase}")).format(turn=d["turn"], phase=step),
            "text": tr(N_("The {phase} phase has begun: {who} may {may}.")).format(
                phase=step, who=who, may=", ".join(d["may"])
            ),
        }
    if kind == "ChoiceOffered":  # seen by its chooser alone (and the host), so sent to them alone
        return {
            "subject": tr(N_("A choice waits for you: {question}")).format(question=d["question"]),
            "text": tr(
                N_(
                    "{choice}: {question}; one of {options}. Answer with 'choose {choice} <option>' (or on the "
                    "board); at the deadline: {default} ({rule})."
                )
            ).format(
                choice=d["choice"],
                question=d["question"],
                options=", ".join(d["options"]),
                default=d["default"],
                rule=d["rule"],
            ),
        }
    if kind == "RoomScored":
        gains = ", ".join(f"{(names or {}).get(who, who)} {pp}" for who, pp in sorted(d["pp"].items()))
        return {
            "subject": tr(N_("{room} is rebuilt")).format(room=d["room"]),
            "text": tr(N_("Power Points for the rebuilt {room}: {gains}.")).format(room=d["room"], gains=gains),
        }
    if kind == "GameEnded":
        scores = ", ".join(
            f"{(names or {}).get(who, who)} {pp}" for who, pp in sorted(d["scores"].items(), key=lambda x: -x[1])
        )
        return {
            "subject": tr(N_("The game has ended")),
            "text": tr(N_("Final Power Points: {scores}.")).format(scores=scores),
        }
    return None


def read_mail(text: str | None, html: str | None, seat: str) -> LodgeTurn:
    """The mail grammar (domain/lodge/mail.py), imported when a mail comes: it builds this module's commands."""
    from domain.lodge.mail import parse_turn

    return parse_turn(text, html, seat)


def seat_of(event: Any) -> str | None:
    return event.data["mage"] if type(event).__name__ == "MageAdded" else None


def _choice_waits(game: LodgeGame, w: Window) -> list[str]:
    """A choice's window waits for its chooser only (L.3)."""
    prompt = game.state.prompts.get(w.id)
    return [prompt["mage"]] if prompt is not None else []


def _choice_default(game: LodgeGame, w: Window, mage: str) -> AnswerChoice:
    """Silence answers a choice with the default it offered (L.3): recorded as ``ChoiceDefaulted``."""
    return AnswerChoice(mage, w.id, game.state.prompts[w.id]["default"])


def _phase_waits(game: LodgeGame, w: Window) -> list[str]:
    """A phase's window waits on every Mage who has not passed, where Mages act in it (LH-7); on nobody where
    the host acts."""
    phase = game._phase_rules()
    if phase is None or phase["acts"] == "host" or w.kind != phase["name"]:
        return []
    return sorted(m for m, seat in game.state.powers.items() if not seat.ready)


def _phase_over(game: LodgeGame, w: Window, ctx: Context) -> None:
    """The phase's window closed (its deadline, or the host): the next phase, or Clean-up and the next turn."""
    game.advance(now=ctx.now)


# A choice's window (kind "choice"), and a phase's (kind: the phase's name in the game's rules package, LH-7):
# silence in a phase does nothing (a Mage who has not acted has not acted); its close ends the phase.
CHOICE = WindowRule(
    "choice", _choice_waits, on_silence=_choice_default, audience=lambda g, w: vis.powers(_choice_waits(g, w))
)
PHASE = WindowRule("phase", _phase_waits, then=_phase_over, closed_by=GM, matches=lambda kind: kind != "choice")

LODGE_STEPS = (
    Step("setup", entry="the host seats the Mages and begins the game"),
    *(
        Step(
            p.name,
            opens=(p.name,),
            closes_on=("deadline", "host advances"),
            entry=f"{p.acts} may {', '.join(p.may)}",
            windows=(CHOICE, PHASE),
        )
        for p in installed_package(DEFAULT_PACKAGE).phases
    ),
    Step("cleanup", entry="C1-C6 (L.1.1): tokens back, Crown rotation, Physical Action Tokens, rooms scored"),
)

LODGE = register(
    Ruleset(
        name="lodge",
        version=RULES_VERSION,
        options=LodgeOptions,
        steps=LODGE_STEPS,
        aggregate=LodgeGame,
        start=LodgeGame.start,
        commands=LODGE_COMMANDS,
        state_types=(LodgeState,),
        view=board_view,
        notify=notify,
        verify=VERIFY_LODGE,
        derive=derive_results,
        redecide=redecide,  # issue 29: a rules change replayed re-decides each rebuilt Room's score (L-SCORE-1)
        result_scope=lambda phase: phase.split("-", 1)[0],
        fold=fold,
        phase_of=phase_of,
        seat_of=seat_of,
        marks=frozenset({"PhaseBegan", "CleanupBegan", "MageAdded"}),
        phase_labels={"season": 0, "month": 0},  # what phase_of labels each phase with (its turn, and 0)
        phase_title=phase_title,
        announces={"RoomScored": "results", "GameEnded": "end"},  # issue 31: what a game's webhooks announce
        describe=describe,
        feed_names=words.feed_names,
        mail_grammar=read_mail,
        offers=offers,
        description="Mages in a Lodge: effects as data, evocations, instability and rebuilt rooms",
    )
)
# what its entry point names (pyproject.toml, group emissary.rulesets): with its pages under api.lodge
PLUGIN = Plugin(LODGE, api="api.lodge", order=20)
__all__ = ["BLACK_ROSE", "DUMMY", "LODGE", "PLUGIN"]
