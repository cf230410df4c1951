"""Powers' notification texts: the mail a viewer of an event is sent (issue 11: a ruleset's texts live in
the ruleset; the projector asks the game's ruleset and sends nothing for events it does not name).

Built only from the event's payload, which every recipient may see: the projector sends a notification
only to the seats the event is shown to, never for a sealed event.
"""

from __future__ import annotations

from typing import Any

NOTIFY_STEPS = {
    "planning": "Planning has begun: submit your actions.",
    "resistance": "The month is resolved: the resistance window is open.",
    "tidings": "A new season begins with Tidings.",
}


def notify(kind: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """The subject and text sent to the viewers of a Powers event of this kind, or None (no mail)."""
    if kind == "StepBegan" and data["step"] in NOTIFY_STEPS:
        return {
            "subject": f"Season {data['season']}, month {data['month']}: {data['step']}",
            "text": NOTIFY_STEPS[data["step"]],
        }
    if kind == "ResolutionPublished":
        return {"subject": "The resolution is published", "text": data.get("announcement") or "See your board."}
    if kind == "ResistanceOffered":
        return {
            "subject": f"You may resist: {data['power_name']}",
            "text": f"{data['power_name']} acts: {data['title']} (pool size {data['pool_size']}).",
        }
    if kind == "ResistanceForewarned":  # P-AMB-4 under notify_resister_at "submission"
        return {
            "subject": f"An action against you: {data['power_name']}",
            "text": f"{data['power_name']} acts: {data['title']} (pool size {data['pool_size']}). "
            "You may resist it once the month is resolved.",
        }
    if kind == "PoolAssetsShown":  # P-AMB-3 under resister_sees_assets "assets": names, classes and ranks only
        listed = ", ".join(f"{x['name']} ({x['cls']}, rank {x['rank']})" for x in data["assets"]) or "none shown"
        return {"subject": "The pool against you", "text": f"Assets you may see in the pool against you: {listed}."}
    if kind == "BattleStepBegan" and data["eligible"]:  # a battle's step waits (domain.powers.battle)
        return {
            "subject": f"Battle {data['battle_id']}, round {data['round']}: {data['step']}",
            "text": f"Waiting for: {', '.join(data['eligible'])}. Your board shows the battle.",
        }
    if kind == "BattleTurnBegan":
        return {
            "subject": f"Battle {data['battle_id']}, round {data['round']}: {data['turn']['power']} commands",
            "text": f"Side {data['turn']['side']}: {data['turn']['power']} gives the next command.",
        }
    if kind == "WindowClosed" and data["window_id"].startswith("battle-"):
        return None  # a battle's steps are told as they begin (BattleStepBegan), not as each window closes
    if kind == "WindowClosed":
        return {"subject": f"A window closed: {data['window_id']}", "text": f"Reason: {data['reason']}."}
    if kind == "GameRolledBack":
        return {"subject": "The GM rolled the game back", "text": f"Reason: {data['reason']}."}
    return None
