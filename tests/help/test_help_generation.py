"""Issue 28 item 8, the help made from the code: every example of every ruleset's mail lines is read by its real
grammar, every verb its grammar takes has an example, and the rules index made from the analysis cites lines of the
text that ships with the ruleset."""

from __future__ import annotations

import json

import pytest

from api import rulesets
from api.help import model
from api.help.rules import folder_of, index, mentions, rules_of
from domain.platform.ruleset import registered

WITH_MAIL = [n for n in model.names() if registered()[n].mail_grammar is not None]


def test_every_registered_ruleset_is_helped_the_fake_table_too_when_it_is_installed():
    assert {"powers", "covenants", "lodge"} <= set(model.names())
    assert set(model.names()) == set(registered())
    if "table" in registered():  # the tests' own plugin: hosted, never offered
        assert model.ruleset_help("table").listed is False and model.ruleset_help("table").mail == ()


@pytest.mark.parametrize("name", WITH_MAIL)
def test_every_mail_example_is_read_by_the_rulesets_own_grammar_as_one_command(name):
    """MAIL-1: an example is mail as written; the grammar refuses none of its lines and reads one command."""
    module = rulesets.part(name, "help")
    assert module is not None, f"{name} reads mail but its API package has no help module"
    grammar = registered()[name].mail_grammar
    assert len(module.MAIL) >= len(module.VERBS) > 0
    for line in module.MAIL:
        turn = grammar(line.example, None, "ann")
        assert turn.errors == [] and len(turn.commands) == 1, (line.example, [str(e) for e in turn.errors])


@pytest.mark.parametrize("name", WITH_MAIL)
def test_every_verb_the_grammar_takes_has_an_example_and_an_anchor(name):
    module = rulesets.part(name, "help")
    shown = {v for line in module.MAIL for v in line.verbs}
    assert set(module.VERBS) - shown == set(), "verbs with no example"
    assert shown - set(module.VERBS) == set(), "examples of verbs the grammar does not take"
    assert model.ruleset_help(name).verbs == frozenset(module.VERBS)


def test_a_refused_lines_help_names_its_verbs_anchor_or_the_mail_section():
    base = "https://emissary.example/"
    assert model.line_help(base, "powers", "roll") == "https://emissary.example/help/powers#mail-roll"
    assert model.line_help(base, "lodge", "frobnicate", "heal") == "https://emissary.example/help/lodge#mail-heal"
    assert model.line_help(base, "lodge", "frobnicate", None) == "https://emissary.example/help/lodge#mail"
    assert model.line_help(base, "nope", "roll") == "https://emissary.example/help/nope#mail"


ANALYSIS = """# Rules analysis
# PART P — "Powers"
### P.2.3 Action economy
**P-ACT-1 — Actions per month.** Four a month.
> [003:2] "You take four public actions each month."
| GM-18 | Nerfs and fame | [003:3], [003:1]–[003:2] | an event |
| P-AMB-32 | L | Public/private slots | ... |
# PART L — Lodge
**L-HEAL-2 — Avatar healing** [002:R2]
"""


def test_the_rules_index_is_made_from_the_analysis_with_the_lines_each_rule_cites():
    found = index(ANALYSIS, "P", "003", "one\ntwo\nthree\n")
    assert found["P-ACT-1"] == {"title": "Actions per month", "summary": "Four a month", "lines": [(2, 2)]}
    assert found["GM-18"]["lines"] == [(3, 3), (1, 2)] and found["GM-18"]["title"] == "Nerfs and fame"
    assert found["P-AMB-32"]["title"] == "Public/private slots"
    assert found["P.2.3"]["title"] == "Action economy" and "L-HEAL-2" not in found
    lodge = index(ANALYSIS, "L", "002", "1\nFirst\nText one\n2\nSecond\nText two\n")
    assert lodge["L-HEAL-2"]["lines"] == [(4, 6)]  # rule 2: its number's line, its title and its text


@pytest.mark.parametrize("name", ["powers", "covenants", "lodge"])
def test_each_ruleset_ships_its_rules_text_and_each_rule_cites_lines_of_it(name):
    package = rulesets.API_PACKAGES[name]
    folder = folder_of(package)
    assert folder is not None and (folder / json.loads((folder / "ids.json").read_text())["text"]).is_file()
    rules = rules_of(package)
    assert rules is not None and len(rules.rules) > 50
    assert all(1 <= a <= b <= len(rules.lines) for r in rules.rules.values() for a, b in r.lines)
    cited = {m for line in model.ruleset_help(name).mail for m in mentions(line.note)}
    assert cited and len(cited & set(rules.rules)) >= len(cited) // 2, cited - set(rules.rules)


def test_each_command_is_listed_with_its_declared_form_and_route():
    powers = {c.name: c for c in model.ruleset_help("powers").commands}
    assert powers["AddPower"].form == "add-power" and powers["AddPower"].gm
    assert powers["AddPower"].route == "POST /games/{game_id}/powers"
    assert "P-ACT-1" in powers["AddPower"].what and "name" in powers["AddPower"].fields
    assert powers["BattleSilence"].form is None  # recorded by the service at a deadline
    assert str(model.linked("x (P-ACT-1, MAIL-1) <b>", "powers")) == (
        'x (<a href="/help/powers/rules#P-ACT-1">P-ACT-1</a>, MAIL-1) &lt;b&gt;'
    )


@pytest.mark.parametrize("name", ["powers", "covenants", "lodge"])
def test_every_rule_id_the_help_cites_of_the_rules_families_is_in_the_shipped_index(name):
    """A command's docstring or a mail line citing a rule id the analysis does not define (a typo, a renumbering)
    would be shown unlinked: of the families the index holds (P-ACT, GM, L-HEAL...), every id cited is there. The
    service's own ids (MAIL-1, TABLE-1) are no rules text's."""
    h = model.ruleset_help(name)
    assert h.rules is not None
    families = {i.rsplit("-", 1)[0] for i in h.rules.rules}
    texts = [c.what for c in h.commands] + [m.note for m in h.mail] + [u for m in h.mail for u in m.usage]
    cited = {i for t in texts for i in mentions(t)}
    assert len(cited) >= 10
    assert {i for i in cited if i.rsplit("-", 1)[0] in families} - set(h.rules.rules) == set()


@pytest.mark.parametrize("name", WITH_MAIL)
def test_every_mail_line_names_the_commands_it_sends_and_each_is_one_the_game_takes(name):
    from domain.platform.commands import PLATFORM_COMMANDS

    takes = {c.__name__ for c in registered()[name].commands} | {c.__name__ for c in PLATFORM_COMMANDS}
    module = rulesets.part(name, "help")
    assert all(line.sends for line in module.MAIL), [line.example for line in module.MAIL if not line.sends]
    assert {c for line in module.MAIL for c in line.sends} - takes == set()
    helped = {c.name: c for c in model.ruleset_help(name).commands}
    for line in module.MAIL:  # the command's entry links back to the line's verb
        for command in set(line.sends) & set(helped):
            assert f"mail-{line.verb}" in {anchor for anchor, _ in helped[command].mail}
