"""Per-viewer views of a Powers game, computed from state by the rules of P.4 (never in routes).

``viewer`` is ``"gm"``, a power id or an observer (what every power sees). The GM sees everything but the unrevealed
month seed;
a power sees its own sheet and actions, what the table sees, and what the rules let it
see of others (a resister: actor, action and pool size only, P-AMB-3/P-AMB-45).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from domain import visibility as vis
from domain.ids import GM
from domain.platform.state import Window
from domain.powers import rules
from domain.powers.armies import armies_view
from domain.powers.battle import battles_view
from domain.powers.catalogue import catalogue_view
from domain.powers.development import development_view
from domain.powers.game import Game
from domain.powers.magic import magic_view
from domain.powers.state import ActionState, GameState, Pool, PowerState, Reaction
from domain.powers.world import map_view
from domain.powers.world_view import influence_seen


def _pool_view(pool: Pool | None) -> dict[str, Any] | None:
    if pool is None:
        return None
    return {
        "roll_no": pool.roll_no,
        "locked": pool.locked,
        "assets": [
            {
                "asset_id": a.asset_id,
                "name": a.name,
                "cls": a.cls,
                "rank": a.rank,
                "mode": a.mode,
                "undercut": a.undercut,
            }
            for a in pool.assets
        ],
        "dice": [{"face": d.face, "asset": d.asset, "converted": d.converted, "removed": d.removed} for d in pool.dice],
    }


def _full_action(game: Game, a: ActionState, *, with_secret: bool, owner: bool = True) -> dict[str, Any]:
    t = game.tally(a)
    out = {
        "action_id": a.id,
        "power": a.power,
        "power_name": game.state.powers[a.power].name,
        "index": a.index,
        "title": a.title,
        "description": a.description,
        "skill": a.skill,
        "slot": a.slot,
        "location": a.location,
        "targets": list(a.targets),
        "resistible": a.resistible,
        "collaborators": list(a.collaborators),
        "status": a.status,
        "discarded": a.discarded,
        "extra_actions": a.extra_actions,
        "difficulty": a.difficulty,
        "difficulty_sealed": a.sealed is not None and not a.revealed,
        "difficulty_commitment": a.sealed,
        "tiers": dict(a.tiers),
        "difficulty_changed_after_roll": dict(a.changed_after_roll) if a.changed_after_roll else None,
        "pool": _pool_view(a.pool),
        "critical": _critical(game, a.pool),
        "pool_size": t.pool_size,
        "successes": t.successes,
        "consequences": t.consequences,
        "effective_consequences": game.effective_consequences(a),  # after perks that ignore some (P-DICE-12)
        "digest": a.digest,
        "salt": a.salt,
        "consequence_offers": [
            {"id": c.id, "text": c.text, "effects": c.effects, "status": c.status} for c in a.consequences
        ],
        "result": _result(a),
    }
    if not owner:
        # The table sees a public action's pool, dice and result, not the owner's dealings with the GM.
        # Nor its digest's salt: with it, the digest would give away what the table may not yet see.
        # Nor the GM's ruling after the roll: its event is the owner's, the collaborators' and the GM's (P.4).
        for key in (
            "consequence_offers",
            "digest",
            "salt",
            "difficulty_commitment",
            "extra_actions",
            "difficulty_changed_after_roll",
        ):
            out.pop(key)
    if owner and a.pool is not None and not a.pool.locked:  # the choices of conversions, counted (P-DICE-3)
        out["preview"] = game.conversion_preview(a)
    if with_secret and a.id in game.state.sealed_difficulties and not a.revealed:
        out["sealed_difficulty"] = game.state.sealed_difficulties[a.id]["value"]
    return out


def _critical(game: Game, pool: Pool | None) -> list[dict[str, Any]]:
    """P-AMB-5 "Show the player both the rolled and the multiplied numbers": each critical asset's own successes
    (5s, 6s and converted 3s and 4s) and what it counts in this game's ``critical_mode``."""
    out: list[dict[str, Any]] = []
    if pool is None:
        return out
    mode = game.state.options.get("critical_mode", "rolled")
    for pa in pool.assets:
        if pa.mode != "critical" or pa.undercut:
            continue
        dice = [(d.face, d.converted) for d in pool.dice if d.asset == pa.asset_id and not d.removed]
        rolled = rules.tally([(pa.rank, "normal", dice)]).successes
        counted = rules.tally([(pa.rank, "critical", dice)], critical_mode=mode).successes
        out.append({"asset_id": pa.asset_id, "name": pa.name, "rolled": rolled, "counted": counted})
    return out


def _result(a: ActionState) -> dict[str, Any] | None:
    if a.status != "resolved":
        return None
    return {
        "successes": a.successes,
        "resisted": a.resisted,
        "net": a.net,
        "difficulty": a.difficulty,
        "success": a.success,
        "excess": a.excess,
    }


