"""Server-side dice: every roll comes from its own secret key, committed before the month's first roll.

When a month opens the service draws a secret seed. Roll ``n`` of the month gets the key
``k_n = HMAC-SHA256(seed, "emissary-roll-key:n")``, and its faces are ``HMAC-SHA256(k_n,
"emissary-faces:block")`` turned into uniform faces by rejection sampling. The month's keys for
``ROLLS_PER_COMMITMENT`` roll numbers from the month's first roll are the leaves
``sha256("emissary-leaf:" || n || ":" || k_n)`` of a Merkle tree, and ``SeedCommitted`` publishes its
root (and ``sha256(seed)``, for the GM's audit) before any roll. Each roll event then carries, for
those who may see that roll only, its key and Merkle path: they check the faces come from the key
and the key sits at position ``n`` under the published root (``verify_roll``). Nobody, the GM
included, can pick a die, and nobody learns anything about a roll they were not shown: each key has
256 bits, so a sibling leaf hash gives nothing away. At the month's end the seed is revealed to the
GM only, who checks every key derives from it.

Months committed before this scheme (``SeedCommitted`` without a root) derived faces straight from
the seed (``derive_faces_legacy``); their events still replay and verify that way.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

ROLLS_PER_COMMITMENT = 4096
"""How many rolls one seed commitment covers (the leaves of its Merkle tree, a power of two).
A roll past them is refused (``RollLimit``): a month of Powers makes a few dozen rolls."""
_DEPTH = ROLLS_PER_COMMITMENT.bit_length() - 1


class RollLimit(ValueError):
    """A roll number outside the month's committed block of ``ROLLS_PER_COMMITMENT`` rolls."""


def commitment(secret: str) -> str:
    """The public hash that commits to a secret (a month seed, or ``value:nonce`` of a sealed difficulty)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def seal_difficulty(value: int, nonce: str) -> str:
    """Commitment to a secret GM difficulty, recorded before the roll it governs (GM-2)."""
    return commitment(f"difficulty:{value}:{nonce}")


# ---------------------------------------------------------------- per-roll keys and their Merkle tree


@lru_cache(maxsize=256)
def roll_key(seed: str, roll_no: int) -> str:
    """The secret key of roll ``roll_no``, derived from the month seed (hex). Cached: a roll's faces and its proof
    each ask for it."""
    return _roll_key_bytes(bytes.fromhex(seed), roll_no).hex()


def _roll_key_bytes(seed: bytes, roll_no: int) -> bytes:
    return hmac.digest(seed, f"emissary-roll-key:{roll_no}".encode(), "sha256")


def _leaf(roll_no: int, key: bytes) -> bytes:
    return hashlib.sha256(b"emissary-leaf:" + str(roll_no).encode() + b":" + key).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"emissary-node:" + left + right).digest()


def _position(first_roll: int, roll_no: int) -> int:
    pos = roll_no - first_roll
    if not 0 <= pos < ROLLS_PER_COMMITMENT:
        raise RollLimit(
            f"roll {roll_no} is outside this month's committed block of {ROLLS_PER_COMMITMENT} rolls "
            f"(rolls {first_roll} to {first_roll + ROLLS_PER_COMMITMENT - 1})"
        )
    return pos


_BLOCK = 64
"""Rolls per block: a tree keeps its levels from the block roots up only, and a proof recomputes the
leaves of its own block (64 keys, a fraction of a millisecond) instead of every tree holding all 8,191
nodes; so a process keeps the trees of a thousand months (about 10 KB each), where it kept 16 and, serving
more games than that, rebuilt a tree (4,096 keys) for nearly every roll."""


@lru_cache(maxsize=1024)
def _block(seed: str, first_roll: int, block: int) -> tuple[tuple[bytes, ...], ...]:
    """A block's levels, cached: a month's rolls are numbered in order, so its proofs hit one block 64 times
    in a row (about 8 KB a block)."""
    return tuple(tuple(level) for level in _block_levels(bytes.fromhex(seed), first_roll, block))


def _block_levels(key: bytes, first_roll: int, block: int) -> list[list[bytes]]:
    """The levels of block ``block``'s subtree: its ``_BLOCK`` leaves up to its root."""
    start = first_roll + block * _BLOCK
    digest, sha256 = hmac.digest, hashlib.sha256
    level = [
        sha256(b"emissary-leaf:%d:%b" % (n, digest(key, b"emissary-roll-key:%d" % n, "sha256"))).digest()
        for n in range(start, start + _BLOCK)
    ]
    levels = [level]
    while len(level) > 1:
        level = [sha256(b"emissary-node:" + level[i] + level[i + 1]).digest() for i in range(0, len(level), 2)]
        levels.append(level)
    return levels


