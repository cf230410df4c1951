"""Finds words in a template that no translator would see (issue 17: every string ready for translation).

Jinja's own lexer splits a template into text and tags, so what is checked is exactly what the page prints:

- text outside ``{% trans %}...{% endtrans %}`` with a letter in it, once the HTML tags, entities, comments,
  scripts and styles are taken out;
- the human attributes of a tag (``title``, ``placeholder``, ``aria-label``, ``alt``, ``value`` of a button
  or submit input) written out in the template;
- a string literal with a letter printed by ``{{ ... }}`` outside ``_()``/``gettext``/``ngettext``, unless it
  is compared with, looked up, or in ``allowed`` (a test passes the words that are names, not phrases).

The result is a list of "template:line: text" a test asserts empty; it names what to mark.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from jinja2 import Environment

LETTER = re.compile(r"[^\W\d_]")
TAG = re.compile(r"<[^>]*>")
ENTITY = re.compile(r"&[#\w]+;")
HUMAN_ATTR = re.compile(r"""\b(title|placeholder|aria-label|alt)\s*=\s*(["'])([^"'{}]*)\2""")
BUTTON_VALUE = re.compile(r"""<input[^>]*type=["']?(submit|button|reset)[^>]*value=(["'])([^"'{}]*)\2""")
HIDDEN_BLOCKS = re.compile(r"<(script|style)\b.*?</\1>|<!--.*?-->", re.S)
OPERATORS = {"(": "lparen", ")": "rparen", "==": "eq", "!=": "ne", "[": "lbracket"}
GETTEXT = {"_", "gettext", "ngettext", "pgettext"}
# HTML words a template prints as markup, not as text
MARKUP_WORDS = {"checked", "selected", "disabled", "hidden", "open", "required", "readonly", "true", "false", "on"}
# names, not phrases
NAMES = {"Emissary", "htmx"}


def _env() -> Environment:
    return Environment(extensions=["jinja2.ext.i18n"])


def scan_source(source: str, name: str, allowed: Iterable[str] = ()) -> list[str]:
    allowed_words = set(allowed) | NAMES
    env = _env()
    found: list[str] = []
    tokens = list(env.lex(source, name))
    in_trans = 0
    data: list[tuple[int, str]] = []  # the template's text outside trans blocks, with its line
    in_var = False
    calls: list[str | None] = []
    previous: list[tuple[str, str]] = []
    for i, (line, kind, value) in enumerate(tokens):
        if kind == "operator":
            kind = OPERATORS.get(value, kind)
        if kind == "block_begin":
            nxt = next((v for _, k, v in tokens[i + 1 : i + 3] if k == "name"), None)
            if nxt == "trans":
                in_trans += 1
            elif nxt == "endtrans":
                in_trans -= 1
        if kind == "data" and not in_trans:
            data.append((line, value))
        if kind == "variable_begin":
            in_var, calls, previous = True, [], []
            continue
        if kind == "variable_end":
            in_var = False
            continue
        if not in_var:
            continue
        if kind == "lparen":
            calls.append(previous[-1][1] if previous and previous[-1][0] == "name" else None)
        elif kind == "rparen" and calls:
            calls.pop()
        elif kind == "string" and LETTER.search(value):
            value = value[1:-1]
            inside_gettext = any(c in GETTEXT for c in calls)
            before = previous[-1] if previous else ("", "")
            compared = before[0] in ("eq", "ne", "lbracket") or before == ("name", "in")
            looked_up = bool(calls) and calls[-1] in ("get", "startswith", "endswith", "attr", "selectattr")
            after = OPERATORS.get(tokens[i + 1][2], tokens[i + 1][2]) if i + 1 < len(tokens) else ""
            compared = compared or after in ("eq", "ne", "in")
            identifier = re.fullmatch(r"[a-z0-9_.:/#?=&-]+", value) is not None
            if not (inside_gettext or compared or looked_up or identifier or value in MARKUP_WORDS | allowed_words):
                found.append(f"{name}:{line}: {value!r}")
        if kind != "whitespace":
            previous.append((kind, value))
    # The page's skeleton: its text with every tag of Jinja's as \x01, lines kept, so HTML is read whole.
    skeleton, at = "", 1
    for line, value in data:
        if line > at:
            skeleton += "\x01" + "\n" * (line - at)
            at = line
        skeleton += "\x01" + value
        at += value.count("\n")
    skeleton = HIDDEN_BLOCKS.sub(lambda m: "\n" * m.group(0).count("\n"), skeleton)
    pos = 0
    for m in re.finditer(r"<[^>]*>", skeleton):
        text, tag = skeleton[pos : m.start()], m.group(0)
        words = ENTITY.sub(" ", text).replace("\x01", " ")
        first = pos + len(text) - len(text.lstrip(" \n\t\x01"))
        line = skeleton.count("\n", 0, first) + 1
        if any(LETTER.search(w) and w.strip(".,:;()!?·—-") not in allowed_words for w in words.split()):
            found.append(f"{name}:{line}: {' '.join(words.split())[:80]!r}")
        line = skeleton.count("\n", 0, m.start()) + 1
        for attr in HUMAN_ATTR.finditer(tag):
            if LETTER.search(attr.group(3)) and attr.group(3).strip() not in allowed_words:
                found.append(f"{name}:{line}: {attr.group(1)}={attr.group(3)!r}")
        button = BUTTON_VALUE.search(tag)
        if button and LETTER.search(button.group(3)) and button.group(3).strip() not in allowed_words:
            found.append(f"{name}:{line}: value={button.group(3)!r}")
        pos = m.end()
    tail = ENTITY.sub(" ", skeleton[pos:]).replace("\x01", " ")
    if any(LETTER.search(w) and w not in allowed_words for w in tail.split()):
        found.append(f"{name}:end: {' '.join(tail.split())[:80]!r}")
    return found


def scan(paths: Iterable[Path], allowed: Iterable[str] = ()) -> list[str]:
    """Every unmarked word in the templates at ``paths`` (files or folders of ``*.html``)."""
    found: list[str] = []
    for path in paths:
        files = sorted(path.rglob("*.html")) if path.is_dir() else [path]
        for f in files:
            found += scan_source(f.read_text(encoding="utf-8"), str(f), allowed)
    return found