def _sheet(game: Game, p: PowerState) -> dict[str, Any]:
    pub, priv = game.slots_used(p.id)
    budget = p.public + p.private - p.debt_this_month
    return {
        "power_id": p.id,
        "name": p.name,
        "cls": p.cls,
        "subclass": p.subclass,
        "options": dict(p.options),
        "quota": {
            "public": p.public,
            "private": p.private,
            "lost_this_month": p.debt_this_month,
            "lost_next_month": p.debt_next_month,
        },
        "used": {"public": pub, "private": priv},
        "left": {
            "public": max(0, min(p.public - pub, budget - pub - priv)),
            "private": max(0, min(p.private - priv, budget - pub - priv)),
        },
        "reactions_left": 0 if p.done_reacting else max(0, p.reaction_allowance - p.reactions_used),
        "ready": p.ready,
        "extension_hours_used": p.extension_hours_used,
        "statuses": dict(p.statuses),
        "mana": dict(p.mana),
        "timezone": p.timezone,
        "influence": dict(p.influence),
        "learned": [dict(g) for g in p.grants],
        "assets": [
            {
                "asset_id": a.id,
                "name": a.name,
                "cls": a.cls,
                "rank": a.rank,
                "assured": a.assured,
                "critical": a.critical,
                "novel": a.novel,
                "used_up": a.used_up,
                "used_this_season": a.id in game.state.season_ledger,
                "shared": len(a.holders) > 1,
            }
            for a in sorted(game.state.assets.values(), key=lambda a: a.id)
            if p.id in a.holders
        ],
    }


def board_view(game: Game, viewer: str) -> dict[str, Any]:
    """What ``viewer`` may see of the game now (P.4)."""
    s = game.state
    is_gm = viewer == GM
    out: dict[str, Any] = {
        "viewer": viewer,
        "game": _game_header(s),
        "windows": [_window(game, w, viewer) for w in s.windows.values()],
        "powers": [
            {"power_id": p.id, "name": p.name, "cls": p.cls, "subclass": p.subclass, "options": dict(p.options)}
            for p in sorted(s.powers.values(), key=lambda p: p.id)
        ],
        "industries": [
            {"asset_id": a.id, "name": a.name, "rank": a.rank}
            for a in sorted(s.assets.values(), key=lambda a: a.id)
            if a.cls == "industry"
        ],
        "sequence": s.sequence_for(viewer),
        "magic": magic_view(game, viewer),
        "map": map_view(game, viewer),
        "development": development_view(game, viewer),
        "armies": armies_view(game, viewer),
        "battles": battles_view(game, viewer),
    }
    public_results = []
    for a in _in_order(game):
        if not game.is_public(a) or a.discarded:
            continue
        if a.status == "resolved":
            public_results.append(_full_action(game, a, with_secret=False, owner=is_gm or a.power == viewer))
        elif a.status == "provisional":
            public_results.append(_notice(game, a))
    out["public_actions"] = public_results
    # an observer (issue 28) sees what the table sees and no seat's part
    out |= _gm_part(game) if is_gm else {} if vis.is_observer(viewer) else _seat_part(game, viewer)
    out["catalogue"] = catalogue_view(game, viewer)
    return out


def _game_header(s: GameState) -> dict[str, Any]:
    """The game's name, calendar, options and history, which every viewer sees."""
    return {
        "name": s.name,
        "ruleset": s.ruleset,
        "rules_version": s.rules_version,
        "timezone": s.timezone,
        "season": s.season,
        "month": s.month,
        "months_per_season": s.months_per_season,
        "step": s.step,
        "resolved": s.resolved,
        "seed_commitment": s.seed_commitment,
        "seed_root": s.seed_root,
        "options": dict(s.options),
        "forked_from": dict(s.forked_from) if s.forked_from else None,
        "rollbacks": s.rollbacks,
    }


def _gm_part(game: Game) -> dict[str, Any]:
    """What the GM alone sees: every action with its secrets, the queue, every reaction and sheet."""
    s = game.state
    return {
        "actions": [_full_action(game, a, with_secret=True) for a in _in_order(game)],
        "queue": list(s.queue),
        "reactions": [
            {
                "reaction_id": r.id,
                "power": r.power,
                "action_id": r.action_id,
                "pool": _pool_view(r.pool),
                "successes": game.tally(s.actions[r.action_id], r.pool).successes,
                **_reaction_consequences(game, r),
            }
            for r in s.reactions.values()
        ],
        "sheets": [_sheet(game, p) for p in sorted(s.powers.values(), key=lambda p: p.id)],
        "pending_resisters": game.pending_resisters() if s.step == "resistance" else [],
    }


