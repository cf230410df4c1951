"""Development (P-DEV-1..6): fame spent during Tidings on a new skill, a skill rank, a new perk or an upgrade; the
GM's starting perks and the perks it adds to the catalogue (P-AMB-42); a nerfed perk's tip, and its power's choice
to keep, refund or swap it. Perks are public (P.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain import limits
from domain import visibility as vis
from domain.errors import RuleViolation
from domain.ids import GM
from domain.powers import development_rules as dr
from domain.powers.development_state import (
    DevelopmentEvent,
    HeldPerk,
    credit,
    fold_holdings,
    held_perk,
    own,
    record,
    skill_of,
)

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def perk_catalogue(s: GameState) -> dict[str, dr.Perk]:
    """The rules' perks and those the GM added to this game (P-DEV-5, P-AMB-42)."""
    return {**dr.PERKS, **{n: dr.Perk(**spec) for n, spec in s.development.perks.items()}}


def perk(s: GameState, name: str, field_name: str = "name") -> dr.Perk:
    """A perk of the catalogue, or refused naming ``field_name`` (P-DEV-5)."""
    found = perk_catalogue(s).get(name)
    if found is None:
        raise RuleViolation(f"{name!r} is not a perk of the catalogue", rule="P-DEV-5", field=field_name)
    return found


def buy_development(
    game: Game, power_id: str, kind: str, name: str, detail: str = "", asset_id: str = "", actor: str | None = None
) -> int:
    """Spend fame during Tidings (P-DEV-1) on a new skill (P-DEV-2), a skill rank (P-DEV-3), or a new
    perk or perk upgrade (P-DEV-4, P-DEV-5); returns the price paid."""
    s = game.state
    ps = game.power(power_id)
    h = game.holdings(power_id)
    dr.check_tidings(s.step)
    limits.check_text(detail, "detail", limits.TITLE, what="the perk's choice")
    who = actor or power_id
    skill = skill_of(s.assets, power_id, name) if kind in ("skill", "rank") else None
    if kind == "skill":
        taken = asset_id in s.assets
        price, rule, rank = dr.new_skill(ps.name, name, skill is not None, asset_id, taken, h.skills_bought)
    elif kind == "rank":
        price, rule, rank = dr.skill_rank(ps.name, name, None if skill is None else skill.rank)
        asset_id = skill.id if skill is not None else asset_id  # skill_rank refused it without one
    elif kind in ("perk", "upgrade"):
        wanted = perk(s, name)
        price, rule, rank = dr.perk_price(h.perks_bought), "P-DEV-4", 0
        if kind == "perk":
            dr.check_perk(wanted, ps.cls, ps.subclass, h.control, h.perks, detail, catalogue=perk_catalogue(s))
        else:
            held = held_perk(h, name, detail)
            if not wanted.upgrade:
                raise RuleViolation(f"{name} has no upgrade", rule="P-DEV-4", field="name")
            if held["upgrades"]:
                raise RuleViolation(f"{name} is already upgraded", rule="P-DEV-4", field="name")
    else:
        raise RuleViolation(
            "a development is a new skill ('skill'), a skill rank ('rank'), a new perk ('perk') or an "
            "upgrade ('upgrade')",
            rule="P-DEV-1",
            field="kind",
        )
    if h.wallet.get("fame", 0) < price:
        raise RuleViolation(
            f"this development costs {price} fame; {ps.name} has {h.wallet.get('fame', 0)}", rule=rule, field="fame"
        )
    record(
        game,
        DevelopmentBought,
        power_id=power_id,
        kind=kind,
        name=name,
        detail=detail,
        price=price,
        asset_id=asset_id,
        rank=rank,
        actor=who,
        audience=own(power_id),
    )
    _bought(game, power_id, kind, name, detail, asset_id, price, who)
    return price


