"""Powers' commands, each declared once (``api.declare``): where the JSON API takes it, with its request schema
(``api.powers.schemas``), and the web form of the board or the console that sends it (``api.web.forms``). The
platform makes the routes, their OpenAPI entries and the forms from ``DECLARED``; each command's handler is the one
``domain.powers`` registers. The forms of the commands the API takes only by ``POST /games/{id}/commands`` are
declared in ``api.powers.forms`` (wallets, magic, the map, the catalogue, battles) and ``api.powers.army_forms``."""

from __future__ import annotations

from typing import Any

from api.declare import Declared, Route
from api.powers import schemas as s
from api.powers.army_forms import ARMY_GM
from api.powers.forms import FEATURES, flag, text, whole, words
from api.powers.schemas import PowerAddedPublic
from api.web.forms import Confirm, Form, listed
from api.web.kit import integer
from application.service import Receipt
from domain.errors import RuleViolation
from domain.platform.i18n import N_, _
from domain.powers import commands as pc

Posted = dict[str, Any]


def _consequence(a: dict[str, Any]) -> dict[str, Any]:
    return {**a, "effects": [{k: v for k, v in e.items() if v is not None} for e in a["effects"]]}


def _power_added(receipt: Receipt, token: str | None) -> dict[str, Any]:
    return {"power_id": receipt.result["power_id"], "token": token, "receipt": receipt.as_dict()}


# ---------------------------------------------------------------------- reading the board's and console's forms


def _picked_assets(f: Posted) -> list[dict[str, Any]]:
    return [{"asset_id": a, "mode": f.get(f"mode-{a}", "normal")} for a in listed(f, "asset[]")]


def submit_command(me: str, f: Posted) -> pc.SubmitAction:
    """The action the compose form means."""
    propose = f.get("propose") == "on"
    return pc.SubmitAction(
        power_id=me,
        title=f.get("title", ""),
        description=f.get("description", ""),
        skill=f.get("skill") or None,
        slot=f.get("slot", "private"),
        location=f.get("location") or None,
        targets=listed(f, "target[]"),
        resistible=f.get("resistible") == "on",
        difficulty=integer(f.get("difficulty")),
        assets=[] if propose else _picked_assets(f),
        extra_actions=1 if f.get("extra_action") == "on" else 0,
        roll=not propose,
        collaborators=listed(f, "collaborator[]"),  # P-DICE-11: they join with their own pools
        dungeon=f.get("dungeon") == "on",  # P-ASSET-4: inside a dungeon, Delve joins one other skill
    )


def _submitted(f: Posted) -> str:
    if f.get("propose") == "on":
        return _("Proposal sent: the GM will set its difficulty, then you roll.")
    return _("Action recorded. The server rolled your dice below: choose your conversions and confirm.")


def _difficulty(f: Posted, me: str) -> pc.SetDifficulty:
    tiers = {}
    for line in (f.get("tiers") or "").splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            tiers[k.strip()] = v.strip()
    value = integer(f.get("value"))
    if value is None:
        raise RuleViolation(_("give the difficulty as a whole number"), rule="GM-2", field="value")
    return pc.SetDifficulty(f.get("action_id", ""), value, sealed=f.get("sealed") == "on", tiers=tiers)


def _effects(f: Posted) -> list[dict[str, Any]]:
    effects: list[dict[str, Any]] = []
    if integer(f.get("lose_actions"), 0):
        effects.append({"kind": "lose_actions", "count": integer(f.get("lose_actions"))})
    if f.get("disclose_to") and f.get("disclose_text"):
        effects.append({"kind": "disclose", "to": f["disclose_to"], "text": f["disclose_text"]})
    return effects


def _add_power(f: Posted, me: str) -> pc.AddPower:
    cls, _sep, sub = (f.get("kind") or "::").partition(":")
    return pc.AddPower(f.get("name", ""), cls, sub, "")  # the kit issues the token (its hash here)


def _action(f: Posted) -> str:
    return f"action-{f.get('action_id')}"


def _gm_action(f: Posted) -> str:
    return f"gm-action-{f.get('action_id')}"


ACTION = "/actions/{action_id}"