def _seat_part(game: Game, viewer: str) -> dict[str, Any]:
    """What a power sees of its own: its sheet, actions and reactions, what was shared with it, and the actions
    against it it may resist or was told of."""
    s = game.state
    me = game.power(viewer)
    out: dict[str, Any] = {"me": _sheet(game, me)}
    out["my_actions"] = [_full_action(game, a, with_secret=False) for a in game.actions_of(viewer)]
    out["my_reactions"] = [
        {
            "reaction_id": r.id,
            "action_id": r.action_id,
            "pool": _pool_view(r.pool),
            "successes": game.tally(s.actions[r.action_id], r.pool).successes,
            **_reaction_consequences(game, r),
        }
        for r in s.reactions.values()
        if r.power == viewer
    ]
    out["shared_with_me"] = [
        _full_action(game, a, with_secret=False, owner=False) for a in _in_order(game) if viewer in a.collaborators
    ]
    out["influence_seen"] = _influence_seen(game, me)
    out["may_resist"] = [
        _resister_notice(game, a)
        for a in _in_order(game)
        if a.status == "provisional" and viewer in game.eligible_resisters(a)
    ]
    # P-AMB-4 under notify_resister_at "submission": told of an action against it once it is submitted.
    out["forewarned"] = [
        {**_notice(game, a), "status": "submitted"}
        for a in _in_order(game)
        if game.state.options.get("notify_resister_at") == "submission"
        and a.status == "submitted"
        and not a.discarded
        and viewer in game.eligible_resisters(a)
    ]
    out["results_shown_to_me"] = [
        {
            "action_id": a.id,
            "power": a.power,
            "power_name": s.powers[a.power].name,
            "title": a.title,
            "result": {"success": a.success, "net": a.net, "excess": a.excess},
        }
        for a in _in_order(game)
        if a.status == "resolved"
        and not game.is_public(a)
        and a.power != viewer
        and viewer in game.eligible_resisters(a)
    ]
    return out


def _request(request: dict[str, Any]) -> dict[str, Any]:
    """An extension request as Powers' views have always shown it: the power asking is ``power``."""
    return {"power" if key == "seat" else key: value for key, value in request.items()}


def _window(game: Game, w: Window, viewer: str) -> dict[str, Any]:
    """A window with the viewer's own deadline, in UTC and in the viewer's time zone."""
    s = game.state
    p = s.powers.get(viewer)
    zone = ZoneInfo(game.timezone_for(viewer))
    mine = w.final_closes_at if viewer == GM else w.deadline_for(viewer)
    out = {
        "window_id": w.id,
        "kind": w.kind,
        "opened_at": w.opened_at,
        "closes_at": w.closes_at,
        "my_deadline": mine,
        "my_deadline_local": datetime.fromisoformat(mine).astimezone(zone).isoformat(),
        "timezone": zone.key,
        "closed": w.closed,
        "reason": w.reason,
    }
    if viewer == GM:
        out["extensions"] = dict(w.extensions)
        out["requests"] = {k: _request(v) for k, v in w.requests.items()}
        out["pending"] = game.pending_in(w) if not w.closed else []
    elif p is not None:
        out["my_requests"] = {k: _request(v) for k, v in w.requests.items() if v["seat"] == viewer}
    return out


def _influence_seen(game: Game, me: PowerState) -> list[dict[str, Any]]:
    """Other powers' influence this viewer may see (P.4, [003:1104]): ``domain.powers.world_view.influence_seen``."""
    return influence_seen(game.state, me)


def _notice(game: Game, a: ActionState) -> dict[str, Any]:
    """P-AMB-3: actor, action and pool size (all ranks, assured included); nothing else."""
    return {
        "action_id": a.id,
        "power": a.power,
        "power_name": game.state.powers[a.power].name,
        "title": a.title,
        "skill": a.skill,
        "pool_size": game.tally(a).pool_size,
        "status": "provisional",
    }


def _resister_notice(game: Game, a: ActionState) -> dict[str, Any]:
    """What a resister is told (P-AMB-3): the notice, and the assets it may see where the campaign option shows
    them (``Game.resister_assets``: no assured or critical flag, nothing the GM hides)."""
    shown = game.resister_assets(a)
    return _notice(game, a) if shown is None else {**_notice(game, a), "assets": shown}


def _reaction_consequences(game: Game, r: Reaction) -> dict[str, Any]:
    """A reaction's own consequences and the GM's forms of them, as an action's (P-AMB-6, GM-3)."""
    t = game.tally(game.state.actions[r.action_id], r.pool)
    return {
        "consequences": t.consequences,
        "consequence_offers": [
            {"id": c.id, "text": c.text, "effects": c.effects, "status": c.status} for c in r.consequences
        ],
    }


def _in_order(game: Game) -> list[ActionState]:
    s = game.state
    position = {aid: i for i, aid in enumerate(s.queue)}
    return sorted(s.actions.values(), key=lambda a: (position.get(a.id, len(position)), a.power, a.index))
