"""A ruleset's campaign options read from its option schema (the pydantic model ``Ruleset.options``): each
option's name, kind, default, allowed values and description, with the rule ids the description cites.

The new-game form (``api.web.options_form``) and the help page of a ruleset's decisions and options
(``/help/{ruleset}/decisions``) are both built from this, so an option added to a model is on both without another
edit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

Kind = Literal["choice", "flag", "integer", "number", "list", "text", "json"]

# Rule ids (P-AMB-5, GM-8, A-AMB-9, L-AMB-1, LH-6, H-13) and sections of the rules text (P.1.2, L.3).
RULE_ID = re.compile(r"\b[A-Z]{1,3}(?:-[A-Z]{2,6})?-\d+\b|\b[A-Z]\.\d+(?:\.\d+)*\b")


@dataclass(frozen=True)
class OptionField:
    """One option of a ruleset, as its schema declares it."""

    name: str
    title: str
    kind: Kind
    default: Any
    description: str = ""
    choices: tuple[Any, ...] = ()  # a choice's values, in the schema's order
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False  # the bound itself is refused (hours: more than 0)
    exclusive_maximum: bool = False
    item: Kind | None = None  # a list's item kind ("integer", "number" or "text")
    max_items: int | None = None
    nullable: bool = False  # null is a value (the default, for an option the host may leave unset)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rule ids and sections the description cites, in order, each once."""
        return tuple(dict.fromkeys(RULE_ID.findall(self.description)))


def option_fields(model: type[BaseModel]) -> list[OptionField]:
    """Every option of an option schema, in the model's order."""
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})
    return [_field(name, prop, defs) for name, prop in schema.get("properties", {}).items()]


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**defs[ref.removeprefix("#/$defs/")], **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


_KINDS: dict[str, Kind] = {
    "boolean": "flag",
    "integer": "integer",
    "number": "number",
    "array": "list",
    "string": "text",
}


def _kind(prop: dict[str, Any]) -> Kind:
    if "enum" in prop or "const" in prop:
        return "choice"
    return _KINDS.get(prop.get("type", ""), "json")


def _field(name: str, prop: dict[str, Any], defs: dict[str, Any]) -> OptionField:
    top = _resolve(prop, defs)
    body, nullable = top, False
    if "anyOf" in top:  # ``X | None``: the option's own type, and null
        branches = [_resolve(b, defs) for b in top["anyOf"]]
        others = [b for b in branches if b.get("type") != "null"]
        nullable = len(others) < len(branches)
        body = others[0] if len(others) == 1 else {}
    kind = _kind(body)
    items = _resolve(body.get("items", {}), defs) if kind == "list" else {}
    bounds = items if kind == "list" else body
    low, high = (
        bounds.get("minimum", bounds.get("exclusiveMinimum")),
        bounds.get("maximum", bounds.get("exclusiveMaximum")),
    )
    item_kind = _kind(items) if kind == "list" else None
    return OptionField(
        name=name,
        title=str(top.get("title") or name),
        kind=kind,
        default=top.get("default"),
        description=str(top.get("description") or body.get("description") or ""),
        choices=tuple(body["enum"]) if "enum" in body else ((body["const"],) if "const" in body else ()),
        minimum=low,
        maximum=high,
        exclusive_minimum="exclusiveMinimum" in bounds,
        exclusive_maximum="exclusiveMaximum" in bounds,
        item=item_kind if item_kind in ("integer", "number", "text") else ("json" if kind == "list" else None),
        max_items=body.get("maxItems") if kind == "list" else None,
        nullable=nullable,
    )


def as_json(value: Any) -> str:
    """A value as the API's options object writes it (``72``, ``"rolled"``, ``[24, 1]``, ``false``, ``null``)."""
    return json.dumps(value, ensure_ascii=False)


def allowed(option: OptionField) -> str:
    """The values an option takes, in a few words (the README's table)."""
    if option.kind == "choice":
        words = ", ".join(f"`{as_json(c)}`" for c in option.choices)
    elif option.kind == "flag":
        words = "`true`, `false`"
    elif option.kind in ("integer", "number"):
        words = _range(option, "whole number" if option.kind == "integer" else "number")
    elif option.kind == "list":
        what = {"integer": "whole numbers", "number": "numbers", "text": "texts"}.get(option.item or "", "values")
        each = _range(option, "each")
        words = f"list of {what}" + (f" ({each})" if each != "each" else "")
        words += f", at most {option.max_items}" if option.max_items is not None else ""
    elif option.kind == "text":
        words = "text"
    else:
        words = "JSON object"
    return words + (", or `null`" if option.nullable else "")


def _range(option: OptionField, what: str) -> str:
    low = "" if option.minimum is None else f"{_num(option.minimum)} {'<' if option.exclusive_minimum else '≤'} "
    high = "" if option.maximum is None else f" {'<' if option.exclusive_maximum else '≤'} {_num(option.maximum)}"
    return f"{low}{what}{high}" if low or high else what


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
