"""Powers' JSON routes: powers and their assets, the calendar (advance, resolve, season length), actions and
reactions (submit, roll, convert, discard, GM rulings, consequences, resistance), secrets and influence."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import CurrentCaller, GamesDep, IdempotencyKey, Principal
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
from api.schemas import ReceiptPublic
from api.service import new_token
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

router = APIRouter(prefix="/games/{game_id}", tags=["powers"])


def _assets(items) -> list[dict]:
    return [i.model_dump() for i in items]


@router.post("/actions", status_code=201, response_model=ReceiptPublic)
def submit_action(
    game_id: str, body: SubmitActionRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Submit one action for this Planning step; the server rolls its pool now."""
    draft = body.model_dump(exclude={"power_id"})
    draft["assets"] = _assets(body.assets)
    command = SubmitAction(power_id=body.power_id or caller.principal, **draft)
    return games.run(caller, game_id, command, key).as_dict()


@router.post("/actions/{action_id}/roll", response_model=ReceiptPublic)
def roll_action(
    game_id: str, action_id: str, body: RollRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Roll a proposed action's pool (after the GM set its difficulty)."""
    command = RollAction(action_id, _assets(body.assets), body.extra_actions, body.convert)
    return games.run(caller, game_id, command, key).as_dict()


@router.post("/actions/{action_id}/conversions", response_model=ReceiptPublic)
def lock_conversions(
    game_id: str, action_id: str, body: ConvertRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Fix how many 3s and 4s become successes, each a consequence (P-DICE-3, P-DICE-5)."""
    return games.run(caller, game_id, LockConversions(action_id, body.convert, body.dice), key).as_dict()


@router.post("/actions/{action_id}/discard", response_model=ReceiptPublic)
def discard_action(game_id: str, action_id: str, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey) -> dict:
    """Discard an action after its roll; it stays spent (P-AMB-29)."""
    return games.run(caller, game_id, DiscardAction(action_id), key).as_dict()


@router.put("/actions/{action_id}/difficulty", response_model=ReceiptPublic)
def set_difficulty(
    game_id: str, action_id: str, body: DifficultyRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: declare a difficulty, or seal it by hash before the roll (GM-2)."""
    return games.run(caller, game_id, SetDifficulty(action_id, body.value, body.sealed, body.tiers), key).as_dict()


@router.put("/actions/{action_id}/ruling", response_model=ReceiptPublic)
def set_ruling(
    game_id: str, action_id: str, body: RulingRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: rule whether an action can be resisted, and by whom (GM-6)."""
    return games.run(caller, game_id, SetRuling(action_id, body.resistible, body.resisters), key).as_dict()


@router.post("/actions/{action_id}/consequences", status_code=201, response_model=ReceiptPublic)
def propose_consequence(
    game_id: str, action_id: str, body: ConsequenceRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: offer the form the consequences take (GM-3)."""
    effects = [e.model_dump(exclude_none=True) for e in body.effects]
    return games.run(caller, game_id, ProposeConsequence(action_id, body.text, effects), key).as_dict()


@router.post("/actions/{action_id}/consequences/{consequence_id}/accept", response_model=ReceiptPublic)
def accept_consequence(
    game_id: str, action_id: str, consequence_id: str, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Accept the GM's consequence (or discard the action instead)."""
    return games.run(caller, game_id, AcceptConsequence(action_id, consequence_id), key).as_dict()


@router.post("/reactions", status_code=201, response_model=ReceiptPublic)
def declare_reaction(
    game_id: str, body: ReactionRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Resist a provisional action alone, with your own assets (P-RES-1..4)."""
    command = DeclareReaction(body.power_id or caller.principal, body.action_id, _assets(body.assets), body.convert)
    return games.run(caller, game_id, command, key).as_dict()


@router.post("/reactions/{reaction_id}/conversions", response_model=ReceiptPublic)
def lock_reaction(
    game_id: str, reaction_id: str, body: ConvertRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Fix a reaction's conversions if they were left open."""
    return games.run(caller, game_id, LockReaction(reaction_id, body.convert or 0), key).as_dict()


@router.post("/waive", response_model=ReceiptPublic)
def waive(game_id: str, body: WaiveRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey) -> dict:
    """Waive your reaction this month (P-AMB-39)."""
    return games.run(caller, game_id, WaiveReactions(body.power_id or caller.principal), key).as_dict()


@router.post("/secrets/{asset_id}/share", response_model=ReceiptPublic)
def share_secret(
    game_id: str, asset_id: str, body: ShareSecretRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Share one of your Secrets with another power; it can never be taken back."""
    command = ShareSecret(body.power_id or caller.principal, asset_id, body.to)
    return games.run(caller, game_id, command, key).as_dict()


@router.post("/powers", status_code=201, response_model=PowerAddedPublic)
def add_power(game_id: str, body: AddPowerRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey) -> dict:
    """GM: add a power of any class and subclass; the response carries its token (shown once)."""
    token, token_hash = new_token()
    receipt = games.run(caller, game_id, AddPower(body.name, body.cls, body.subclass, token_hash, body.options), key)
    return {
        "power_id": receipt.result["power_id"],
        "token": None if receipt.replayed else token,
        "receipt": receipt.as_dict(),
    }


@router.post("/powers/{power_id}/assets", status_code=201, response_model=ReceiptPublic)
def grant_asset(
    game_id: str, power_id: str, body: GrantAssetRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: give a power an asset (reuse an asset id to share it)."""
    command = GrantAsset(
        power_id, body.name, body.cls, body.rank, body.asset_id, body.assured, body.critical, body.novel
    )
    return games.run(caller, game_id, command, key).as_dict()


@router.put("/season-length", response_model=ReceiptPublic)
def set_season_length(
    game_id: str, body: SeasonLengthRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: this season has 2 or 3 months (GM-28)."""
    return games.run(caller, game_id, SetMonths(body.months), key).as_dict()


@router.post("/advance", response_model=ReceiptPublic)
def advance(game_id: str, body: AdvanceRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey) -> dict:
    """GM: move the calendar on from ``expected_step`` (closing Planning converts missing actions to schemes)."""
    return games.run(caller, game_id, Advance(body.expected_step, body.tidings), key).as_dict()


@router.post("/resolve", response_model=ReceiptPublic)
def resolve(game_id: str, body: ResolveRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey) -> dict:
    """GM: resolve the month in rules order (P.1.4), publish it and open the resistance window."""
    return games.run(caller, game_id, Resolve(body.expected_step, body.announcement), key).as_dict()


@router.put("/influence", response_model=ReceiptPublic)
def set_influence(
    game_id: str, body: InfluenceRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: record a power's influence in a hex."""
    return games.run(caller, game_id, SetInfluence(body.power_id, body.hex, body.amount), key).as_dict()


@router.get("/battles/{battle_id}")
def battle(game_id: str, battle_id: str, games: GamesDep, me: Principal) -> dict:
    """A battle as you see it (P.4): the battlefield, armies and wounds, goals, whose turn it is."""
    return games.battle(game_id, me, battle_id)


@router.get("/battles/{battle_id}/report")
def battle_report(game_id: str, battle_id: str, games: GamesDep, me: Principal) -> list[dict]:
    """The battle's report round by round, as you saw it (the GM: in full)."""
    return games.battle_report(game_id, me, battle_id)
