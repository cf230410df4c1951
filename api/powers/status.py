"""Powers' line of the status strip (``api.web.status``): who has acted or is ready, from the viewer's view.

Readiness (``ReadyDeclared``) and the actions a power has left are shown to that power and the GM only
(P.4: a power sheet is the owner's and the GM's), so a power's strip names only itself; the GM's names
every power, with what the GM's console already shows (ready, still planning, may still resist)."""

from __future__ import annotations

from typing import Any

from domain.ids import GM
from domain.platform.i18n import _, ngettext


def seats(view: dict[str, Any], me: str) -> list[dict[str, str]]:
    """Each seat the viewer may know about, with a word on where it stands this step."""
    step = view["game"]["step"]
    if me != GM:
        s = view["me"]
        if step == "planning":
            left = s["left"]["public"] + s["left"]["private"]
            word = _("ready") if s["ready"] else ngettext("{n} action left", "{n} actions left", left).format(n=left)
            return [{"name": _("You ({name})").format(name=s["name"]), "word": word}]
        if step == "resistance" and view.get("may_resist"):
            word = _("may resist") if s["reactions_left"] else _("done")
            return [{"name": _("You ({name})").format(name=s["name"]), "word": word}]
        return []
    pending = {p for w in view["windows"] if not w["closed"] for p in w.get("pending", [])}
    out = []
    for sh in view.get("sheets", []):
        if step == "planning":
            if sh["ready"]:
                word = _("ready")
            else:
                word = _("still planning") if sh["power_id"] in pending else _("no actions left")
        elif step == "resistance":
            word = _("may still resist") if sh["power_id"] in pending else _("done")
        else:
            continue
        out.append({"name": sh["name"], "word": word})
    return out