def _bought(game: Game, power_id: str, kind: str, name: str, detail: str, asset_id: str, price: int, who: str) -> None:
    """What a development brings besides its price: a new skill's asset, a perk or its upgrade."""
    if kind == "skill":
        game._asset_granted(
            asset_id=asset_id,
            power_id=power_id,
            name=name,
            cls="skill",
            rank=1,
            assured=False,
            critical=False,
            novel=False,
            actor=who,
            audience=own(power_id),
        )
    elif kind in ("perk", "upgrade"):
        record(
            game,
            PerkGained,
            power_id=power_id,
            name=name,
            detail=detail,
            upgrade=kind == "upgrade",
            starting=False,
            paid=price,
            actor=who,
            audience=[vis.PUBLIC],
        )


def grant_perk(game: Game, power_id: str, name: str, detail: str = "") -> None:
    """GM: a starting perk ([003:264]); free, and not counted by New Perk (P-DEV-4)."""
    ps, h = game.power(power_id), game.holdings(power_id)
    limits.check_text(detail, "detail", limits.TITLE, what="the perk's choice")
    s = game.state
    dr.check_perk(perk(s, name), ps.cls, ps.subclass, h.control, h.perks, detail, catalogue=perk_catalogue(s))
    record(
        game,
        PerkGained,
        power_id=power_id,
        name=name,
        detail=detail,
        upgrade=False,
        starting=True,
        paid=0,
        actor=GM,
        audience=[vis.PUBLIC],
    )


def nerf_perk(game: Game, power_id: str, name: str, detail: str = "", reason: str = "") -> None:
    """GM: a perk is nerfed; its power gets a 1 fame tip, and may refund or swap it (P-DEV-6)."""
    h = game.holdings(power_id)
    held_perk(h, name, detail)
    limits.check_text(reason, "reason", limits.REASON, what="the reason")
    if any(n["name"] == name and n["detail"] == detail for n in h.nerfs):
        raise RuleViolation(f"{name} is already nerfed and awaits its power's choice", rule="P-DEV-6", field="name")
    record(
        game, PerkNerfed, power_id=power_id, name=name, detail=detail, reason=reason, actor=GM, audience=own(power_id)
    )
    if dr.fame_reward(game.power(power_id).subclass, 1):
        game._wallet_changed(
            power_id=power_id,
            changes={"fame": 1},
            reason=f"playtest tip: {name} was nerfed ([003:253])",
            actor=GM,
            audience=own(power_id),
        )


def settle_nerf(
    game: Game,
    power_id: str,
    name: str,
    choice: str,
    detail: str = "",
    swap_to: str = "",
    swap_detail: str = "",
    actor: str | None = None,
) -> None:
    """P-DEV-6: the power keeps a nerfed perk, refunds what it paid, or exchanges it for a perk of
    the catalogue it may take (P-DEV-5), at no new cost and without counting as a purchase."""
    ps, h = game.power(power_id), game.holdings(power_id)
    if not any(n["name"] == name and n["detail"] == detail for n in h.nerfs):
        raise RuleViolation(f"{name} has not been nerfed", rule="P-DEV-6", field="name")
    held = held_perk(h, name, detail)
    if choice not in ("keep", "refund", "swap"):
        raise RuleViolation("a nerfed perk is kept, refunded or swapped", rule="P-DEV-6", field="choice")
    if choice == "swap":
        limits.check_text(swap_detail, "swap_detail", limits.TITLE, what="the perk's choice")
        other = perk(game.state, swap_to, field_name="swap_to")
        if other.name == name:
            raise RuleViolation("swap a nerfed perk for another perk", rule="P-DEV-6", field="swap_to")
        if held["upgrades"] and not other.upgrade:
            raise RuleViolation(
                f"{name} is upgraded: swap it for a perk with an upgrade, a similarly costed object",
                rule="P-DEV-6",
                field="swap_to",
            )
        dr.check_perk(
            other,
            ps.cls,
            ps.subclass,
            h.control,
            h.perks,
            swap_detail,
            catalogue=perk_catalogue(game.state),
            swap_from=name,
        )
    who = actor or power_id
    record(
        game, NerfSettled, power_id=power_id, name=name, detail=detail, choice=choice, actor=who, audience=own(power_id)
    )
    if choice == "keep":
        return
    record(
        game,
        PerkLost,
        power_id=power_id,
        name=name,
        detail=detail,
        reason=f"nerfed: {choice}",
        actor=who,
        audience=[vis.PUBLIC],
    )
    if choice == "refund":
        refund = sum(held["paid"])
        if refund:
            game._wallet_changed(
                power_id=power_id,
                changes={"fame": refund},
                reason=f"refund of the nerfed {name} ([003:253])",
                actor=who,
                audience=own(power_id),
            )
        return
    _swapped(game, power_id, held, swap_to, swap_detail, who)


