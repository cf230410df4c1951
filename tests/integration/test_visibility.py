"""The visibility table of P.4: owner, GM, resisters, collaborators, other conspiracies, public,
and grants that are events in their own right."""

from __future__ import annotations

import json

import pytest

from application.service import Games
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.powers import commands as pc
from tests.helpers import add_power
from tests.scenarios import play_rich_month


@pytest.fixture
def month():
    games = Games()
    return games, play_rich_month(games)


def text(games: Games, game_id: str, viewer: str) -> str:
    return json.dumps(games.view(game_id, viewer)) + json.dumps(games.visible_events(game_id, viewer))


def test_declared_collaborators_see_the_action_its_dice_and_its_result(month):
    games, m = month
    cult = games.view(m.game_id, m.powers["cult"])
    shared = cult["shared_with_me"]
    assert [a["title"] for a in shared] == ["PRIVATE-CIRC-PLOT"]
    assert shared[0]["pool"]["dice"] and shared[0]["result"] is not None
    assert "consequence_offers" not in shared[0]  # the owner's dealings with the GM stay the owner's
    assert "PRIVATE-CIRC-PLOT" not in text(games, m.game_id, m.powers["sov"])


def test_conspiracies_see_each_others_influence_only_where_they_have_influence(month):
    games, m = month
    circ = games.view(m.game_id, m.powers["circ"])
    assert circ["influence_seen"] == [{"power": m.powers["cult"], "hex": "hex-7", "amount": 1}]  # not hex-9
    sov = games.view(m.game_id, m.powers["sov"])
    assert sov["influence_seen"] == []  # a city does not see the influence layer
    assert "hex-9" not in text(games, m.game_id, m.powers["circ"])
    assert "hex-7" not in text(games, m.game_id, m.powers["sov"])


def test_a_conspiracy_entering_a_hex_learns_who_is_already_there():
    games = Games()
    gid, _, _ = games.create_game("Influence")
    a = add_power(games, gid, "gm", "A", "conspiracy", "circle")[0]
    b = add_power(games, gid, "gm", "B", "conspiracy", "cult")[0]
    games.send(gid, "gm", pc.SetInfluence(a, "h1", 4))
    assert "h1" not in text(games, gid, b)
    games.send(gid, "gm", pc.SetInfluence(b, "h1", 1))
    disclosed = [e for e in games.visible_events(gid, b) if e["type"] == "InfluenceDisclosed"]
    assert [e["data"]["entries"] for e in disclosed] == [{a: 4}]
    assert [e["data"]["amount"] for e in games.visible_events(gid, a) if e["type"] == "InfluenceSet"] == [4, 1]


def test_incorruptible_sees_the_whole_influence_layer():
    games = Games()
    gid, _, _ = games.create_game("Influence")
    a = add_power(games, gid, "gm", "A", "conspiracy", "circle")[0]
    seer = add_power(games, gid, "gm", "Seer", "champion", "paragon", {"incorruptible": True})[0]
    games.send(gid, "gm", pc.SetInfluence(a, "h2", 2))
    assert games.view(gid, seer)["influence_seen"] == [{"power": a, "hex": "h2", "amount": 2}]


def holders_of(games: Games, game_id: str, name: str, powers: dict) -> set[str]:
    """Who holds the asset called ``name``, as each power's own sheet says."""
    return {
        key for key, pid in powers.items() if any(a["name"] == name for a in games.view(game_id, pid)["me"]["assets"])
    }


def test_a_shared_secret_is_held_by_both_and_cannot_be_shared_twice(month):
    games, m = month
    p = m.powers
    wiz = games.view(m.game_id, p["wiz"])["me"]["assets"]
    assert [a["name"] for a in wiz if a["cls"] == "secret"] == ["SECRET-ASSET-CIRC"]
    assert [a["shared"] for a in wiz if a["cls"] == "secret"] == [True]
    with pytest.raises(RuleViolation) as twice:
        games.send(m.game_id, p["circ"], pc.ShareSecret(p["circ"], m.assets["circ-secret"], p["wiz"]))
    assert (twice.value.rule, twice.value.field) == ("P-ASSET-8", "to")
    assert "already knows" in twice.value.message
    with pytest.raises(NotFound) as not_theirs:  # one cannot pass off someone else's asset as one's own
        games.send(m.game_id, p["sov"], pc.ShareSecret(p["sov"], m.assets["circ-secret"], p["cult"]))
    assert not_theirs.value.field == "asset_id"
    assert holders_of(games, m.game_id, "SECRET-ASSET-CIRC", p) == {"circ", "wiz"}
    assert "SECRET-ASSET-CIRC" not in text(games, m.game_id, p["sov"])


def test_p_asset_8_a_shared_secret_stays_shared_across_a_rollback(month):
    """Rolling back to before the secret was shared does not take it back: what was seen stays seen."""
    games, m = month
    p = m.powers
    games.rollback(m.game_id, "gm", "the GM undoes the month", phase="s1m1-planning")
    assert games.view(m.game_id, "gm")["game"]["step"] == "planning"
    assert holders_of(games, m.game_id, "SECRET-ASSET-CIRC", p) == {"circ", "wiz"}
    assert games.view(m.game_id, p["wiz"])["game"]["rollbacks"] == 1


