"""A post's Markdown is rendered to sanitised HTML, never raw HTML (issue 16, projections.render)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.platform.posts import check_post_text
from projections.render import TAGS, to_html

MALICIOUS = [
    "<script>alert('x')</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<style>body{display:none}</style>",
    "< script >alert(1)</script >",
]
HOSTILE_MARKDOWN = [
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![img](javascript:alert(1))",
    '<a href="https://evil.example" onclick="steal()">x</a>',
    "<iframe src=https://evil.example></iframe>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    '[x](https://ok.example "t" onmouseover=alert(1))',
    "<!-- hidden --> <svg onload=alert(1)>",
    "**unclosed _emphasis [link(",  # malformed Markdown still renders, as text
    "```\n<script>in code</script>\n",
]


@pytest.mark.parametrize("text", MALICIOUS)
def test_script_and_style_tags_are_refused_naming_the_text(text):
    with pytest.raises(RuleViolation) as info:
        check_post_text(text)
    assert info.value.field == "text"


class _Markup(HTMLParser):
    """The tags and attributes a browser would build from the HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)
        self.attrs += [(k, v or "") for k, v in attrs]


def _markup(html: str) -> _Markup:
    m = _Markup()
    m.feed(html)
    return m


def _tags(html: str) -> set[str]:
    return _markup(html).tags


@pytest.mark.parametrize("text", HOSTILE_MARKDOWN)
def test_hostile_markdown_renders_to_harmless_html(text):
    html = to_html(text)
    m = _markup(html)
    assert m.tags <= TAGS and not m.tags & {"script", "style", "img", "iframe", "svg", "div"}, html
    for name, value in m.attrs:
        assert name in ("href", "title", "rel", "class", "align", "start"), (text, html)
        assert not value.lower().startswith(("javascript:", "data:")), (text, html)


def test_markdown_is_rendered_and_links_are_marked_nofollow():
    html = to_html("**bold** and [a link](https://example.org) and `code`\n\n- one\n- two")
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html and "<li>one</li>" in html
    assert 'href="https://example.org"' in html and 'rel="nofollow noopener noreferrer"' in html


def test_each_inline_roll_shows_its_recorded_faces():
    html = to_html(
        "attack [roll 2d6] then [roll 1d4]", [{"dice": "2d6", "faces": [3, 4]}, {"dice": "1d4", "faces": [2]}]
    )
    assert "[roll 2d6: 3, 4 = 7]" in html and "[roll 1d4: 2 = 2]" in html


@given(st.text(alphabet=st.sampled_from(list("<>/\"'=&;:*_[]()`!# \nabcjsvript-")), max_size=80))
def test_no_text_renders_to_a_tag_outside_the_allowed_ones(text):
    assert _tags(to_html(text)) <= TAGS
