"""The new-game form's campaign options, drawn from the chosen ruleset's option schema
(``domain.platform.options_doc``): a choice is a select, a flag a checkbox, a number a number input with its
bounds, a list a comma-separated text field, an object a JSON text area. Each control shows its default.

What the form posts is read back leniently into JSON values and only options changed from their default are
sent: the service checks them against the same schema (``application.service.checked_options``), so a bad value is
refused there, naming the option, and nothing is created.
"""

from __future__ import annotations

import json
import math
from typing import Any

from domain.platform.options_doc import OptionField, as_json, option_fields
from domain.platform.ruleset import Ruleset

PREFIX = "options."  # a control's name: the option's field in a refusal (``options.critical_mode``)
PLATFORM_FIELDS = ("name", "gm_name", "timezone", "ruleset")  # the form's fields that are not options
WIDGETS = {"choice": "select", "flag": "checkbox", "integer": "number", "number": "number", "list": "text"}


def controls(ruleset: Ruleset, kept: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The form's control of each option of the ruleset, in its schema's order, set to its default, or to what a
    refused form posted (``kept``: the posted form, so that nothing typed is lost)."""
    return [_kept(_control(f), f, kept or {}) for f in option_fields(ruleset.options)]


def _kept(control: dict[str, Any], f: OptionField, kept: dict[str, Any]) -> dict[str, Any]:
    """A control set to what the refused form posted for it (as written: a refused value is shown again)."""
    if control["name"] not in kept:
        return control
    raw = kept[control["name"]]
    if f.kind == "flag":
        control["checked"] = "on" in (raw if isinstance(raw, list) else [raw])
    elif f.kind == "choice":
        text = _last(raw)
        control["choices"] = [(value, label, value == text) for value, label, _was in control["choices"]]
    else:
        control["value"] = _last(raw)
    return control


def _control(f: OptionField) -> dict[str, Any]:
    control: dict[str, Any] = {
        "name": PREFIX + f.name,
        "id": "option-" + f.name,
        "option": f.name,
        "title": f.title,
        "widget": WIDGETS.get(f.kind, "textarea"),
        "description": f.description,
        "default": as_json(f.default),
        "value": shown(f, f.default),
    }
    if f.kind == "choice":
        control["choices"] = [(str(c), as_json(c) if not isinstance(c, str) else c, c == f.default) for c in f.choices]
    elif f.kind == "flag":
        control["checked"] = bool(f.default)
    elif f.kind in ("integer", "number"):
        control["min"] = None if f.minimum is None else _num(f.minimum)
        control["max"] = None if f.maximum is None else _num(f.maximum)
        control["step"] = "1" if f.kind == "integer" else "any"
    return control


def shown(f: OptionField, value: Any) -> str:
    """A value as its control writes it: ``72``, ``24, 1`` for a list, JSON for an object, empty for null."""
    if value is None:
        return ""
    if f.kind == "list" and f.item in ("integer", "number", "text"):
        return ", ".join(_num(v) if isinstance(v, int | float) else str(v) for v in value)
    if f.kind in ("integer", "number"):
        return _num(value)
    if f.kind in ("choice", "text"):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def control_of(ruleset: Ruleset | None, field: str) -> str:
    """The form's control a refusal's field names: ``options.reminder_hours.1`` is the control of
    ``options.reminder_hours``, and an option a ruleset's own check names bare (``house``) is the option's."""
    if field.startswith(PREFIX):
        return ".".join(field.split(".")[:2])
    if ruleset is not None and field in ruleset.options.model_fields and field not in PLATFORM_FIELDS:
        return PREFIX + field
    return field


def read_options(ruleset: Ruleset, form: dict[str, Any]) -> dict[str, Any]:
    """The options the form changed from their defaults, as JSON values; an option the form did not post keeps
    its default. A value that cannot be read is passed on as written, for the schema to refuse naming it."""
    out: dict[str, Any] = {}
    for f in option_fields(ruleset.options):
        if PREFIX + f.name not in form:
            continue
        value = _read(f, form[PREFIX + f.name])
        if value != f.default or type(value) is not type(f.default):
            out[f.name] = value
    return out


def _last(raw: Any) -> str:
    return str(raw[-1] if isinstance(raw, list) and raw else raw if not isinstance(raw, list) else "")


def _read(f: OptionField, raw: Any) -> Any:
    if f.kind == "flag":  # a hidden "off" before the checkbox: posted as ["off"], or ["off", "on"] when ticked
        return "on" in (raw if isinstance(raw, list) else [raw])
    text = _last(raw).strip()
    if f.kind == "choice":
        return next((c for c in f.choices if str(c) == text), text)
    if f.kind in ("integer", "number"):
        return _number(text, whole=f.kind == "integer")
    if f.kind == "list":
        if not text:
            return None if f.nullable else []
        parts = [p.strip() for p in text.split(",")]
        if f.item in ("integer", "number"):
            return [_number(p, whole=f.item == "integer") for p in parts]
        return parts if f.item == "text" else _json(text)
    if f.kind == "text":
        return text
    if not text and f.nullable:
        return None
    return _json(text)


def _number(text: str, whole: bool) -> Any:
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    if number.is_integer():
        return int(number)
    return text if whole else number


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
