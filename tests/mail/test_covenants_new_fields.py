"""The covenant commands' later fields by mail (domain/covenants/mail.py): a Grimoire's spell, the gold and vis
kept at the Winter Reckoning, and the host seating a covenant with points already earned. Each is played through
the real intake; a refused line names its field or rule and the whole mail records nothing."""

from __future__ import annotations

from application.service import Caller, Games
from domain.covenants.commands import AddCovenant, Generate, Move
from domain.covenants.mail import parse_turn
from tests.covenants.play import Dice, Table, fixed_three, move_all, pass_create, pass_main, reckon, skip_season
from tests.domain.test_covenants_leftovers import bobs_three, card, hail_table
from tests.domain.test_covenants_rules_as_written import GRIMOIRE
from tests.mail.test_covenants_mail import _mail, _tokens


def _cards(t: Table, seat: str) -> dict[str, dict]:
    return {c["id"]: c for c in t.view("gm")["covenants"][seat]["cards"]}


def _version(t: Table) -> int:
    return t.games.get_game(t.game_id).version


def test_a_spell_1_a_grimoire_kept_by_mail_teaches_the_spell_named_at_the_lines_end():
    """A-SPELL-1 [000:437] Book (Grimoire): "Play a single Spell on this Book ... When a Mage, Book and Spell are
    grouped for the first time, place three counters on this Book": ``keep on <mage> spell <name>`` (the name runs
    to the line's end, quoted or not) keeps the Grimoire on Ann's mage teaching Sphere of Flame; a spell none of
    whose Arts the mage has is refused naming A-SPELL-1 and records nothing."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Cr", "Au", "Re", "Ig", "Pe"]})
    tokens, mage = _tokens(t), t.mage("ann")
    move_all(t, [5, 1, 2])
    d.push([4])
    book = t.run("ann", Generate("ann"))["card_id"]
    assert _cards(t, "ann")[book]["name"] == GRIMOIRE
    before = _version(t)
    refused = _mail(t, tokens["ann"], f'keep on {mage} spell "Distractions of Invisible Horrors"')
    assert not refused.accepted and "(A-SPELL-1)" in refused.body, refused.body
    assert _version(t) == before and _cards(t, "ann")[book]["pending"]
    reply = _mail(t, tokens["ann"], f"keep {book} on {mage} spell Sphere of Flame")
    assert reply.accepted, reply.body
    kept = _cards(t, "ann")[book]
    assert (kept["attached_to"], kept["spells"], kept["counters"]) == (mage, ["Sphere of Flame"], 3)


def test_a_spell_1_a_keep_line_naming_no_spell_is_refused_naming_the_spell():
    """The grammar: ``spell`` with no name after it is a line error that names the spell and the line's shape."""
    turn = parse_turn("keep on c1 spell", seat="ann")
    assert not turn.commands and len(turn.errors) == 1
    assert "spell" in turn.errors[0].message and "keep [<card>]" in turn.errors[0].message


def test_a_amb_9_gold_and_vis_are_kept_unconverted_at_the_winter_reckoning_by_mail():
    """A-AMB-9 "The player may choose to keep some unconverted; leftover provision is lost anyway.": by mail,
    ``support keep 2 gold, 1 vis`` at the Winter Reckoning: Ann scores 1 + 3 = 4 and holds them into the new year;
    keeping provision is refused naming A-AMB-9, a word for an amount is refused naming the amount, and neither
    records anything."""
    t = fixed_three(Dice())
    tokens = _tokens(t)
    for _ in range(3):
        skip_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run("ann", Move("ann", 10))
    assert t.phase() == "reckoning" and t.view("ann")["game"]["season"] == "winter" and t.turn()[0] == "ann"
    before = _version(t)
    refused = _mail(t, tokens["ann"], "support keep 1 provision")
    assert not refused.accepted and "(A-AMB-9)" in refused.body, refused.body
    bad = _mail(t, tokens["ann"], "support keep two gold")
    assert not bad.accepted and "the amount kept must be a whole number" in bad.body, bad.body
    assert _version(t) == before and t.turn()[0] == "ann"
    reply = _mail(t, tokens["ann"], "support keep 2 gold, 1 vis")
    assert reply.accepted, reply.body
    reckon(t)
    v = t.view("cy")["covenants"]
    assert (v["ann"]["score"], v["ann"]["gold"], v["ann"]["vis"]) == (4, 2, 1)
    assert (v["bob"]["score"], v["bob"]["gold"], v["bob"]["vis"]) == (6, 0, 0)


