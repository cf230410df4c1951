"""The rules decisions and campaign options of every ruleset, on the help pages (``/help/{ruleset}/decisions``), made
from the option schemas and the decisions texts that ship with each ruleset, rather than a README section to keep in
step by hand: an option added to a model, or a default changed, shows there; each rule id the texts cite links to a
rule the rules page holds."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from domain.platform.options_doc import as_json, option_fields
from domain.platform.ruleset import registered
from projections.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
LINK = re.compile(r'href="/help/(\w+)/rules#([^"]+)"')


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("decisions"), embedded_workers=False))
    with TestClient(app) as c:
        yield c


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_option_of_every_ruleset_is_on_its_page_with_its_default(client, name):
    page = html.unescape(client.get(f"/help/{name}/decisions").text)
    fields = option_fields(registered()[name].options)
    for option in fields:
        assert f'id="option-{option.name}"' in page, (name, option.name)
        assert f"<code>{as_json(option.default)}</code>" in page, (name, option.name)
    if not fields:
        assert "This ruleset has no options." in page
    assert "In every game" in page and "GameBlocked" in page  # the platform's decisions, on every ruleset's page


def test_the_decisions_that_were_in_the_readme_are_on_their_rulesets_pages(client):
    powers = html.unescape(client.get("/help/powers/decisions").text)
    assert "Dice are rolled at submission" in powers and '<code>critical_mode: "rank"</code>' in powers
    assert "Who sees a battle" in powers and "P-AMB-5" in powers
    assert "Quaesitor prompt" in client.get("/help/covenants/decisions").text
    assert "Banishing Circle" in client.get("/help/lodge/decisions").text
    assert "<script" not in powers.split("<main", 1)[1].split("</main>", 1)[0]  # rendered Markdown, no raw HTML


@pytest.mark.parametrize("name", ["powers", "covenants", "lodge"])
def test_every_rule_id_link_resolves_to_an_anchor_of_the_rules_page(client, name):
    page = client.get(f"/help/{name}/decisions").text
    links = LINK.findall(page)
    assert len(links) > 3, name
    rules = client.get(f"/help/{name}/rules").text
    for ruleset, anchor in set(links):
        assert ruleset == name and f'id="{anchor}"' in rules, (name, anchor)


def test_a_rule_id_in_code_stays_code_and_an_unknown_ruleset_has_no_page(client):
    page = client.get("/help/powers/decisions").text
    assert "<code>domain/powers/battle.py</code>" in page
    assert client.get("/help/nope/decisions").status_code == 404


def test_the_readme_points_at_the_pages_rather_than_keeping_a_copy():
    text = README.read_text(encoding="utf-8")
    assert "/help/powers/decisions" in text and "campaign-options:begin" not in text
    assert "Dice are rolled at submission" not in text
