"""Lodge's help (issue 28, ``api.help``): every line of its mail grammar (domain/lodge/mail.py) with an example and
what it does. The tests read every example with the grammar and check that every verb it takes has one here."""

from __future__ import annotations

from api.help.mail import MailLine
from domain.lodge.mail import VERBS

__all__ = ["MAIL", "USAGE", "VERBS"]

USAGE = {
    "prepare": "prepare <card> in <slot>",
    "cast": "cast <card> in <slot> [on <target>]",
    "move": "move <room>",
    "heal": "heal <n> <colour>[ <colour> ...]",
    "choose": "choose <option> / choose <choice> <option> / choose <offer> [decline]",
    "pass": "pass",
}

MAIL = (
    MailLine(
        "prepare firebolt in I",
        "put a Spell Card face down in a slot (QUICK, I, II, III)",
        sends=("PrepareSpells",),
    ),
    MailLine(
        "cast firebolt in I on bob",
        'reveal and cast the Spell in a slot; "on <target>" when it has one (LH-1)',
        sends=("CastSpell",),
    ),
    MailLine(
        "cast gust in II on bob\n  move library",
        "an indented move line below a cast (or choose) is that effect's Move 1 step (L-MOVE-1)",
        sends=("CastSpell",),
    ),
    MailLine(
        "cast mend in I on bob\nheal 2 red blue",
        (
            "which cubes to heal: by the colour of the Mage who placed them (black for the Black Rose), one "
            "colour for all, or one per cube (L-HEAL-1)"
        ),
        sends=("CastSpell",),
    ),
    MailLine(
        "move library",
        "walk to an adjacent Room (the Walk Physical Action, L-MOVE-1)",
        sends=("PhysicalAction",),
    ),
    MailLine(
        "choose offer-12",
        'resolve the Persistent Effect offered in your Cell; "choose offer-12 decline" (L-PERS-5)',
        sends=("ResolveFromCell",),
    ),
    MailLine(
        "choose library",
        "answer the one choice that waits for you (L.3)",
        sends=("AnswerChoice",),
    ),
    MailLine(
        "choose choice-40 library",
        "answer a choice by its id, when several wait for you (L.3)",
        sends=("AnswerChoice",),
    ),
    MailLine(
        "pass",
        "done for this phase (LH-7)",
        sends=("Pass",),
    ),
)
