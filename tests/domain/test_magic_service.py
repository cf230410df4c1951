"""Magic through the command path (who may send each command) and through the store: replaying a magic
game's events, and loading it from snapshots, reproduce its state."""

from __future__ import annotations

import pytest

from application.service import Caller, Games
from domain.errors import Forbidden, RuleViolation
from domain.powers import commands as pc
from domain.powers import magic as m
from tests.domain.helpers import seen, sheet_of
from tests.domain.test_conformance_magic import cast, fill, mage_game, resolve_month, ritual_month
from tests.helpers import add_power


def _service_game() -> tuple[Games, str, str, str]:
    games = Games()
    gid, _, _ = games.create_game("Magic", "GM")
    wiz = add_power(games, gid, "gm", "Wizard", "champion", "wizard")[0]
    cir = add_power(games, gid, "gm", "Circle", "conspiracy", "circle")[0]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return games, gid, wiz, cir


def test_the_gm_grants_mana_teaches_spells_and_sets_conduits_and_a_player_casts_its_own():
    games, gid, wiz, cir = _service_game()
    gm = Caller.of("gm")
    assert games.run(gm, gid, m.GrantMana(wiz, "F", 3)).result == {"mana": {"F": 3}}
    games.run(gm, gid, m.GrantMana(wiz, "W", 1))
    games.run(gm, gid, m.TeachSpell(wiz, "fireball"))
    conduit = games.run(gm, gid, m.SetConduit(wiz, "the wizard", "0,0")).result["conduit_id"]
    action = games.send(gid, wiz, pc.SubmitAction(wiz, title="Burn the granary", roll=False)).result["action_id"]
    for sender, command in (
        (Caller.of(wiz), m.GrantMana(wiz, "F", 1)),
        (Caller.of(wiz), m.TeachSpell(wiz, "aarons-ritual")),
        (Caller.of(cir), m.CastSpell(wiz, "fireball", conduit, action_id=action)),
    ):
        with pytest.raises(Forbidden):
            games.run(sender, gid, command)
    with pytest.raises(RuleViolation) as refused:
        games.run(gm, gid, m.GrantMana(wiz, "F", 1))
    assert refused.value.rule == "P-MAG-1"
    out = games.run(Caller.of(wiz), gid, m.CastSpell(wiz, "fireball", conduit, action_id=action, pay=list("FFFW")))
    assert (out.result["rank"], out.result["elements"], out.result["mana"]) == (2, ["F"], {})
    mine, theirs = games.view(gid, wiz)["magic"]["powers"], games.view(gid, cir)["magic"]["powers"]
    assert mine[wiz]["casts_this_month"][0]["spell_id"] == "fireball"
    assert theirs[wiz] == {"perks": {}}
    assert not [e for e in games.visible_events(gid, cir) if e["type"] in ("SpellCast", "SpellLearned", "ManaGranted")]


def _magic_history():
    g = mage_game(("z", "champion", "wizard"), assets=[("z-lore", "z", "lore", "skill", 4)])
    g.define_spell("ward", "Ward", "ritual", "1E")
    g.grant_magic_perk("w", "vessel_heart")
    g.grant_magic_perk("w", "perfected_spell", spells=["fireball"])
    g.teach_spell("w", "ward")
    g.set_conduit("w", "tower", "the tower", "1,0", "other", tower=True)
    fill(g, "w", F=3, E=3)
    cast(g, "fireball", "FF", cast_id="k1")
    ritual_month(g, "ward", [6, 6, 1, 1], action_id="RW")
    g.remove_conduit("w", "tower")
    resolve_month(g)
    return g


def test_replaying_a_magic_games_events_reproduces_its_state():
    g = _magic_history()
    assert seen(g)["magic"]["inflation"] == {"ward": 1} and sheet_of(g, "w")["mana"] == {"F": 1, "E": 1}
    events = list(g._pending_events)
    replayed = None
    for e in events:
        replayed = e.mutate(replayed)
    assert replayed is not None and replayed.state == g.state


def test_stored_magic_events_and_snapshots_reproduce_the_state_at_every_version():
    g = _magic_history()
    events = list(g._pending_events)
    app = Games(snapshot_interval=4)
    app.save(g)
    assert app.repository.get(g.id).state == g.state
    for version in range(1, g.version + 1, 3):
        want = None
        for e in events[:version]:
            want = e.mutate(want)
        assert want is not None and app.repository.get(g.id, version=version).state == want.state
