"""Hidden information is a security property (P.4): no player's view, event list, receipt or error
message carries another power's private action, a secret difficulty, or dice the rules hide."""

from __future__ import annotations

import json

import pytest

from application.service import Games
from domain.errors import NotFound
from domain.powers import commands as pc
from tests.helpers import add_power


def dump(obj) -> str:
    return json.dumps(obj, default=str)


@pytest.fixture
def month():
    """A month with private, public, resistible and sealed actions; returns what each viewer saw."""
    games = Games()
    gid, _, _ = games.create_game("Leaks", "GM")
    powers = {}
    for name, cls, sub in (
        ("Wiz", "champion", "wizard"),
        ("Circ", "conspiracy", "circle"),
        ("Lord", "city", "overlord"),
        ("Sov", "city", "sovereign"),
    ):
        powers[name] = add_power(games, gid, "gm", name, cls, sub)[0]
    w, c, lo, s = powers.values()
    skill = {
        p: games.send(gid, "gm", pc.GrantAsset(p, "might", "skill", 3)).result["asset_id"] for p in powers.values()
    }
    secret_item = games.send(gid, "gm", pc.GrantAsset(c, "ITEM-CIRC-HIDDEN", "item", 2, assured=True)).result[
        "asset_id"
    ]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    seen: dict = {p: [] for p in powers.values()}  # receipts and errors each power was shown
    acts = {}

    def act(p, key, **kw):
        r = games.send(gid, p, pc.SubmitAction(p, **kw))
        seen[p].append(r.as_dict())
        acts[key] = r.result["action_id"]

    act(
        w,
        "wiz_duel",
        title="SECRET-WIZ-DUEL",
        description="DESC-WIZ-DUEL",
        skill="might",
        targets=[lo],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": skill[w]}],
        convert=2,
    )
    act(c, "circ_plot", title="SECRET-CIRC-PLOT", description="DESC-CIRC-PLOT", roll=False)
    games.send(gid, "gm", pc.SetDifficulty(acts["circ_plot"], 7, sealed=True))
    seen[c].append(
        games.send(
            gid, c, pc.RollAction(acts["circ_plot"], assets=[{"asset_id": secret_item, "mode": "assured"}], convert=1)
        ).as_dict()
    )
    act(lo, "lord_private", title="SECRET-LORD-PRIVATE", description="DESC-LORD", slot="private", convert=0)
    act(
        lo,
        "lord_public",
        title="PUBLIC-LORD-EDICT",
        slot="public",
        targets=[s],
        resistible=True,
        assets=[{"asset_id": skill[lo]}],
        convert=1,
    )
    act(s, "sov_public", title="PUBLIC-SOV-BUILD", slot="public", assets=[{"asset_id": skill[s]}], convert=0)
    cid = games.send(
        gid,
        "gm",
        pc.ProposeConsequence(
            acts["circ_plot"], "CONSEQUENCE-TEXT-CIRC", [{"kind": "disclose", "to": s, "text": "DISCLOSED-TO-SOV"}]
        ),
    ).result
    seen[c].append(games.send(gid, c, pc.AcceptConsequence(acts["circ_plot"], cid["consequence_id"])).as_dict())
    for p, other in ((s, acts["circ_plot"]), (lo, acts["wiz_duel"])):  # probing others' ids
        for probe in (
            lambda: games.send(gid, p, pc.DiscardAction(other)),
            lambda: games.send(gid, p, pc.LockConversions(other, convert=0)),
        ):
            with pytest.raises(NotFound) as err:  # the same answer as for an id that does not exist
                probe()
            assert err.value.field == "action_id" and err.value.message == f"no action {other!r} of yours this month"
            seen[p].append(err.value.as_dict())
    planning = {p: dump(games.view(gid, p)) + dump(games.visible_events(gid, p)) for p in powers.values()}
    seen["planning"] = planning
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement="The month turns."))
    snapshots = {p: [dump(games.view(gid, p)), dump(games.visible_events(gid, p))] for p in powers.values()}
    seen[lo].append(games.send(gid, lo, pc.DeclareReaction(lo, acts["wiz_duel"], [{"asset_id": skill[lo]}])).as_dict())
    with pytest.raises(NotFound) as err:  # the Wizard may not resist the plot, nor learn that it exists
        games.send(gid, w, pc.DeclareReaction(w, acts["circ_plot"], [{"asset_id": skill[w]}]))
    assert (err.value.rule, err.value.field) == ("P-RES-1", "action_id")
    assert err.value.message == "there is no action you may resist with that id"
    seen[w].append(err.value.as_dict())
    games.close_window(gid, "gm", "s1m1-resistance")
    return games, gid, powers, acts, seen, snapshots