def _swapped(game: Game, power_id: str, held: HeldPerk, swap_to: str, swap_detail: str, who: str) -> None:
    """The perk a nerfed one was swapped for, upgraded if it was, as paid for then (P-DEV-6)."""
    record(
        game,
        PerkGained,
        power_id=power_id,
        name=swap_to,
        detail=swap_detail,
        upgrade=False,
        starting=held["starting"],
        paid=held["paid"][0],
        actor=who,
        audience=[vis.PUBLIC],
    )
    if held["upgrades"]:
        record(
            game,
            PerkGained,
            power_id=power_id,
            name=swap_to,
            detail=swap_detail,
            upgrade=True,
            starting=held["starting"],
            paid=held["paid"][-1],
            actor=who,
            audience=[vis.PUBLIC],
        )


def define_perk(
    game: Game, name: str, group: str, *, upgrade: bool = False, repeatable: bool = False, versus: str | None = None
) -> None:
    """GM: add a perk the rules text lacks or a house perk (P-AMB-42); perks are public (P.4)."""
    limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="a perk's name")
    name = name.strip()
    dr.check_perk_definition(name, group, versus, perk_catalogue(game.state))
    record(
        game,
        PerkDefined,
        name=name,
        group=group,
        upgrade=bool(upgrade),
        repeatable=bool(repeatable),
        versus=versus,
        actor=GM,
        audience=[vis.PUBLIC],
    )


# ---------------------------------------------------------------------- events


class DevelopmentBought(DevelopmentEvent):
    power_id: str
    kind: str
    name: str
    detail: str
    price: int
    asset_id: str
    rank: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        h = fold_holdings(s, self.power_id)
        credit(h.wallet, {"fame": -self.price})
        if self.kind == "skill":
            h.skills_bought += 1
        elif self.kind == "rank":
            s.assets[self.asset_id].rank = self.rank
        else:
            h.perks_bought += 1


class PerkGained(DevelopmentEvent):
    power_id: str
    name: str
    detail: str
    upgrade: bool
    starting: bool
    paid: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        h = fold_holdings(s, self.power_id)
        if self.upgrade:
            held = next(p for p in h.perks if p["name"] == self.name and p["detail"] == self.detail)
            held["upgrades"] += 1
            held["paid"].append(self.paid)
        else:
            h.perks.append(
                {
                    "name": self.name,
                    "detail": self.detail,
                    "upgrades": 0,
                    "starting": self.starting,
                    "paid": [self.paid],
                }
            )
        option = dr.PERK_OPTIONS.get(self.name)
        if option is not None:
            s.powers[self.power_id].options[option] = True


class PerkNerfed(DevelopmentEvent):
    power_id: str
    name: str
    detail: str
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        fold_holdings(s, self.power_id).nerfs.append({"name": self.name, "detail": self.detail, "reason": self.reason})


class NerfSettled(DevelopmentEvent):
    power_id: str
    name: str
    detail: str
    choice: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        h = fold_holdings(s, self.power_id)
        h.nerfs = [n for n in h.nerfs if not (n["name"] == self.name and n["detail"] == self.detail)]


class PerkLost(DevelopmentEvent):
    power_id: str
    name: str
    detail: str
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        h = fold_holdings(s, self.power_id)
        h.perks = [p for p in h.perks if not (p["name"] == self.name and p["detail"] == self.detail)]
        option = dr.PERK_OPTIONS.get(self.name)
        if option is not None and not any(p["name"] == self.name for p in h.perks):
            s.powers[self.power_id].options.pop(option, None)


class PerkDefined(DevelopmentEvent):
    name: str
    group: str
    upgrade: bool
    repeatable: bool
    versus: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.development.perks[self.name] = {
            "name": self.name,
            "group": self.group,
            "upgrade": self.upgrade,
            "repeatable": self.repeatable,
            "versus": self.versus,
        }
