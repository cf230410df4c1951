"""The help pages (issue 28), made from the code (``api.help.model``): ``/help`` lists every registered ruleset and
the commands every game takes; ``/help/{ruleset}`` a ruleset's commands (each with its web form and JSON route),
every line of its mail grammar with an example and what it does, each rule id linked to ``/help/{ruleset}/rules``,
the rules text that ships with the ruleset with an anchor per rule id and per line; ``/help/routes`` every route
of the service, from the app's own routes. Nobody needs to be signed in: nothing here is a game's."""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.routing import APIRoute
from starlette.routing import Mount

from api import mail_disputes, mail_replay, mail_why, rulesets
from api.help import model
from api.help.decisions import decisions
from api.help.model import linked
from api.web.kit import templates
from api.web.routes import BROWSER_FORMS, COMMAND_FORMS
from domain.platform.commands import PLATFORM_COMMANDS
from domain.platform.i18n import _
from domain.platform.options_doc import allowed, as_json, option_fields
from domain.platform.ruleset import registered

router = APIRouter(include_in_schema=False)
PAGE_FORMS = (*COMMAND_FORMS, *BROWSER_FORMS)  # the platform's forms, on every ruleset's board or console


def _missing(request: Request, text: str) -> Response:
    context = {"title": _("No such help page"), "text": text}
    return templates.TemplateResponse(request, "message.html", context, status_code=404)


@router.get("/help", response_class=HTMLResponse)
def help_index(request: Request) -> Response:
    """Help: every ruleset this service hosts, and the commands every game takes."""
    platform = [
        model.CommandHelp(c.__name__, model._what(c), (), None, False, None)
        for c in PLATFORM_COMMANDS
        if not model._what(c).startswith("Workers:")
    ]
    forms = [{"name": f.name, "gm": f.gm, "ok": _(f.ok) if isinstance(f.ok, str) and f.ok else ""} for f in PAGE_FORMS]
    context = {
        "rulesets": [model.ruleset_help(n) for n in model.names()],
        "platform": platform,
        "forms": forms,
        "dispute_mail": mail_disputes.MAIL,  # every ruleset's ``dispute`` lines (issue 29)
        "why_mail": mail_why.MAIL,  # every ruleset's ``why`` lines (issue 29)
        "rules_change_mail": mail_replay.MAIL,  # the GM's ``replay`` and ``adopt`` lines (issue 29)
    }
    return templates.TemplateResponse(request, "help_index.html", context)


def _flat(routes: list[Any], prefix: str = "", in_schema: bool = True) -> list[tuple[Any, str, bool]]:
    """Every route, with the prefix and the schema flag of the routers that include it (FastAPI keeps an included
    router whole, as one entry of its parent's routes)."""
    out: list[tuple[Any, str, bool]] = []
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            context = getattr(route, "include_context", None)
            out += _flat(
                list(included.routes),
                prefix + getattr(context, "prefix", ""),
                in_schema and getattr(context, "include_in_schema", True),
            )
        else:
            out.append((route, prefix, in_schema))
    return out


def _route_rows(request: Request) -> list[dict[str, Any]]:
    rows = []
    for route, prefix, in_schema in _flat(list(request.app.routes)):
        if isinstance(route, Mount):
            rows.append({"methods": "GET", "path": f"{prefix}{route.path}/…", "what": "", "api": False})
            continue
        methods = sorted(set(getattr(route, "methods", None) or ()) - {"HEAD"})
        endpoint = getattr(route, "endpoint", None)
        doc = (inspect.getdoc(endpoint) or "") if endpoint is not None else ""
        rows.append(
            {
                "methods": " ".join(methods),
                "path": prefix + getattr(route, "path", ""),
                "what": " ".join(doc.split("\n\n", 1)[0].split()),
                "api": isinstance(route, APIRoute) and route.include_in_schema and in_schema,
            }
        )
    return sorted(rows, key=lambda r: (r["path"], r["methods"]))


@router.get("/help/routes", response_class=HTMLResponse)
def help_routes(request: Request) -> Response:
    """Help: every route of the service, made from its routes: the JSON API's, then the pages'."""
    rows = _route_rows(request)
    context = {"api": [r for r in rows if r["api"]], "pages": [r for r in rows if not r["api"]]}
    return templates.TemplateResponse(request, "help_routes.html", context)


@router.get("/help/{ruleset}", response_class=HTMLResponse)
def help_ruleset(request: Request, ruleset: str) -> Response:
    """Help: a ruleset's commands, its mail lines with examples, and its web actions, each rule id linked."""
    if ruleset not in model.names():
        return _missing(request, _("No ruleset is named {name}.").format(name=ruleset))
    found = model.ruleset_help(ruleset)
    names = {c.name for c in found.commands}
    context = {"h": found, "link": lambda text: linked(text, ruleset), "command_names": names}
    return templates.TemplateResponse(request, "help_ruleset.html", context)


@router.get("/help/{ruleset}/rules", response_class=HTMLResponse)
def help_rules(request: Request, ruleset: str) -> Response:
    """Help: the rules text that ships with a ruleset, with an anchor for each rule id and each line."""
    found = model.ruleset_help(ruleset) if ruleset in model.names() else None
    if found is None or found.rules is None:
        return _missing(request, _("No rules text ships with a ruleset named {name}.").format(name=ruleset))
    rules = found.rules
    quoted = {
        rule.id: [(n, rules.lines[n - 1]) for first, last in rule.lines[:2] for n in range(first, last + 1)][:3]
        for rule in rules.rules.values()
    }
    context = {"h": found, "rules": rules, "quoted": quoted, "link": lambda text: linked(text, ruleset)}
    return templates.TemplateResponse(request, "help_rules.html", context)


@router.get("/help/{ruleset}/decisions", response_class=HTMLResponse)
def help_decisions(request: Request, ruleset: str) -> Response:
    """Help: what the service decided where a ruleset's rules leave a choice, and its campaign options with their
    defaults and the rule ids each sets."""
    if ruleset not in model.names():
        return _missing(request, _("No ruleset is named {name}.").format(name=ruleset))
    found = model.ruleset_help(ruleset)
    context = {
        "h": found,
        "decided": decisions(ruleset, rulesets.API_PACKAGES.get(ruleset)),
        "options": [(o, allowed(o)) for o in option_fields(registered()[ruleset].options)],
        "as_json": as_json,
        "link": lambda text: linked(text, ruleset),
    }
    return templates.TemplateResponse(request, "help_decisions.html", context)
