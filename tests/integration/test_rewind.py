"""Looking at, rolling back to, and forking from earlier phases."""

from __future__ import annotations

import pytest

from api.compose import build_games
from application.service import Games
from domain.errors import Forbidden, RuleViolation
from domain.platform.verify import verify_export
from domain.powers import commands as pc
from tests.scenarios import play_rich_month


def comparable(view: dict) -> dict:
    """A view without bookkeeping that a rollback deliberately keeps moving (sequences, seeds, deadlines)."""
    view = {k: v for k, v in view.items() if k not in ("sequence", "windows", "at")}
    view["game"] = {k: v for k, v in view["game"].items() if k not in ("seed_commitment", "seed_root", "rollbacks")}
    return view


@pytest.fixture
def games(store_settings):
    g = build_games(store_settings)
    yield g
    g.close()


def test_a_player_sees_their_own_view_as_it_was_at_a_past_phase(games):
    m = play_rich_month(games)
    circ = m.powers["circ"]
    then = games.view_at(m.game_id, circ, phase="s1m1-planning")
    assert then["game"]["step"] == "planning" and then["my_actions"] == []
    assert games.view(m.game_id, circ)["my_actions"]  # now it has its action
    with pytest.raises(Forbidden) as other:
        games.view_at(m.game_id, circ, phase="s1m1-planning", as_viewer=m.powers["wiz"])
    assert other.value.field == "as" and "only at your own view" in other.value.message
    gm_as_wiz = games.view_at(m.game_id, "gm", phase="s1m1-resistance", as_viewer=m.powers["wiz"])
    assert gm_as_wiz["viewer"] == m.powers["wiz"] and "actions" not in gm_as_wiz


def test_viewing_the_past_uses_the_phase_index_and_snapshots(games):
    m = play_rich_month(games)
    v = games.phase_version(m.game_id, "s1m1-resolution", None)
    assert games.view_at(m.game_id, "gm", version=v) == games.view_at(m.game_id, "gm", phase="s1m1-resolution") | {
        "at": {"version": v, "phase": None}
    }


def test_rollback_returns_the_state_to_the_phase_start_and_keeps_history(games):
    m = play_rich_month(games)
    before = {v: games.view_at(m.game_id, "gm", phase="s1m1-planning", as_viewer=v) for v in ["gm", *m.powers.values()]}
    version_before = games.get_game(m.game_id).version
    games.rollback(m.game_id, "gm", "the resolution misapplied a ruling", phase="s1m1-planning")
    after = {v: games.view(m.game_id, v) for v in ["gm", *m.powers.values()]}
    for v in before:
        # What nobody can unsee survives a rollback: disclosures and shared secrets (P.4, [003:114]).
        b, a = comparable(before[v]), comparable(after[v])
        if v != "gm":
            assert b["me"].pop("learned") == []  # nothing was learned yet when Planning began
            a["me"].pop("learned")
            b["me"]["assets"] = [x for x in b["me"]["assets"] if x["cls"] != "secret"]
            a["me"]["assets"] = [x for x in a["me"]["assets"] if x["cls"] != "secret"]
        else:
            b.pop("sheets"), a.pop("sheets")
        assert a == b, v
    assert games.get_game(m.game_id).version > version_before  # nothing was deleted
    events = games.visible_events(m.game_id, m.powers["sov"])
    assert any(e["type"] == "GameRolledBack" for e in events)
    assert any(e["type"] == "ActionResolved" for e in events)  # the superseded result is still in history


def test_what_was_shared_or_disclosed_cannot_be_unshared_by_a_rollback(games):
    m = play_rich_month(games)
    games.rollback(m.game_id, "gm", "replay the month", phase="s1m1-planning")
    wiz = games.view(m.game_id, m.powers["wiz"])["me"]
    assert "SECRET-ASSET-CIRC" in [a["name"] for a in wiz["assets"]]
    assert "SEEKING-FOUND-CULT-SHRINE" in [g["text"] for g in wiz["learned"]]
    sov = games.view(m.game_id, m.powers["sov"])["me"]
    assert "DISCLOSED-CIRC-TO-SOV" in [g["text"] for g in sov["learned"]]


