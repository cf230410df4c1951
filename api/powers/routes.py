"""Powers' JSON routes: powers and their assets, the calendar (advance, resolve, season length), actions and
reactions (submit, roll, convert, discard, GM rulings, consequences, resistance), secrets and influence."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from api.deps import Principal, SenderDep, get_games
from api.powers.schemas import (
    AddPowerRequest,
    AdvanceRequest,
    ConsequenceRequest,
    ConvertRequest,
    DifficultyRequest,
    GrantAssetRequest,
    InfluenceRequest,
    PowerAddedPublic,
    ReactionRequest,
    ResolveRequest,
    RollRequest,
    RulingRequest,
    SeasonLengthRequest,
    ShareSecretRequest,
    SubmitActionRequest,
    WaiveRequest,
)
from api.powers.service import BattleReads
from api.schemas import COMMAND, GAME_READ, ReceiptPublic
from application.service import new_token
from domain.powers.commands import (
    AcceptConsequence,
    AddPower,
    Advance,
    DeclareReaction,
    DiscardAction,
    GrantAsset,
    LockConversions,
    LockReaction,
    ProposeConsequence,
    Resolve,
    RollAction,
    SetDifficulty,
    SetInfluence,
    SetMonths,
    SetRuling,
    ShareSecret,
    SubmitAction,
    WaiveReactions,
)

# Every route is a command (a write with a body; 409 when the game moved on) but the battles' two reads.
router = APIRouter(prefix="/games/{game_id}", tags=["powers"], responses=GAME_READ)


def _assets(items) -> list[dict]:
    return [i.model_dump() for i in items]


@router.post("/actions", status_code=201, response_model=ReceiptPublic, responses=COMMAND)
async def submit_action(game_id: str, body: SubmitActionRequest, sender: SenderDep) -> dict:
    """Submit one action for this Planning step; the server rolls its pool now."""
    draft = body.model_dump(exclude={"power_id"})
    draft["assets"] = _assets(body.assets)
    command = SubmitAction(power_id=body.power_id or sender.caller.principal, **draft)
    return await sender.run(game_id, command)


@router.post("/actions/{action_id}/roll", response_model=ReceiptPublic, responses=COMMAND)
async def roll_action(game_id: str, action_id: str, body: RollRequest, sender: SenderDep) -> dict:
    """Roll a proposed action's pool (after the GM set its difficulty)."""
    command = RollAction(action_id, _assets(body.assets), body.extra_actions, body.convert)
    return await sender.run(game_id, command)


@router.post("/actions/{action_id}/conversions", response_model=ReceiptPublic, responses=COMMAND)
async def lock_conversions(game_id: str, action_id: str, body: ConvertRequest, sender: SenderDep) -> dict:
    """Fix how many 3s and 4s become successes, each a consequence (P-DICE-3, P-DICE-5)."""
    return await sender.run(game_id, LockConversions(action_id, body.convert, body.dice))


@router.post("/actions/{action_id}/discard", response_model=ReceiptPublic, responses=COMMAND)
async def discard_action(game_id: str, action_id: str, sender: SenderDep) -> dict:
    """Discard an action after its roll; it stays spent (P-AMB-29)."""
    return await sender.run(game_id, DiscardAction(action_id))


@router.put("/actions/{action_id}/difficulty", response_model=ReceiptPublic, responses=COMMAND)
async def set_difficulty(game_id: str, action_id: str, body: DifficultyRequest, sender: SenderDep) -> dict:
    """GM: declare a difficulty, or seal it by hash before the roll (GM-2)."""
    return await sender.run(game_id, SetDifficulty(action_id, body.value, body.sealed, body.tiers))


@router.put("/actions/{action_id}/ruling", response_model=ReceiptPublic, responses=COMMAND)
async def set_ruling(game_id: str, action_id: str, body: RulingRequest, sender: SenderDep) -> dict:
    """GM: rule whether an action can be resisted, and by whom (GM-6)."""
    return await sender.run(game_id, SetRuling(action_id, body.resistible, body.resisters))


@router.post("/actions/{action_id}/consequences", status_code=201, response_model=ReceiptPublic, responses=COMMAND)
async def propose_consequence(game_id: str, action_id: str, body: ConsequenceRequest, sender: SenderDep) -> dict:
    """GM: offer the form the consequences take (GM-3)."""
    effects = [e.model_dump(exclude_none=True) for e in body.effects]
    return await sender.run(game_id, ProposeConsequence(action_id, body.text, effects))


@router.post(
    "/actions/{action_id}/consequences/{consequence_id}/accept", response_model=ReceiptPublic, responses=COMMAND
)
async def accept_consequence(game_id: str, action_id: str, consequence_id: str, sender: SenderDep) -> dict:
    """Accept the GM's consequence (or discard the action instead)."""
    return await sender.run(game_id, AcceptConsequence(action_id, consequence_id))


