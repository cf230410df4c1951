"""The open decision (issue 28 item 6): the headline and the forms a viewer must act on now, one region of every
ruleset's board (``templates/decision.html``'s ``open_decision``, inside the ruleset's own ``decision`` template).

A ruleset's ``board_context`` names its region's template (``decision_template``) and what of the page is the
page's own (``decision_neutral``: a refused form's kept values, a clicked hex). The region's version is a digest
of it as drawn without those and without the flash or the kept links; the board serves it, the status strip polls
with it (``/play/{game}/live?decision=<version>``), and the live answer carries the region again, out of band,
only when it is no longer that version. The script (``static/app.js``) swaps it in, or holds it behind a notice
while the viewer is typing in it."""

from __future__ import annotations

import hashlib
from typing import Any

from fastapi import Request

from api.web.kit import templates


def version(request: Request, context: dict[str, Any], template: str) -> str:
    """The version of the region ``template`` draws from ``context``: a digest of it with nothing of this page's
    own (no flash, no kept links, no fold the address opened, the ruleset's ``decision_neutral``), so the board and
    its live answer agree."""
    neutral = {
        **context,
        "request": request,
        "flash": None,
        "links": {},
        "show": "",
        **context.get("decision_neutral", {}),
        "decision_version": "",
        "decision_oob": False,
    }
    drawn = templates.get_template(template).render(neutral)
    return hashlib.blake2b(drawn.encode(), digest_size=8).hexdigest()


def serve(request: Request, context: dict[str, Any]) -> dict[str, Any]:
    """The context with its region's version (``decision_version``), on the board as it is now; on a board of the
    past (``phase``) none, as nothing polls it."""
    template = context.get("decision_template")
    context["decision_version"] = version(request, context, template) if template and not context["phase"] else ""
    return context
