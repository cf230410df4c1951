"""A deep copy of plain data (dataclasses, dicts, lists, tuples, strings, numbers): what ``copy.deepcopy`` gives
for it, shared references included, through a pickle round trip in a fraction of the time. The Lodge's effect
engine works on a copy of the state, and the battle and army rules return changed copies of armies: with
``copy.deepcopy`` the copies cost a Lodge command, or a battle round, more than their rules did."""

from __future__ import annotations

import pickle
from typing import TypeVar

T = TypeVar("T")


def deepcopy(value: T) -> T:
    """A deep copy of ``value``, which holds plain data only (anything picklable copies as pickle copies it)."""
    copied: T = pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))  # noqa: S301 - our own bytes, just made
    return copied
