"""The end of a season and the Yearly Reckoning (A-RECK-1..6): support, upkeep and starving, the season's end,
and the year's scores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.covenants import cards, rules, track
from domain.covenants.base import BANDITS_MIGHT, PLAGUE_COUNTERS, PUBLIC, CovenantEvent, _expire
from domain.covenants.errors import RuleViolation
from domain.covenants.options import option
from domain.covenants.redecide import version_rules
from domain.covenants.state import Card, CovenantState
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def support(
    game: CovenantGame, seat: str, starve: list[str], *, seed: str, keep: dict[str, int] | None = None
) -> dict[str, Any]:
    """A-RECK-1: tally this season's production and pay the upkeep of every card not starved; in Winter, keep
    some gold and vis out of the Yearly Reckoning's conversion (A-AMB-9)."""
    game.require_turn(seat, "reckoning")
    s = game.state
    ids = {c.id for c in game.covenant_cards(seat)}
    bad = [c for c in starve if c not in ids]
    if bad:
        raise RuleViolation(f"{bad} are not your cards", rule="A-RECK-1", field="starve")
    before = {"provision": s.powers[seat].provision, "gold": s.powers[seat].gold, "vis": s.powers[seat].vis}
    made, need, have = tally(game, seat, starve)
    p = s.powers[seat]
    short = [k for k in need if need[k] > have[k]]
    if short:
        raise RuleViolation(
            f"you cannot support every card: short of {', '.join(short)}; starve some (they are discarded)",
            rule="A-RECK-1",
            field="starve",
        )
    after = {k: have[k] - need[k] for k in have}
    keep = dict(keep or {})
    if keep:  # A-AMB-9 "The player may choose to keep some unconverted; leftover provision is lost anyway."
        if game.season_name != "winter":
            raise RuleViolation(
                "gold and vis are kept unconverted at the Winter Reckoning", rule="A-AMB-9", field="keep"
            )
        held = {"gold": after["gold"], "vis": after["vis"]}
        if set(keep) - set(held) or any(type(n) is not int or not 0 <= n <= held[k] for k, n in keep.items()):
            raise RuleViolation(
                f"keep up to the {after['gold']} gold and {after['vis']} vis you will hold",
                rule="A-AMB-9",
                field="keep",
            )
    game.trigger_event(
        game.SupportAllocated,
        seat=seat,
        starved=list(starve),
        made=made,
        paid=need,
        after=after,
        actor=seat,
        audience=PUBLIC,
        keep=keep,
        terms=support_terms(game, seat, starve, before),
    )
    if p.tax_owed:  # A-RECK-4 [000:667] "If the tax cannot be paid by the time of Reckoning, the covenant must
        # accept a permanent tribute of 1 point owed to the lord."
        game.trigger_event(
            game.PermanentTributeImposed,
            seat=seat,
            points=1,
            reason="Tax and Tithe unpaid",
            actor=SYSTEM,
            audience=PUBLIC,
        )
    for card_id in starve:
        game.trigger_event(
            game.CardDiscarded, card_id=card_id, reason="unsupported at the Reckoning", actor=SYSTEM, audience=PUBLIC
        )
    game.trigger_event(game.TurnPassed, seat=seat, phase="reckoning", acted=True, actor=seat, audience=PUBLIC)
    if not s.turn:
        _end_season(game, seed)
    return {"made": made, "paid": need, "after": after}


def default_starved(game: CovenantGame, seat: str) -> list[str]:
    """A-RECK-1 at a silent Reckoning (H-9): the fewest cards, costliest upkeep first, whose starving lets the
    covenant support the rest (none if it can support everything)."""
    costly = sorted(game.covenant_cards(seat), key=lambda c: -_upkeep(game, c))
    for n in range(len(costly) + 1):
        starve = [c.id for c in costly[:n]]
        _, need, have = tally(game, seat, starve)
        if all(need[k] <= have[k] for k in need):
            return starve
    return [c.id for c in costly]


RESOURCES = ("provision", "gold", "vis")


