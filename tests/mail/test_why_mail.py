"""The mail that reports a result explains it (issue 29): each result published since the reader's previous
notification, in words (its dice with their roll numbers, each step with its value and rule id, the rules' texts
linked, the whole derivation linked), built from the reader's own events as the board's "Why?" is; for every
registered ruleset and the fake one. The no-leak test compares each mail with the reader's own derivations, and a
planted leak (the GM's events in place of the reader's) is caught."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

import pytest

import application.why as why
from application.mails import Framer
from application.service import Caller
from domain.platform import explain
from domain.platform import ruleset as registry
from domain.platform.commands import MakePost
from tests.contract.drivers import DRIVERS
from workers import runtime

EXPLAIN_LINK = re.compile(r"/games/[^/\s]+/results/(\S+)/explain")


def played_and_told(games, projector, name: str):
    """The contract's game of the ruleset, then a post of the first seat: every other seat is told
    of it, in the first mail after the game's results."""
    played = DRIVERS[name].play(games)
    seats = [v for v in played.viewers if v != "gm"]
    games.run(Caller.of(seats[0]), played.game_id, MakePost("table", "and now"))
    projector.catch_up()
    return played, str(games.get_game(played.game_id).id)


def framed(games, key: str, row: dict) -> str:
    frame = Framer(games, runtime.settings())
    item = {**row, "subject": "s", "body": "b", "address": ""}
    return frame(item).body


def own(games, game_id: str, ruleset, viewer: str, version: int | None = None) -> dict[str, dict]:
    """The viewer's derivations from their own events (those recorded up to ``version``: as a mail of then saw them)."""
    if version is None:
        return explain.derivations(ruleset, games.visible_events(game_id, viewer, limit=10**6))
    key = str(games.get_game(game_id).id)
    return explain.derivations(ruleset, games.reads.timeline(key, viewer, up_to_version=version, limit=10**6))


def leaked(body: str, mine: dict[str, dict], base: str, key: str) -> list[str]:
    """What a mail's "Why" shows that the reader's own derivations do not: a result they cannot explain, or one in
    other words than theirs (another viewer's dice or terms)."""
    out = []
    for result_id in EXPLAIN_LINK.findall(body):
        rid = unquote(result_id)
        if rid not in mine:
            out.append(f"{rid}: not a result the reader may explain")
        elif "\n".join(why.block(mine[rid], base, key)) not in body:
            out.append(f"{rid}: not as the reader's own events show it")
    return out


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_a_result_mail_explains_each_result_in_words_with_its_rule_ids_and_shows_nothing_the_reader_may_not(
    app, games, projector, name
):
    ruleset = registry.get(name)
    played, key = played_and_told(games, projector, name)
    base = str(runtime.settings().base_url)
    gm = own(games, played.game_id, ruleset, "gm")
    explained = 0
    for row in projector.outbox(key):
        body = framed(games, key, row)
        mine = own(games, played.game_id, ruleset, row["recipient"], row["version"])
        assert leaked(body, mine, base, key) == [], (name, row["recipient"], row["kind"])
        for hidden in set(gm) - set(mine):
            assert f"/results/{quote(hidden, safe='')}/explain" not in body
        for result_id in EXPLAIN_LINK.findall(body):
            d = mine[unquote(result_id)]
            assert all(f"({s['rule']})" in body for s in d["steps"])  # each step names its rule
            explained += 1
            for rule in {s["rule"] for s in d["steps"]} & why.rule_ids(name):
                assert f"{base}/help/{name}/rules#{rule}" in body  # linked to its text
    assert explained > 0, f"{name}: no mail explained a result"
    own_results = [
        rid
        for row in projector.outbox(key)
        for rid in EXPLAIN_LINK.findall(framed(games, key, row))
        if not rid.startswith("post")
    ]
    assert own_results, f"{name}: no mail explained a result of the ruleset's own"


def test_the_mail_check_catches_a_why_built_from_the_gms_events(app, games, projector, monkeypatch):
    """A planted leak: the "Why" built from the GM's timeline rather than the reader's. In Powers, a private
    action's dice are its owner's and the GM's (P.4): some mail to another seat must fail the check."""
    ruleset = registry.get("powers")
    played, key = played_and_told(games, projector, "powers")
    base = str(runtime.settings().base_url)
    real = why.results_since
    monkeypatch.setattr(why, "results_since", lambda reads, rs, k, seat, version: real(reads, rs, k, "gm", version))
    caught = 0
    for row in projector.outbox(key):
        mine = own(games, played.game_id, ruleset, row["recipient"], row["version"])
        caught += bool(leaked(framed(games, key, row), mine, base, key))
    assert caught > 0


def test_a_result_mail_is_worded_in_its_readers_language(app, games, projector):
    from domain.platform.commands import SetLanguage

    played = DRIVERS["covenants"].play(games)
    seats = [v for v in played.viewers if v != "gm"]
    games.run(Caller.of(seats[1]), played.game_id, SetLanguage(seats[1], "de"))
    games.run(Caller.of(seats[0]), played.game_id, MakePost("table", "hello"))
    projector.catch_up()
    key = str(games.get_game(played.game_id).id)
    bodies = [framed(games, key, r) for r in projector.outbox(key) if r["recipient"] == seats[1]]
    german = [b for b in bodies if "Warum: wie jedes Ergebnis zustande kam" in b]
    assert german and all("Why: how each result came about" not in b for b in bodies)
    assert any("Wurfnummer" in b for b in german)


def test_a_reck_3_the_mail_after_a_yearly_reckoning_explains_it_once(app, games, projector):
    """The first mail a covenant gets after the Yearly Reckoning (a post, here: the covenant game mails no phase)
    explains it (A-RECK-3..5, A-ORDER-2), its rules linked to their texts; the next mail does not again."""
    from tests.covenants.play import Dice, fixed_three, skip_season

    t = fixed_three(Dice(), games=games)
    for _ in range(4):
        skip_season(t)
    base = str(runtime.settings().base_url)
    key = str(games.get_game(t.game_id).id)
    bodies = []
    for text in ("a good year", "and the next"):
        games.run(Caller.of("ann"), t.game_id, MakePost("table", text))
        projector.catch_up()
        [row] = [r for r in projector.outbox(key) if r["recipient"] == "cy" and r["kind"] == "post"][-1:]
        bodies.append(framed(games, key, row))
    first, second = bodies
    assert "Why the Yearly Reckoning of year 1:" in first
    assert "  - cy: 1 point per 2 gold, rounded down: " in first and "(A-RECK-3)" in first
    assert f"{base}/help/covenants/rules#A-RECK-3" in first and f"{base}/help/covenants/rules#A-ORDER-2" in first
    assert f"/results/{quote('reckoning:1', safe='')}/explain" in first
    assert "Yearly Reckoning" not in second  # told once, in the first mail after it
