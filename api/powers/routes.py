"""Actions and reactions: submit, roll, convert, discard, GM rulings, consequences, resistance."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import CurrentCaller, GamesDep, IdempotencyKey
from api.schemas import (
    ConsequenceRequest,
    ConvertRequest,
    DifficultyRequest,
    GrantRequest,
    InfluenceRequest,
    ReactionRequest,
    ReceiptPublic,
    RollRequest,
    RulingRequest,
    ShareSecretRequest,
    SubmitActionRequest,
    TimezoneRequest,
    WaiveRequest,
)
from domain.platform.commands import GrantVisibility, SetTimezone
from domain.powers.commands import (
    AcceptConsequence,
    DeclareReaction,
    DiscardAction,
    LockConversions,
    LockReaction,
    ProposeConsequence,
    RollAction,
    SetDifficulty,
    SetInfluence,
    SetRuling,
    ShareSecret,
    SubmitAction,
    WaiveReactions,
)

router = APIRouter(prefix="/games/{game_id}", tags=["actions"])


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


@router.post("/grants", status_code=201, response_model=ReceiptPublic)
def grant(game_id: str, body: GrantRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey) -> dict:
    """GM: show a power what it learned (a Seeking success, a ruling)."""
    return games.run(caller, game_id, GrantVisibility(body.to, body.text, body.source, body.about), key).as_dict()


@router.put("/influence", response_model=ReceiptPublic)
def set_influence(
    game_id: str, body: InfluenceRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: record a power's influence in a hex."""
    return games.run(caller, game_id, SetInfluence(body.power_id, body.hex, body.amount), key).as_dict()


@router.put("/timezone", response_model=ReceiptPublic)
def set_timezone(
    game_id: str, body: TimezoneRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Choose the time zone your feed and deadlines are shown in."""
    return games.run(caller, game_id, SetTimezone(body.power_id or caller.principal, body.timezone), key).as_dict()
