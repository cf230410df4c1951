"""Issue 25: the README's table of campaign options (under "Rules decisions") is the one generated from the
installed rulesets' option schemas, so an option added to a model, or a default changed, shows in the README."""

from __future__ import annotations

from pathlib import Path

from domain import rulesets as installed
from domain.platform.options_doc import options_table

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- campaign-options:begin"
END = "<!-- campaign-options:end -->"


def readme_block() -> str:
    text = README.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1, "README.md holds one campaign-options block"
    start = text.index("\n", text.index(BEGIN)) + 1
    return text[start : text.index(END)]


def test_the_readmes_campaign_options_are_the_ones_the_rulesets_declare():
    generated = options_table(installed.INSTALLED)
    assert readme_block() == generated, (
        "README.md's campaign options differ from the rulesets' option schemas; paste this between the "
        f"campaign-options markers:\n\n{generated}"
    )


def test_the_table_names_every_option_of_every_ruleset_with_its_default_and_rule_ids():
    block = readme_block()
    for ruleset in installed.INSTALLED:
        assert f"#### `{ruleset.name}`" in block
        for option in ruleset.options.model_fields:
            assert f"| `{option}` |" in block, (ruleset.name, option)
    assert '| `critical_mode` | `"rolled"` |' in block and "P-AMB-5" in block
