"""The Lodge's commands, each declared once (``api.declare``) with the form of its board (``templates/board.html``)
that sends it (issue 15): every choice is offered as a list the server computed (L.3); each form builds a Lodge
command for the signed-in seat and sends it through ``Games.run``, the same path as the JSON API
(``POST /games/{id}/commands``) and mail."""

from __future__ import annotations

from typing import Any

from api.declare import Declared
from api.web.forms import Form, listed
from domain.errors import RuleViolation
from domain.lodge import commands as lc
from domain.lodge.catalogue import SLOTS
from domain.platform.commands import Command, ReissueLink
from domain.platform.i18n import N_, _

Posted = dict[str, Any]


def _heal(f: Posted) -> list[int] | None:
    """The cubes ticked to heal, by position on the track; none ticked leaves the engine's default."""
    chosen = listed(f, "heal[]")
    try:
        return sorted(int(x) for x in chosen) if chosen else None
    except ValueError:
        raise RuleViolation("cubes are chosen by their position on the track", field="heal") from None


def _chose(f: Posted) -> str:
    return (
        _("Persistent Effect resolved from your Cell.") if f.get("accept") != "no" else _("Persistent Effect declined.")
    )


def _add_mage(f: Posted, me: str) -> tuple[Command, ...]:
    """Seat the mage, then give it a sign-in link (the kit issues the token, its hash here)."""
    mage = f.get("mage_id", "")
    return lc.AddMage(mage, f.get("name", ""), f.get("colour", ""), avatar=f.get("avatar") == "on"), ReissueLink(
        mage, ""
    )


def _black_rose(f: Posted, me: str) -> lc.BlackRoseAct:
    # the page sends a card and its target together (``act``, "card:target"), as offered; ``card`` and ``target``
    # apart are read too (the JSON API's shape)
    card, _sep, target = f["act"].partition(":") if f.get("act") else (f.get("card", ""), "", f.get("target", ""))
    return lc.BlackRoseAct(card, target or None)


DECLARED: tuple[Declared, ...] = (
    Declared(
        lc.PrepareSpells,
        form=Form(
            "prepare",
            "prepare",
            N_("Spells prepared face down."),
            make=lambda f, me: lc.PrepareSpells(
                me, {slot: f[f"slot-{slot}"] for slot in SLOTS if f.get(f"slot-{slot}")}
            ),
        ),
    ),
    Declared(
        lc.CastSpell,
        form=Form(
            "cast",
            lambda f: f"cast-{f.get('slot')}",
            N_("Spell cast."),
            make=lambda f, me: lc.CastSpell(
                me, f.get("slot", ""), f.get("target") or None, listed(f, "moves[]"), _heal(f)
            ),
        ),
    ),
    Declared(
        lc.PhysicalAction,
        form=Form(
            "physical",
            lambda f: f"physical-{f.get('action')}",
            N_("Physical Action taken."),
            make=lambda f, me: lc.PhysicalAction(
                me, f.get("action", ""), f.get("target") or None, listed(f, "moves[]"), _heal(f)
            ),
        ),
    ),
    Declared(
        lc.CommandEvocation,
        form=Form(
            "evocation",
            lambda f: f"evocation-{f.get('evocation')}",
            N_("Evocation commanded."),
            make=lambda f, me: lc.CommandEvocation(
                me, f.get("evocation", ""), listed(f, "moves[]"), f.get("attack") or None
            ),
        ),
    ),
    Declared(
        lc.ResolveFromCell,
        form=Form(
            "choose",
            lambda f: f"offer-{f.get('offer_id')}",
            _chose,
            make=lambda f, me: lc.ResolveFromCell(
                me, f.get("offer_id", ""), f.get("accept") != "no", listed(f, "moves[]"), _heal(f)
            ),
        ),
    ),
    Declared(
        lc.AnswerChoice,
        form=Form(
            "answer",
            lambda f: f"prompt-{f.get('choice_id', '')}",
            N_("Choice answered."),
            make=lambda f, me: lc.AnswerChoice(me, f.get("choice_id", ""), f.get("option", "")),
        ),
    ),
    Declared(lc.Pass, form=Form("pass", "pass", N_("You passed."), make=lambda f, me: lc.Pass(me))),
    Declared(
        lc.AddMage,
        form=Form(
            "add-mage",
            "mages",
            lambda f: _("{name} seated. Send them their link (shown once).").format(name=f.get("name")),
            make=_add_mage,
            gm=True,
            link=lambda f, receipt: f.get("mage_id", ""),
        ),
    ),
    Declared(
        lc.BeginGame, form=Form("begin", "host", N_("The game has begun."), make=lambda f, me: lc.BeginGame(), gm=True)
    ),
    Declared(
        lc.AdvancePhase,
        form=Form(
            "advance-phase",
            "host",
            N_("Phase ended."),
            make=lambda f, me: lc.AdvancePhase(f.get("expected_phase", "")),
            gm=True,
        ),
    ),
    Declared(
        lc.BlackRoseAct, form=Form("black-rose", "black-rose", N_("The Black Rose acted."), make=_black_rose, gm=True)
    ),
)
