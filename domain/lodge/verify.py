"""Verify a Lodge export: the platform's checks alone (domain.platform.verify).

The Lodge effect rules roll no dice, and a Lodge game commits no seed, so a post's ``[roll NdS]`` is refused
there: what an export of it can prove is its sequence (nothing missing or reordered) and, in the host's,
its versions. Its one secret draw, the Evocation deck's order (L.4), is sealed from everyone, the host
included, and drawn from no committed seed: the report says it is not checked.
"""

from __future__ import annotations

from domain.platform.verify import Verifier

VERIFY_LODGE = Verifier(
    ruleset="lodge",
    not_checked=("the Evocation deck's order (L.4): it is sealed from everyone and drawn from no committed seed",),
)
"""Lodge's ``Ruleset.verify``: the platform's checks, and what it cannot check said plainly."""
