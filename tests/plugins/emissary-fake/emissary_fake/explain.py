"""How the table's results came about (issue 29): ``Ruleset.derive`` of the fake ruleset, so the contract suite's
derivation promises hold for a ruleset's own derive here too, not only for a post's dice."""

from __future__ import annotations

from domain.platform.explain import Derivation
from domain.platform.i18n import N_


def derive(events: list) -> dict:
    """Each post explained (``Ruleset.derive``, issue 29): its seat had joined before it posted (TABLE-1), from the
    seat's Joined and the Posted events the viewer was shown; ``table-post:<n>``, the table's n-th post."""
    out, joined, n = {}, {}, 0
    for e in events:
        data, seq = e.get("data") or {}, e.get("seq")
        if e.get("type") == "Joined":
            joined[data["seat_id"]] = seq
        elif e.get("type") == "Posted":
            n += 1
            d = Derivation(f"table-post:{n}", "post", f"post {n}", {"seq": seq, "type": "Posted"})
            poster = d.given("poster", "TABLE-1", N_("the seat that posted"), data["seat_id"], seq)
            seat = data["seat_id"] if data["seat_id"] in joined else None
            sat = d.given("joined", "TABLE-0", N_("a seat the GM seated"), seat, joined.get(data["seat_id"], seq))
            says = N_("it had joined before it posted")
            seated = d.step("seated", "TABLE-1", says, "equals", [poster, sat], seat == data["seat_id"])
            d.result = {
                "published": {"seat": data["seat_id"], "seated": True},
                "steps": {"seat": poster, "seated": seated},
            }
            out[d.result_id] = d.as_dict()
    return out
