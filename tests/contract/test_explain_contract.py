"""Every result explains itself (issue 29), for every registered ruleset and the fake one: each derivation a viewer
gets recomputes its published result from its own terms, and shows that viewer nothing their own events do not.

The derivations come from ``domain.platform.explain.derivations`` over each viewer's own events (what the export
gives them); the no-leak check compares every value a derivation shows (each die and its proof, each given term,
each published field) against the events of that viewer it cites, and the planted-leak test shows the check fails a
derivation built from the GM's events for a player.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Games
from domain.errors import NotFound
from domain.platform import explain
from domain.platform import ruleset as registry
from tests.contract.drivers import DRIVERS, Driver, Played


@pytest.fixture
def driver(ruleset: registry.Ruleset) -> Driver:
    return DRIVERS[ruleset.name]


@pytest.fixture
def games():
    g = Games()
    yield g
    g.close()


@pytest.fixture
def played(games: Games, driver: Driver) -> Played:
    return driver.play(games)


def events_of(games: Games, game_id: str, viewer: str) -> list[dict]:
    return games.visible_events(game_id, viewer, limit=100_000)


def _scalars(value: Any) -> set[str]:
    """Every leaf of a JSON value, as text (a die, a key, a difficulty, a name)."""
    if isinstance(value, Mapping):
        return set().union(*(_scalars(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(_scalars(v) for v in value)) if value else set()
    return {repr(value)}


def leaks(derivation: Mapping[str, Any], events: list[dict]) -> list[str]:
    """What a derivation shows that the events it cites (of its viewer) do not carry: each roll's faces, roll
    number and proof, each given term's value; an event cited that the viewer lacks. The rest of a derivation is
    computed from these (the recompute test holds it), so it carries nothing more."""
    by_seq = {e["seq"]: e for e in events}
    out = []
    source = derivation["source"]
    if by_seq.get(source["seq"], {}).get("type") != source["type"]:
        out.append(f"the source event {source} is not the viewer's")
    for roll in derivation["dice"]:
        shown = _scalars(by_seq.get(roll["seq"], {}).get("data", {}))
        for k in ("faces", "roll_no", "key", "path", "commitment"):
            if k in roll and not _scalars(roll[k]) <= shown:
                out.append(f"roll {roll['label']}: its {k} is not in the viewer's event {roll['seq']}")
    for step in derivation["steps"]:
        if step["op"] == "given":
            cited = by_seq.get(step.get("seq"))
            if cited is None:
                out.append(f"step {step['id']} cites an event the viewer was not shown")
            elif repr(step["value"]) not in _scalars(cited["data"]) and step["value"] != 0:
                out.append(f"step {step['id']}: {step['value']!r} is not in the event it cites")
    return out  # every other value is computed from these (``explain.recomputes`` holds it)


def test_every_derivation_recomputes_its_result_from_its_own_terms(games, ruleset, played):
    seen = 0
    for viewer in played.viewers:
        for result_id, d in explain.derivations(ruleset, events_of(games, played.game_id, viewer)).items():
            assert explain.recomputes(d) == [], (viewer, result_id)
            assert d["result_id"] == result_id and d["result"]["published"]
            seen += 1
    assert seen > 0, f"{ruleset.name}: the contract's game publishes no result to explain"


def test_every_ruleset_derives_results_of_its_own_beside_the_platforms(games, ruleset, played):
    """``Ruleset.derive`` is declared by every ruleset, the fake one too, and the contract's game gives it results to
    explain: the promises above hold for the ruleset's own derivations, not only for a post's dice."""
    assert ruleset.derive is not None, f"{ruleset.name} declares no derive"
    own = ruleset.derive(events_of(games, played.game_id, "gm"))
    assert own and not set(own) & set(explain.platform_derivations(events_of(games, played.game_id, "gm")))


def test_no_derivation_shows_a_viewer_what_their_own_events_do_not(games, ruleset, played):
    gm_ids = set(explain.derivations(ruleset, events_of(games, played.game_id, "gm")))
    for viewer in played.viewers:
        events = events_of(games, played.game_id, viewer)
        mine = explain.derivations(ruleset, events)
        assert set(mine) <= gm_ids  # nobody explains a result the GM cannot
        for result_id, d in mine.items():
            assert leaks(d, events) == [], (viewer, result_id)
        for hidden in sorted(gm_ids - set(mine)):
            with pytest.raises(NotFound):
                explain.explain(ruleset, events, hidden)


def test_the_leak_check_catches_a_derivation_built_from_the_gms_events(games, ruleset, played):
    """A planted leak: the GM's derivations handed to a player must fail the check for some player who was not
    shown everything the GM was (or the game hides no result's terms from anyone, and there is nothing to plant)."""
    gm = explain.derivations(ruleset, events_of(games, played.game_id, "gm"))
    caught = 0
    for viewer in played.viewers[1:]:
        events = events_of(games, played.game_id, viewer)
        mine = explain.derivations(ruleset, events)
        for result_id, d in gm.items():
            if d != mine.get(result_id):
                assert leaks(d, events), (viewer, result_id)
                caught += 1
    if ruleset.name == "powers":
        assert caught > 0  # P.4: a private action's dice are its owner's and the GM's


def test_an_unknown_result_is_not_found_in_the_same_words(games, ruleset, played):
    with pytest.raises(NotFound, match="no result 'action:nope' that you may see"):
        explain.explain(ruleset, events_of(games, played.game_id, "gm"), "action:nope")


@pytest.mark.parametrize("seed", [0, 1])
def test_seeded_random_play_every_derivation_recomputes_and_leaks_nothing(ruleset, seed):
    """The same two promises over games played at random (the liveness contract's seeded legal play, silent seats
    and passing deadlines): every result any viewer may have explained, for the GM and each seat."""
    from tests.contract.test_liveness import Play, plan_for

    game = Play(ruleset, plan_for(ruleset), seed)
    try:
        outcome = game.run()
        assert outcome.broken is None, outcome.broken
        gm_ids: set[str] = set()
        for viewer in ["gm", *game.table.seats]:
            events = game.games.visible_events(game.table.game_id, viewer, limit=100_000)
            found = explain.derivations(ruleset, events)
            gm_ids |= set(found) if viewer == "gm" else set()
            assert set(found) <= gm_ids, viewer
            for result_id, d in found.items():
                assert explain.recomputes(d) == [], (seed, viewer, result_id, explain.recomputes(d))
                assert leaks(d, events) == [], (seed, viewer, result_id)
    finally:
        game.games.close()


@pytest.mark.parametrize("seed", [None, 1])
def test_every_rule_a_derivation_cites_links_to_its_text(games, ruleset, seed):
    """Each step's rule id resolves to an anchor of the ruleset's rules page (``/help/<ruleset>/rules#<id>``, from
    the ``ids.json`` its API package ships), in the contract's game and in seeded random play, for every viewer; the
    platform's own dice cite the design (``DESIGN-DICE``), and a ruleset that ships no rules text (the fake) links
    none. The index a mail links from (``application.why.rule_ids``) is the help page's."""
    from api.help import model
    from api.routes.results import linked
    from application.why import rule_ids
    from tests.contract.test_liveness import Play, plan_for

    rules = model.ruleset_help(ruleset.name).rules
    assert rule_ids(ruleset.name) == (frozenset(rules.rules) if rules is not None else frozenset())
    if seed is None:
        game_id, viewers, store = DRIVERS[ruleset.name].play(games).game_id, None, games
    else:
        play = Play(ruleset, plan_for(ruleset), seed)
        assert play.run().broken is None
        game_id, store = play.table.game_id, play.games
    try:
        viewers = ["gm", *store.get_game(game_id).seats]
        cited: set[str] = set()
        for viewer in viewers:
            for d in explain.derivations(ruleset, events_of(store, game_id, viewer)).values():
                for step in linked(d, ruleset.name)["steps"]:
                    cited.add(step["rule"])
                    if rules is not None and step["rule"] != explain.DICE_RULE:
                        assert step["rule_url"] == f"/help/{ruleset.name}/rules#{step['rule']}", step
                    else:
                        assert step["rule_url"] is None
        assert seed is None or cited - {explain.DICE_RULE}, f"{ruleset.name}: no derivation cites a rule of its own"
    finally:
        if store is not games:
            store.close()
