"""Certamen (A-CERT-1..3, A-AMB-7): a challenge, each side's Art, sealed bids of vis, the resolution and a
forfeit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from domain import visibility as vis
from domain.covenants import rules, track
from domain.covenants.base import PUBLIC, CovenantEvent, bid_commitment
from domain.covenants.errors import RuleViolation
from domain.covenants.house import FORMS, TECHNIQUES
from domain.covenants.options import option
from domain.covenants.state import Bid, Challenge, CovenantState
from domain.errors import NotFound

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def challenge(game: CovenantGame, seat: str, mage_id: str, target_mage: str, challenge_id: str) -> None:
    game.require_turn(seat, "main")
    s = game.state
    mine, theirs = game.card(mage_id), game.card(target_mage)
    if mine.owner != seat or mine.kind != "mage" or theirs.kind != "mage" or theirs.owner in (None, seat):
        raise RuleViolation("a challenge is from your mage to an opponent's mage", rule="A-CERT-1")
    if not (mine.active and theirs.active):
        raise RuleViolation("both mages must be active", rule="A-CERT-1")
    engaged = {m for ch in s.challenges.values() for m in (ch["mage"], ch["target_mage"])}
    if mage_id in engaged or target_mage in engaged:
        raise RuleViolation("a mage may be in one challenge at a time", rule="A-CERT-1")
    if any(ch["challenger"] == seat and ch["cycle"] == s.cycle for ch in s.challenges.values()):
        raise RuleViolation("one challenge per player per Main Phase", rule="A-CERT-1")
    accomplices = {n for n, sp in game.house.spells.items() if sp.certamen == "add_rating"}
    if accomplices & {*mine.cast_this_season, *theirs.cast_this_season}:  # [000:610]
        raise RuleViolation(
            "a mage that cast The Subtle Accomplice takes no part in Certamen this season", rule="A-CERT-1"
        )
    rival = theirs.owner or ""
    game.refuse_out_of_play(rival, "target_mage")
    if any(ch["target"] == rival for ch in s.challenges.values()) or rival in _challenged_this_season(game):
        raise RuleViolation("a player's mages are challenged once a season", rule="A-CERT-1")
    last = s.powers[seat].last_challenged.get(rival)
    gap = option(s.options, "certamen_rechallenge_gap")  # A-AMB-7: 2, a whole season in between
    if last is not None and s.seasons_begun - last < gap:
        raise RuleViolation(
            f"challenge the same player again {gap} seasons after the last challenge (A-AMB-7)", rule="A-CERT-1"
        )
    game.trigger_event(
        game.ChallengeIssued,
        challenge_id=challenge_id,
        challenger=seat,
        mage=mage_id,
        target=rival,
        target_mage=target_mage,
        cycle=s.cycle,
        season=s.seasons_begun,
        actor=seat,
        audience=PUBLIC,
    )
    track.end_turn(game, seat, acted=True)


def _challenged_this_season(game: CovenantGame) -> set[str]:
    """The players one of whose mages was challenged this season (A-CERT-1)."""
    now = game.state.seasons_begun
    return {r for p in game.state.powers.values() for r, season in p.last_challenged.items() if season == now}


class ChallengeIssued(CovenantEvent):
    challenge_id: str
    challenger: str
    mage: str
    target: str
    target_mage: str
    cycle: int
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.challenges[self.challenge_id] = {
            "id": self.challenge_id,
            "challenger": self.challenger,
            "mage": self.mage,
            "target": self.target,
            "target_mage": self.target_mage,
            "cycle": self.cycle,
            "technique": None,
            "form": None,
            "bids": {},
            "sealed": {},
        }
        s.powers[self.challenger].last_challenged[self.target] = self.season


def _challenge(game: CovenantGame, challenge_id: str) -> Challenge:
    ch = game.state.challenges.get(challenge_id)
    if ch is None:
        raise NotFound(f"no challenge {challenge_id!r}", field="challenge_id")
    return ch


def resolver(game: CovenantGame, ch: Challenge) -> str:
    """A-AMB-7: "A challenge is resolved on the turn of the first of its two players in clockwise order from the
    starting player"."""
    s = game.state
    order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
    return min((ch["challenger"], ch["target"]), key=order.index)


