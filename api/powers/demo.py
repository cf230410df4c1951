"""A scripted Powers month, for newcomers: ``emissary demo``."""

from __future__ import annotations

from collections.abc import Callable

from api.powers.season_demo import play_demo_season
from application.service import Games
from domain.errors import DomainError
from domain.ids import GM
from domain.platform.verify import verify_export
from domain.powers import commands as pc

__all__ = ["play_demo", "play_demo_long", "play_demo_month", "play_demo_season"]

play_demo_long = play_demo_season  # the platform's ``emissary demo --long``


def play_demo_month(say: Callable[[str], None], games: Games | None = None) -> Games:
    """Play Planning > Resolution > Resistance > Battle with a GM and three powers; narrate it."""
    games = games or Games()  # in memory unless a test passes its own: nothing is written anywhere
    game_id, gm_token, _ = games.create_game("The Shadow over Moria", "Mira (GM)", "Europe/London")
    say(f"Created game {game_id}; the GM holds a secret token (never stored, only its hash).")
    wiz = games.send(game_id, GM, pc.AddPower("Gandalf", "champion", "wizard", "")).result["power_id"]
    rangers = games.send(game_id, GM, pc.AddPower("Rangers of the North", "conspiracy", "circle", ""))
    rangers = rangers.result["power_id"]
    gondor = games.send(game_id, GM, pc.AddPower("Gondor", "city", "sovereign", "")).result["power_id"]
    say("Powers: Gandalf (Wizard, 5 private actions), the Rangers (Circle, 4 private), Gondor (Sovereign, 4 public).")
    might = games.send(game_id, GM, pc.GrantAsset(wiz, "might", "skill", 3)).result["asset_id"]
    blade = games.send(game_id, GM, pc.GrantAsset(wiz, "Demonhunting blade", "item", 2, assured=True))
    blade = blade.result["asset_id"]
    nego = games.send(game_id, GM, pc.GrantAsset(rangers, "negotiation", "skill", 3)).result["asset_id"]
    guild = games.send(game_id, GM, pc.GrantAsset(rangers, "Dunedain Archive", "secret", 3)).result["asset_id"]
    vig = games.send(game_id, GM, pc.GrantAsset(gondor, "might", "skill", 4)).result["asset_id"]
    games.send(game_id, GM, pc.Advance())
    games.send(game_id, GM, pc.Advance())
    view = games.view(game_id, "gm")
    say(
        "Season 1, month 1: Planning. The month's dice seed is committed: "
        f"sha256 {view['game']['seed_commitment'][:16]}..."
    )

    r = games.send(
        game_id,
        wiz,
        pc.SubmitAction(
            wiz,
            title="Duel the Balrog's herald",
            skill="might",
            slot="private",
            targets=[gondor],
            resistible=True,
            difficulty=1,
            assets=[{"asset_id": might}, {"asset_id": blade, "mode": "assured"}],
            convert=1,
        ),
    )
    say(
        f"Gandalf submits a private, resistible duel. Server roll #{r.result['roll_no']}: {r.result['faces']} "
        f"+ 2 assured -> {r.result['successes']} successes, {r.result['consequences']} consequence(s). "
        f"Receipt digest {r.digest[:12]}..."
    )
    r = games.send(
        game_id,
        rangers,
        pc.SubmitAction(rangers, title="Win Elrond over", skill="negotiation", slot="private", roll=False),
    )
    talk = r.result["action_id"]
    games.send(game_id, GM, pc.SetDifficulty(talk, 4, sealed=True, tiers={"2": "a deal", "4": "full support"}))
    say("The Rangers propose a negotiation; the GM seals its difficulty by hash before any die is rolled (GM-2).")
    r = games.send(game_id, rangers, pc.RollAction(talk, assets=[{"asset_id": nego}, {"asset_id": guild}], convert=1))
    say(f"The Rangers roll {r.result['faces']}: {r.result['successes']} success(es), not knowing the difficulty.")
    for _ in range(4):
        games.send(game_id, gondor, pc.SubmitAction(gondor, slot="public", title="Edict", assets=[], convert=0))
    try:
        games.send(
            game_id, gondor, pc.SubmitAction(gondor, slot="public", title="Fifth public edict", assets=[], convert=0)
        )
    except DomainError as refused:  # the demo shows the refusal
        say(f"Gondor tries a 5th action and is refused: [{refused.rule}] {refused.message}")
    games.send(game_id, GM, pc.Advance())
    say("Planning closes: Gandalf's 4 unused actions and the Rangers' 3 become rank-2 schemes.")
    r = games.send(game_id, GM, pc.Resolve(announcement="Storm clouds gather over the Misty Mountains."))
    say(
        f"Resolution in rules order: {len(r.result['queue'])} actions; the sealed difficulty is opened "
        "and checked against its commitment."
    )
    seen = games.view(game_id, gondor)["may_resist"][0]
    say(
        f"Gondor is told only: {seen['power_name']} acts ('{seen['title']}'), pool size {seen['pool_size']} "
        "(no dice, no assured flags, no consequences: P-AMB-3)."
    )
    r = games.send(game_id, gondor, pc.DeclareReaction(gondor, seen["action_id"], [{"asset_id": vig}], convert=0))
    say(
        f"Gondor resists alone, with its own might (a reaction uses the action's skill, P-ASSET-3): "
        f"{r.result['faces']} -> {r.result['successes']} successes."
    )
    view = games.view(game_id, wiz)
    duel = next(a for a in view["my_actions"] if a["title"].startswith("Duel"))
    res = duel["result"]
    say(
        f"The window closes early (everyone acted). Gandalf: {res['successes']} - {res['resisted']} resisted = "
        f"net {res['net']} vs difficulty {res['difficulty']}: {'success' if res['success'] else 'failure'}."
    )
    ranger_view = games.view(game_id, rangers)
    talk_view = next(a for a in ranger_view["my_actions"] if a["action_id"] == talk)
    say(
        f"The Rangers learn the sealed difficulty was {talk_view['difficulty']}: "
        f"{'success' if talk_view['result']['success'] else 'failure'}."
    )
    games.send(game_id, GM, pc.Advance())
    mine = verify_export(games.visible_events(game_id, wiz))
    audit = verify_export(games.visible_events(game_id, "gm"))
    say(
        f"Battle passes; month 2 begins. Gandalf checks the {mine.rolls_verified} rolls he saw from their own keys "
        f"under the month's committed root; his export verifies: {mine.ok}. Month 1's seed goes to the GM alone, "
        f"whose export checks it against every roll key: {audit.ok}."
    )
    for viewer, label in ((gondor, "Gondor"), (rangers, "the Rangers")):
        n = len(games.visible_events(game_id, viewer))
        say(f"{label} may see {n} events; the GM sees {len(games.visible_events(game_id, 'gm'))}.")
    return games


play_demo = play_demo_month  # what ``emissary demo`` plays (api.rulesets): one month