def test_after_a_rollback_dice_come_from_a_fresh_seed_and_roll_numbers_never_repeat(games):
    m = play_rich_month(games)
    old_commitment = games.view(m.game_id, "gm")["game"]["seed_commitment"]
    rolls_before = {
        e["data"]["pool"]["roll_no"]
        for e in games.visible_events(m.game_id, "gm")
        if e["type"] in ("DiceRolled", "ReactionDeclared")
    }
    games.rollback(m.game_id, "gm", "again", phase="s1m1-planning")
    view = games.view(m.game_id, "gm")
    assert view["game"]["seed_commitment"] not in (None, old_commitment)
    r = games.send(
        m.game_id,
        m.powers["wiz"],
        pc.SubmitAction(m.powers["wiz"], title="again", assets=[{"asset_id": m.assets["wiz-might"]}], convert=0),
    )
    assert r.result["roll_no"] > max(rolls_before)
    revealed = [e["data"]["commitment"] for e in games.visible_events(m.game_id, "gm") if e["type"] == "SeedRevealed"]
    assert old_commitment in revealed  # the superseded seed goes to the GM, for the audit
    wiz = games.visible_events(m.game_id, m.powers["wiz"])
    assert not [e for e in wiz if e["type"] == "SeedRevealed"]  # P.4: never to a player
    report = verify_export(wiz)
    assert report.ok and report.rolls_pending == 0 and report.rolls_verified >= 2, report.mismatches
    assert verify_export(games.visible_events(m.game_id, "gm")).ok  # the superseded rolls stay verifiable


def test_rollback_needs_a_reason_and_a_phase_start(games):
    m = play_rich_month(games)
    with pytest.raises(RuleViolation) as no_reason:
        games.rollback(m.game_id, "gm", "  ", phase="s1m1-planning")
    assert no_reason.value.field == "reason" and "needs a reason" in no_reason.value.message
    start = games.phase_version(m.game_id, "s1m1-planning", None)
    with pytest.raises(RuleViolation) as mid_phase:
        games.rollback(m.game_id, "gm", "mid-phase", version=start + 1)
    assert mid_phase.value.field == "version" and "start of a phase" in mid_phase.value.message
    with pytest.raises(Forbidden) as player:
        games.rollback(m.game_id, m.powers["sov"], "I lost", phase="s1m1-planning")
    assert player.value.field == "authorization" and "only the GM" in player.value.message


def test_a_fork_shows_every_earlier_phase_exactly_as_the_original(games):
    m = play_rich_month(games)
    fork_id, _ = games.fork(m.game_id, "gm", "What if the duel never happened", phase="s1m1-resolution")
    for phase in ("s1-tidings", "s1m1-planning", "s1m1-resolution"):
        for viewer in ["gm", *m.powers.values()]:
            original = games.view_at(m.game_id, "gm", phase=phase, as_viewer=viewer)
            forked = games.view_at(fork_id, "gm", phase=phase, as_viewer=viewer)
            assert forked == original, (phase, viewer)
    now = games.view(fork_id, "gm")["game"]
    assert now["forked_from"]["game_id"] == str(games.get_game(m.game_id).id)
    assert now["name"] == "What if the duel never happened" and now["step"] == "resolution"
    assert games.view(m.game_id, "gm")["game"]["step"] == "battle"  # the original is untouched
    assert now["seed_commitment"] != games.view_at(m.game_id, "gm", phase="s1m1-resolution")["game"]["seed_commitment"]


def test_a_fork_is_played_on_independently(games: Games):
    m = play_rich_month(games)
    fork_id, _ = games.fork(m.game_id, "gm", "sandbox", phase="s1m1-resolution")
    original_version = games.get_game(m.game_id).version
    games.send(fork_id, "gm", pc.Resolve(announcement="a different story"))
    assert games.view(fork_id, "gm")["game"]["step"] == "resistance"
    assert games.get_game(m.game_id).version == original_version
    announcements = [
        e["data"]["announcement"]
        for e in games.visible_events(fork_id, m.powers["sov"])
        if e["type"] == "ResolutionPublished"
    ]
    assert announcements == ["a different story"]


def test_a_link_revoked_by_another_process_cannot_fork_from_a_stale_cache(store_settings):
    """Two service processes on one store: the GM's link replaced in one, the other's cached game still holds the old
    one. A fork records nothing on the source, so no save conflicts to reveal the stale cache: the fork's token is
    checked on fresh state, and refused (review of issue 24)."""
    from api.compose import build_games
    from application.service import Caller, hash_token
    from domain.errors import Unauthorized
    from domain.platform.commands import Fork

    one, two = build_games(store_settings), build_games(store_settings)
    try:
        gid, token, _ = one.create_game("Two processes")
        assert two.authenticate(gid, token) == "gm"  # the second process caches the game, with the old link
        one.reissue_link(gid, "gm", "gm")
        stale = Caller("gm", "gm", hash_token(token))
        with pytest.raises(Unauthorized):
            two.run(stale, gid, Fork("sandbox", version=1))
    finally:
        one.close()
        two.close()