def choose_art(game: CovenantGame, seat: str, challenge_id: str, art: str) -> None:
    """A-CERT-2: the challenger picks the Technique, the challenged player the Form."""
    ch = _challenge(game, challenge_id)
    allowed: tuple[str, ...]
    which: Literal["technique", "form"]
    if seat == ch["challenger"]:
        which, allowed = "technique", TECHNIQUES
    elif seat == ch["target"]:
        which, allowed = "form", FORMS
    else:
        raise RuleViolation("only the two players of a challenge choose its Arts", rule="A-CERT-2")
    if art not in allowed or ch[which] is not None:
        raise RuleViolation(f"choose a {which} once, one of {list(allowed)}", rule="A-CERT-2", field="art")
    game.trigger_event(
        game.CertamenArtChosen, challenge_id=challenge_id, which=which, art=art, actor=seat, audience=PUBLIC
    )


class CertamenArtChosen(CovenantEvent):
    challenge_id: str
    which: Literal["technique", "form"]
    art: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.challenges[self.challenge_id][self.which] = self.art


def seal_bid(game: CovenantGame, seat: str, challenge_id: str, vis_amount: int, nonce: str) -> None:
    """A-AMB-7: a sealed bid; only its hash is public until both are in."""
    ch = _challenge(game, challenge_id)
    if seat not in (ch["challenger"], ch["target"]):
        raise RuleViolation("only the two players of a challenge bid", rule="A-CERT-3")
    if seat in ch["sealed"]:
        raise RuleViolation("your bid is sealed already", rule="A-CERT-3")
    if not 0 <= vis_amount <= game.state.powers[seat].vis:
        raise RuleViolation(f"you hold {game.state.powers[seat].vis} vis", rule="A-CERT-3", field="vis")
    digest_ = bid_commitment(challenge_id, seat, vis_amount, nonce)
    game.trigger_event(
        game.CertamenBidSealed,
        challenge_id=challenge_id,
        seat=seat,
        vis=vis_amount,
        nonce=nonce,
        actor=seat,
        audience=vis.powers([seat]),
    )
    game.trigger_event(
        game.CertamenBidCommitted, challenge_id=challenge_id, seat=seat, commitment=digest_, actor=seat, audience=PUBLIC
    )


class CertamenBidSealed(CovenantEvent):
    challenge_id: str
    seat: str
    vis: int
    nonce: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.challenges[self.challenge_id]["bids"][self.seat] = {"vis": self.vis, "nonce": self.nonce}


class CertamenBidCommitted(CovenantEvent):
    challenge_id: str
    seat: str
    commitment: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.challenges[self.challenge_id]["sealed"][self.seat] = self.commitment


def resolve_certamen(game: CovenantGame, seat: str, challenge_id: str) -> dict[str, Any]:
    """A-CERT-2/-3: resolve a challenge in the Resolve Certamen phase, on the turn of the first of its two
    players clockwise (A-AMB-7)."""
    game.require_turn(seat, "certamen")
    ch = _challenge(game, challenge_id)
    if resolver(game, ch) != seat:
        raise RuleViolation(
            "a challenge is resolved on the turn of the first of its two players clockwise", rule="A-AMB-7"
        )
    a, b = game.state.cards.get(ch["mage"]), game.state.cards.get(ch["target_mage"])
    a_on, b_on = bool(a and a.active), bool(b and b.active)
    result: dict[str, Any]
    if not a_on and not b_on:
        result = {"winner": None, "cancelled": True}
    elif a_on != b_on:
        result = {"winner": ch["challenger"] if a_on else ch["target"], "by_default": True}
    else:
        if ch["technique"] is None or ch["form"] is None:
            raise RuleViolation("the challenger picks the Technique and the challenged the Form", rule="A-CERT-2")
        if len(ch["sealed"]) < 2:
            raise RuleViolation("both bids must be sealed before they are opened", rule="A-CERT-3")
        assert a is not None and b is not None
        paid = _bids_paid(game, ch)
        scores = {}
        for side, card in ((ch["challenger"], a), (ch["target"], b)):
            d = game.house.cards[card.name]
            girdle = "Enchanted Item: Girdle of Magical Finesse"
            bonus = sum(1 for x in game.state.cards.values() if x.attached_to == card.id and x.name == girdle)
            spells = [e for e in game.state.effects if e.get("challenge") == challenge_id and e["side"] == side]
            bonus += sum(e.get("bonus", 0) for e in spells)  # The Subtle Accomplice
            scores[side] = rules.certamen_score(
                d.certamen,
                game.mage_arts(card),
                ch["technique"],
                ch["form"],
                paid[side],
                bonus=bonus,
                distracted=any(e.get("halve") for e in spells),
            )
        top = max(scores.values())
        leaders = [k for k, v in scores.items() if v == top]
        result = {"winner": leaders[0] if len(leaders) == 1 else None, "scores": scores}
        if any(paid[side] != ch["bids"][side]["vis"] for side in paid):
            result["paid"] = paid
    result["winnings"] = _winnings(game, ch, result.get("winner"))
    bids = {k: v for k, v in ch["bids"].items()} if "scores" in result else {}
    game.trigger_event(
        game.CertamenResolved, challenge_id=challenge_id, result=result, bids=bids, actor=seat, audience=PUBLIC
    )
    if not any(resolver(game, c) == seat for c in game.state.challenges.values()):
        track.end_turn(game, seat, acted=True)
    return result