@router.post("/reactions", status_code=201, response_model=ReceiptPublic, responses=COMMAND)
async def declare_reaction(game_id: str, body: ReactionRequest, sender: SenderDep) -> dict:
    """Resist a provisional action alone, with your own assets (P-RES-1..4)."""
    command = DeclareReaction(
        body.power_id or sender.caller.principal, body.action_id, _assets(body.assets), body.convert
    )
    return await sender.run(game_id, command)


@router.post("/reactions/{reaction_id}/conversions", response_model=ReceiptPublic, responses=COMMAND)
async def lock_reaction(game_id: str, reaction_id: str, body: ConvertRequest, sender: SenderDep) -> dict:
    """Fix a reaction's conversions if they were left open."""
    return await sender.run(game_id, LockReaction(reaction_id, body.convert or 0))


@router.post("/waive", response_model=ReceiptPublic, responses=COMMAND)
async def waive(game_id: str, body: WaiveRequest, sender: SenderDep) -> dict:
    """Waive your reaction this month (P-AMB-39)."""
    return await sender.run(game_id, WaiveReactions(body.power_id or sender.caller.principal))


@router.post("/secrets/{asset_id}/share", response_model=ReceiptPublic, responses=COMMAND)
async def share_secret(game_id: str, asset_id: str, body: ShareSecretRequest, sender: SenderDep) -> dict:
    """Share one of your Secrets with another power; it can never be taken back."""
    command = ShareSecret(body.power_id or sender.caller.principal, asset_id, body.to)
    return await sender.run(game_id, command)


@router.post("/powers", status_code=201, response_model=PowerAddedPublic, responses=COMMAND)
async def add_power(game_id: str, body: AddPowerRequest, sender: SenderDep) -> dict:
    """GM: add a power of any class and subclass; the response carries its token (shown once)."""
    token, token_hash = new_token()
    receipt = await sender.receipt(game_id, AddPower(body.name, body.cls, body.subclass, token_hash, body.options))
    return {
        "power_id": receipt.result["power_id"],
        "token": None if receipt.replayed else token,
        "receipt": receipt.as_dict(),
    }


@router.post("/powers/{power_id}/assets", status_code=201, response_model=ReceiptPublic, responses=COMMAND)
async def grant_asset(game_id: str, power_id: str, body: GrantAssetRequest, sender: SenderDep) -> dict:
    """GM: give a power an asset (reuse an asset id to share it)."""
    command = GrantAsset(
        power_id, body.name, body.cls, body.rank, body.asset_id, body.assured, body.critical, body.novel
    )
    return await sender.run(game_id, command)


@router.put("/season-length", response_model=ReceiptPublic, responses=COMMAND)
async def set_season_length(game_id: str, body: SeasonLengthRequest, sender: SenderDep) -> dict:
    """GM: this season has 2 or 3 months (GM-28)."""
    return await sender.run(game_id, SetMonths(body.months))


@router.post("/advance", response_model=ReceiptPublic, responses=COMMAND)
async def advance(game_id: str, body: AdvanceRequest, sender: SenderDep) -> dict:
    """GM: move the calendar on from ``expected_step`` (closing Planning converts missing actions to schemes)."""
    return await sender.run(game_id, Advance(body.expected_step, body.tidings))


@router.post("/resolve", response_model=ReceiptPublic, responses=COMMAND)
async def resolve(game_id: str, body: ResolveRequest, sender: SenderDep) -> dict:
    """GM: resolve the month in rules order (P.1.4), publish it and open the resistance window."""
    return await sender.run(game_id, Resolve(body.expected_step, body.announcement))


@router.put("/influence", response_model=ReceiptPublic, responses=COMMAND)
async def set_influence(game_id: str, body: InfluenceRequest, sender: SenderDep) -> dict:
    """GM: record a power's influence in a hex."""
    return await sender.run(game_id, SetInfluence(body.power_id, body.hex, body.amount))


# The service, with the battle reads Powers' mixin adds to it (api.rulesets composes it; these routes are mounted
# only where Powers is installed).
BattleReadsDep = Annotated[BattleReads, Depends(get_games)]


@router.get("/battles/{battle_id}")
def battle(game_id: str, battle_id: str, games: BattleReadsDep, me: Principal) -> dict:
    """A battle as you see it (P.4): the battlefield, armies and wounds, goals, whose turn it is."""
    return games.battle(game_id, me, battle_id)


@router.get("/battles/{battle_id}/report")
def battle_report(game_id: str, battle_id: str, games: BattleReadsDep, me: Principal) -> list[dict]:
    """The battle's report round by round, as you saw it (the GM: in full)."""
    return games.battle_report(game_id, me, battle_id)
