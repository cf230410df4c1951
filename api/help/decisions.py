"""A ruleset's rules decisions (``/help/{ruleset}/decisions``): what the service chose where the rules analysis left
a choice (``decisions.md`` in the ruleset's ``rules/`` folder, shipped with it; the platform's own in this package),
and its campaign options, read from its option schema (``domain.platform.options_doc``), so that an option added to a
model is listed here without another edit. Each rule id the texts cite that the ruleset's rules index holds links to
that rule on its rules page."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup

from api.help.rules import MENTION, Rules, folder_of, rules_of

PLATFORM = Path(__file__).with_name("decisions.md")
_MARKDOWN = MarkdownIt("commonmark", {"html": False})  # our own texts; raw HTML in them is shown, never run
_CODE = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class Decisions:
    platform: Markup
    ruleset: Markup | None  # None: the ruleset ships no decisions


def _linked(text: str, ruleset: str, rules: Rules | None) -> str:
    """Markdown with each rule id outside code spans that ``rules`` holds made a link to its rule."""
    if rules is None:
        return text
    out, last = [], 0
    for code in [*_CODE.finditer(text), None]:
        end = code.start() if code is not None else len(text)
        out.append(
            MENTION.sub(
                lambda m: (
                    f"[{m.group(0)}](/help/{ruleset}/rules#{m.group(0)})" if rules.anchor(m.group(0)) else m.group(0)
                ),
                text[last:end],
            )
        )
        if code is not None:
            out.append(code.group(0))
            last = code.end()
    return "".join(out)


@functools.cache
def _render(path: Path, ruleset: str, package: str | None) -> Markup:
    rules = rules_of(package) if package else None
    return Markup(_MARKDOWN.render(_linked(path.read_text(encoding="utf-8"), ruleset, rules)))  # noqa: S704


def decisions(ruleset: str, package: str | None) -> Decisions:
    """The platform's decisions and the ruleset's (from its API package's ``rules/decisions.md``), as HTML, each
    rule id its rules index holds linked."""
    folder = folder_of(package) if package else None
    own = folder / "decisions.md" if folder is not None else None
    return Decisions(
        platform=_render(PLATFORM, ruleset, package),
        ruleset=_render(own, ruleset, package) if own is not None and own.is_file() else None,
    )