def _bids_paid(game: CovenantGame, ch: Challenge) -> dict[str, int]:
    """A-AMB-7 "the vis is spent whatever the result", and a covenant spends only the vis it holds: a bid sealed
    for more than the covenant holds when the bids are opened (it spent vis since, in a trade or a spell) counts
    and costs what it holds. The rules say nothing of it; this keeps every store of vis whole (a covenant in
    debt could support nothing at its Reckoning, and its silence there would be refused)."""
    return {side: min(bid["vis"], max(0, game.state.powers[side].vis)) for side, bid in ch["bids"].items()}


def _winnings(game: CovenantGame, ch: Challenge, winner: str | None) -> dict[str, Any]:
    if winner is None:
        return {}
    loser = ch["target"] if winner == ch["challenger"] else ch["challenger"]
    for kind in game.house.certamen.winnings:  # in the package's order of preference
        if kind == "tribute":
            return {"tribute": 1, "from": loser, "to": winner}
        if getattr(game.state.powers[loser], kind) > 0:
            return {kind: 1, "from": loser, "to": winner}
    return {}


class CertamenResolved(CovenantEvent):
    challenge_id: str
    result: dict[str, Any]  # the receipt: winner, scores, what was paid and won
    bids: dict[str, Bid]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        ch = s.challenges.pop(self.challenge_id)
        paid = self.result.get("paid") or {}  # what a bid beyond the covenant's vis cost (``_bids_paid``)
        for side, bid in self.bids.items():
            s.powers[side].vis -= paid.get(side, bid["vis"])  # A-AMB-7: spent whatever the result
        w = self.result.get("winnings") or {}
        if "tribute" in w:
            s.powers[w["from"]].tribute.append({"to": w["to"], "points": w["tribute"], "permanent": False})
        for kind in ("vis", "gold"):
            if kind in w:
                setattr(s.powers[w["from"]], kind, getattr(s.powers[w["from"]], kind) - w[kind])
                setattr(s.powers[w["to"]], kind, getattr(s.powers[w["to"]], kind) + w[kind])
        del ch


def forfeit(game: CovenantGame, seat: str, challenge_id: str) -> None:
    """A-CERT-2: the challenged covenant forfeits and pays the house rules' penalty."""
    ch = _challenge(game, challenge_id)
    if seat != ch["target"]:
        raise RuleViolation("only the challenged covenant may forfeit", rule="A-CERT-2")
    pen = game.house.certamen.forfeit_penalty
    p = game.state.powers[seat]
    if p.gold < pen.gold or p.vis < pen.vis:
        raise RuleViolation("you cannot pay the forfeit penalty", rule="A-CERT-2")
    who = resolver(game, ch)
    game.trigger_event(
        game.CertamenForfeited,
        challenge_id=challenge_id,
        seat=seat,
        gold=pen.gold,
        vis=pen.vis,
        actor=seat,
        audience=PUBLIC,
    )
    if (
        game.state.phase == "certamen"
        and not any(resolver(game, c) == who for c in game.state.challenges.values())
        and game.state.turn
        and game.state.turn[0] == who
    ):
        track.end_turn(game, who, acted=True)


class CertamenForfeited(CovenantEvent):
    challenge_id: str
    seat: str
    gold: int
    vis: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        ch = s.challenges.pop(self.challenge_id)
        s.powers[self.seat].gold -= self.gold
        s.powers[self.seat].vis -= self.vis
        s.powers[ch["challenger"]].gold += self.gold
        s.powers[ch["challenger"]].vis += self.vis
