"""How the covenant game's results came about (issue 29), from the events one viewer was shown
(``domain.platform.explain``): each die it rolled (``die:<roll number>``: the starting player, generation rolls...)
each Certamen (``certamen:<challenge id>``: the sealed bids opened against their commitments, each side's score
and the winner, A-CERT-3, A-AMB-7) and each Yearly Reckoning (``reckoning:<year>``: each covenant's surplus turned
into points, the tribute it pays and is paid, its new score, the winners or the next starting player, A-RECK-3..6,
A-AMB-8, A-AMB-9, A-ORDER-2), and each season's support (``support:<year>:<season>:<seat>``: what the covenant
held, what each card made and cost, and what it holds after, A-RECK-1, A-EVT-4, A-AMB-14)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.covenants.base import bid_commitment
from domain.covenants.redecide import in_force
from domain.platform.explain import DICE_RULE, OPS, Derivation, Events, InForce
from domain.platform.i18n import N_


def derive(events: Events) -> dict[str, dict[str, Any]]:
    """Every die and Certamen these events show their viewer, derived (``Ruleset.derive``)."""
    out: dict[str, dict[str, Any]] = {}
    committed: dict[tuple[str, str], tuple[str, int | None]] = {}
    versions = InForce()  # a Reckoning is derived by the rules version it was reckoned under (issue 29)
    for e in events:
        data, seq = e.get("data") or {}, e.get("seq")
        version = versions.read(e)
        if e.get("type") == "DieRolled":
            d = _die(e, data, seq)
            out[d.result_id] = d.as_dict()
        elif e.get("type") == "CertamenBidCommitted":
            committed[(data["challenge_id"], data["seat"])] = (data["commitment"], seq)
        elif e.get("type") == "CertamenResolved":
            scored = "scores" in (data.get("result") or {})
            d = _certamen(e, data, seq, committed) if scored else _by_default(e, data, seq)
            out[d.result_id] = d.as_dict()
        elif e.get("type") == "CertamenForfeited":
            d = _forfeit(e, data, seq)
            out[d.result_id] = d.as_dict()
        elif e.get("type") == "YearReckoned" and data.get("terms"):  # one recorded before issue 29 kept no terms
            d = _reckoning(e, data, seq, version)
            out[d.result_id] = d.as_dict()
        elif e.get("type") == "SupportAllocated" and data.get("terms"):  # nor a season's support before this
            d = _support(e, data, seq)
            out[d.result_id] = d.as_dict()
    return out


def _die(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None) -> Derivation:
    purpose, sides = str(data.get("purpose") or ""), data.get("sides")
    d = Derivation(f"die:{data['roll_no']}", "die", purpose, {"seq": seq, "type": e.get("type")})
    i = d.roll(N_("{purpose}: d{sides}"), data, seq, purpose=purpose, sides=sides)
    says = N_("the face of the d{sides}")
    total = d.step("total", DICE_RULE, says, "sum_faces", {"roll": i}, sum(data["faces"]), sides=sides)
    d.result = {"published": {"faces": sum(data["faces"])}, "steps": {"faces": total}}
    return d


def _certamen(
    e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None, committed: Mapping[tuple[str, str], Any]
) -> Derivation:
    """Each side's score as published, its vis bid opened against the commitment made before (A-AMB-7), and the
    winner: the one highest score, none on a tie (A-CERT-3)."""
    challenge = data["challenge_id"]
    result = data["result"]
    d = Derivation(f"certamen:{challenge}", "certamen", str(challenge), {"seq": seq, "type": e.get("type")})
    paid = result.get("paid") or {}
    scores = {}
    for side, score in sorted(result["scores"].items()):
        bid = (data.get("bids") or {}).get(side) or {}
        vis = int(paid.get(side, bid.get("vis", 0)))
        sealed = committed.get((challenge, side))
        says = N_("{side}: vis spent")
        if sealed is not None and "nonce" in bid:
            if bid_commitment(challenge, side, int(bid["vis"]), str(bid["nonce"])) == sealed[0]:
                says = N_("{side}: vis spent; its sealed bid, opened, matches its commitment")
            else:
                says = N_("{side}: vis spent; its sealed bid, opened, DOES NOT match its commitment")
        spent = d.given(f"{side}-vis", "A-AMB-7", says, vis, seq, side=side)
        shown = d.given(f"{side}-published", "A-CERT-3", N_("{side}: score, as published"), int(score), seq, side=side)
        says = N_("{side}: Certamen rating, Technique, Form and bonuses: the published score less the vis")
        rest = d.step(f"{side}-rating", "A-CERT-3", says, "minus", [shown, spent], int(score) - vis, side=side)
        scores[side] = d.step(
            f"{side}-score", "A-CERT-3", N_("{side}: score"), "sum", [rest, spent], int(score), side=side
        )
    says = N_("the one highest score wins; equal scores, no winner")
    winner = d.step("winner", "A-CERT-3", says, "unique_max", scores, result.get("winner"))
    d.result = {"published": {"winner": result.get("winner")}, "steps": {"winner": winner}}
    return d


def _by_default(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None) -> Derivation:
    """A challenge one of whose mages is no longer active: the other wins by default, or, neither active, it is
    cancelled (A-CERT-2); no bid is opened."""
    challenge, result = data["challenge_id"], data.get("result") or {}
    d = Derivation(f"certamen:{challenge}", "certamen", str(challenge), {"seq": seq, "type": e.get("type")})
    if result.get("cancelled"):
        says = N_("neither mage is active: the challenge is cancelled, without a winner")
    else:
        says = N_("one mage only is active: its side wins by default")
    winner = d.given("winner", "A-CERT-2", says, result.get("winner"), seq)
    d.result = {"published": {"winner": result.get("winner")}, "steps": {"winner": winner}}
    return d


def _forfeit(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None) -> Derivation:
    """The challenged covenant forfeits and pays the house rules' penalty (A-CERT-2)."""
    challenge, seat = data["challenge_id"], data["seat"]
    d = Derivation(f"certamen:{challenge}", "certamen", str(challenge), {"seq": seq, "type": e.get("type")})
    gold = d.given("gold", "A-CERT-2", N_("{side} forfeits: gold paid"), data.get("gold"), seq, side=seat)
    vis = d.given("vis", "A-CERT-2", N_("{side} forfeits: vis paid"), data.get("vis"), seq, side=seat)
    d.result = {"published": {"gold": data.get("gold"), "vis": data.get("vis")}, "steps": {"gold": gold, "vis": vis}}
    return d


