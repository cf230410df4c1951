"""House-rule versions of the real rulesets, installed only in tests (issue 29 item 3: a rules change replayed). Each
is the registered ruleset with one rule decided otherwise (the ruleset's own ``VersionRules``), cited by rule id; a
game that adopts one decides its later results by it too:

- ``powers-house``: P-DICE-4 made harder: an action needs one success more than its difficulty, and its excess
  counts from there;
- ``covenants-house``: A-RECK-3 made kinder: a Yearly Reckoning gives a point per 3 provision, not 4;
- ``lodge-house``: L-SCORE-1 made winner-takes-all: in a rebuilt Room only the most cubes score (R47); the second
  highest number and the rest gain nothing (R48, R49 struck).

``harder`` and ``kinder`` say each house rule again on its own, for the tests to check the versions against.
``installed(...)`` installs them beside the registered versions for a test and removes them after."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import replace

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from domain.covenants import redecide as covenant_replay
from domain.lodge import redecide as lodge_replay
from domain.lodge.scoring import score_room
from domain.platform import ruleset as registry
from domain.powers import redecide as powers_replay


def harder(net: int, difficulty: int) -> tuple[bool, int]:
    """P-DICE-4, house rule: success needs net successes above the difficulty; the excess counts from one above."""
    return net >= difficulty + 1, max(0, net - difficulty - 1)


def kinder(provision: int, gold: int, vis: int, *, curse6: bool = False) -> int:
    """A-RECK-3, house rule: 1 point per 3 provision (not 4), per 2 gold, per pawn of vis (A-RECK-6: less 1)."""
    points = provision // 3 + gold // 2 + vis
    return max(0, points - 1) if curse6 else points


def majority_only(counts: dict[str, int], banner: Sequence[int], ranking: str = "dense") -> dict[str, int]:
    """L-SCORE-1, house rule: only the most cubes in a rebuilt Room score (R46, R47, R50 as printed); R48 and R49
    struck, the second highest number and the rest gain nothing."""
    pp = score_room(counts, banner, ranking)
    top = max(counts.values(), default=0)
    return {who: n for who, n in pp.items() if counts[who] == top}


POWERS_HOUSE = replace(
    registry.get("powers"),
    version="powers-house",
    redecide=powers_replay.VersionRules(margin=1),  # ``harder``, as data a derivation shows
    changes="an action needs one success more than its difficulty (P-DICE-4)",
)
COVENANTS_HOUSE = replace(
    registry.get("covenants"),
    version="covenants-house",
    redecide=covenant_replay.VersionRules(provision_per_point=3, rule_ids=("A-RECK-3",)),  # ``kinder``
    changes="a Yearly Reckoning gives a point per 3 provision (A-RECK-3)",
)
LODGE_HOUSE = replace(
    registry.get("lodge"),
    version="lodge-house",
    redecide=lodge_replay.VersionRules(majority_only),
    changes="only the most cubes in a rebuilt Room score (L-SCORE-1)",
)


@contextlib.contextmanager
def installed(*versions: registry.Ruleset) -> Iterator[None]:
    """These versions installed beside the registered ones for the while."""
    for v in versions:
        registry.register_version(v)
    try:
        yield
    finally:
        for v in versions:
            registry.unregister_version(v.name, v.version)
