"""GET /games/{id}/results/{result_id}/explain in a game that adopted a house version of Powers (issue 29, items 1 and
3; ``tests/domain/rules_variants.py``'s ``powers-house``: an action needs one success more than its difficulty), on
both stores: each action resolved after the adoption explains itself by that version for the GM and every power it
was shown to, and recomputes; the console's "Why?" shows the version's step. Rolled back to before the adoption, the
game is at the printed version again and the month resolved anew explains itself by the printed rule (the line that
told of the adoption was undone with it)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application import replay as replays
from application.service import Caller
from domain.powers import commands as pc
from tests.domain import rules_variants as variants
from tests.integration.helpers import bearer, close_app
from tests.scenarios import play_rich_month

GM = Caller.of("gm")
NEEDED = "the net successes needed under the rules version powers-house"


@pytest.fixture
def month(store_settings):
    with variants.installed(variants.POWERS_HOUSE):
        app = create_app(store_settings)
        m = play_rich_month(app.state.games, finish=False)
        with TestClient(app) as client:
            yield client, app.state.games, m
        close_app(app)


def resolve(games, m) -> None:
    games.send(m.game_id, "gm", pc.Advance())
    games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
    sov = m.powers["sov"]
    games.send(m.game_id, sov, pc.DeclareReaction(sov, m.actions["duel"], [{"asset_id": m.assets["sov-might"]}], 1))


def explained(client, m) -> dict[tuple[str, str], dict]:
    """Each action's derivation as the GM and each power get it over HTTP (those it was shown)."""
    out = {}
    for who, token in [("gm", m.gm_token), *((p, m.tokens[p]) for p in m.powers.values())]:
        for action_id in m.actions.values():
            r = client.get(f"/games/{m.game_id}/results/action:{action_id}/explain", headers=bearer(token))
            if r.status_code == 200:
                out[(who, action_id)] = r.json()
            else:
                assert r.status_code == 404, r.text
    return out


def steps(d: dict) -> dict[str, dict]:
    return {s["id"]: s for s in d["steps"]}


def test_p_dice_4_each_action_resolved_after_adopting_explains_itself_by_the_house_rule(month):
    client, games, m = month
    replays.adopt(games, GM, m.game_id, "powers-house", "setup")
    resolve(games, m)
    found = explained(client, m)
    assert {a for who, a in found if who == "gm"} == set(m.actions.values())
    for (who, action_id), d in found.items():
        assert d["recomputes"] is True, (who, action_id, d["steps"])
        if not d["provisional"]:
            needed = steps(d)["needed"]
            assert needed["params"]["version"] == "powers-house" and needed["rule_url"] == "/help/powers/rules#P-DICE-4"
    client.get(f"/signin/{m.game_id}/{m.gm_token}")
    assert NEEDED in client.get(f"/play/{m.game_id}").text  # the console's "Why?" beside each result


def test_p_dice_4_rolled_back_to_before_the_adoption_a_month_explains_itself_by_the_printed_rule(month):
    """Adopted during Planning, then rolled back to Planning's start: the adoption (and the line that told each
    power of it) is undone, and two actions of difficulty 0 submitted again resolve and explain by P-DICE-4 as
    printed (the house rule would give each one excess less)."""
    client, games, m = month
    planning = games.phases(m.game_id)[-1]["phase"]
    replays.adopt(games, GM, m.game_id, "powers-house", "setup")
    resolve(games, m)
    games.rollback(m.game_id, "gm", "the house rule was a mistake", phase=planning)
    assert games.read(m.game_id, lambda g: g.ruleset.version) != "powers-house"
    sov, cult = m.powers["sov"], m.powers["cult"]
    edict = pc.SubmitAction(sov, title="SOV-EDICT-2", slot="public", assets=[{"asset_id": m.assets["sov-might"]}])
    m.actions = {
        "edict": games.send(m.game_id, sov, edict).result["action_id"],
        "rite": games.send(m.game_id, cult, pc.SubmitAction(cult, title="CULT-RITE-2")).result["action_id"],
    }
    games.send(m.game_id, "gm", pc.Advance())
    games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
    found = explained(client, m)
    assert {a for who, a in found if who == "gm"} == set(m.actions.values())
    for (who, action_id), d in found.items():
        assert d["recomputes"] is True and not d["provisional"], (who, action_id, d["steps"])
        assert "needed" not in steps(d), (who, action_id)


REDECIDED = "re-decided under powers-house from setup, when the game adopted it"


def test_p_dice_4_an_action_amended_by_adopting_from_an_earlier_phase_explains_the_amended_result(month):
    """The month resolves by the printed rule; the GM then adopts ``powers-house`` from setup, which re-decides its
    actions (the board shows each amended). Over HTTP, on both stores, the derivation of each amended action, for
    the GM and each power shown it, is the house rule's, says it was re-decided (P-DICE-4), publishes the amended
    success and excess and recomputes; the console's and a power's "Why?" say so. Before this, the "why" explained
    the result as first decided, contradicting the board."""
    client, games, m = month
    resolve(games, m)
    before = {
        e.action_id: (e.success, e.excess) for e in games.iter_events(m.game_id) if type(e).__name__ == "ActionResolved"
    }
    replays.adopt(games, GM, m.game_id, "powers-house", "setup")
    amended, shown = 0, set()
    for (who, action_id), d in explained(client, m).items():
        assert d["recomputes"] is True, (who, action_id, d["steps"])
        published = d["result"]["published"]
        after = variants.harder(published["net"], published["difficulty"])
        assert (published["success"], published["excess"]) == after, (who, action_id)
        if after != before[action_id]:
            amended += 1
            assert steps(d)["redecided"]["rule"] == "P-DICE-4" and steps(d)["redecided"]["text"] == REDECIDED
            assert d["redecided"]["version"] == "powers-house"
            shown.add(who)
    assert amended >= 2 and "gm" in shown and len(shown) >= 2
    client.get(f"/signin/{m.game_id}/{m.gm_token}")
    assert REDECIDED in client.get(f"/play/{m.game_id}").text  # the console's "Why?"
    power = sorted(shown - {"gm"})[0]
    client.get(f"/signin/{m.game_id}/{m.tokens[power]}")
    assert REDECIDED in client.get(f"/play/{m.game_id}").text  # the power's "Why?" beside the amended result