# ---------------------------------------------------------------------- the Yearly Reckoning (A-RECK-3..6)


def _reckoning(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None, version: str | None) -> Derivation:
    """Each covenant's year from the terms the Reckoning recorded (``reckoning._terms``): its surplus turned into
    points, the tribute it pays, what it is paid, its new score; then the winners, or the next starting player. Its
    points as the rules version in force then has A-RECK-3 (``version``: None, the game's first)."""
    terms = data["terms"]
    d = Derivation(f"reckoning:{terms['year']}", "reckoning", str(terms["year"]), {"seq": seq, "type": e.get("type")})
    published: dict[str, Any] = {}
    refs: dict[str, str] = {}
    after: dict[str, str] = {}
    paid_to: dict[str, list[str]] = {}
    for seat, x in terms["seats"].items():
        points = _year_points(d, seat, x, bool(terms["consumes"]), seq, refs, version)
        after[seat] = _tribute(d, seat, x, points, seq, paid_to)
        published.update({f"points:{seat}": data["points"][seat], **_spent(data, seat)})
    scores = {}
    for seat in terms["seats"]:
        takes = paid_to.get(seat, [])
        says = N_("{side}: the new score, with the tribute paid to it")
        scores[seat] = (
            _recomputed(d, f"{seat}-score", "A-RECK-4", says, "sum", [after[seat], *takes], side=seat)
            if takes
            else after[seat]
        )
        refs[f"score:{seat}"] = scores[seat]
        published[f"score:{seat}"] = data["scores"][seat]
    target = d.given("target", "A-RECK-5", N_("the score that wins"), terms["target"], seq)
    args: dict[str, Any] = {"scores": scores, "target": target}
    if any(x.get("unconverted") is not None for x in terms["seats"].values()):
        says = N_("{side}: its surplus left unconverted, a pawn of vis worth 2 gold")
        args["tiebreak"] = {
            seat: d.given(f"{seat}-unconverted", "A-AMB-8", says, x["unconverted"], seq, side=seat)
            for seat, x in terms["seats"].items()
        }
    says = N_("the highest score wins once it reaches the target; a tie at the top shares the win")
    winners = _recomputed(d, "winners", "A-RECK-5", says, "top_reaching", args)
    if data["winners"]:
        says = N_("the game is won: no next starting player")
        starting = d.given("starting", "A-RECK-5", says, data.get("starting"), seq)
    else:
        says = N_("the lowest score starts the next year; among equals, the first clockwise after the starter")
        starting = _recomputed(
            d, "starting", "A-ORDER-2", says, "first_lowest", {"order": terms["order"], "scores": scores}
        )
    refs.update({"winners": winners, "starting": starting})
    published.update({"winners": list(data["winners"]), "starting": data.get("starting")})
    d.result = {"published": published, "steps": refs}
    return d


