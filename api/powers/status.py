"""Powers' line of the status strip (``api.web.status``): who has acted or is ready, from the viewer's view.

Readiness (``ReadyDeclared``) and the actions a power has left are shown to that power and the GM only
(P.4: a power sheet is the owner's and the GM's), so a power's strip names only itself; the GM's names
every power, with what the GM's console already shows (ready, still planning, may still resist)."""

from __future__ import annotations

from typing import Any

from domain.ids import GM


def seats(view: dict[str, Any], me: str) -> list[dict[str, str]]:
    """Each seat the viewer may know about, with a word on where it stands this step."""
    step = view["game"]["step"]
    if me != GM:
        s = view["me"]
        if step == "planning":
            left = s["left"]["public"] + s["left"]["private"]
            word = "ready" if s["ready"] else f"{left} action{'s' if left != 1 else ''} left"
            return [{"name": f"You ({s['name']})", "word": word}]
        if step == "resistance" and view.get("may_resist"):
            return [{"name": f"You ({s['name']})", "word": "may resist" if s["reactions_left"] else "done"}]
        return []
    pending = {p for w in view["windows"] if not w["closed"] for p in w.get("pending", [])}
    out = []
    for sh in view.get("sheets", []):
        if step == "planning":
            word = "ready" if sh["ready"] else ("still planning" if sh["power_id"] in pending else "no actions left")
        elif step == "resistance":
            word = "may still resist" if sh["power_id"] in pending else "done"
        else:
            continue
        out.append({"name": sh["name"], "word": word})
    return out