def card_lines(game: CovenantGame, seat: str, starve: list[str]) -> list[dict[str, Any]]:
    """A-RECK-1, card by card: what each of the covenant's cards makes this season (a mine's gold doubled by the
    Numismator) and what keeping it costs (nothing for a card starved), before a Famine's share."""
    cards = game.covenant_cards(seat)
    season = game.season_name
    mines = 2 if any(c.name == "Companion: Numismator, Alchemist" for c in cards) else 1
    lines = []
    for c in cards:
        d = game.house.cards.get(c.name)
        if d is None:
            continue
        made = dict.fromkeys(RESOURCES, 0)
        if c.active and season in d.produces_in:
            made = {
                "provision": d.production.provision,
                "gold": d.production.gold * (mines if c.kind == "mine" else 1),
                "vis": d.production.vis,
            }
        upkeep = dict.fromkeys(RESOURCES, 0)
        if c.id not in starve:
            if season in d.upkeep_in:
                upkeep = {"provision": d.upkeep.provision, "gold": d.upkeep.gold, "vis": d.upkeep.vis}
            if season == "winter":
                upkeep["gold"] += d.winter_upkeep.gold
                upkeep["vis"] += d.winter_upkeep.vis
        lines.append({"card": c.id, "name": c.name, "made": made, "upkeep": upkeep, "starved": c.id in starve})
    return lines


def famine_share(game: CovenantGame, lines: list[dict[str, Any]]) -> int:
    """The provision a Famine in play takes of what the cards made (A-EVT-4, A-AMB-14); 0 without one."""
    produced = sum(line["made"]["provision"] for line in lines)
    return rules.famine_loss(produced) if "Famine" in game.state.events_in_play else 0


def tally(game: CovenantGame, seat: str, starve: list[str]) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """A-RECK-1: this season's production, the upkeep of the cards not starved, and what the covenant has."""
    lines = card_lines(game, seat, starve)
    made = {r: sum(line["made"][r] for line in lines) for r in RESOURCES}
    need = {r: sum(line["upkeep"][r] for line in lines) for r in RESOURCES}
    made["provision"] -= famine_share(game, lines)
    p = game.state.powers[seat]
    provision = max(0, p.provision + made["provision"])  # what was converted ahead of a production lost since
    have = {"provision": provision, "gold": p.gold + made["gold"], "vis": p.vis + made["vis"]}
    return made, need, have


def support_terms(game: CovenantGame, seat: str, starve: list[str], before: dict[str, int]) -> dict[str, Any]:
    """What a season's support was tallied from (issue 29: its derivation recomputes what was made, paid and held
    after from these, A-RECK-1): the covenant's provision, gold and vis before, the lines of its cards that made,
    cost or were starved (``card_lines``, as ``tally`` sums them), and the provision a Famine took."""
    lines = card_lines(game, seat, starve)
    shown = [x for x in lines if any(x["made"].values()) or any(x["upkeep"].values()) or x["starved"]]
    famine = famine_share(game, lines)
    return {
        "year": game.state.year,
        "season": game.season_name,
        "before": dict(before),
        "cards": shown,
        "famine": famine,
    }


def _no_support_terms(state: dict[str, Any]) -> None:
    """Upcast a season's support recorded before it kept what it was tallied from."""
    state["terms"] = None


class SupportAllocated(CovenantEvent):
    class_version = 2  # 2: ``terms``, what it was tallied from (issue 29)
    upcast_v1_v2 = staticmethod(_no_support_terms)

    seat: str
    starved: list[str]
    made: dict[str, int]  # provision, gold and vis
    paid: dict[str, int]
    after: dict[str, int]
    actor: str
    audience: list[str]
    keep: dict[str, int] | None = None
    terms: dict[str, Any] | None = None  # what it was tallied from (``support_terms``); None if recorded before

    def evolve(self, s: CovenantState) -> None:
        p = s.powers[self.seat]
        p.provision, p.gold, p.vis = self.after["provision"], self.after["gold"], self.after["vis"]
        p.supported = True
        p.keep_unconverted = dict(self.keep or {})


