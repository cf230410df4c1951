"""Powers' commands, each declared once (``api.declare``): where the JSON API takes it, with its request schema
(``api.powers.schemas``), and the web form that sends it. The platform makes the routes, their OpenAPI entries
and the forms from this list; each command's handler is the one ``domain.powers`` registers."""

from __future__ import annotations

from typing import Any

from api.declare import Declared, Route
from api.powers import schemas as s
from api.powers.schemas import PowerAddedPublic
from application.service import Receipt
from domain.powers import commands as pc


def _consequence(a: dict[str, Any]) -> dict[str, Any]:
    return {**a, "effects": [{k: v for k, v in e.items() if v is not None} for e in a["effects"]]}


def _power_added(receipt: Receipt, token: str | None) -> dict[str, Any]:
    return {"power_id": receipt.result["power_id"], "token": token, "receipt": receipt.as_dict()}


ACTION = "/actions/{action_id}"

# fmt: off
ROUTES = (
    Declared(pc.SubmitAction, Route(
        "POST", "/actions", "submit_action", "Submit one action for this Planning step; the server rolls its pool now.",
        s.SubmitActionRequest, 201, seat="power_id")),
    Declared(pc.RollAction, Route(
        "POST", f"{ACTION}/roll", "roll_action", "Roll a proposed action's pool (after the GM set its difficulty).",
        s.RollRequest)),
    Declared(pc.LockConversions, Route(
        "POST", f"{ACTION}/conversions", "lock_conversions",
        "Fix how many 3s and 4s become successes, each a consequence (P-DICE-3, P-DICE-5).", s.ConvertRequest)),
    Declared(pc.DiscardAction, Route(
        "POST", f"{ACTION}/discard", "discard_action", "Discard an action after its roll; it stays spent (P-AMB-29).")),
    Declared(pc.SetDifficulty, Route(
        "PUT", f"{ACTION}/difficulty", "set_difficulty",
        "GM: declare a difficulty, or seal it by hash before the roll (GM-2).", s.DifficultyRequest)),
    Declared(pc.SetRuling, Route(
        "PUT", f"{ACTION}/ruling", "set_ruling", "GM: rule whether an action can be resisted, and by whom (GM-6).",
        s.RulingRequest)),
    Declared(pc.ProposeConsequence, Route(
        "POST", f"{ACTION}/consequences", "propose_consequence", "GM: offer the form the consequences take (GM-3).",
        s.ConsequenceRequest, 201, args=_consequence)),
    Declared(pc.AcceptConsequence, Route(
        "POST", f"{ACTION}/consequences/{{consequence_id}}/accept", "accept_consequence",
        "Accept the GM's consequence (or discard the action instead).")),
    Declared(pc.DeclareReaction, Route(
        "POST", "/reactions", "declare_reaction",
        "Resist a provisional action alone, with your own assets (P-RES-1..4).", s.ReactionRequest, 201,
        seat="power_id")),
    Declared(pc.LockReaction, Route(
        "POST", "/reactions/{reaction_id}/conversions", "lock_reaction",
        "Fix a reaction's conversions if they were left open.", s.ConvertRequest,
        args=lambda a: {"reaction_id": a["reaction_id"], "convert": a["convert"] or 0})),
    Declared(pc.WaiveReactions, Route(
        "POST", "/waive", "waive", "Waive your reaction this month (P-AMB-39).", s.WaiveRequest, seat="power_id")),
    Declared(pc.ShareSecret, Route(
        "POST", "/secrets/{asset_id}/share", "share_secret",
        "Share one of your Secrets with another power; it can never be taken back.", s.ShareSecretRequest,
        seat="power_id")),
    Declared(pc.AddPower, Route(
        "POST", "/powers", "add_power",
        "GM: add a power of any class and subclass; the response carries its token (shown once).", s.AddPowerRequest,
        201, response_model=PowerAddedPublic, answer=_power_added)),
    Declared(pc.GrantAsset, Route(
        "POST", "/powers/{power_id}/assets", "grant_asset",
        "GM: give a power an asset (reuse an asset id to share it).", s.GrantAssetRequest, 201)),
    Declared(pc.SetMonths, Route(
        "PUT", "/season-length", "set_season_length", "GM: this season has 2 or 3 months (GM-28).",
        s.SeasonLengthRequest)),
    Declared(pc.Advance, Route(
        "POST", "/advance", "advance",
        "GM: move the calendar on from ``expected_step`` (closing Planning converts missing actions to schemes).",
        s.AdvanceRequest)),
    Declared(pc.Resolve, Route(
        "POST", "/resolve", "resolve",
        "GM: resolve the month in rules order (P.1.4), publish it and open the resistance window.", s.ResolveRequest)),
    Declared(pc.SetInfluence, Route(
        "PUT", "/influence", "set_influence", "GM: record a power's influence in a hex.", s.InfluenceRequest,
        args=lambda a: {"power_id": a["power_id"], "hex_id": a["hex"], "amount": a["amount"]})),
)
# fmt: on

DECLARED = ROUTES
