"""Dice arithmetic and the seeded roller (P-DICE-2..7), as properties."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.dice import (
    ROLLS_PER_COMMITMENT,
    RollLimit,
    SeededRoller,
    commitment,
    derive_faces,
    derive_permutation,
    faces_from_key,
    key_under_root,
    merkle_root,
    roll_key,
    roll_tree,
    seal_difficulty,
    verify_faces,
    verify_roll,
)
from domain.errors import RuleViolation
from domain.powers import rules
from tests.domain.helpers import SEED, game_in_planning, submit

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
faces = st.lists(st.integers(1, 6), max_size=12)


@given(seeds, st.integers(1, 10_000), st.integers(0, 40))
def test_derived_faces_are_d6_deterministic_and_verifiable(seed, roll_no, count):
    out = derive_faces(seed, roll_no, count)
    assert len(out) == count and all(1 <= f <= 6 for f in out)
    assert derive_faces(seed, roll_no, count) == out
    assert verify_faces(seed, roll_no, out)


@given(seeds, st.integers(1, 10_000))
def test_a_changed_face_fails_verification(seed, roll_no):
    out = derive_faces(seed, roll_no, 5)
    tampered = [out[0] % 6 + 1, *out[1:]]
    assert not verify_faces(seed, roll_no, tampered)


def test_faces_are_roughly_uniform():
    roller = SeededRoller("cd" * 32)
    counts = Counter(f for n in range(1, 2001) for f in roller.faces(n, 3))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(900 <= c <= 1100 for c in counts.values()), counts


@given(seeds, st.integers(1, 1000), st.integers(1, 8))
def test_tie_breaks_are_permutations(seed, roll_no, n):
    assert sorted(derive_permutation(seed, roll_no, n)) == list(range(n))


@given(seeds, st.integers(1, 5000), st.integers(0, ROLLS_PER_COMMITMENT - 1), st.integers(1, 12))
def test_p_4_each_roll_key_sits_under_the_month_root_and_gives_its_faces(seed, first_roll, offset, count):
    n = first_roll + offset
    tree = roll_tree(seed, first_roll)
    key, path = tree.proof(n)
    assert key == roll_key(seed, n) and len(path) == 12
    assert merkle_root(n, key, path, first_roll) == tree.root
    faces = derive_faces(seed, n, count)
    assert faces == faces_from_key(key, count) and verify_roll(tree.root, first_roll, n, key, path, faces) is None
    assert verify_faces(seed, n, faces)


@given(seeds, st.integers(1, 5000), st.integers(0, ROLLS_PER_COMMITMENT - 2))
def test_p_4_a_key_at_another_roll_number_or_under_another_root_is_refused(seed, first_roll, offset):
    n = first_roll + offset
    tree = roll_tree(seed, first_roll)
    key, path = tree.proof(n)
    assert not key_under_root(tree.root, first_roll, n + 1, key, path)  # moved to the next roll
    other_key, other_path = tree.proof(n + 1)
    assert not key_under_root(tree.root, first_roll, n, other_key, path)  # another roll's key
    assert not key_under_root(tree.root, first_roll, n, key, other_path)  # another roll's path
    assert not key_under_root(roll_tree(commitment(seed), first_roll).root, first_roll, n, key, path)
    faces = faces_from_key(key, 4)
    tampered = [faces[0] % 6 + 1, *faces[1:]]
    assert "but its key gives" in verify_roll(tree.root, first_roll, n, key, path, tampered)


def test_a_roll_outside_the_months_committed_block_names_the_limit():
    tree = roll_tree(SEED, 10)
    with pytest.raises(RollLimit, match=f"block of {ROLLS_PER_COMMITMENT} rolls"):
        tree.proof(10 + ROLLS_PER_COMMITMENT)
    with pytest.raises(RollLimit, match="rolls 10 to"):
        tree.proof(9)


def test_p_dice_2_a_month_refuses_a_roll_past_its_committed_block_and_records_nothing():
    g = game_in_planning(("wiz", "champion", "wizard"), assets=[("might", "wiz", "might", "skill", 2)])
    g.state.next_roll = g.state.seed_first_roll + ROLLS_PER_COMMITMENT  # as if the month had made 4096 rolls
    g.collect_events()
    with pytest.raises(RuleViolation) as err:
        submit(g, "wiz", "a1", [3, 5], assets=[{"asset_id": "might"}])
    assert err.value.field == "roll_no" and f"at most {ROLLS_PER_COMMITMENT} rolls" in err.value.message
    assert g.collect_events() == [] and "a1" not in g.state.actions


def test_a_months_roll_tree_is_built_once_per_process_and_then_reused():
    """Proofs for every roll of a month come from one tree built when the month opens (its cost is the
    benchmark's business, not a test's)."""
    roll_tree.cache_clear()
    first = roll_tree("ef" * 32, 1)
    again = roll_tree("ef" * 32, 1)
    assert again is first
    assert roll_tree.cache_info().misses == 1 and roll_tree.cache_info().hits == 1
    assert roll_tree("ef" * 32, 1 + ROLLS_PER_COMMITMENT) is not first  # the next month's block is its own tree


def test_commitments_bind_their_secret():
    assert commitment("ab" * 32) != commitment("ab" * 31 + "ac")
    assert seal_difficulty(3, "n" * 16) != seal_difficulty(4, "n" * 16)


@given(faces, st.integers(0, 12))
def test_p_dice_3_successes_are_fives_sixes_and_converted_threes_and_fours(fs, convert):
    idx = rules.choose_conversions([(f, "a") for f in fs], min(convert, sum(rules.is_convertible(f) for f in fs)), {})
    dice = [(f, i in idx) for i, f in enumerate(fs)]
    t = rules.tally([(len(fs), "normal", dice)])
    assert t.successes == sum(f >= 5 for f in fs) + len(idx)
    assert t.consequences == len(idx)
    assert t.pool_size == len(fs) == t.rolled


@given(faces, st.integers(1, 6))
def test_p_dice_6_assured_adds_its_rank_and_rolls_nothing(fs, rank):
    plain = rules.tally([(len(fs), "normal", [(f, False) for f in fs])])
    with_assured = rules.tally([(len(fs), "normal", [(f, False) for f in fs]), (rank, "assured", [])])
    assert with_assured.successes == plain.successes + rank
    assert with_assured.rolled == plain.rolled and with_assured.pool_size == plain.pool_size + rank


@given(faces)
def test_p_dice_7_critical_is_three_times_the_group_and_never_multiplies_consequences(fs):
    dice = [(f, rules.is_convertible(f)) for f in fs]
    normal = rules.tally([(len(fs), "normal", dice)])
    critical = rules.tally([(len(fs), "critical", dice)])
    assert critical.successes == 3 * normal.successes
    assert critical.consequences == normal.consequences


@given(st.integers(0, 30), st.lists(st.integers(0, 10), max_size=4), st.integers(0, 10))
def test_p_res_4_net_successes_never_go_below_zero(s, resist, difficulty):
    net = rules.net_successes(s, resist)
    assert net == max(0, s - sum(resist))
    ok, excess = rules.outcome(net, difficulty)
    assert ok == (net >= difficulty) and excess == max(0, net - difficulty)


def test_readme_states_the_sealed_difficulty_commitment_as_computed():
    """README promise (issue 9): the documented formula is the one the service uses (GM-2)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert '`sha256("difficulty:<value>:<nonce>")`' in readme
    assert seal_difficulty(3, "n0nce") == hashlib.sha256(b"difficulty:3:n0nce").hexdigest()


def test_a_months_tree_stays_cached_while_more_months_than_the_old_cache_held_are_open():
    """A process serving many games keeps each open month's tree: it used to keep 16, and the 17th game's
    rolls evicted the first's, which then rebuilt its whole tree (4,096 keys) for nearly every roll."""
    tree = roll_tree(SEED, 3)
    for i in range(17):
        roll_tree(f"{i:064x}", 3)
    assert roll_tree(SEED, 3) is tree
    key, path = tree.proof(3 + 100)
    assert merkle_root(3 + 100, key, path, 3) == tree.root