COMMANDS: tuple[Declared, ...] = (
    Declared(
        pc.SubmitAction,
        Route(
            "POST",
            "/actions",
            "submit_action",
            "Submit one action for this Planning step; the server rolls its pool now.",
            s.SubmitActionRequest,
            201,
            seat="power_id",
        ),
        Form("submit", "compose", _submitted, make=lambda f, me: submit_command(me, f), anchor="actions", keep=True),
    ),
    Declared(
        pc.RollAction,
        Route(
            "POST",
            f"{ACTION}/roll",
            "roll_action",
            "Roll a proposed action's pool (after the GM set its difficulty).",
            s.RollRequest,
        ),
        Form(
            "roll",
            _action,
            N_("Rolled. Choose your conversions and confirm."),
            make=lambda f, me: pc.RollAction(
                f.get("action_id", ""),
                assets=_picked_assets(f),
                extra_actions=1 if f.get("extra_action") == "on" else 0,
            ),
        ),
    ),
    Declared(
        pc.LockConversions,
        Route(
            "POST",
            f"{ACTION}/conversions",
            "lock_conversions",
            "Fix how many 3s and 4s become successes, each a consequence (P-DICE-3, P-DICE-5).",
            s.ConvertRequest,
        ),
        Form(
            "convert",
            _action,
            N_("Conversions fixed. Your receipt:"),
            make=lambda f, me: pc.LockConversions(f.get("action_id", ""), convert=integer(f.get("convert"), 0)),
        ),
    ),
    Declared(
        pc.DiscardAction,
        Route(
            "POST",
            f"{ACTION}/discard",
            "discard_action",
            "Discard an action after its roll; it stays spent (P-AMB-29).",
        ),
        Form(
            "discard",
            _action,
            N_("Action discarded (it stays spent)."),
            make=lambda f, me: pc.DiscardAction(f.get("action_id", "")),
            confirm=Confirm(
                N_("Discard this action?"),
                N_("A discarded action is not resolved, and the action it used stays spent for this month."),
                N_("Yes, discard it"),
            ),
        ),
    ),
    Declared(
        pc.SetDifficulty,
        Route(
            "PUT",
            f"{ACTION}/difficulty",
            "set_difficulty",
            "GM: declare a difficulty, or seal it by hash before the roll (GM-2).",
            s.DifficultyRequest,
        ),
        Form("difficulty", _gm_action, N_("Difficulty recorded."), make=_difficulty, gm=True),
    ),
    Declared(
        pc.SetRuling,
        Route(
            "PUT",
            f"{ACTION}/ruling",
            "set_ruling",
            "GM: rule whether an action can be resisted, and by whom (GM-6).",
            s.RulingRequest,
        ),
        Form(
            "set-ruling",
            "gm-catalogue",
            N_("Ruling recorded."),
            lambda f, me: {
                "action_id": text(f, "action_id"),
                "resistible": flag(f, "resistible"),
                "resisters": words(f, "resisters"),
            },
            gm=True,
        ),
    ),
    Declared(
        pc.ProposeConsequence,
        Route(
            "POST",
            f"{ACTION}/consequences",
            "propose_consequence",
            "GM: offer the form the consequences take (GM-3).",
            s.ConsequenceRequest,
            201,
            args=_consequence,
        ),
        Form(
            "consequence",
            _gm_action,
            N_("Consequence offered to the player."),
            make=lambda f, me: pc.ProposeConsequence(f.get("action_id", ""), f.get("text", ""), _effects(f)),
            gm=True,
        ),
    ),
    Declared(
        pc.AcceptConsequence,
        Route(
            "POST",
            f"{ACTION}/consequences/{{consequence_id}}/accept",
            "accept_consequence",
            "Accept the GM's consequence (or discard the action instead).",
        ),
        Form(
            "accept",
            _action,
            N_("Consequence accepted."),
            make=lambda f, me: pc.AcceptConsequence(f.get("action_id", ""), f.get("consequence_id", "")),
        ),
    ),
    Declared(
        pc.DeclareReaction,
        Route(
            "POST",
            "/reactions",
            "declare_reaction",
            "Resist a provisional action alone, with your own assets (P-RES-1..4).",
            s.ReactionRequest,
            201,
            seat="power_id",
        ),
        Form(
            "react",
            lambda f: f"resist-{f.get('action_id')}",
            N_("Reaction recorded. You will learn the outcome when the window closes."),
            make=lambda f, me: pc.DeclareReaction(
                me, f.get("action_id", ""), _picked_assets(f), integer(f.get("convert"), 0)
            ),
        ),
    ),
    Declared(
        pc.LockReaction,
        Route(
            "POST",
            "/reactions/{reaction_id}/conversions",
            "lock_reaction",
            "Fix a reaction's conversions if they were left open.",
            s.ConvertRequest,
            args=lambda a: {"reaction_id": a["reaction_id"], "convert": a["convert"] or 0},
        ),
    ),
    Declared(
        pc.WaiveReactions,
        Route("POST", "/waive", "waive", "Waive your reaction this month (P-AMB-39).", s.WaiveRequest, seat="power_id"),
        Form("waive", "resistance", N_("You waived your reaction."), make=lambda f, me: pc.WaiveReactions(me)),
    ),
    Declared(
        pc.ShareSecret,
        Route(
            "POST",
            "/secrets/{asset_id}/share",
            "share_secret",
            "Share one of your Secrets with another power; it can never be taken back.",
            s.ShareSecretRequest,
            seat="power_id",
        ),
        Form(
            "share-secret",
            "catalogue",
            N_("Secret shared: they know it for good."),
            lambda f, me: {"power_id": me, "asset_id": text(f, "asset_id"), "to": text(f, "to")},
        ),
    ),
    Declared(
        pc.AddPower,
        Route(
            "POST",
            "/powers",
            "add_power",
            "GM: add a power of any class and subclass; the response carries its token (shown once).",
            s.AddPowerRequest,
            201,
            response_model=PowerAddedPublic,
            answer=_power_added,
        ),
        Form(
            "add-power",
            "seats",
            lambda f: _("{name} added. Send them their link (shown once).").format(name=f.get("name")),
            make=_add_power,
            gm=True,
            link=lambda f, receipt: receipt.result["power_id"],
        ),
    ),
    Declared(
        pc.GrantAsset,
        Route(
            "POST",
            "/powers/{power_id}/assets",
            "grant_asset",
            "GM: give a power an asset (reuse an asset id to share it).",
            s.GrantAssetRequest,
            201,
        ),
        Form(
            "asset",
            "seats",
            N_("Asset granted."),
            make=lambda f, me: pc.GrantAsset(
                f.get("power_id", ""),
                f.get("name", ""),
                f.get("cls", ""),
                integer(f.get("rank"), 0) or 0,
                assured=f.get("assured") == "on",
                critical=f.get("critical") == "on",
                novel=f.get("novel") == "on",
            ),
            gm=True,
        ),
    ),
    Declared(
        pc.SetMonths,
        Route(
            "PUT",
            "/season-length",
            "set_season_length",
            "GM: this season has 2 or 3 months (GM-28).",
            s.SeasonLengthRequest,
        ),
    ),
    Declared(
        pc.Advance,
        Route(
            "POST",
            "/advance",
            "advance",
            "GM: move the calendar on from ``expected_step`` (closing Planning converts missing actions to schemes).",
            s.AdvanceRequest,
        ),
        Form(
            "advance",
            "calendar",
            N_("The calendar moved on."),
            make=lambda f, me: pc.Advance(f.get("expected_step") or None, str(f.get("tidings", ""))),
            gm=True,
            confirm=Confirm(
                N_("Close Planning now?"),
                N_("No power can submit, roll or change an action once Planning is closed, even before its deadline."),
                N_("Yes, close Planning"),
                when=lambda f: f.get("expected_step") == "planning",
            ),
        ),
    ),
    Declared(
        pc.Resolve,
        Route(
            "POST",
            "/resolve",
            "resolve",
            "GM: resolve the month in rules order (P.1.4), publish it and open the resistance window.",
            s.ResolveRequest,
        ),
        Form(
            "resolve",
            "calendar",
            N_("Resolved and published; the resistance window is open."),
            make=lambda f, me: pc.Resolve(f.get("expected_step") or None, f.get("announcement", "")),
            gm=True,
        ),
    ),
    Declared(
        pc.SetInfluence,
        Route(
            "PUT",
            "/influence",
            "set_influence",
            "GM: record a power's influence in a hex.",
            s.InfluenceRequest,
            args=lambda a: {"power_id": a["power_id"], "hex_id": a["hex"], "amount": a["amount"]},
        ),
        Form(
            "set-influence",
            "gm-map",
            N_("Influence recorded."),
            lambda f, me: {"power_id": text(f, "power_id"), "hex_id": text(f, "hex_id"), "amount": whole(f, "amount")},
            gm=True,
        ),
    ),
)

DECLARED: tuple[Declared, ...] = (*COMMANDS, *FEATURES, *ARMY_GM)

# The board's and the console's forms that give their command's fields (``args``), by name (the GM's army forms:
# ``army_forms.ARMY_GM_SPECS``).
SPECS: dict[str, Form] = {
    d.form.name: d.form.bound(d.command)
    for d in (*COMMANDS, *FEATURES)
    if d.form is not None and d.form.args is not None
}
