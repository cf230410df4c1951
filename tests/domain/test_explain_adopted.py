"""Every result explains itself under the rules version in force when it was made (issue 29, items 1 and 3): a game
that adopted a house version of its ruleset (``tests/domain/rules_variants.py``) goes on deciding by it, and the "why"
of each result decided after the adoption derives it by that version (P-DICE-4's house margin; A-RECK-3's point per 3
provision; the Lodge's effects, which no scoring rule enters), while a result recorded before it stands derived as it
was decided. For every viewer of each game: every derivation recomputes its recorded result from its own terms, and
shows the viewer nothing its own events do not (the contract suite's ``leaks``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import pytest

from application import replay as replays
from application.service import Caller, Games
from domain.lodge.commands import AdvancePhase
from domain.platform import explain
from domain.platform import ruleset as registry
from domain.powers import commands as pc
from domain.powers import rules
from tests.contract.test_explain_contract import leaks
from tests.covenants.play import Dice, skip_season
from tests.domain import rules_variants as variants
from tests.domain.lodge_helpers import play_lodge_turn
from tests.domain.replay_helpers import recorded
from tests.domain.test_covenants_worked_examples import package, seated, villagers_make
from tests.scenarios import play_rich_month

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
GM = Caller.of("gm")


def derived(games: Games, game_id: str, viewer: str) -> tuple[dict[str, dict[str, Any]], list[dict]]:
    """Every derivation ``viewer`` may have, from its own events under the version the game is pinned at now."""
    events = games.visible_events(game_id, viewer, limit=100_000)
    ruleset = games.read(game_id, lambda g: g.ruleset)
    return explain.derivations(ruleset, events), events


def holds_for_every_viewer(games: Games, game_id: str, viewers: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """Each viewer's derivations, once each recomputes its recorded result and leaks nothing."""
    out = {}
    for viewer in viewers:
        found, events = derived(games, game_id, viewer)
        for result_id, d in found.items():
            assert explain.recomputes(d) == [], (viewer, result_id, explain.recomputes(d))
            assert leaks(d, events) == [], (viewer, result_id)
        out[viewer] = found
    return out


@pytest.fixture
def games() -> Iterator[Games]:
    g = Games(clock=lambda: NOW)
    yield g
    g.close()


def test_p_dice_4_a_month_resolved_after_adopting_the_house_rule_explains_itself_by_it(games):
    """Adopted before Resolution: each action resolves by ``powers-house`` (one success more than the difficulty),
    and its "why" needs that success more, citing P-DICE-4 and the version; the printed test would contradict the
    recorded result of every action of difficulty 0 (0 net successes fail now)."""
    with variants.installed(variants.POWERS_HOUSE):
        m = play_rich_month(games, finish=False)
        replays.adopt(games, GM, m.game_id, "powers-house", "setup")
        games.send(m.game_id, "gm", pc.Advance())
        games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
        sov = m.powers["sov"]
        games.send(m.game_id, sov, pc.DeclareReaction(sov, m.actions["duel"], [{"asset_id": m.assets["sov-might"]}], 1))
        resolved = recorded(games, m.game_id, "ActionResolved")
        assert any((e.success, e.excess) != rules.outcome(e.net, e.difficulty) for e in resolved)
        seen = holds_for_every_viewer(games, m.game_id, ["gm", *m.powers.values()])
        for e in resolved:
            d = seen["gm"][f"action:{e.action_id}"]
            steps = {s["id"]: s for s in d["steps"]}
            assert steps["needed"]["value"] == e.difficulty + 1 and steps["needed"]["rule"] == "P-DICE-4"
            assert steps["needed"]["params"]["version"] == "powers-house"
            assert (steps["success"]["value"], steps["excess"]["value"]) == variants.harder(e.net, e.difficulty)
        # each power explains the actions it was shown, by the same house rule
        for power in m.powers.values():
            for d in seen[power].values():
                if d["kind"] == "action" and not d["provisional"]:
                    assert "needed" in {s["id"] for s in d["steps"]}, (power, d["result_id"])


def test_p_dice_4_actions_resolved_before_the_adoption_stand_derived_as_they_were_decided(games):
    """Adopted after the month resolved (from its next phase on): the month's actions were decided by the printed
    rule, and their "why" is the printed one, no house margin; the game is pinned at ``powers-house`` now."""
    with variants.installed(variants.POWERS_HOUSE):
        m = play_rich_month(games)
        games.send(m.game_id, "gm", pc.Advance())
        phase = games.phases(m.game_id)[-1]["phase"]
        assert replays.adopt(games, GM, m.game_id, "powers-house", phase)["result"]["differences"] == 0
        assert games.read(m.game_id, lambda g: g.ruleset.version) == "powers-house"
        seen = holds_for_every_viewer(games, m.game_id, ["gm", *m.powers.values()])
        actions = [d for d in seen["gm"].values() if d["kind"] == "action"]
        assert len(actions) == 4
        assert all("needed" not in {s["id"] for s in d["steps"]} for d in actions)


def test_a_reck_3_a_year_reckoned_after_adopting_the_house_rule_explains_its_points_by_it():
    """Adopted before Winter: the Yearly Reckoning gives a point per 3 provision (9 for a surplus of 9, not 8), and
    its "why" divides by 3, naming the version, for the host and every covenant."""
    with variants.installed(variants.COVENANTS_HOUSE):
        t = seated(Dice(), {"ann": 12}, options={**package(villagers_make(6)), "yearly_consumes": False})
        try:
            for _ in range(3):
                skip_season(t)
            replays.adopt(t.games, Caller.of("ann"), t.game_id, "covenants-house", "setup")
            skip_season(t)  # Winter: the Yearly Reckoning, decided by covenants-house
            (reckoning,) = recorded(t.games, t.game_id, "YearReckoned")
            assert reckoning.points == {"ann": 9, "bob": 9, "cy": 9}
            seen = holds_for_every_viewer(t.games, t.game_id, ["gm", *t.seats])
            for viewer, found in seen.items():
                d = found[f"reckoning:{reckoning.terms['year']}"]
                steps = {s["id"]: s for s in d["steps"]}
                assert steps["ann-provision-points"]["args"][1] == 3, viewer
                assert steps["ann-provision-points"]["params"]["version"] == "covenants-house", viewer
        finally:
            t.games.close()


def test_l_score_1_a_turn_played_after_adopting_the_house_rule_explains_each_effect(games):
    """The Lodge's derivations (each effect, phrase by phrase) hold under ``lodge-house`` too."""
    with variants.installed(variants.LODGE_HOUSE):
        game_id = play_lodge_turn(games, cleanup=False)
        replays.adopt(games, GM, game_id, "lodge-house", "setup")
        games.run(GM, game_id, AdvancePhase("black-rose"))  # Clean-up, decided by lodge-house
        seen = holds_for_every_viewer(games, game_id, ["gm", "ann", "bob", "cy"])
        assert any(d["kind"] == "effect" for d in seen["gm"].values())


def test_a_version_not_installed_any_more_derives_by_the_printed_rules():
    """A version named by an adoption but no longer installed (its plugin removed) cannot be read: the printed rules
    (``rules_of``), rather than an error."""
    from domain.powers.redecide import VersionRules, in_force

    assert in_force("powers-gone") == VersionRules() and in_force(None) == VersionRules()
    with variants.installed(variants.POWERS_HOUSE):
        assert in_force("powers-house").margin == 1
    assert registry.installed_versions("powers") == [registry.get("powers").version]