def test_no_player_sees_another_powers_private_action(month):
    games, gid, powers, acts, seen, snapshots = month
    w, c, lo, s = powers.values()
    allowed = {  # marker -> powers that may see it (the GM sees all)
        "SECRET-WIZ-DUEL": {w, lo},  # Lord may resist it: told who acts and what the action is (P-AMB-3)
        "DESC-WIZ-DUEL": {w},
        "SECRET-CIRC-PLOT": {c},
        "DESC-CIRC-PLOT": {c},
        "SECRET-LORD-PRIVATE": {lo},
        "DESC-LORD": {lo},
        "ITEM-CIRC-HIDDEN": {c},
        "CONSEQUENCE-TEXT-CIRC": {c},
        # A disclosure is about the owner's own secret: the owner accepted it (GM-3); the named power learns it.
        "DISCLOSED-TO-SOV": {s, c},
    }
    for p in powers.values():
        texts = snapshots[p] + [dump(games.view(gid, p)), dump(games.visible_events(gid, p)), dump(seen[p])]
        for text in texts:
            for marker, who in allowed.items():
                if p not in who:
                    assert marker not in text, f"{p} can see {marker}"
    gm = dump(games.view(gid, "gm")) + dump(games.visible_events(gid, "gm"))
    assert all(marker in gm for marker in allowed)
    # Public actions are public: every power sees them once resolved.
    assert all("PUBLIC-SOV-BUILD" in dump(games.view(gid, p)) for p in powers.values())


def test_a_sealed_difficulty_is_hidden_until_resolution_and_then_shown_to_its_owner_only(month):
    games, gid, powers, acts, seen, snapshots = month
    w, c, lo, s = powers.values()
    secret = [e for e in games.visible_events(gid, "gm") if e["type"] == "DifficultyRecorded"][0]["data"]
    nonce = secret["nonce"]
    for p in powers.values():
        assert nonce not in seen["planning"][p] + dump(seen[p])
        if p != c:
            assert nonce not in "".join(snapshots[p]) + dump(games.visible_events(gid, p))
        events = games.visible_events(gid, p)
        assert not any(e["type"] == "DifficultyRecorded" for e in events)
        revealed = [e for e in events if e["type"] == "DifficultyRevealed"]
        assert bool(revealed) == (p == c)
    assert all("sealed_difficulty" not in dump(games.view(gid, p)) for p in powers.values())


def test_a_resister_learns_actor_action_and_pool_size_but_no_dice_until_the_window_closes(month):
    games, gid, powers, acts, seen, snapshots = month
    w, c, lo, s = powers.values()
    lord_before = json.loads(snapshots[lo][1])
    about_duel = [e for e in lord_before if e["data"].get("action_id") == acts["wiz_duel"]]
    assert [e["type"] for e in about_duel] == ["ResistanceOffered"]
    assert set(about_duel[0]["data"]) == {
        "action_id",
        "power_id",
        "power_name",
        "title",
        "skill",
        "pool_size",
        "resisters",
    }
    view = json.loads(snapshots[lo][0])
    assert view["may_resist"][0]["pool_size"] == 3
    assert not any(k in dump(view["may_resist"]) for k in ("faces", "dice", "assured", "consequences"))
    # The public ↩️-able action of the Lord is only a notice to the table until the window closes (P-AMB-45).
    sov_before = json.loads(snapshots[s][0])
    edict = [a for a in sov_before["public_actions"] if a["title"] == "PUBLIC-LORD-EDICT"][0]
    assert set(edict) == {"action_id", "power", "power_name", "title", "skill", "pool_size", "status"}


def test_the_actor_never_sees_the_resisters_dice_only_the_total_after_the_window(month):
    games, gid, powers, acts, seen, snapshots = month
    w, c, lo, s = powers.values()
    events = games.visible_events(gid, w)
    assert not any(e["type"] == "ReactionDeclared" for e in events)
    final = [e for e in events if e["type"] == "ActionResolved" and e["data"]["action_id"] == acts["wiz_duel"]]
    assert len(final) == 1 and "resisted" in final[0]["data"]
    assert "my_reactions" in games.view(gid, lo) and games.view(gid, lo)["my_reactions"]
    assert "reactions" not in games.view(gid, w)


def test_sealed_events_are_shown_to_nobody_not_even_the_gm(month):
    games, gid, powers, acts, seen, snapshots = month
    for viewer in ["gm", *powers.values()]:
        types = {e["type"] for e in games.visible_events(gid, viewer)}
        assert not types & {"SeedSealed", "CredentialIssued"}
