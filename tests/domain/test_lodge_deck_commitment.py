"""L.4: the Evocation deck's order is drawn from a seed committed before any draw and revealed at the game's end, so
that every draw can be checked afterwards by anyone holding an export (``domain.lodge.verify``). A rollback reveals
the superseded seed and shuffles the deck it returns to afresh under a new commitment: nobody can know the cards to
come, not even from a seed opened before."""

from __future__ import annotations

import copy
from typing import Any

from domain.dice import commitment
from domain.lodge.deck import deck_order
from domain.lodge.ruleset import LODGE
from domain.platform.commands import RollBack
from tests.domain.lodge_helpers import HOUND_GHOUL, Table
from tests.domain.test_lodge_random_play import export, play


def verified(events: list[dict]):
    assert LODGE.verify is not None
    return LODGE.verify(events)


def sealed_deck(game: Any) -> tuple[str | None, list[str]]:
    """The deck's seed and order: the secret no view or export shows, so read from the game's state."""
    return game.state.deck_seed, list(game.state.deck)


def drew(events: list[dict]) -> bool:
    return any(ch.get("op") == "summon" for e in events for ch in e["data"].get("changes") or [])


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def test_l_4_every_ended_game_reveals_its_deck_seed_and_every_viewers_export_checks_each_draw():
    """Random legal play to the end (default options): the deck's commitment comes before its first draw, its seed
    is revealed before GameEnded, and the host's and every Mage's export verifies every draw it shows."""
    ended = [p for p in (play(seed) for seed in range(6)) if p.ended]
    assert len(ended) >= 3
    draws = 0
    for p in ended:
        for viewer, events in p.exports.items():
            order = kinds(events)
            assert order.index("DeckCommitted") < order.index("DeckRevealed") < order.index("GameEnded"), viewer
            assert "DeckShuffled" not in order  # sealed: the order and its seed are in nobody's export
            report = verified(events)
            assert report.ok, (p.seed, viewer, report.mismatches)
            assert report.decks_verified == 1 and report.decks_unrevealed == 0, (p.seed, viewer)
            draws += sum(ch.get("op") == "summon" for e in events for ch in e["data"].get("changes") or [])
    assert draws > 5  # the check walked real draws, not an empty deck's


def test_l_4_a_draw_or_a_seed_that_is_not_the_committed_decks_is_a_mismatch():
    """Tampering the export: a summoned card that was not the deck's top, or a revealed seed other than the one
    committed, is reported, naming the rule."""
    events = next(p for p in (play(seed) for seed in range(6)) if p.ended and drew(p.exports["gm"])).exports["gm"]
    summons = [
        (i, j)
        for i, e in enumerate(events)
        for j, ch in enumerate(e["data"].get("changes") or [])
        if ch.get("op") == "summon"
    ]
    assert summons
    i, j = summons[0]
    cards = next(e for e in events if e["type"] == "DeckCommitted")["data"]["data"]["cards"]
    drawn = events[i]["data"]["changes"][j]["card"]
    forged = copy.deepcopy(events)
    forged[i]["data"]["changes"][j]["card"] = next(c for c in cards if c != drawn)
    report = verified(forged)
    assert not report.ok and any("L.4" in m and "on top" in m for m in report.mismatches)

    forged = copy.deepcopy(events)
    reveal = next(e for e in forged if e["type"] == "DeckRevealed")
    reveal["data"]["data"]["seed"] = "00" * 32
    report = verified(forged)
    assert not report.ok and any("does not hash to its commitment" in m for m in report.mismatches)


def test_l_4_a_rollback_reveals_the_superseded_seed_and_shuffles_the_remaining_deck_afresh():
    """A rollback to the first phase (the deck still whole): the old seed is opened, the
    deck is shuffled again from fresh entropy in the cards' sorted order, under a new commitment, and the export
    verifies the opened deck while the new one waits for the game's end."""
    t = Table(seed=HOUND_GHOUL)
    try:
        fresh_entropy = iter(range(1, 100))
        t.games.entropy = lambda n: f"{next(fresh_entropy):02x}" * n
        game = t.games.get_game(t.id, for_update=False)
        first_seed, deck = sealed_deck(game)
        assert first_seed is not None
        began = next(e.originator_version for e in t.games.iter_events(t.id) if type(e).__name__ == "PhaseBegan")
        t.run("gm", RollBack(version=began, reason="a dispute"))
        after = t.games.get_game(t.id, for_update=False)
        events = export(t.games, t.id, "ann")
        assert kinds(events)[-3:] == ["GameRolledBack", "DeckRevealed", "DeckCommitted"]
        assert events[-2]["data"]["data"] == {"seed": first_seed, "commitment": commitment(first_seed)}
        fresh, now = sealed_deck(after)
        assert fresh is not None and fresh != first_seed
        assert events[-1]["data"]["data"] == {"cards": sorted(deck), "commitment": commitment(fresh)}
        assert now == deck_order(fresh, sorted(deck)) != deck
        report = verified(events)
        assert report.ok and report.decks_verified == 1 and report.decks_unrevealed == 1
    finally:
        t.close()
