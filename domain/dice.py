"""Server-side dice: every roll is derived from a committed secret seed and a gap-free roll number.

When a month opens the game publishes ``sha256(seed)``; each roll ``n`` of that month is
``HMAC-SHA256(seed, "emissary-roll:n:block")`` turned into uniform faces by rejection sampling.
Nobody, the GM included, can pick a roll: the seed is fixed before any roll and revealed when
the month closes, so anyone who saw a roll can recompute it (``verify_faces``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import Protocol


def commitment(secret: str) -> str:
    """The public hash that commits to a secret (a month seed, or ``value:nonce`` of a sealed difficulty)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def seal_difficulty(value: int, nonce: str) -> str:
    """Commitment to a secret GM difficulty, recorded before the roll it governs (GM-2)."""
    return commitment(f"difficulty:{value}:{nonce}")


def _stream(seed: str, roll_no: int) -> Iterator[int]:
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


def derive_faces(seed: str, roll_no: int, count: int, sides: int = 6) -> list[int]:
    """The faces of roll ``roll_no``: ``count`` dice of ``sides`` sides, from the month seed."""
    stream = _stream(seed, roll_no)
    return [_uniform(stream, sides) for _ in range(count)]


def derive_permutation(seed: str, roll_no: int, n: int) -> list[int]:
    """A uniformly random order of ``range(n)`` (a coin flip when n == 2), by Fisher-Yates."""
    stream = _stream(seed, roll_no)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _uniform(stream, i + 1) - 1
        order[i], order[j] = order[j], order[i]
    return order


def verify_faces(seed: str, roll_no: int, faces: Sequence[int], sides: int = 6) -> bool:
    """Whether ``faces`` are exactly what roll ``roll_no`` of this seed gives."""
    return derive_faces(seed, roll_no, len(faces), sides) == list(faces)


class Roller(Protocol):
    """Where a command's dice come from. The service derives them from the month seed; tests give them."""

    def faces(self, roll_no: int, count: int) -> list[int]: ...

    def permutation(self, roll_no: int, n: int) -> list[int]: ...


class SeededRoller:
    """The production roller: dice derived from the month's committed seed."""

    def __init__(self, seed: str) -> None:
        self.seed = seed

    def faces(self, roll_no: int, count: int) -> list[int]:
        return derive_faces(self.seed, roll_no, count)

    def permutation(self, roll_no: int, n: int) -> list[int]:
        return derive_permutation(self.seed, roll_no, n)


class FixedRoller:
    """Dice given explicitly, in order: for worked examples and tests (never used by the service)."""

    def __init__(self, *rolls: Sequence[int], permutations: Sequence[Sequence[int]] = ()) -> None:
        self.rolls = [list(r) for r in rolls]
        self.permutations = [list(p) for p in permutations]

    def faces(self, roll_no: int, count: int) -> list[int]:
        if not self.rolls:
            raise AssertionError(f"FixedRoller has no roll left for roll {roll_no}")
        faces = self.rolls.pop(0)
        if len(faces) != count:
            raise AssertionError(f"roll {roll_no} needs {count} dice, the test gave {len(faces)}")
        return faces

    def permutation(self, roll_no: int, n: int) -> list[int]:
        if self.permutations:
            return self.permutations.pop(0)
        return list(range(n))