def test_p_asset_8_no_api_mail_or_gm_path_takes_a_shared_secret_back(month):
    """Try every way one might unshare a secret, as its owner, its new holder and the GM: each is
    refused (naming what refused it) or leaves both holders holding it, and records nothing."""
    from fastapi.testclient import TestClient

    from api.app import create_app
    from api.mail_intake import MailIntake

    games, m = month
    p, gid, secret = m.powers, m.game_id, m.assets["circ-secret"]
    tokens = {who: games.reissue_link(gid, "gm", who)[0] for who in ("gm", p["circ"], p["wiz"])}
    before = len(games.visible_events(gid, "gm"))
    attempts = [
        ("DELETE", f"/games/{gid}/secrets/{secret}/share", None),
        ("POST", f"/games/{gid}/secrets/{secret}/unshare", {"to": p["wiz"]}),
        ("DELETE", f"/games/{gid}/secrets/{secret}", None),
        ("DELETE", f"/games/{gid}/powers/{p['wiz']}/assets/{secret}", None),
        ("PUT", f"/games/{gid}/powers/{p['wiz']}/assets/{secret}", {"holders": [p["circ"]]}),
        ("POST", f"/games/{gid}/secrets/{secret}/share", {"to": p["wiz"], "unshare": True}),
        ("POST", f"/games/{gid}/secrets/{secret}/share", {"to": p["circ"], "power_id": p["wiz"]}),
    ]
    with TestClient(create_app(games_service=games)) as api:
        for who, token in tokens.items():
            for method, path, body in attempts:
                r = api.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})
                assert r.status_code in (403, 404, 405, 422), (who, method, path, r.status_code, r.text)
                if r.status_code in (403, 422):  # refused, naming the field or rule
                    assert r.json()["field"] or r.json()["rule"], r.json()
        assert len(games.visible_events(gid, "gm")) == before
        # The GM re-granting the secret's id to its owner alone does not take it from the other holder.
        r = api.post(
            f"/games/{gid}/powers/{p['circ']}/assets",
            headers={"Authorization": f"Bearer {tokens['gm']}"},
            json={"name": "SECRET-ASSET-CIRC", "cls": "secret", "rank": 2, "asset_id": secret},
        )
        assert r.status_code in (201, 422), r.text
    intake = MailIntake(games)
    reply = intake.receive(
        intake.address_for(gid, tokens[p["circ"]]), "<unshare@test>", f"unshare {secret} {p['wiz']}\n"
    )
    assert not reply.accepted and "MAIL-1" in reply.body
    assert holders_of(games, gid, "SECRET-ASSET-CIRC", p) == {"circ", "wiz"}


def test_only_secrets_can_be_shared(month):
    games, m = month
    with pytest.raises(RuleViolation) as err:
        games.send(
            m.game_id, m.powers["circ"], pc.ShareSecret(m.powers["circ"], m.assets["circ-might"], m.powers["wiz"])
        )
    assert err.value.rule == "P-ASSET-8"


def test_a_seeking_success_is_a_grant_to_the_seeker_alone(month):
    games, m = month
    assert games.view(m.game_id, m.powers["wiz"])["me"]["learned"] == [
        {"source": "seeking", "about": m.powers["cult"], "text": "SEEKING-FOUND-CULT-SHRINE", "action_id": None}
    ]
    for other in ("circ", "cult", "sov"):
        assert "SEEKING-FOUND-CULT-SHRINE" not in text(games, m.game_id, m.powers[other])


def test_a_resolved_private_actions_result_reaches_its_target_but_not_its_dice(month):
    games, m = month
    games.close_window(m.game_id, "gm", "s1m1-resistance")
    sov = games.view(m.game_id, m.powers["sov"])
    result = [r for r in sov["results_shown_to_me"] if r["title"] == "PRIVATE-WIZ-DUEL"]
    assert len(result) == 1 and set(result[0]["result"]) == {"success", "net", "excess"}
    final = [
        e
        for e in games.visible_events(m.game_id, m.powers["sov"])
        if e["type"] == "ActionResolved" and e["data"]["action_id"] == m.actions["duel"]
    ]
    assert set(final[0]["data"]["details"]) == {"power", "title", "slot"}
    assert "DESC-WIZ" not in text(games, m.game_id, m.powers["sov"])


def test_players_cannot_read_the_audit_or_act_for_others(month):
    games, m = month
    with pytest.raises(Forbidden) as not_gm:
        games.require_gm(m.powers["sov"])
    assert not_gm.value.field == "authorization" and "only the GM" in not_gm.value.message
    before = len(games.visible_events(m.game_id, "gm"))
    with pytest.raises(Forbidden) as impersonate:
        games.send(m.game_id, m.powers["sov"], pc.SubmitAction(m.powers["wiz"], title="impersonate"))
    assert impersonate.value.field == "seat" and "your own seat" in impersonate.value.message
    assert len(games.visible_events(m.game_id, "gm")) == before