# ---------------------------------------------------------------------- a season's support (A-RECK-1)

RESOURCES = {"provision": N_("provision"), "gold": N_("gold"), "vis": N_("vis")}


def _support(e: Mapping[str, Any], data: Mapping[str, Any], seq: int | None) -> Derivation:
    """A covenant's season from the terms its support recorded (``reckoning.support_terms``): for provision, gold
    and vis, what it held, what each card made (less a Famine's share of the provision, A-EVT-4, A-AMB-14), what
    each card it kept cost, and what it holds after (A-RECK-1); a starved card's upkeep is not paid."""
    terms, seat = data["terms"], str(data["seat"])
    result_id = f"support:{terms['year']}:{terms['season']}:{seat}"
    title = f"{terms['season']} {terms['year']}"
    d = Derivation(result_id, "support", title, {"seq": seq, "type": e.get("type")})
    published: dict[str, Any] = {}
    refs: dict[str, str] = {}
    for r, word in RESOURCES.items():
        held = d.given(
            f"{r}-before", "A-RECK-1", N_("{what} held before the season"), terms["before"][r], seq, what=word
        )
        makes = _by_card(d, r, word, [c for c in terms["cards"] if c["made"][r]], "made", seq)
        made = _recomputed(d, f"{r}-made", "A-RECK-1", N_("{what} made this season"), "sum", makes, what=word)
        if r == "provision" and terms.get("famine"):
            lost = d.given(
                "famine", "A-AMB-14", N_("a Famine takes half the provision made, rounded down"), terms["famine"], seq
            )
            made = _recomputed(
                d, "provision-kept", "A-EVT-4", N_("provision made, less the Famine's"), "minus", [made, lost]
            )
        have = _recomputed(
            d, f"{r}-have", "A-RECK-1", N_("{what} held with this season's"), "sum", [held, made], what=word
        )
        costs = _by_card(d, r, word, [c for c in terms["cards"] if c["upkeep"][r] and not c["starved"]], "upkeep", seq)
        paid = _recomputed(d, f"{r}-paid", "A-RECK-1", N_("{what} paid in upkeep"), "sum", costs, what=word)
        after = _recomputed(
            d, f"{r}-after", "A-RECK-1", N_("{what} held after the upkeep"), "minus", [have, paid], what=word
        )
        refs.update({f"made:{r}": made, f"paid:{r}": paid, f"after:{r}": after})
        published.update({f"made:{r}": data["made"][r], f"paid:{r}": data["paid"][r], f"after:{r}": data["after"][r]})
    for c in terms["cards"]:
        if c["starved"]:
            d.given(
                f"starved-{c['card']}",
                "A-RECK-1",
                N_("{card} is starved: its upkeep is not paid, and it is discarded"),
                True,
                seq,
                card=c["name"],
            )
    d.result = {"published": published, "steps": refs}
    return d