@dataclass(frozen=True)
class RollTree:
    """The Merkle tree over one month's roll keys, kept from the block roots up: ``top[0]`` are the roots of
    the blocks of ``_BLOCK`` rolls, ``top[-1]`` the month's root."""

    seed: str
    first_roll: int
    top: tuple[tuple[bytes, ...], ...]

    @property
    def root(self) -> str:
        return self.top[-1][0].hex()

    def proof(self, roll_no: int) -> tuple[str, list[str]]:
        """Roll ``roll_no``'s key and Merkle path (sibling hashes from the leaf up), or ``RollLimit``."""
        pos = _position(self.first_roll, roll_no)
        block, inner = divmod(pos, _BLOCK)
        path = []
        for level in _block(self.seed, self.first_roll, block)[:-1]:
            path.append(level[inner ^ 1].hex())
            inner //= 2
        for level in self.top[:-1]:
            path.append(level[block ^ 1].hex())
            block //= 2
        return roll_key(self.seed, roll_no), path


@lru_cache(maxsize=1024)
def roll_tree(seed: str, first_roll: int) -> RollTree:
    """The month's tree, for rolls ``first_roll`` .. ``first_roll + ROLLS_PER_COMMITMENT - 1`` (cached per process:
    a month opening computes it once, in tens of milliseconds)."""
    key = bytes.fromhex(seed)
    level = tuple(_block_levels(key, first_roll, b)[-1][0] for b in range(ROLLS_PER_COMMITMENT // _BLOCK))
    top = [level]
    while len(level) > 1:
        level = tuple(_node(level[i], level[i + 1]) for i in range(0, len(level), 2))
        top.append(level)
    return RollTree(seed=seed, first_roll=first_roll, top=tuple(top))


def merkle_root(roll_no: int, key: str, path: Sequence[str], first_roll: int) -> str:
    """The root that ``key`` at roll ``roll_no`` and ``path`` lead to (``RollLimit`` if off the block)."""
    pos = _position(first_roll, roll_no)
    if len(path) != _DEPTH:
        raise RollLimit(f"a Merkle path has {_DEPTH} hashes, this one {len(path)}")
    h = _leaf(roll_no, bytes.fromhex(key))
    for sibling in path:
        s = bytes.fromhex(sibling)
        h = _node(h, s) if pos % 2 == 0 else _node(s, h)
        pos //= 2
    return h.hex()


def key_under_root(root: str, first_roll: int, roll_no: int, key: str, path: Sequence[str]) -> bool:
    """Whether ``key`` is roll ``roll_no``'s leaf under the committed ``root``."""
    try:
        return hmac.compare_digest(merkle_root(roll_no, key, path, first_roll), root)
    except (RollLimit, ValueError, TypeError):
        return False


# ---------------------------------------------------------------- faces


def _key_stream(key: str) -> Iterator[int]:
    k = bytes.fromhex(key)
    block = 0
    while True:
        yield from hmac.digest(k, f"emissary-faces:{block}".encode(), "sha256")
        block += 1


def _legacy_stream(seed: str, roll_no: int) -> Iterator[int]:
    key = bytes.fromhex(seed)
    block = 0
    while True:
        digest = hmac.new(key, f"emissary-roll:{roll_no}:{block}".encode(), hashlib.sha256).digest()
        yield from digest
        block += 1


def _uniform(stream: Iterator[int], sides: int) -> int:
    limit = 256 - (256 % sides)  # reject the top bytes so every face is equally likely
    for byte in stream:
        if byte < limit:
            return byte % sides + 1
    raise AssertionError("unreachable: the stream is infinite")


def _faces(stream: Iterator[int], count: int, sides: int) -> list[int]:
    return [_uniform(stream, sides) for _ in range(count)]


def _permutation(stream: Iterator[int], n: int) -> list[int]:
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _uniform(stream, i + 1) - 1
        order[i], order[j] = order[j], order[i]
    return order


def faces_from_key(key: str, count: int, sides: int = 6) -> list[int]:
    """The faces of a roll from its key: ``count`` dice of ``sides`` sides."""
    return _faces(_key_stream(key), count, sides)


def permutation_from_key(key: str, n: int) -> list[int]:
    """A uniformly random order of ``range(n)`` (a coin flip when n == 2) from a roll's key, by Fisher-Yates."""
    return _permutation(_key_stream(key), n)


def derive_faces(seed: str, roll_no: int, count: int, sides: int = 6) -> list[int]:
    """The faces of roll ``roll_no``: ``count`` dice of ``sides`` sides, from the month seed."""
    return faces_from_key(roll_key(seed, roll_no), count, sides)


def derive_permutation(seed: str, roll_no: int, n: int) -> list[int]:
    """Roll ``roll_no`` as an order of ``range(n)``, from the month seed."""
    return permutation_from_key(roll_key(seed, roll_no), n)


def derive_faces_legacy(seed: str, roll_no: int, count: int, sides: int = 6) -> list[int]:
    """Faces as months committed before per-roll keys derived them: straight from the seed."""
    return _faces(_legacy_stream(seed, roll_no), count, sides)


def derive_permutation_legacy(seed: str, roll_no: int, n: int) -> list[int]:
    """A tie-break as months committed before per-roll keys derived it."""
    return _permutation(_legacy_stream(seed, roll_no), n)


def verify_faces(seed: str, roll_no: int, faces: Sequence[int], sides: int = 6) -> bool:
    """Whether ``faces`` are exactly what roll ``roll_no`` of this seed gives."""
    return derive_faces(seed, roll_no, len(faces), sides) == list(faces)


def verify_roll(
    root: str, first_roll: int, roll_no: int, key: str, path: Sequence[str], faces: Sequence[int], sides: int = 6
) -> str | None:
    """Check one roll from what its viewers hold: ``None`` if it is sound, else what is wrong."""
    if not key_under_root(root, first_roll, roll_no, key, path):
        return f"roll {roll_no}'s key and path do not lead to the month's committed root"
    expected = faces_from_key(key, len(faces), sides)
    if expected != list(faces):
        return f"roll {roll_no} is {list(faces)}, but its key gives {expected}"
    return None


class Roller(Protocol):
    """Where a command's dice come from. The service derives them from the month seed; tests give them."""

    def faces(self, roll_no: int, count: int, sides: int = 6) -> list[int]: ...

    def permutation(self, roll_no: int, n: int) -> list[int]: ...


class SeededRoller:
    """The production roller: dice derived from the month's committed seed (``legacy`` for a month
    committed before per-roll keys)."""

    def __init__(self, seed: str, legacy: bool = False) -> None:
        self.seed = seed
        self.legacy = legacy

    def faces(self, roll_no: int, count: int, sides: int = 6) -> list[int]:
        if self.legacy:
            return derive_faces_legacy(self.seed, roll_no, count, sides)
        return derive_faces(self.seed, roll_no, count, sides)

    def permutation(self, roll_no: int, n: int) -> list[int]:
        if self.legacy:
            return derive_permutation_legacy(self.seed, roll_no, n)
        return derive_permutation(self.seed, roll_no, n)


class FixedRoller:
    """Dice given explicitly, in order: for worked examples and tests (never used by the service)."""

    def __init__(self, *rolls: Sequence[int], permutations: Sequence[Sequence[int]] = ()) -> None:
        self.rolls = [list(r) for r in rolls]
        self.permutations = [list(p) for p in permutations]

    def faces(self, roll_no: int, count: int, sides: int = 6) -> list[int]:
        if not self.rolls:
            raise AssertionError(f"FixedRoller has no roll left for roll {roll_no}")
        faces = self.rolls.pop(0)
        if len(faces) != count:
            raise AssertionError(f"roll {roll_no} needs {count} dice, the test gave {len(faces)}")
        if not all(1 <= f <= sides for f in faces):
            raise AssertionError(f"roll {roll_no} is of d{sides}, the test gave {faces}")
        return faces

    def permutation(self, roll_no: int, n: int) -> list[int]:
        if self.permutations:
            return self.permutations.pop(0)
        return list(range(n))
