"""The board's and the console's forms for wallets and trades, development, ambitions, magic and the map
(``domain.powers.development``, ``magic``, ``world``). Each form names a command class and how its fields
read from the posted form; the command is checked field by field as the JSON route checks it
(``api.declare.build``) and sent through ``Games.run``, so a refusal is the same error, with its
rule id, shown next to the form that sent it. Its words are ready for translation (issue 17): a receipt is
marked with ``N_`` in the table and translated when the form is answered, in the language of the one who sent
it; a hint of how to type a field (``coin 3, favor 1``) is translated where it is raised."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from api.declare import Declared, build, issues_token
from api.routes.commands import command_class
from api.web.forms import Form
from application.service import Caller, Receipt
from domain.errors import RuleViolation
from domain.ids import GM
from domain.platform.commands import Command
from domain.platform.i18n import N_, _
from domain.powers import armies, battle, magic, world
from domain.powers import catalogue_commands as cc
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers.mail import battle_goal, order_parts

Args = Callable[[dict, str], dict[str, Any]]  # (posted form, principal) -> the command's fields


# ---------------------------------------------------------------------- reading fields


def text(f: dict, key: str) -> str:
    value = f.get(key, "")
    return value if isinstance(value, str) else ""


def opt(f: dict, key: str) -> str | None:
    return text(f, key).strip() or None


def whole(f: dict, key: str) -> int:
    try:
        return int(text(f, key).strip())
    except ValueError:
        raise RuleViolation(_("{key}: give a whole number").format(key=key), field=key) from None


def opt_whole(f: dict, key: str) -> int | None:
    return whole(f, key) if text(f, key).strip() else None


def flag(f: dict, key: str) -> bool:
    return f.get(key) == "on"


def words(f: dict, key: str) -> list[str]:
    """A list typed as words separated by commas or spaces: ``F, F W``."""
    return [w for w in text(f, key).replace(",", " ").split() if w]


def opt_words(f: dict, key: str) -> list[str] | None:
    return words(f, key) or None


def _units(f: dict, key: str) -> list[int] | None:
    """Unit indexes typed as words (Bloodlust's allocation, P-BAT-6); none: the defender's choice."""
    try:
        return [int(w) for w in words(f, key)] or None
    except ValueError:
        raise RuleViolation(_("{key}: unit numbers").format(key=key), field=key) from None


# One "name amount" or "name=amount", then a comma, a semicolon or the end; a name may hold a comma ("0,0").
AMOUNT = re.compile(r"\s*([^\s=;][^=;]*?)\s*(?:=\s*|\s+)([-+]?\d+)\s*(?:[,;]|$)")


def amounts(f: dict, key: str) -> dict[str, int]:
    """Amounts typed as ``coin 3, favor 1`` or ``coin=3; favor=1`` (for influence, ``0,0=2, 1,0=1``)."""
    raw, pos, out = text(f, key).strip(), 0, {}
    while pos < len(raw):
        m = AMOUNT.match(raw, pos)
        if m is None:
            raise RuleViolation(
                _("{key}: write each as 'name amount', e.g. 'coin 3, favor 1'").format(key=key), field=key
            )
        out[m.group(1)] = int(m.group(2))
        pos = m.end()
    return out


def data(f: dict, key: str, default: Any = None) -> Any:
    raw = text(f, key).strip()
    if not raw:
        return default
    try:
        return json.loads(raw)
    except json.JSONDecodeError as err:
        raise RuleViolation(
            _("{key}: not JSON ({error}, line {line})").format(key=key, error=err.msg, line=err.lineno), field=key
        ) from None


def json_object(f: dict, key: str, fields: tuple[str, ...]) -> dict[str, Any]:
    """A JSON object whose keys are among ``fields`` (the map's hexes, towns, features)."""
    value = data(f, key, {})
    if not isinstance(value, dict):
        raise RuleViolation(
            _("{key}: a JSON object with {fields}").format(key=key, fields=", ".join(fields)), field=key
        )
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise RuleViolation(
            _("{key}: {name} is not one of {fields}").format(key=key, name=repr(unknown[0]), fields=", ".join(fields)),
            field=key,
        )
    return value


def shifts(f: dict, key: str) -> list[list[str]]:
    """Influence shifts, one a line: ``0,0 > 1,0`` (from, to)."""
    out = []
    for line in text(f, key).splitlines():
        if not line.strip():
            continue
        a, sep, b = line.replace("->", ">").partition(">")
        if not sep:
            raise RuleViolation(_("{key}: one shift a line, 'from > to' (e.g. '0,0 > 1,0')").format(key=key), field=key)
        out.append([a.strip(), b.strip()])
    return out


def tasks(f: dict, key: str) -> list[dict[str, Any]]:
    """An ambition's tasks, one a line; a leading ``!`` marks a central task, ``?`` a mysterious one."""
    out = []
    for line in text(f, key).splitlines():
        line = line.strip()
        central = mysterious = False
        while line[:1] in ("!", "?"):
            central, mysterious = central or line[0] == "!", mysterious or line[0] == "?"
            line = line[1:].strip()
        if line:
            out.append({"text": line, "central": central, "mysterious": mysterious})
    return out


def picks(f: dict, key: str) -> list[dict[str, Any]]:
    """Assets put into a pool, by id, separated by commas or spaces; ``id:assured`` or ``id:critical`` for a mode."""
    out = []
    for w in words(f, key):
        asset, _, mode = w.partition(":")
        out.append({"asset_id": asset, "mode": mode or "normal"})
    return out


def choices(f: dict, key: str) -> list[Any]:
    """Level-up bonuses separated by commas; ``keyword valiant`` names a keyword bonus (P-ARMY-4)."""
    out: list[Any] = []
    for item in (i.strip() for i in text(f, key).split(",")):
        if item:
            kind, _, keyword = item.partition(" ")
            out.append({"bonus": "keyword", "keyword": keyword.strip()} if kind == "keyword" else item)
    return out


def routs(f: dict, key: str) -> dict[str, list[int]]:
    """Units routed at Cleanup, one army a line: ``n1: 0, 2`` (the army, then its units' numbers)."""
    out: dict[str, list[int]] = {}
    for line in text(f, key).splitlines():
        if not line.strip():
            continue
        army, sep, units = line.partition(":")
        try:
            numbers = [int(u) for u in units.replace(",", " ").split()]
        except ValueError:
            numbers = []
        if not sep or not army.strip() or not numbers:
            raise RuleViolation(
                _("{key}: one army a line, 'army: unit, unit' (e.g. 'n1: 0, 2')").format(key=key), field=key
            )
        out[army.strip()] = numbers
    return out


def standing(f: dict, key: str) -> dict[str, dict[str, Any]]:
    """Standing orders (P-BAT-3), one army a line: ``n1 slay s1``, ``n2 hold advance``, ``n3 charge s1 walls``,
    ``n4 rest``: the army, its command, then the target (slay, charge) and the goal (hold, charge)."""
    out: dict[str, dict[str, Any]] = {}
    for line in text(f, key).splitlines():
        ws = line.split()
        if not ws:
            continue
        order, more = order_parts(ws[1].lower() if len(ws) > 1 else "", ws[2:])
        if len(ws) < 2 or more:
            raise RuleViolation(
                _("{key}: one army a line, 'army command [target] [goal]' (e.g. 'n1 hold advance')").format(key=key),
                field=key,
            )
        out[ws[0]] = order
    return out


def _rank(word: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise RuleViolation(_("ranks: whole numbers separated by spaces, e.g. '2 3'"), field="ranks") from None


def _pool(f: dict) -> dict[str, Any]:
    return {"assets": picks(f, "assets"), "convert": whole(f, "convert") if text(f, "convert").strip() else 0}


# ---------------------------------------------------------------------- the forms


def _me(f: dict, me: str) -> dict[str, Any]:
    return {"power_id": me}


def _traded(f: dict, me: str) -> dict[str, Any]:
    return {"power_id": me, "trade_id": text(f, "trade_id")}


def _ambition(f: dict, me: str) -> dict[str, Any]:
    return {"power_id": me, "ambition_id": text(f, "ambition_id")}


FEATURES: tuple[Declared, ...] = (
    # wallets, trades, fame (P-ASSET-9..11, P-DEV-1..6, P-AMBI-1)
    Declared(
        dev.ChooseControl,
        form=Form(
            "choose-control",
            "wallet",
            N_("Control chosen."),
            lambda f, me: {**_me(f, me), "resource": text(f, "resource")},
        ),
    ),
    Declared(
        dev.SpendResources,
        form=Form(
            "spend-resources",
            "wallet",
            N_("Spent."),
            lambda f, me: {**_me(f, me), "changes": amounts(f, "changes"), "reason": text(f, "reason")},
        ),
    ),
    Declared(
        dev.ProposeTrade,
        form=Form(
            "propose-trade",
            "trades",
            N_("Trade offered: it happens when they accept."),
            lambda f, me: {
                **_me(f, me),
                "to": text(f, "to"),
                "give": amounts(f, "give"),
                "want": amounts(f, "want"),
                "note": text(f, "note"),
            },
        ),
    ),
    Declared(dev.AcceptTrade, form=Form("accept-trade", "trades", N_("Trade accepted: both sides moved."), _traded)),
    Declared(dev.DeclineTrade, form=Form("decline-trade", "trades", N_("Trade declined."), _traded)),
    Declared(dev.WithdrawTrade, form=Form("withdraw-trade", "trades", N_("Trade withdrawn."), _traded)),
    Declared(
        dev.SpendFavor,
        form=Form(
            "spend-favor",
            "wallet",
            N_("Favor spent."),
            lambda f, me: {
                **_me(f, me),
                "use": text(f, "use"),
                "element": opt(f, "element"),
                "request": text(f, "request"),
                "action_id": opt(f, "action_id"),
            },
        ),
    ),
    Declared(
        dev.SpendInsight,
        form=Form(
            "spend-insight",
            "wallet",
            N_("Question sent to the GM."),
            lambda f, me: {**_me(f, me), "question": text(f, "question")},
        ),
    ),
    Declared(
        dev.BuyDevelopment,
        form=Form(
            "buy",
            "development",
            N_("Bought."),
            lambda f, me: {**_me(f, me), "kind": text(f, "kind"), "name": text(f, "name"), "detail": text(f, "detail")},
        ),
    ),
    Declared(
        dev.SettleNerf,
        form=Form(
            "settle-nerf",
            "development",
            N_("Nerf settled."),
            lambda f, me: {
                **_me(f, me),
                "name": text(f, "name"),
                "choice": text(f, "choice"),
                "swap_to": text(f, "swap_to"),
                "swap_detail": text(f, "swap_detail"),
            },
        ),
    ),
    Declared(dev.AcceptAmbition, form=Form("accept-ambition", "ambitions", N_("Ambition taken."), _ambition)),
    Declared(dev.DeclineAmbition, form=Form("decline-ambition", "ambitions", N_("Ambition declined."), _ambition)),
    Declared(dev.AbandonAmbition, form=Form("abandon-ambition", "ambitions", N_("Ambition abandoned."), _ambition)),
    # magic (P-MAG-1..6, P-ACT-3)
    Declared(
        magic.CastSpell,
        form=Form(
            "cast",
            "magic",
            N_("Cast."),
            lambda f, me: {
                **_me(f, me),
                "spell_id": text(f, "spell_id"),
                "through": text(f, "through"),
                "target": opt(f, "target"),
                "action_id": opt(f, "action_id"),
                "pay": opt_words(f, "pay"),
            },
        ),
    ),
    Declared(
        magic.PayMana,
        form=Form(
            "pay-mana",
            "magic",
            N_("Mana paid."),
            lambda f, me: {
                **_me(f, me),
                "action_id": text(f, "action_id"),
                "cost": text(f, "cost"),
                "pay": opt_words(f, "pay"),
            },
        ),
    ),
    Declared(
        magic.ContributeMana,
        form=Form(
            "contribute-mana",
            "magic",
            N_("Mana put into the action."),
            lambda f, me: {**_me(f, me), "action_id": text(f, "action_id"), "mana": words(f, "mana")},
        ),
    ),
    # the map (P-ACT-4, P-TOWN-2, P-FEAT-3/4, P-INFL-2/3)
    Declared(
        world.AimAction,
        form=Form(
            "aim",
            "world",
            N_("Action aimed."),
            lambda f, me: {
                "action_id": text(f, "action_id"),
                "aim": text(f, "aim"),
                "feature_id": opt(f, "feature_id"),
                "town_id": opt(f, "town_id"),
                "floor": opt_whole(f, "floor"),
                "kind": opt(f, "kind"),
                "params": data(f, "params", {}),
            },
        ),
    ),
    Declared(
        world.SpendInfluence,
        form=Form(
            "spend-influence",
            "world",
            N_("Influence spent on the action."),
            lambda f, me: {**_me(f, me), "action_id": text(f, "action_id"), "amounts": amounts(f, "amounts")},
        ),
    ),
    Declared(
        world.ShiftInfluence,
        form=Form(
            "shift-influence",
            "world",
            N_("Influence shifted."),
            lambda f, me: {**_me(f, me), "shifts": shifts(f, "shifts")},
        ),
    ),
    Declared(
        world.PayMaintenance,
        form=Form(
            "pay-maintenance",
            "world",
            N_("Maintenance paid."),
            lambda f, me: {**_me(f, me), "feature_id": text(f, "feature_id")},
        ),
    ),
    Declared(
        world.MercurialSwap,
        form=Form(
            "mercurial-swap",
            "world",
            N_("Influence swapped (Mercurial)."),
            lambda f, me: {**_me(f, me), "a": text(f, "a"), "b": text(f, "b")},
        ),
    ),
    # the catalogue (P.2.12, P-ACT-5..7, P-DICE-11, P-RES-1/7)
    Declared(
        cc.ChooseBlightedTown,
        form=Form(
            "choose-blighted-town",
            "catalogue",
            N_("Town chosen for your Blighted Neighborhood."),
            lambda f, me: {**_me(f, me), "town_id": text(f, "town_id")},
        ),
    ),
    Declared(
        cc.SubmitClassAction,
        form=Form(
            "class-action",
            "catalogue",
            N_("Class action submitted and rolled."),
            lambda f, me: {
                **_me(f, me),
                "kind": text(f, "kind").strip().lower().replace(" ", "_"),
                "params": data(f, "params", {}),
                "title": opt(f, "title"),
                "description": text(f, "description"),
                "slot": text(f, "slot") or "private",
                "location": opt(f, "location"),
                "targets": words(f, "targets"),
                "collaborators": words(f, "collaborators"),
                **_pool(f),
            },
        ),
    ),
    Declared(
        cc.SubmitDuel,
        form=Form(
            "duel",
            "catalogue",
            N_("Duel submitted and rolled."),
            lambda f, me: {
                **_me(f, me),
                "target": text(f, "target"),
                "location": text(f, "location"),
                "target_is_power": not flag(f, "character"),
                "skill": opt(f, "skill"),
                "slot": text(f, "slot") or "private",
                "extra_actions": 1 if flag(f, "extra_action") else 0,
                **_pool(f),
            },
        ),
    ),
    Declared(
        cc.SubmitSeeking,
        form=Form(
            "seek",
            "catalogue",
            N_("Seeking submitted and rolled."),
            lambda f, me: {
                **_me(f, me),
                "hex_id": text(f, "hex_id"),
                "broad": flag(f, "broad"),
                "named": opt(f, "named"),
                "slot": text(f, "slot") or "private",
                "extra_actions": 1 if flag(f, "extra_action") else 0,
                **_pool(f),
            },
        ),
    ),
    Declared(
        cc.JoinAction,
        form=Form(
            "join-action",
            "catalogue",
            N_("Joined the action: your pool is rolled."),
            lambda f, me: {
                **_me(f, me),
                "action_id": text(f, "action_id"),
                "slot": text(f, "slot") or "private",
                **_pool(f),
            },
        ),
    ),
    Declared(
        cc.AcceptShareConsequence,
        form=Form(
            "accept-share",
            "catalogue",
            N_("Consequence of your share accepted."),
            lambda f, me: {
                **_me(f, me),
                "action_id": text(f, "action_id"),
                "consequence_id": text(f, "consequence_id"),
            },
        ),
    ),
    Declared(
        pc.AcceptReactionConsequence,
        form=Form(
            "accept-reaction-consequence",
            "reaction-consequences",
            N_("Consequence of your reaction accepted."),
            lambda f, me: {"reaction_id": text(f, "reaction_id"), "consequence_id": text(f, "consequence_id")},
        ),
    ),
    Declared(
        cc.TakeFreeAction,
        form=Form(
            "free-action",
            "catalogue",
            N_("Free action taken."),
            lambda f, me: {
                **_me(f, me),
                "kind": text(f, "kind"),
                "asset_id": text(f, "asset_id"),
                "note": text(f, "note"),
            },
        ),
    ),
    Declared(
        cc.GainExtraReaction,
        form=Form(
            "extra-reaction",
            "catalogue",
            N_("One more reaction this month."),
            lambda f, me: {**_me(f, me), "perk": text(f, "perk"), "scheme_id": opt(f, "scheme_id")},
        ),
    ),
    Declared(
        cc.WieldItem,
        form=Form(
            "wield-item",
            "catalogue",
            N_("Wielder recorded."),
            lambda f, me: {
                **_me(f, me),
                "asset_id": text(f, "asset_id"),
                "wielder": opt(f, "wielder"),
                "action_id": opt(f, "action_id"),
            },
        ),
    ),
    Declared(
        cc.UseReaction,
        form=Form(
            "use-reaction",
            "catalogue",
            N_("Reaction used."),
            lambda f, me: {
                **_me(f, me),
                "kind": text(f, "kind"),
                "trigger": opt(f, "trigger"),
                "fee": opt_whole(f, "fee"),
                "note": text(f, "note"),
                **_pool(f),
            },
        ),
    ),
    # battles (domain.powers.battle, P.1.3)
    Declared(
        battle.DeclareBattle,
        form=Form(
            "declare-battle",
            "battles",
            N_("Battle declared: its setup window is open."),
            lambda f, me: {
                "battle_id": text(f, "battle_id"),
                "hex": text(f, "hex"),
                "power_id": text(f, "power_id") if me == GM else me,  # the GM declares for a power (P-AMB-1)
                "enemies": words(f, "enemies"),
                "allies": words(f, "allies"),
            },
        ),
    ),
    Declared(
        battle.SubmitBattleSetup,
        form=Form(
            "battle-setup",
            "battles",
            N_("Setup recorded."),
            lambda f, me: {
                "battle_id": text(f, "battle_id"),
                "power_id": me,
                "armies": words(f, "armies"),
                "goals": [battle_goal(line) for line in text(f, "goals").splitlines() if line.strip()],
                "reinforcements": words(f, "reinforcements"),
                "assets": words(f, "assets"),
                "champion": flag(f, "champion"),
                "standing": standing(f, "standing"),
            },
        ),
    ),
    Declared(
        battle.DeployArmies,
        form=Form(
            "battle-deploy",
            "battles",
            N_("Deployment recorded."),
            lambda f, me: {"battle_id": text(f, "battle_id"), "power_id": me, "armies": words(f, "armies")},
        ),
    ),
    Declared(
        battle.CastBattleSpell,
        form=Form(
            "battle-spell",
            "battles",
            N_("Spellcasting recorded."),
            lambda f, me: {
                "battle_id": text(f, "battle_id"),
                "power_id": me,
                "spell_id": opt(f, "spell_id"),
                "target": opt(f, "target"),
                "pay": opt_words(f, "pay"),
            },
        ),
    ),
    Declared(
        battle.GiveCommand,
        form=Form(
            "battle-command",
            "battles",
            N_("Command given: the army is exhausted."),
            lambda f, me: {
                "battle_id": text(f, "battle_id"),
                "power_id": me,
                "army_id": text(f, "army_id"),
                "command": text(f, "command"),
                "target": opt(f, "target"),
                "goal": opt(f, "goal"),
                "special": opt(f, "special"),
                "options": words(f, "options"),
                "damage": opt(f, "damage"),
                "allocation": _units(f, "allocation"),
                "restore": opt_whole(f, "restore") or 0,
                "pass_to": opt(f, "pass_to"),
            },
        ),
    ),
    Declared(
        battle.OfferTerms,
        form=Form(
            "battle-terms",
            "battles",
            N_("Recorded."),
            lambda f, me: {"battle_id": text(f, "battle_id"), "power_id": me, "terms": opt(f, "terms")},
        ),
    ),
    Declared(
        battle.AnswerTerms,
        form=Form(
            "battle-answer",
            "battles",
            N_("Answer recorded."),
            lambda f, me: {"battle_id": text(f, "battle_id"), "power_id": me, "accept": flag(f, "accept")},
        ),
    ),
    Declared(
        battle.RetreatArmies,
        form=Form(
            "battle-retreat",
            "battles",
            N_("Cleanup recorded."),
            lambda f, me: {
                "battle_id": text(f, "battle_id"),
                "power_id": me,
                "retreat": words(f, "retreat"),
                "routs": routs(f, "routs"),
            },
        ),
    ),
    Declared(
        battle.SetBattleTerrain,
        form=Form(
            "battle-terrain",
            "battles",
            N_("Terrain and default set."),
            lambda f, me: {
                "battle_id": text(f, "battle_id"),
                "terrain": text(f, "terrain"),
                "effects": text(f, "effects"),
                "default": text(f, "default") or "hold",
            },
            gm=True,
        ),
    ),
    Declared(
        battle.SetBattleStatus,
        form=Form(
            "battle-status",
            "battles",
            N_("Status set."),
            lambda f, me: {
                "battle_id": text(f, "battle_id"),
                "army_id": text(f, "army_id"),
                "status": text(f, "status").strip().lower(),
                "stacks": whole(f, "stacks"),
                "reason": text(f, "reason"),
            },
            gm=True,
        ),
    ),
    # armies (P-ARMY-3..9, P-SUP-1..3)
    Declared(
        armies.AimArmyAction,
        form=Form(
            "aim-army",
            "armies",
            N_("Action aimed at armies."),
            lambda f, me: {"action_id": text(f, "action_id"), "kind": text(f, "kind"), "params": data(f, "params", {})},
        ),
    ),
    Declared(
        armies.RollLevelUp,
        form=Form(
            "roll-level-up",
            "armies",
            N_("Level-up rolled: choose its bonuses."),
            lambda f, me: {**_me(f, me), "army_id": text(f, "army_id")},
        ),
    ),
    Declared(
        armies.ChooseLevelUp,
        form=Form(
            "choose-level-up",
            "armies",
            N_("Level-up chosen."),
            lambda f, me: {
                **_me(f, me),
                "army_id": text(f, "army_id"),
                "choices": choices(f, "choices"),
                "new_class": opt(f, "new_class"),
            },
        ),
    ),
    Declared(
        armies.DiscardTrain,
        form=Form(
            "discard-train",
            "armies",
            N_("Level-up discarded; the Experience is refunded."),
            lambda f, me: {**_me(f, me), "army_id": text(f, "army_id")},
        ),
    ),
    Declared(
        armies.KeepScars,
        form=Form(
            "keep-scars",
            "armies",
            N_("Scars settled."),
            lambda f, me: {**_me(f, me), "army_id": text(f, "army_id"), "keep": text(f, "keep") != "heal"},
        ),
    ),
    Declared(
        armies.PayArmyFee,
        form=Form(
            "pay-army-fee",
            "armies",
            N_("Fee paid."),
            lambda f, me: {**_me(f, me), "army_id": text(f, "army_id"), "resource": text(f, "resource") or "coin"},
        ),
    ),
    Declared(
        armies.DisbandArmy,
        form=Form(
            "disband-army", "armies", N_("Army disbanded."), lambda f, me: {**_me(f, me), "army_id": text(f, "army_id")}
        ),
    ),
    Declared(
        armies.PaySupport,
        form=Form(
            "pay-support", "armies", N_("Support paid."), lambda f, me: {**_me(f, me), "changes": amounts(f, "changes")}
        ),
    ),
    # the GM's
    Declared(
        cc.RollDice,
        form=Form(
            "roll-dice",
            "gm-catalogue",
            N_("Rolled."),
            lambda f, me: {
                "dice": opt(f, "dice"),
                "purpose": opt(f, "purpose"),
                "power_id": opt(f, "power_id"),
                "params": data(f, "params", {}),
                "public": flag(f, "public"),
            },
            gm=True,
        ),
    ),
    Declared(
        cc.SetAssetTerms,
        form=Form(
            "set-asset-terms",
            "gm-catalogue",
            N_("Terms set."),
            lambda f, me: {"asset_id": text(f, "asset_id"), "terms": data(f, "terms", {})},
            gm=True,
        ),
    ),
    Declared(
        cc.ChangeQuotaPerk,
        form=Form(
            "change-quota-perk",
            "gm-catalogue",
            N_("Quota perk changed."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "perk": text(f, "perk"),
                "value": text(f, "value") != "off",
            },
            gm=True,
        ),
    ),
    Declared(
        cc.RecordLocation,
        form=Form(
            "record-location",
            "gm-catalogue",
            N_("Location recorded."),
            lambda f, me: {"power_id": text(f, "power_id"), "hex_id": text(f, "hex_id")},
            gm=True,
        ),
    ),
    Declared(
        cc.SetImmunity,
        form=Form(
            "set-immunity",
            "gm-catalogue",
            N_("Immunity recorded."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "immunity": text(f, "immunity"),
                "bypassed_by": words(f, "bypassed_by"),
            },
            gm=True,
        ),
    ),
    Declared(
        cc.DreadGrowth,
        form=Form(
            "dread-growth",
            "gm-catalogue",
            N_("The Dragon's army grew."),
            lambda f, me: {"power_id": text(f, "power_id"), "units": whole(f, "units")},
            gm=True,
        ),
    ),
    Declared(
        cc.RulePerTarget,
        form=Form(
            "rule-per-target",
            "gm-catalogue",
            N_("Ruled: each target's resistance reduces only its own share."),
            lambda f, me: {"action_id": text(f, "action_id")},
            gm=True,
        ),
    ),
    Declared(
        cc.ProposeShareConsequence,
        form=Form(
            "propose-share-consequence",
            "gm-catalogue",
            N_("Consequence offered to the collaborator."),
            lambda f, me: {
                "action_id": text(f, "action_id"),
                "power_id": text(f, "power_id"),
                "text": text(f, "text"),
                "effects": data(f, "effects", []),
            },
            gm=True,
        ),
    ),
    Declared(
        pc.ProposeReactionConsequence,
        form=Form(
            "propose-reaction-consequence",
            "gm-catalogue",
            N_("Consequence offered to the resister."),
            lambda f, me: {
                "reaction_id": text(f, "reaction_id"),
                "text": text(f, "text"),
                "effects": data(f, "effects", []),
            },
            gm=True,
        ),
    ),
    Declared(
        pc.HideFromResisters,
        form=Form(
            "hide-from-resisters",
            "gm-catalogue",
            N_("The resisters will not be shown these assets."),
            lambda f, me: {"action_id": text(f, "action_id"), "asset_ids": words(f, "asset_ids")},
            gm=True,
        ),
    ),
    Declared(
        armies.DefineArmyType,
        form=Form(
            "define-army-type",
            "gm-catalogue",
            N_("Army type defined."),
            lambda f, me: {"type_id": text(f, "type_id"), "block": data(f, "block", {})},
            gm=True,
        ),
    ),
    Declared(
        world.DeclareMap,
        form=Form(
            "declare-map",
            "gm-map",
            N_("Map declared."),
            lambda f, me: json_object(f, "map", ("hexes", "towns", "features")),
            gm=True,
        ),
    ),
    Declared(
        world.AmendMap,
        form=Form(
            "amend-map",
            "gm-map",
            N_("Map amended."),
            lambda f, me: json_object(f, "map", ("hexes", "towns", "features", "remove")),
            gm=True,
        ),
    ),
    Declared(
        world.RevealFeature,
        form=Form(
            "reveal-feature",
            "gm-map",
            N_("Feature shown to the power."),
            lambda f, me: {"feature_id": text(f, "feature_id"), "to": text(f, "to")},
            gm=True,
        ),
    ),
    Declared(
        world.SetClaim,
        form=Form(
            "set-claim",
            "gm-map",
            N_("Claim recorded."),
            lambda f, me: {"town_id": text(f, "town_id"), "power_id": text(f, "power_id"), "reason": text(f, "reason")},
            gm=True,
        ),
    ),
    Declared(
        world.DropClaim,
        form=Form(
            "drop-claim",
            "gm-map",
            N_("Claim dropped."),
            lambda f, me: {"town_id": text(f, "town_id"), "power_id": text(f, "power_id"), "reason": text(f, "reason")},
            gm=True,
        ),
    ),
    Declared(
        world.RuleSubtle,
        form=Form(
            "rule-subtle",
            "gm-map",
            N_("Ruled: the action targets inside the stronghold by subtle means."),
            lambda f, me: {
                "action_id": text(f, "action_id"),
                "feature_id": text(f, "feature_id"),
                "overcome": flag(f, "overcome"),
            },
            gm=True,
        ),
    ),
    Declared(
        world.SetMechanisms,
        form=Form(
            "set-mechanisms",
            "gm-map",
            N_("Mechanisms recorded."),
            lambda f, me: {"power_id": text(f, "power_id"), "mechanisms": words(f, "mechanisms")},
            gm=True,
        ),
    ),
    Declared(
        world.GenerateInfluence,
        form=Form(
            "generate-influence",
            "gm-map",
            N_("Influence generated."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "mechanism": text(f, "mechanism"),
                "hex_id": text(f, "hex_id"),
                "ranks": [_rank(r) for r in words(f, "ranks")],
            },
            gm=True,
        ),
    ),
    Declared(
        dev.AdjustResources,
        form=Form(
            "adjust-resources",
            "gm-wallets",
            N_("Wallet adjusted."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "changes": amounts(f, "changes"),
                "reason": text(f, "reason"),
            },
            gm=True,
        ),
    ),
    Declared(
        dev.AwardFame,
        form=Form(
            "award-fame",
            "gm-wallets",
            N_("Fame awarded."),
            lambda f, me: {"power_id": text(f, "power_id"), "amount": whole(f, "amount"), "reason": text(f, "reason")},
            gm=True,
        ),
    ),
    Declared(
        dev.AnswerQuestion,
        form=Form(
            "answer-question",
            "gm-wallets",
            N_("Answered."),
            lambda f, me: {"question_id": text(f, "question_id"), "answer": text(f, "answer")},
            gm=True,
        ),
    ),
    Declared(
        dev.GrantPerk,
        form=Form(
            "grant-perk",
            "gm-wallets",
            N_("Starting perk granted."),
            lambda f, me: {"power_id": text(f, "power_id"), "name": text(f, "name"), "detail": text(f, "detail")},
            gm=True,
        ),
    ),
    Declared(
        dev.DefinePerk,
        form=Form(
            "define-perk",
            "gm-wallets",
            N_("Perk defined."),
            lambda f, me: {
                "name": text(f, "name"),
                "group": text(f, "group"),
                "upgrade": flag(f, "upgrade"),
                "repeatable": flag(f, "repeatable"),
                "versus": opt(f, "versus"),
            },
            gm=True,
        ),
    ),
    Declared(
        dev.NerfPerk,
        form=Form(
            "nerf-perk",
            "gm-wallets",
            N_("Perk nerfed: the power chooses what to do."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "name": text(f, "name"),
                "detail": text(f, "detail"),
                "reason": text(f, "reason"),
            },
            gm=True,
        ),
    ),
    Declared(
        dev.CompleteTask,
        form=Form(
            "complete-task",
            "gm-ambitions",
            N_("Task done."),
            lambda f, me: {
                "ambition_id": text(f, "ambition_id"),
                "task_id": text(f, "task_id"),
                "fame": opt_whole(f, "fame"),
            },
            gm=True,
        ),
    ),
    Declared(
        dev.LoseTask,
        form=Form(
            "lose-task",
            "gm-ambitions",
            N_("Task lost."),
            lambda f, me: {
                "ambition_id": text(f, "ambition_id"),
                "task_id": text(f, "task_id"),
                "reason": text(f, "reason"),
            },
            gm=True,
        ),
    ),
    Declared(
        dev.OfferAmbition,
        form=Form(
            "offer-ambition",
            "gm-ambitions",
            N_("Ambition offered."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "name": text(f, "name"),
                "kind": text(f, "kind"),
                "fame": whole(f, "fame"),
                "required": whole(f, "required"),
                "tasks": tasks(f, "tasks"),
                "type": text(f, "type"),
                "reward": amounts(f, "reward"),
                "reward_text": text(f, "reward_text"),
                "compensation": amounts(f, "compensation"),
            },
            gm=True,
        ),
    ),
    Declared(
        magic.DefineSpell,
        form=Form(
            "define-spell",
            "gm-magic",
            N_("Spell defined."),
            lambda f, me: {
                "spell_id": text(f, "spell_id"),
                "name": text(f, "name"),
                "speed": text(f, "speed"),
                "cost": text(f, "cost"),
                "range": whole(f, "range") if text(f, "range").strip() else 0,
                "difficulty": opt_whole(f, "difficulty"),
                "power_specific": flag(f, "power_specific"),
                "permanent": {"yes": True, "no": False}.get(text(f, "permanent")),
                "for_power": opt(f, "for_power"),
            },
            gm=True,
        ),
    ),
    Declared(
        magic.TeachSpell,
        form=Form(
            "teach-spell",
            "gm-magic",
            N_("Spell taught."),
            lambda f, me: {"power_id": text(f, "power_id"), "spell_id": text(f, "spell_id")},
            gm=True,
        ),
    ),
    Declared(
        magic.GrantMana,
        form=Form(
            "grant-mana",
            "gm-magic",
            N_("Mana granted."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "element": text(f, "element"),
                "amount": whole(f, "amount"),
            },
            gm=True,
        ),
    ),
    Declared(
        magic.ChannelMana,
        form=Form(
            "channel-mana",
            "gm-magic",
            N_("Mana channelled into the action."),
            lambda f, me: {
                "action_id": text(f, "action_id"),
                "element": text(f, "element"),
                "amount": whole(f, "amount"),
            },
            gm=True,
        ),
    ),
    Declared(
        magic.GrantMagicPerk,
        form=Form(
            "grant-magic-perk",
            "gm-magic",
            N_("Magic perk granted."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "perk": text(f, "perk"),
                "element": opt(f, "element"),
                "spells": words(f, "spells"),
            },
            gm=True,
        ),
    ),
    Declared(
        magic.RemoveConduit,
        form=Form(
            "remove-conduit",
            "gm-magic",
            N_("Conduit removed."),
            lambda f, me: {"power_id": text(f, "power_id"), "conduit_id": text(f, "conduit_id")},
            gm=True,
        ),
    ),
    Declared(
        magic.DeclareDispel,
        form=Form(
            "declare-dispel",
            "gm-magic",
            N_("Dispel declared: the action's difficulty is the ritual's."),
            lambda f, me: {"action_id": text(f, "action_id"), "ritual": text(f, "ritual")},
            gm=True,
        ),
    ),
    Declared(
        magic.SetConduit,
        form=Form(
            "set-conduit",
            "gm-magic",
            N_("Conduit set."),
            lambda f, me: {
                "power_id": text(f, "power_id"),
                "name": text(f, "name"),
                "hex_id": text(f, "hex_id"),
                "kind": text(f, "kind") or "person",
                "tower": flag(f, "tower"),
                "capitol": flag(f, "capitol"),
            },
            gm=True,
        ),
    ),
)


def _any_command(f: dict, me: str, games: Any, game_id: str) -> Command:
    """The GM's catch-all: any command of the game's ruleset by name, its fields as a JSON object."""
    cls = command_class(games.get_game(game_id, for_update=False).ruleset, text(f, "command").strip())
    if issues_token(cls):
        raise RuleViolation(
            _("{command} issues a sign-in link: use its own form").format(command=cls.__name__), field="command"
        )
    args = data(f, "args", {})
    if not isinstance(args, dict):
        raise RuleViolation(_("args: a JSON object of the command's fields"), field="args")
    return build(cls, args)


def _gm_command(games: Any, game_id: str, caller: Caller, f: dict) -> Receipt:
    return games.run(caller, game_id, _any_command(f, caller.principal, games, game_id))


# The GM's catch-all form: any command by name (a form, not a command of its own).
GM_COMMAND = Form(
    "gm-command",
    "gm-command",
    lambda f: _("{command} recorded.").format(command=text(f, "command")),
    run=_gm_command,
    gm=True,
)