CARD_TERMS = {"made": N_("{card} makes {what}"), "upkeep": N_("{card} costs {what} to keep")}


def _by_card(d: Derivation, r: str, word: str, cards: list[Mapping[str, Any]], term: str, seq: int | None) -> list[str]:
    """Each card's production or upkeep of one resource, as the support recorded it (A-RECK-1)."""
    says = CARD_TERMS[term]
    return [
        d.given(f"{r}-{term}-{c['card']}", "A-RECK-1", says, c[term][r], seq, card=c["name"], what=word) for c in cards
    ]


def _recomputed(d: Derivation, step_id: str, rule: str, says: str, op: str, args: Any, **params: Any) -> str:
    """A step whose value is its operation over the terms so far (``explain.OPS``)."""
    values = {s["id"]: s["value"] for s in d.steps}
    return d.step(step_id, rule, says, op, args, OPS[op](args, d.dice, values), **params)


def _spent(data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    spent = data["spent"][seat]
    return {f"gold spent:{seat}": spent["gold"], f"vis spent:{seat}": spent["vis"]}


def _year_points(
    d: Derivation,
    seat: str,
    x: Mapping[str, Any],
    consumes: bool,
    seq: int | None,
    refs: dict[str, str],
    version: str | None = None,
) -> str:
    """A covenant's points for the year (A-RECK-3, A-RECK-6), and the gold and vis the conversion spends (A-AMB-9)."""
    if x["out"]:
        says = N_("{side} is out of play (a Quaesitor Investigation): no points, nothing spent")
        none = d.given(f"{seat}-points", "A-EVT-4", says, 0, seq, side=seat)
        refs.update({f"points:{seat}": none, f"gold spent:{seat}": none, f"vis spent:{seat}": none})
        return none
    says = N_("{side}: provision, the Winter surplus")
    provision = d.given(f"{seat}-provision", "A-RECK-3", says, x["provision"], seq, side=seat)
    gold, vis = (_converted(d, seat, x, kind, seq) for kind in ("gold", "vis"))
    per = in_force(version).provision_per_point
    if per == 4:
        says = N_("{side}: 1 point per 4 provision, rounded down")
    else:  # a house version's A-RECK-3, adopted (issue 29)
        says = N_("{side}: 1 point per {per} provision, rounded down, as the rules version {version} has it")
    args = [provision, per]
    by_provision = _recomputed(
        d, f"{seat}-provision-points", "A-RECK-3", says, "floor_div", args, side=seat, per=per, version=version
    )
    says = N_("{side}: 1 point per 2 gold, rounded down")
    by_gold = _recomputed(d, f"{seat}-gold-points", "A-RECK-3", says, "floor_div", [gold, 2], side=seat)
    says = N_("{side}: the year's points, and 1 per pawn of vis")
    points_id = f"{seat}-raw" if x["curse6"] else f"{seat}-points"
    points = _recomputed(d, points_id, "A-RECK-3", says, "sum", [by_provision, by_gold, vis], side=seat)
    if x["curse6"]:
        says = N_("{side}: less 1 point for the Hedge Mage's curse 6")
        points = _recomputed(d, f"{seat}-points", "A-RECK-6", says, "minus_floor0", [points, 1], side=seat)
    if consumes:
        says = N_("{side}: the gold converted is spent, 2 a point")
        gold_spent = _recomputed(d, f"{seat}-gold-spent", "A-AMB-9", says, "times", [by_gold, 2], side=seat)
        says = N_("{side}: the vis converted is spent")
        vis_spent = _recomputed(d, f"{seat}-vis-spent", "A-AMB-9", says, "sum", [vis], side=seat)
    else:
        says = N_("{side}: the conversion spends nothing (the campaign keeps converted gold and vis)")
        gold_spent = vis_spent = d.given(f"{seat}-spent", "A-AMB-9", says, 0, seq, side=seat)
    refs.update({f"points:{seat}": points, f"gold spent:{seat}": gold_spent, f"vis spent:{seat}": vis_spent})
    return points


def _converted(d: Derivation, seat: str, x: Mapping[str, Any], kind: str, seq: int | None) -> str:
    """The gold or vis a covenant converts: its Winter surplus less what it keeps unconverted (A-AMB-9)."""
    says = N_("{side}: gold, the Winter surplus") if kind == "gold" else N_("{side}: vis, the Winter surplus")
    held = d.given(f"{seat}-{kind}", "A-RECK-3", says, x[kind], seq, side=seat)
    kept = int(x.get(f"kept_{kind}") or 0)
    if not kept:
        return held
    says = N_("{side}: gold kept unconverted") if kind == "gold" else N_("{side}: vis kept unconverted")
    keep = d.given(f"{seat}-kept-{kind}", "A-AMB-9", says, kept, seq, side=seat)
    says = N_("{side}: gold converted") if kind == "gold" else N_("{side}: vis converted")
    return _recomputed(d, f"{seat}-{kind}-converted", "A-AMB-9", says, "minus", [held, keep], side=seat)


def _tribute(
    d: Derivation, seat: str, x: Mapping[str, Any], points: str, seq: int | None, paid_to: dict[str, list[str]]
) -> str:
    """A covenant's score after the tribute it owes (A-RECK-4): each point off this year's points, then off the
    score; what it pays a covenant (not the lord) is added to that covenant's score (``paid_to``)."""
    before = d.given(
        f"{seat}-before", "A-RECK-4", N_("{side}: its score before the Reckoning"), x["score"], seq, side=seat
    )
    says = N_("{side}: its score and the year's points")
    gross = _recomputed(d, f"{seat}-gross", "A-RECK-4", says, "sum", [before, points], side=seat)
    if not x["tribute"]:
        return gross
    owed = []
    for k, t in enumerate(x["tribute"]):
        says = N_("{side}: tribute owed to the lord") if t["to"] is None else N_("{side}: tribute owed to {to}")
        owed.append(d.given(f"{seat}-tribute{k + 1}", "A-RECK-4", says, t["points"], seq, side=seat, to=t["to"]))
    total = _recomputed(d, f"{seat}-owed", "A-RECK-4", N_("{side}: tribute owed"), "sum", owed, side=seat)
    says = N_("{side}: tribute paid from this year's points")
    from_year = _recomputed(d, f"{seat}-from-year", "A-RECK-4", says, "min", [points, total], side=seat)
    left = _recomputed(
        d, f"{seat}-owed-left", "A-RECK-4", N_("{side}: tribute still owed"), "minus", [total, from_year], side=seat
    )
    says = N_("{side}: tribute paid from the score")
    from_score = _recomputed(d, f"{seat}-from-score", "A-RECK-4", says, "min", [before, left], side=seat)
    paid = _recomputed(
        d, f"{seat}-paid", "A-RECK-4", N_("{side}: tribute paid"), "sum", [from_year, from_score], side=seat
    )
    remaining = paid
    for k, t in enumerate(x["tribute"]):  # paid point by point, in the order owed; a covenant's share goes to it
        if t["to"] is None:
            says = N_("{side}: paid to the lord")
        else:
            says = N_("{side}: paid to {to}")
        take = _recomputed(
            d, f"{seat}-paid{k + 1}", "A-RECK-4", says, "min", [owed[k], remaining], side=seat, to=t["to"]
        )
        if t["to"] is not None:
            paid_to.setdefault(t["to"], []).append(take)
        says = N_("{side}: tribute paid, still to share out")
        remaining = _recomputed(d, f"{seat}-paid-left{k + 1}", "A-RECK-4", says, "minus", [remaining, take], side=seat)
    says = N_("{side}: its score less the tribute paid")
    return _recomputed(d, f"{seat}-after", "A-RECK-4", says, "minus", [gross, paid], side=seat)
