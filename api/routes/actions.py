"""Actions and reactions: submit, roll, convert, discard, GM rulings, consequences, resistance."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import GamesDep, IdempotencyKey, Principal
from api.schemas import (
    ConsequenceRequest, ConvertRequest, DifficultyRequest, GrantRequest, InfluenceRequest, ReactionRequest,
    ReceiptPublic, RollRequest, RulingRequest, ShareSecretRequest, SubmitActionRequest, TimezoneRequest, WaiveRequest,
)

router = APIRouter(prefix="/games/{game_id}", tags=["actions"])


def _assets(items) -> list[dict]:
    return [i.model_dump() for i in items]


@router.post("/actions", status_code=201, response_model=ReceiptPublic)
def submit_action(game_id: str, body: SubmitActionRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """Submit one action for this Planning step; the server rolls its pool now."""
    draft = body.model_dump(exclude={"power_id"})
    draft["assets"] = _assets(body.assets)
    return games.submit_action(game_id, me, body.power_id or me, **draft, key=key).as_dict()


@router.post("/actions/{action_id}/roll", response_model=ReceiptPublic)
def roll_action(game_id: str, action_id: str, body: RollRequest, games: GamesDep, me: Principal,
                key: IdempotencyKey) -> dict:
    """Roll a proposed action's pool (after the GM set its difficulty)."""
    return games.roll_action(game_id, me, action_id, assets=_assets(body.assets), extra_actions=body.extra_actions,
                             convert=body.convert, key=key).as_dict()


@router.post("/actions/{action_id}/conversions", response_model=ReceiptPublic)
def lock_conversions(game_id: str, action_id: str, body: ConvertRequest, games: GamesDep, me: Principal,
                     key: IdempotencyKey) -> dict:
    """Fix how many 3s and 4s become successes, each a consequence (P-DICE-3, P-DICE-5)."""
    return games.lock_conversions(game_id, me, action_id, body.convert, body.dice, key=key).as_dict()


@router.post("/actions/{action_id}/discard", response_model=ReceiptPublic)
def discard_action(game_id: str, action_id: str, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """Discard an action after its roll; it stays spent (P-AMB-29)."""
    return games.discard_action(game_id, me, action_id, key=key).as_dict()


@router.put("/actions/{action_id}/difficulty", response_model=ReceiptPublic)
def set_difficulty(game_id: str, action_id: str, body: DifficultyRequest, games: GamesDep, me: Principal,
                   key: IdempotencyKey) -> dict:
    """GM: declare a difficulty, or seal it by hash before the roll (GM-2)."""
    return games.set_difficulty(game_id, me, action_id, body.value, body.sealed, body.tiers, key=key).as_dict()


@router.put("/actions/{action_id}/ruling", response_model=ReceiptPublic)
def set_ruling(game_id: str, action_id: str, body: RulingRequest, games: GamesDep, me: Principal,
               key: IdempotencyKey) -> dict:
    """GM: rule whether an action can be resisted, and by whom (GM-6)."""
    return games.set_ruling(game_id, me, action_id, body.resistible, body.resisters, key=key).as_dict()


@router.post("/actions/{action_id}/consequences", status_code=201, response_model=ReceiptPublic)
def propose_consequence(game_id: str, action_id: str, body: ConsequenceRequest, games: GamesDep,
                        me: Principal, key: IdempotencyKey) -> dict:
    """GM: offer the form the consequences take (GM-3)."""
    effects = [e.model_dump(exclude_none=True) for e in body.effects]
    return games.propose_consequence(game_id, me, action_id, body.text, effects, key=key).as_dict()


@router.post("/actions/{action_id}/consequences/{consequence_id}/accept", response_model=ReceiptPublic)
def accept_consequence(game_id: str, action_id: str, consequence_id: str, games: GamesDep, me: Principal,
                       key: IdempotencyKey) -> dict:
    """Accept the GM's consequence (or discard the action instead)."""
    return games.accept_consequence(game_id, me, action_id, consequence_id, key=key).as_dict()


@router.post("/reactions", status_code=201, response_model=ReceiptPublic)
def declare_reaction(game_id: str, body: ReactionRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """Resist a provisional action alone, with your own assets (P-RES-1..4)."""
    return games.declare_reaction(game_id, me, body.power_id or me, body.action_id, _assets(body.assets),
                                  body.convert, key=key).as_dict()


@router.post("/reactions/{reaction_id}/conversions", response_model=ReceiptPublic)
def lock_reaction(game_id: str, reaction_id: str, body: ConvertRequest, games: GamesDep, me: Principal,
                  key: IdempotencyKey) -> dict:
    """Fix a reaction's conversions if they were left open."""
    return games.lock_reaction(game_id, me, reaction_id, body.convert or 0, key=key).as_dict()


@router.post("/waive", response_model=ReceiptPublic)
def waive(game_id: str, body: WaiveRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """Waive your reaction this month (P-AMB-39)."""
    return games.waive(game_id, me, body.power_id or me, key=key).as_dict()


@router.post("/secrets/{asset_id}/share", response_model=ReceiptPublic)
def share_secret(game_id: str, asset_id: str, body: ShareSecretRequest, games: GamesDep, me: Principal,
                 key: IdempotencyKey) -> dict:
    """Share one of your Secrets with another power; it can never be taken back."""
    return games.share_secret(game_id, me, body.power_id or me, asset_id, body.to, key=key).as_dict()


@router.post("/grants", status_code=201, response_model=ReceiptPublic)
def grant(game_id: str, body: GrantRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """GM: show a power what it learned (a Seeking success, a ruling)."""
    return games.grant_visibility(game_id, me, body.to, body.text, body.source, body.about, key=key).as_dict()


@router.put("/influence", response_model=ReceiptPublic)
def set_influence(game_id: str, body: InfluenceRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """GM: record a power's influence in a hex."""
    return games.set_influence(game_id, me, body.power_id, body.hex, body.amount, key=key).as_dict()


@router.put("/timezone", response_model=ReceiptPublic)
def set_timezone(game_id: str, body: TimezoneRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """Choose the time zone your feed and deadlines are shown in."""
    return games.set_timezone(game_id, me, body.power_id or me, body.timezone, key=key).as_dict()
