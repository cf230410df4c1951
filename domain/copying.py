"""A deep copy of plain data (dataclasses, dicts, lists, tuples, strings, numbers): what ``copy.deepcopy`` gives
for it, shared references included, through a pickle round trip in a fraction of the time. The Lodge's effect
engine works on a copy of the state, so that a refused or suspended effect leaves the game as it was; copying it
with ``copy.deepcopy`` cost a Lodge command more than its rules did."""

from __future__ import annotations

import pickle
from typing import TypeVar

T = TypeVar("T")


def deepcopy(value: T) -> T:
    """A deep copy of ``value``, which holds plain data only (anything picklable copies as pickle copies it)."""
    return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))  # noqa: S301 - our own bytes, just made
