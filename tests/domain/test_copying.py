"""``domain.copying.deepcopy``: what ``copy.deepcopy`` gives for plain data, by pickle."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from domain.copying import deepcopy


@dataclass
class Holder:
    name: str
    rooms: dict = field(default_factory=dict)
    log: list = field(default_factory=list)


def test_a_copy_equals_the_original_shares_nothing_with_it_and_keeps_shared_references_shared():
    shared = {"hp": [3, 4]}
    original = Holder("lodge", {"a": shared, "b": shared, "t": (1, "x")}, [shared, {"k": None, "f": 1.5}])
    copied = deepcopy(original)
    assert copied == original == copy.deepcopy(original)
    assert copied is not original and copied.rooms["a"] is not shared
    assert copied.rooms["a"] is copied.rooms["b"] is copied.log[0]  # one object, as it was
    copied.rooms["a"]["hp"].append(5)
    assert shared == {"hp": [3, 4]}  # the original is untouched