def _events_at_season_end(game: CovenantGame) -> None:
    """What the events in play do at the end of a season: the Wave of Bandits loots and leaves, a Quaesitor
    Investigation of a full year finds its unmarked mages guilty, the Plague gains a counter."""
    s = game.state
    if "Wave of Bandits" in s.events_in_play and s.bandits:
        for seat in s.bandits.get("fought", []):  # [000:681] "if at the end of the season the battle was waged
            # the covenant has no active Grogs in play, the covenant loses all the gold it owns" (no Treasury
            # card is in the house package, so all of it)
            if not any(c.kind == "grogs" and c.active for c in game.covenant_cards(seat)) and s.powers[seat].gold:
                game.trigger_event(
                    game.BanditsLooted, seat=seat, gold=s.powers[seat].gold, actor=SYSTEM, audience=PUBLIC
                )
        game.trigger_event(
            game.BanditsSeasonEnded,
            discarded=s.bandits.get("damage", 0) >= BANDITS_MIGHT,
            actor=SYSTEM,
            audience=PUBLIC,
        )
    inv = s.investigation
    if inv and inv.get("ends") is None and s.seasons_begun - inv["since"] >= 3:  # [000:767] "If, however, the
        # Investigation lasts a full year without all the mages being marked, the unmarked mages are discarded
        # (found guilty) along with this card."
        for c in [c for c in game.covenant_cards(inv["target"]) if c.kind == "mage"]:
            if c.id not in inv["investigated"]:
                game.trigger_event(
                    game.CardDiscarded,
                    card_id=c.id,
                    reason="found guilty by the Quaesitors",
                    actor=SYSTEM,
                    audience=PUBLIC,
                )
        game.trigger_event(game.InvestigationEnded, outcome="guilty", actor=SYSTEM, audience=PUBLIC)
    if "Plague" in s.events_in_play:  # [000:671] "At the end of each season ... add a counter to it."
        game.trigger_event(
            game.PlagueCounterAdded, counters=s.plague.get("counters", 0) + 1, actor=SYSTEM, audience=PUBLIC
        )


def _end_season(game: CovenantGame, seed: str) -> None:
    s = game.state
    _events_at_season_end(game)
    for c in list(s.cards.values()):  # A-DMG-2 [000:125] "Items are discarded at the end of any season when
        # they sustained damage" (no repair is in the house package)
        d = game.house.cards.get(c.name)
        if d is not None and not d.animate and not d.structure and c.new_damage and c.damage:
            game.trigger_event(
                game.CardDiscarded, card_id=c.id, reason="an item damaged this season", actor=SYSTEM, audience=PUBLIC
            )
    for c in list(s.cards.values()):  # A-DMG-4 then A-DMG-1: heal, then winter discards inactive beings
        d = game.house.cards.get(c.name)
        if d is None or not d.animate or d.might_type not in (None, "mundane"):
            continue
        healed = rules.passive_heal(c.damage, c.inactive_all_season and not c.active, c.new_damage)
        if healed != c.damage:
            game.trigger_event(game.CardHealed, card_id=c.id, damage=healed, actor=SYSTEM, audience=PUBLIC)
    if game.season_name == "winter":
        for c in list(s.cards.values()):
            d = game.house.cards.get(c.name)
            if d is not None and d.animate and d.might_type in (None, "mundane") and not c.active and c.owner:
                game.trigger_event(
                    game.CardDiscarded,
                    card_id=c.id,
                    reason="inactive at the end of Winter",
                    actor=SYSTEM,
                    audience=PUBLIC,
                )
    for c in list(s.cards.values()):  # A-SPELL-9: study counters
        if c.counters:
            game.trigger_event(game.StudyCounterRemoved, card_id=c.id, actor=SYSTEM, audience=PUBLIC)
            if not c.counters and (c.spells or c.arts):  # [000:437] "discard this Book and attach the Spell to
                # the Mage"; [000:433] an Art: "When the last counter is removed, this card is discarded"
                reason = "its spell is learnt" if c.spells else "its Art is learnt"
                game.trigger_event(game.CardDiscarded, card_id=c.id, reason=reason, actor=SYSTEM, audience=PUBLIC)
    game._seed_revealed(
        seed=s.seed or "",
        commitment=s.seed_commitment or "",
        phase=f"s{s.seasons_begun}",
        actor=SYSTEM,
        audience=PUBLIC,
    )
    if game.season_name == "winter":
        _yearly_reckoning(game)
        if s.winners:
            return
    game.trigger_event(game.SeasonEnded, actor=SYSTEM, audience=PUBLIC)
    game._commit_seed(seed, f"s{s.seasons_begun + 1}")
    track.begin_season(game)


