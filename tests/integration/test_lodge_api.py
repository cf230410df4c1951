"""The Lodge through the platform's JSON API with no route of its own (issue 15): its typed commands reach
the game through ``POST /games/{id}/commands``; three turns end with Clean-up scoring and the game end, and a
Mage's view through the API hides another Mage's face-down Spell (L.4)."""

from __future__ import annotations

MAGES = ("ann", "bob")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_three_lodge_turns_with_cleanup_scoring_through_the_api(api):
    r = api.post("/games", json={"ruleset": "lodge", "name": "Lodge"})
    assert r.status_code == 201, r.text
    gid, host = r.json()["game_id"], r.json()["gm_token"]

    def send(token: str, command: str, **args) -> dict:
        r = api.post(f"/games/{gid}/commands", headers=bearer(token), json={"command": command, "args": args})
        assert r.status_code == 200, r.text
        return r.json()

    send(host, "AddMage", mage_id="ann", name="Ann", colour="red")
    send(host, "AddMage", mage_id="bob", name="Bob", colour="blue")
    send(host, "BeginGame")
    ann, bob = (api.post(f"/games/{gid}/seats/{m}/token", headers=bearer(host)).json()["token"] for m in ("ann", "bob"))
    scored = []
    for turn in (1, 2, 3):
        send(ann, "PrepareSpells", mage_id="ann", cards={"QUICK": "unravel", "III": "oblivion"})
        send(host, "AdvancePhase", expected_phase="prepare")
        receipt = send(ann, "CastSpell", mage_id="ann", slot="QUICK", target="observatory")
        assert receipt["events"] == ["SpellRevealed", "PhraseResolved", "EffectResolved"]
        send(bob, "PhysicalAction", mage_id="bob", action="walk", moves=["library" if turn % 2 else "hall"])
        send(host, "AdvancePhase", expected_phase="actions")
        send(host, "AdvancePhase", expected_phase="black-rose")
        view = api.get(f"/games/{gid}/view", headers=bearer(bob)).json()
        scored.append(view["mages"]["ann"]["power_points"])
        assert view["mages"]["ann"]["slots"]["III"] == {"card": None, "face": "down", "casts": 0}
    assert scored == [4, 4 + 5, 4 + 5 + 4]  # the Observatory's banners: side A [3,1,1], side B [4,2,1]
    assert view["game"]["phase"] == "ended" and view["ended"] == {"ann": 13, "bob": 0, "black-rose": 0}
    mine = api.get(f"/games/{gid}/view", headers=bearer(ann)).json()
    assert mine["mages"]["ann"]["slots"]["III"]["card"] == "oblivion"
    r = api.post(f"/games/{gid}/commands", headers=bearer(bob), json={"command": "Pass", "args": {"mage_id": "ann"}})
    assert r.status_code == 403, r.text  # a Mage acts only for themselves


def test_a_walk_without_its_room_is_a_prompt_answered_through_the_api(api):
    """L.3 through ``POST /games/{id}/commands``: the Walk waits for its Room, the chooser's view lists the
    options, an illegal answer is refused naming its rule (L-MOVE-1) and recording nothing, a legal one moves."""
    r = api.post("/games", json={"ruleset": "lodge", "name": "Lodge"})
    gid, host = r.json()["game_id"], r.json()["gm_token"]

    def send(token: str, command: str, **args):
        return api.post(f"/games/{gid}/commands", headers=bearer(token), json={"command": command, "args": args})

    for mage, colour in (("ann", "red"), ("bob", "blue")):
        assert send(host, "AddMage", mage_id=mage, name=mage.title(), colour=colour).status_code == 200
    send(host, "BeginGame")
    send(host, "AdvancePhase", expected_phase="prepare")
    bob = api.post(f"/games/{gid}/seats/bob/token", headers=bearer(host)).json()["token"]
    r = send(bob, "PhysicalAction", mage_id="bob", action="walk")
    assert r.status_code == 200 and r.json()["events"] == ["ChoiceOffered", "WindowOpened"], r.text
    (prompt,) = api.get(f"/games/{gid}/view", headers=bearer(bob)).json()["prompts"]
    assert "library" in prompt["options"] and prompt["rule"] == "L-MOVE-1"
    r = send(bob, "AnswerChoice", mage_id="bob", choice_id=prompt["choice"], option="sanctum")
    assert r.status_code == 422 and "L-MOVE-1" in r.text, r.text
    r = send(bob, "AnswerChoice", mage_id="bob", choice_id=prompt["choice"], option="library")
    assert r.status_code == 200, r.text
    view = api.get(f"/games/{gid}/view", headers=bearer(bob)).json()
    assert view["prompts"] == [] and view["mages"]["bob"]["room"] == "library"


def test_an_evocation_commanded_without_steps_asks_each_step_and_its_attack_through_the_api(api):
    """L-EVO-1 / L-EVO-2 through ``POST /games/{id}/commands``: a ``CommandEvocation`` naming neither steps nor an
    attack asks the first step (or ``stop``), then whom to attack among the foes in its Room (or ``none``): the
    controller is refused (L-IMM-2) recording nothing, and a foe takes the Evocation's Strength in Damage."""
    r = api.post("/games", json={"ruleset": "lodge", "name": "Lodge"})
    gid, host = r.json()["game_id"], r.json()["gm_token"]

    def send(token: str, command: str, **args):
        return api.post(f"/games/{gid}/commands", headers=bearer(token), json={"command": command, "args": args})

    for mage, colour in (("ann", "red"), ("bob", "blue")):
        assert send(host, "AddMage", mage_id=mage, name=mage.title(), colour=colour).status_code == 200
    send(host, "BeginGame")
    ann = api.post(f"/games/{gid}/seats/ann/token", headers=bearer(host)).json()["token"]
    assert send(ann, "PrepareSpells", mage_id="ann", cards={"I": "call-beast"}).status_code == 200
    send(host, "AdvancePhase", expected_phase="prepare")
    assert send(ann, "CastSpell", mage_id="ann", slot="I").status_code == 200  # an Evocation in the Hall
    view = api.get(f"/games/{gid}/view", headers=bearer(ann)).json()
    (ev,) = view["evocations"]
    r = send(ann, "CommandEvocation", mage_id="ann", evocation=ev)
    assert r.status_code == 200 and r.json()["events"] == ["ChoiceOffered", "WindowOpened"], r.text
    (step,) = api.get(f"/games/{gid}/view", headers=bearer(ann)).json()["prompts"]
    assert step["kind"] == "evocation-move" and step["options"][-1] == "stop" and step["default"] == "stop"
    assert send(ann, "AnswerChoice", mage_id="ann", choice_id=step["choice"], option="stop").status_code == 200
    (attack,) = api.get(f"/games/{gid}/view", headers=bearer(ann)).json()["prompts"]
    assert attack["options"] == ["bob", "none"] and attack["rule"] == "L-EVO-2"
    r = send(ann, "AnswerChoice", mage_id="ann", choice_id=attack["choice"], option="ann")
    assert r.status_code == 422 and "L-IMM-2" in r.text, r.text
    assert send(ann, "AnswerChoice", mage_id="ann", choice_id=attack["choice"], option="bob").status_code == 200
    view = api.get(f"/games/{gid}/view", headers=bearer(ann)).json()
    strength = {"hound": 1, "wisp": 1, "golem": 3, "ghoul": 2, "raven": 1, "wraith": 2, "colossus": 4}
    strength |= {"sylph": 1, "shade": 1}
    assert (
        view["prompts"] == [] and view["mages"]["bob"]["damage"] == ["ann"] * strength[view["evocations"][ev]["card"]]
    )
