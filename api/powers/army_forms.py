"""The console's forms for the GM's army commands (``domain.powers.armies``) that went only by the API or the
JSON catch-all: placing, showing, dispersing and deserting armies, a support bonus and an Experience asset.
Each builds its command as the JSON route does (``api.declare.build``) and sends it through
``Games.run``, so a refusal is the API's error, with its rule id, shown next to the form; nothing is recorded.
Each form's words when it worked are marked with ``N_`` (issue 17) and translated where they are shown."""

from __future__ import annotations

from typing import Any

from api.declare import Declared
from api.powers.forms import data, flag, opt, text, whole
from api.web.forms import Form
from domain.platform.i18n import N_
from domain.powers import armies


def _place(f: dict, me: str) -> dict[str, Any]:
    """A typed army (``type_id``) or one with its own stat block as JSON (``block``)."""
    return {
        "army_id": text(f, "army_id"),
        "name": text(f, "name"),
        "hex": text(f, "hex"),
        "units": whole(f, "units"),
        "controller": opt(f, "controller"),
        "type_id": opt(f, "type_id"),
        "block": data(f, "block"),
        "garrison": opt(f, "garrison"),
        "loyal": flag(f, "loyal"),
        "personal": flag(f, "personal"),
        "hidden": flag(f, "hidden"),
    }


ARMY_GM: tuple[Declared, ...] = (
    Declared(armies.PlaceArmy, form=Form("place-army", "gm-armies", N_("Army placed."), _place, gm=True)),
    Declared(
        armies.DetectArmy,
        form=Form(
            "detect-army",
            "gm-armies",
            N_("The power sees the army now."),
            lambda f, me: {"army_id": text(f, "army_id"), "power_id": text(f, "power_id")},
            gm=True,
        ),
    ),
    Declared(
        armies.SetSupportBonus,
        form=Form(
            "set-support-bonus",
            "gm-armies",
            N_("Support bonus recorded."),
            lambda f, me: {"power_id": text(f, "power_id"), "bonus": whole(f, "bonus")},
            gm=True,
        ),
    ),
    Declared(
        armies.GrantExperience,
        form=Form(
            "grant-experience",
            "gm-armies",
            N_("Experience granted."),
            lambda f, me: {"army_id": text(f, "army_id"), "rank": whole(f, "rank")},
            gm=True,
        ),
    ),
    Declared(
        armies.RecordDispersal,
        form=Form(
            "record-dispersal",
            "gm-armies",
            N_("Dispersal recorded."),
            lambda f, me: {"army_id": text(f, "army_id")},
            gm=True,
        ),
    ),
    Declared(
        armies.DesertArmy,
        form=Form(
            "desert-army",
            "gm-armies",
            N_("The army deserted."),
            lambda f, me: {"army_id": text(f, "army_id"), "reason": text(f, "reason"), "to": opt(f, "to")},
            gm=True,
        ),
    ),
)

ARMY_GM_SPECS: dict[str, Form] = {d.form.name: d.form.bound(d.command) for d in ARMY_GM if d.form is not None}
