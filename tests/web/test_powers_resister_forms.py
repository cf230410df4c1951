"""A resister's consequences on the web, as an actor's (P-AMB-6): the GM offers their form on the console, the
resister accepts it on its board; and the GM hides assets of a pool from its resisters where the campaign option
shows them the assets (P-AMB-3, GM-19). Over real HTTP, through ``Games.run``; a refusal shows the API's error."""

from __future__ import annotations

import pytest

from api.app import create_app
from application.service import Caller
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.web.test_powers_feature_forms import Seat, errors


def _forms(html: str) -> set[str]:
    import re

    return set(re.findall(r'action="/play/[^/"]+/([a-z-]+)"', html))


@pytest.fixture
def duel(tmp_path):
    """Gandalf's resistible duel against the Balrog, resolved; the window open. The service's own dice."""
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Resister forms", options={"resister_sees_assets": "assets"})
    gandalf, _, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    balrog, balrog_token, _ = add_power(games, gid, "gm", "Balrog", "conspiracy", "circle")
    might = games.send(gid, "gm", pc.GrantAsset(gandalf, "might", "skill", 3)).result["asset_id"]
    b_might = games.send(gid, "gm", pc.GrantAsset(balrog, "might", "skill", 3)).result["asset_id"]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    act = games.run(
        Caller.of(gandalf),
        gid,
        pc.SubmitAction(
            gandalf, "Duel", skill="might", targets=[balrog], resistible=True, assets=[{"asset_id": might}]
        ),
    ).result["action_id"]
    seats = {"gm": Seat(app, gid, gm_token), "balrog": Seat(app, gid, balrog_token)}
    yield games, gid, act, might, b_might, balrog, seats
    close_app(app)


def test_p_amb_6_the_gm_offers_a_resisters_consequence_on_the_console_and_it_accepts_on_its_board(duel):
    games, gid, act, might, b_might, balrog, seats = duel
    assert "hide-from-resisters" in _forms(seats["gm"].page())  # before the Resolution, under the option
    html = seats["gm"].post("hide-from-resisters", action_id=act, asset_ids=might)
    assert not errors(html, "gm-catalogue"), errors(html, "gm-catalogue")
    hidden = [
        e.asset_ids
        for e in games.iter_events(gid)
        if type(e).__name__ == "AssetsHiddenFromResisters" and e.action_id == act
    ]
    assert hidden[-1:] == [[might]]  # the action's last ruling is the assets hidden from its resisters
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve())
    assert "hide-from-resisters" not in _forms(seats["gm"].page())
    rx = games.run(Caller.of(balrog), gid, pc.DeclareReaction(balrog, act, [{"asset_id": b_might}], 3)).result
    reaction = rx["reaction_id"]
    assert "propose-reaction-consequence" in _forms(seats["gm"].page())
    html = seats["gm"].post("propose-reaction-consequence", reaction_id="rx-none", text="Lost")
    assert errors(html, "gm-catalogue") == [("no reaction 'rx-none' this month", "")]
    effects = '[{"kind": "lose_actions", "count": 1}]'
    html = seats["gm"].post("propose-reaction-consequence", reaction_id=reaction, text="Burned", effects=effects)
    assert not errors(html, "gm-catalogue")
    page = seats["balrog"].page()
    assert "accept-reaction-consequence" in _forms(page) and "Burned" in page
    [offer] = games.view(gid, balrog)["my_reactions"][0]["consequence_offers"]
    html = seats["balrog"].post("accept-reaction-consequence", reaction_id=reaction, consequence_id=offer["id"])
    assert not errors(html, "reaction-consequences")
    assert games.view(gid, balrog)["me"]["quota"]["lost_next_month"] == 1
    html = seats["balrog"].post("accept-reaction-consequence", reaction_id=reaction, consequence_id=offer["id"])
    assert errors(html, "reaction-consequences") == [("this consequence is no longer open", "GM-3")]
