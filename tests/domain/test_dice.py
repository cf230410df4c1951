"""Dice arithmetic and the seeded roller (P-DICE-2..7), as properties."""

from __future__ import annotations

import hashlib
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from domain.dice import (
    SeededRoller, commitment, derive_faces, derive_permutation, seal_difficulty, verify_faces,
)
from domain.powers import rules

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


def test_commitments_bind_their_secret():
    assert commitment("ab" * 32) != commitment("ab" * 31 + "ac")
    assert seal_difficulty(3, "n" * 16) != seal_difficulty(4, "n" * 16)


@given(faces, st.integers(0, 12))
def test_p_dice_3_successes_are_fives_sixes_and_converted_threes_and_fours(fs, convert):
    idx = rules.choose_conversions([(f, "a") for f in fs], min(convert, sum(rules.is_convertible(f) for f in fs)),
                                   {})
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
