"""A post's Markdown rendered to sanitised HTML (issue 16): never raw HTML.

markdown-it-py parses CommonMark with raw HTML turned off (``<script>`` in a post is text, escaped), and nh3
(the Rust ``ammonia`` sanitiser) then keeps only the tags and attributes listed here, links only to http(s)
and mailto, with ``rel="nofollow noopener noreferrer"``. Both steps, so that a parser bug alone never lets
markup through. Each ``[roll NdS]`` of a post shows its recorded faces and their sum.
"""

from __future__ import annotations

import functools
import html as html_lib
import re

import nh3
from markdown_it import MarkdownIt

from domain.platform.posts import ROLL

TAGS = {
    "p", "br", "hr", "em", "strong", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td", "span",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "span": {"class"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"]
    )


def with_rolls(text: str, rolls: list[dict]) -> str:
    """The text with each ``[roll NdS]`` followed by the faces it rolled (in order; none if unrolled)."""
    it = iter(rolls)

    def shown(m: re.Match) -> str:
        r = next(it, None)
        if r is None:
            return m.group(0)
        faces = ", ".join(str(f) for f in r["faces"])
        return f"`[roll {r['dice']}: {faces} = {sum(r['faces'])}]`"

    return ROLL.sub(shown, text)


def to_html(text: str, rolls: list[dict] | None = None) -> str:
    """Sanitised HTML of a post's Markdown (with its dice shown)."""
    html = _parser().render(with_rolls(text, rolls or []))
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="nofollow noopener noreferrer",
        strip_comments=True,
    )


TAG = re.compile(r"(<[^>]*>)")


def with_mentions(html: str, named: dict[str, str]) -> str:
    """Sanitised ``html`` with each ``@name`` or ``@id`` of the seats ``named`` (seat -> its name: the seats the post
    mentions, issue 28) highlighted and written with the seat's name, outside code; anything else as it was."""
    if not named or "@" not in html:
        return html
    tokens = {}
    for seat, name in named.items():
        shown = f'<mark class="mention">@{html_lib.escape(name or seat, quote=False)}</mark>'
        for token in (name, seat):
            if token:
                tokens[html_lib.escape(token, quote=False).lower()] = shown
    pattern = re.compile(
        r"(?<![\w@])@(" + "|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)) + r")(?![\w])",
        re.IGNORECASE,
    )
    out, code = [], 0
    for part in TAG.split(html):
        if part.startswith("<"):
            name = part.strip("</ ").split(" ")[0].split(">")[0].lower()
            if name in ("code", "pre"):
                code += -1 if part.startswith("</") else 1
            out.append(part)
        else:
            out.append(part if code > 0 else pattern.sub(lambda m: tokens[m.group(1).lower()], part))
    return "".join(out)
