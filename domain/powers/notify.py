"""Powers' notification texts: the mail a viewer of an event is sent (issue 11: a ruleset's texts live in
the ruleset; the projector asks the game's ruleset and sends nothing for events it does not name).

Built only from the event's payload, which every recipient may see: the projector sends a notification
only to the seats the event is shown to, never for a sealed event. Every phrase is marked for translation
(issue 28): the projector keeps them in English, and the mail is worded again in its reader's language
(``application.mails``); phases and windows are named in words (``domain.powers.feed``), not by their ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.platform.feed import platform_line
from domain.platform.i18n import N_, _
from domain.powers.feed import phase_title

NOTIFY_STEPS = {
    "planning": N_("Planning has begun: submit your actions."),
    "resistance": N_("The month is resolved: the resistance window is open."),
    "tidings": N_("A new season begins with Tidings."),
}


def _phase(data: dict[str, Any]) -> str:
    month = f"m{data['month']}" if data.get("month") and data["step"] not in ("tidings", "cleanup") else ""
    name = f"s{data['season']}{month}-{data['step']}"
    return phase_title(name) or name


def notify(kind: str, data: dict[str, Any], names: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The subject and text sent to the viewers of a Powers event of this kind, or None (no mail); ``names``: the
    powers' public names by id (the mail names them so; without them, by id)."""
    names = names or {}
    if kind == "StepBegan" and data["step"] in NOTIFY_STEPS:
        return {"subject": _phase(data), "text": _(NOTIFY_STEPS[data["step"]])}
    if kind == "ResolutionPublished":
        return {
            "subject": _("The resolution is published"),
            "text": data.get("announcement") or _("See your board."),
        }
    if kind == "ResistanceOffered":
        return {
            "subject": _("You may resist: {power}").format(power=data["power_name"]),
            "text": _("{power} acts: {title} (pool size {pool}).").format(
                power=data["power_name"], title=data["title"], pool=data["pool_size"]
            ),
        }
    if kind == "ResistanceForewarned":  # P-AMB-4 under notify_resister_at "submission"
        return {
            "subject": _("An action against you: {power}").format(power=data["power_name"]),
            "text": _("{power} acts: {title} (pool size {pool}). You may resist it once the month is resolved.").format(
                power=data["power_name"], title=data["title"], pool=data["pool_size"]
            ),
        }
    if kind == "PoolAssetsShown":  # P-AMB-3 under resister_sees_assets "assets": names, classes and ranks only
        listed = ", ".join(
            _("{name} ({cls}, rank {rank})").format(name=x["name"], cls=x["cls"], rank=x["rank"])
            for x in data["assets"]
        )
        return {
            "subject": _("The pool against you"),
            "text": _("Assets you may see in the pool against you: {assets}.").format(assets=listed or _("none shown")),
        }
    if kind == "BattleStepBegan" and data["eligible"]:  # a battle's step waits (domain.powers.battle)
        return {
            "subject": _("Battle {battle}, round {round}: {step}").format(
                battle=data["battle_id"], round=data["round"], step=data["step"]
            ),
            "text": _("Waiting for: {seats}. Your board shows the battle.").format(
                seats=", ".join(names.get(p, p) for p in data["eligible"])
            ),
        }
    if kind == "BattleTurnBegan":
        commander = names.get(data["turn"]["power"], data["turn"]["power"])
        return {
            "subject": _("Battle {battle}, round {round}: {power} commands").format(
                battle=data["battle_id"],
                round=data["round"],
                power=commander,
            ),
            "text": _("Side {side}: {power} gives the next command.").format(
                side=data["turn"]["side"], power=commander
            ),
        }
    if kind == "WindowClosed" and data["window_id"].startswith("battle-"):
        return None  # a battle's steps are told as they begin (BattleStepBegan), not as each window closes
    if kind == "WindowClosed":
        window = phase_title(data["window_id"]) or data["window_id"]
        return {
            "subject": _("{window} closed").format(window=window),
            "text": platform_line(kind, data, {}, window) or "",
        }
    if kind == "GameRolledBack":
        return {
            "subject": _("The GM rolled the game back"),
            "text": _("Reason: {reason}.").format(reason=data["reason"]),
        }
    return None