class CardHealed(CovenantEvent):
    card_id: str
    damage: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        c = s.cards[self.card_id]
        c.damage = self.damage
        if self.damage == 0:
            c.active = True  # A-DMG-1: healed fully, active again


class StudyCounterRemoved(CovenantEvent):
    card_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        c = s.cards[self.card_id]
        c.counters -= 1
        if c.counters == 0 and c.attached_to in s.cards and c.arts:
            mage = s.cards[c.attached_to]
            mage.arts = sorted(set(mage.arts) | set(c.arts))
        if c.counters == 0 and c.attached_to in s.cards and c.spells:  # [000:437] "attach the Spell to the Mage"
            mage = s.cards[c.attached_to]
            mage.spells = [*mage.spells, *(x for x in c.spells if x not in mage.spells)]


class SeasonEnded(CovenantEvent):
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        if s.season != 3:
            for p in s.powers.values():  # A-RECK-2: provisions do not carry over
                p.provision = 0
        s.season = (s.season + 1) % 4
        if s.season == 0:
            s.year += 1
        _expire(s, lambda e: (until := e.get("until")) is not None and until <= s.seasons_begun)
        kept = []
        for name in s.events_in_play:  # an event stays for the seasons its text gives it (A-EVT-4)
            last = s.event_until.get(name, s.seasons_begun)
            ended = last is not None and last <= s.seasons_begun
            ended = ended or name in s.defeated or (name == "Wave of Bandits" and bool(s.bandits.get("discarded")))
            ended = ended or (name == "Armed Invasion" and bool(s.invasion.get("retreated")))
            ended = ended or (name == "Plague" and s.plague.get("counters", 0) >= PLAGUE_COUNTERS)
            if name == "Quaesitor Investigation" and s.investigation:
                ended = s.investigation.get("ends") is not None
            if ended:
                s.event_until.pop(name, None)
                if name == "Plague":
                    s.plague = {}
                if name == "Quaesitor Investigation":
                    s.investigation = {}  # the covenant rejoins the game as the next season begins
            else:
                kept.append(name)
        s.events_in_play = kept
        s.effects_applied = []
        s.defeated = []