def _hosted(games: Games) -> Table:
    """A table in setup: the auditor seated Ann as host; the two other seats are hers to fill."""
    game_id, _, _ = games.create_game("Tribunal", ruleset="covenants", options={"players": 3})
    games.run(Caller.of("gm"), game_id, AddCovenant("ann", "Ann", "Fengheld", host=True))
    return Table(games, game_id, ["ann"])


def test_a_ex_11_the_host_seats_a_covenant_with_points_already_earned_by_mail():
    """A-EX-11 (H-14, the host's ruling): a covenant may be seated with the points it already earned. By mail the
    host writes ``seat <seat> <name> <covenant> [arts ...] [score <n>]`` (a quoted name may have spaces) and
    ``begin``; a score the game's target has reached is refused naming A-RECK-5, a score that is not a number
    naming the score, and neither records anything; a player who is not the host may not seat one."""
    t = _hosted(Games())
    tokens = _tokens(t)
    before = _version(t)
    refused = _mail(t, tokens["ann"], "seat bob Bob Crintera score 25")
    assert not refused.accepted and "(A-RECK-5)" in refused.body, refused.body
    bad = _mail(t, tokens["ann"], "seat bob Bob Crintera score many")
    assert not bad.accepted and "the score must be a whole number" in bad.body, bad.body
    assert _version(t) == before and list(t.view("gm")["covenants"]) == ["ann"]
    reply = _mail(t, tokens["ann"], 'seat bob "Bob of Ely" Crintera arts Pe, Im, Vi, Re, Mu score 3')
    assert reply.accepted, reply.body
    bob = t.view("gm")["covenants"]["bob"]
    assert (bob["name"], bob["covenant"], bob["score"]) == ("Bob of Ely", "Crintera", 3)
    bob_token = _tokens(Table(t.games, t.game_id, ["bob"]))["bob"]
    not_host = _mail(t, bob_token, "seat cy Cy Valnastium")
    assert not not_host.accepted and "only the host" in not_host.body, not_host.body
    reply = _mail(t, tokens["ann"], "seat cy Cy Valnastium\nbegin")
    assert reply.accepted, reply.body
    assert t.phase() == "move" and t.view("gm")["covenants"]["cy"]["score"] == 0


def test_a_amb_17_a_spell_of_several_targets_is_cast_on_each_target_named_by_mail():
    """A-AMB-17 ([000:574] "For each pawn of vis expended, up to a maximum of three, choose a target"): by mail the
    targets follow ``on`` comma-separated; Ann's Hail of 2 pawns reaches Bob's Villagers and Grogs (MR 0: strength
    2), 1 damage each. Naming one target twice is refused naming A-AMB-17 and records nothing."""
    t = hail_table()
    tokens = _tokens(t)
    _, villagers, grogs = bobs_three(t)
    before = _version(t)
    refused = _mail(t, tokens["ann"], f"cast Hail of Stones on {villagers}, {villagers} vis 2")
    assert not refused.accepted and "(A-AMB-17)" in refused.body, refused.body
    assert _version(t) == before
    reply = _mail(t, tokens["ann"], f"cast Hail of Stones on {villagers}, {grogs} vis 2")
    assert reply.accepted, reply.body
    assert [card(t, "bob", n)["damage"] for n in ("Villagers", "Grogs")] == [1, 1]
