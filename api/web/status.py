"""The status strip every board shows (issue 17): a phase timeline, the open deadlines in the viewer's zone,
"your move" / "waiting on the GM" / "waiting on others", who has acted or is ready, and a block recorded on an
open window (its default for silence refused by a rule, issue 24).

One platform function (``status_strip``) feeds one partial (``status_strip.html``) on every ruleset's pages,
and the live fragment (``GET /play/{game}/live``) draws it again. It reads only what the viewer's own board
reads: the windows their view lists (a Lodge choice's window is its chooser's), whether an open window waits
on the viewer (``PlatformGame.waits_on``, about the viewer alone), the phases the game began (public), and
the seats' progress as the ruleset's ``status`` module words it from the viewer's view (``seats(view, me)``),
so the strip says nothing the board would not. Who may still act is named only to the GM (the GM sees all,
P.4); a seat learns only that others still may.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from api import rulesets
from api.web.i18n import local_time
from domain.ids import GM
from domain.platform import feed as words_of
from domain.platform.i18n import _

RECENT = 3  # the phases before the current one the timeline shows


def _window_id(w: dict) -> str:
    return str(w.get("window_id") or w.get("id") or "")


def _step_words(name: str) -> str:
    """A ruleset's step in the reader's language: the bare step as a ruleset's table of words marks it ("main"
    -> "Hauptphase", capitalised), else its capitalised word ("Planning" -> "Planung"), else in English."""
    bare = _(name)
    if bare != name:
        return bare[:1].upper() + bare[1:]
    return _(name.replace("_", " ").capitalize())


def timeline(game: Any, phases: list[dict], rolled: dict | None) -> dict[str, Any]:
    """The phases in words: the few before the current one, the current one, and the ruleset's steps in
    order with the current one marked (``steps`` of the ruleset). Phases a rollback undid are left out."""
    ruleset = game.ruleset
    if rolled is not None:
        undone = range(rolled["to_version"] + 1, rolled["from_version"] + 1)
        phases = [p for p in phases if p["version"] not in undone]
    current = phases[-1] if phases else {"phase": "setup", "step": "setup"}
    step = str(current.get("step") or "setup")
    names = [s.name for s in ruleset.steps]
    here = names.index(step) if step in names else -1
    return {
        "current": words_of.phase_title(ruleset, current["phase"]),
        "recent": [words_of.phase_title(ruleset, p["phase"]) for p in phases[-RECENT - 1 : -1]],
        "steps": [
            {"name": _step_words(n), "state": "current" if i == here else ("done" if i < here else "next")}
            for i, n in enumerate(names)
            if n != "setup" or i == here  # once the game has begun, setting up is behind it for good
        ],
    }


def status_strip(
    game: Any,
    me: str,
    view: dict[str, Any],
    zone: ZoneInfo,
    phases: list[dict],
    rolled: dict | None = None,
    *,
    past: bool = False,
) -> dict[str, Any]:
    """What the strip shows to ``me``, from their view. ``past``: an earlier phase is shown (no deadline,
    no "your move": the strip then says only where the game is now)."""
    ruleset = game.ruleset
    state = game.state
    shown = {_window_id(w) for w in view.get("windows", []) if not w.get("closed")}
    windows = [w for wid, w in state.windows.items() if wid in shown and not w.closed]
    deadlines = []
    waits_on_me = False
    pending: list[str] = []
    for w in windows:
        try:
            mine = me != GM and game.waits_on(w, me)
            others = game.pending_in(w)
        except NotImplementedError:
            mine, others = False, []
        waits_on_me = waits_on_me or mine
        pending.extend(p for p in others if p not in pending)
        iso = w.final_closes_at if me == GM else w.deadline_for(me)
        deadlines.append(
            {
                "what": words_of.phase_title(ruleset, w.kind.split(":")[0]) or w.kind,
                "iso": iso,
                "local": local_time(iso, zone),
                "mine": mine,
            }
        )
    deadlines.sort(key=lambda d: d["iso"])
    names = {pid: getattr(seat, "name", pid) for pid, seat in game.seats.items()}
    blocked = [] if past else blocks(game, me, windows, names, zone)
    if me == GM:
        if pending:
            players = ", ".join(names.get(p, p) for p in pending)
            status = ("others", _("Waiting on the players: {names}.").format(names=players))
        else:
            status = ("mine", _("Your move: no window waits on a player."))
    elif waits_on_me:
        status = ("mine", _("Your move."))
    elif windows and pending:
        status = ("others", _("Waiting on others."))
    elif ruleset.roles.organiser == GM:
        status = ("gm", _("Waiting on the GM."))
    else:
        status = ("gm", _("Waiting on the host."))
    module = rulesets.part(ruleset.name, "status") if ruleset.name in rulesets.API_PACKAGES else None
    seats = module.seats(view, me) if module is not None and hasattr(module, "seats") else []
    return {
        "timeline": timeline(game, phases, rolled),
        "deadlines": [] if past else deadlines,
        "status": ("past", _("You are looking at an earlier phase.")) if past else status,
        "seats": [] if past else seats,
        "blocked": blocked,
        "zone": zone.key,
    }


def blocks(game: Any, me: str, windows: list, names: dict[str, str], zone: ZoneInfo) -> list[dict[str, Any]]:
    """The blocks recorded on the open windows ``me`` sees (``GameBlocked``, issue 24), in words: the window, the
    rule that refused its default for silence and the seats it waits on; the refusal's own words only for those it
    was recorded for (``PlatformGame.blocks_for``)."""
    out = []
    kinds = {w.id: w.kind for w in windows}
    organiser = _("The GM has been told.") if game.ruleset.roles.organiser == GM else _("The host has been told.")
    for b in game.blocks_for(me, kinds):
        who = ", ".join(names.get(p, p) for p in b["seats"]) or _("no seat")
        what = words_of.phase_title(game.ruleset, b["kind"].split(":")[0]) or b["kind"]
        text = _("Blocked: at its deadline, rule {rule} refuses the default for {what} ({seats}).").format(
            rule=b["rule"], what=what, seats=who
        )
        out.append({**b, "text": f"{text} {organiser}", "iso": b["at"], "local": local_time(b["at"], zone)})
    return out