def _yearly_reckoning(game: CovenantGame) -> None:
    """A-RECK-3..6 with A-AMB-9: the Winter surplus becomes points (converted gold and vis are spent);
    tribute comes off this year's points, then the score; 25 or more wins; else the lowest score starts."""
    s = game.state
    points, scores, spent = {}, {}, {}
    for seat in rules.clockwise(s.order, s.starting or s.order[0]):
        p = s.powers[seat]
        cursed = any(c["curse"] == 6 for c in cards.curses(game, seat))
        gold, vis_ = p.gold - p.keep_unconverted.get("gold", 0), p.vis - p.keep_unconverted.get("vis", 0)
        points[seat] = version_rules(game).points(p.provision, gold, vis_, curse6=cursed)  # A-RECK-3, as pinned
        consumes = option(s.options, "yearly_conversion_consumes")  # A-AMB-9, a campaign flag
        spent[seat] = {"gold": gold // 2 * 2, "vis": vis_} if consumes else {"gold": 0, "vis": 0}
        if game.out_of_play(seat):  # [000:767] "the state of the covenant (and the player's score) does not
            points[seat], spent[seat] = 0, {"gold": 0, "vis": 0}  # change"
    scores = {seat: s.powers[seat].score for seat in s.order}
    gained: dict[str, int] = {seat: 0 for seat in s.order}
    for seat in s.order:
        owed = [] if game.out_of_play(seat) else s.powers[seat].tribute
        total = sum(t["points"] for t in owed)
        new, from_year, from_score = rules.apply_tribute(points[seat], scores[seat], total)
        scores[seat] = new
        paid = from_year + from_score
        for t in owed:
            take = min(t["points"], paid)
            paid -= take
            if t["to"] is not None:
                gained[t["to"]] += take
    for seat, g in gained.items():
        scores[seat] += g
    surplus = None  # A-AMB-8's optional tiebreak: the surplus left unconverted, a pawn of vis worth 2 gold
    if option(s.options, "winner_tiebreak") == "unconverted_surplus":
        surplus = {k: s.powers[k].gold - spent[k]["gold"] + 2 * (s.powers[k].vis - spent[k]["vis"]) for k in s.order}
    won = rules.winners(scores, int(option(s.options, "target_score")), surplus=surplus)
    starting = s.starting or s.order[0]
    nxt = None if won else rules.next_starting_player(s.order, scores, starting)
    game.trigger_event(
        game.YearReckoned,
        points=points,
        scores=scores,
        spent=spent,
        winners=won,
        starting=nxt,
        terms=_terms(game, surplus),
        actor=SYSTEM,
        audience=PUBLIC,
    )


def _terms(game: CovenantGame, surplus: dict[str, int] | None) -> dict[str, Any]:
    """What the Yearly Reckoning reckoned from, as it stood (issue 29: the Reckoning's derivation recomputes its
    points, scores, winners and next starting player from these): each covenant's Winter surplus and what it keeps
    unconverted (A-RECK-3, A-AMB-9), the Hedge Mage's curse 6 (A-RECK-6), whether it is out of play, its score
    before and the tribute it owes (A-RECK-4), its unconverted surplus for the optional tiebreak (A-AMB-8); the
    target score (A-RECK-5), whether the conversion spends what it converts, and the seats in the order the next
    starting player is looked for (A-ORDER-2)."""
    s = game.state
    starting = s.starting or s.order[0]
    seats = {}
    for seat in s.order:
        p, out = s.powers[seat], game.out_of_play(seat)
        seats[seat] = {
            "provision": p.provision,
            "gold": p.gold,
            "vis": p.vis,
            "kept_gold": p.keep_unconverted.get("gold", 0),
            "kept_vis": p.keep_unconverted.get("vis", 0),
            "curse6": any(c["curse"] == 6 for c in cards.curses(game, seat)),
            "out": out,
            "score": p.score,
            "tribute": [] if out else [{"points": t["points"], "to": t["to"]} for t in p.tribute],
            "unconverted": None if surplus is None else surplus[seat],
        }
    return {
        "year": s.year,
        "target": int(option(s.options, "target_score")),
        "consumes": bool(option(s.options, "yearly_conversion_consumes")),
        "order": [*rules.clockwise(s.order, starting)[1:], starting],
        "seats": seats,
    }


def _no_terms(state: dict[str, Any]) -> None:
    """Upcast a Yearly Reckoning recorded before it kept what it reckoned from."""
    state["terms"] = None


class YearReckoned(CovenantEvent):
    class_version = 2  # 2: ``terms``, what it reckoned from (issue 29)
    upcast_v1_v2 = staticmethod(_no_terms)

    points: dict[str, int]
    scores: dict[str, int]
    spent: dict[str, dict[str, int]]  # seat -> the gold and vis the Reckoning spent
    winners: list[str]
    starting: str | None
    actor: str
    audience: list[str]
    terms: dict[str, Any] | None  # what it reckoned from (``_terms``); None if recorded before issue 29

    def evolve(self, s: CovenantState) -> None:
        for seat, p in s.powers.items():
            p.score = self.scores[seat]
            p.provision = 0
            p.gold -= self.spent[seat]["gold"]
            p.vis -= self.spent[seat]["vis"]
            p.tribute = [t for t in p.tribute if t["permanent"]]
            p.keep_unconverted = {}
        s.winners = list(self.winners)
        if self.winners:
            s.phase, s.turn = "over", []
        elif self.starting is not None:
            s.starting = self.starting


def _upkeep(game: CovenantGame, c: Card) -> int:
    d = game.house.cards.get(c.name)
    return (d.upkeep.provision + d.upkeep.gold + d.upkeep.vis) if d else 0
