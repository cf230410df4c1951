"""The covenant game's commands, each declared once (``api.declare``) with the web form of its table
(``templates/table.html``) that sends it: each form builds the command for the signed-in seat and sends it through
``Games.run``, the same path as the JSON API (``POST /games/{id}/commands``) and mail. A field missing or
ill-formed refuses the form as a whole, naming it."""

from __future__ import annotations

from api.declare import Declared
from api.web.forms import Form, listed
from api.web.kit import integer
from domain.covenants import commands as cc
from domain.errors import RuleViolation
from domain.platform.i18n import N_, _


def _whole(f: dict, key: str) -> int:
    """A whole number the form gives; else refused naming the field."""
    value = integer(f.get(key))
    if value is None:
        text = _("{field} must be a whole number, not {value}").format(field=key, value=repr(str(f.get(key, ""))))
        raise RuleViolation(text, field=key)
    return value


def _filled(f: dict, key: str) -> str:
    """A text the form must give; else refused naming the field."""
    value = str(f.get(key, "")).strip()
    if not value:
        raise RuleViolation(_("fill in {field}").format(field=key), field=key)
    return value


def _mouse(f: dict) -> int:
    """The Mouse's change to the roll (A-GEN-1); none when the form leaves it out or at 0."""
    return _whole(f, "mouse") if str(f.get("mouse", "")).strip() not in ("", "0") else 0


def _allocation(f: dict) -> dict[str, int]:
    """``alloc:<card>`` fields: the damage each being takes (empty or 0: none)."""
    out = {}
    for key, value in f.items():
        if key.startswith("alloc:") and str(value).strip() not in ("", "0"):
            out[key[len("alloc:") :]] = _whole(f, key)
    return out


def _amounts(f: dict, side: str) -> dict[str, int]:
    """``give_gold``, ``get_vis`` ...: the amounts of a trade's side (empty: none)."""
    out = {}
    for what in ("gold", "vis", "provision"):
        if str(f.get(f"{side}_{what}", "")).strip() not in ("", "0"):
            out[what] = _whole(f, f"{side}_{what}")
    return out


def _yes(f: dict, key: str) -> bool:
    return str(f.get(key, "")).lower() in ("yes", "on", "true", "1")


DECLARED: tuple[Declared, ...] = (
    Declared(
        cc.Move,
        form=Form("move", "move", N_("Moved."), make=lambda f, me: cc.Move(me, _whole(f, "square")), whole=True),
    ),
    Declared(
        cc.Generate,
        form=Form("generate", "generate", N_("Generated."), make=lambda f, me: cc.Generate(me, _mouse(f)), whole=True),
    ),
    Declared(
        cc.Keep,
        form=Form(
            "keep",
            "keep",
            N_("Kept."),
            make=lambda f, me: cc.Keep(
                me, f["card_id"], f.get("attach_to") or None, f.get("art") or None, f.get("spell") or None
            ),
            whole=True,
        ),
    ),
    Declared(
        cc.Discard,
        form=Form("discard", "discard", N_("Discarded."), make=lambda f, me: cc.Discard(me, f["card_id"]), whole=True),
    ),
    Declared(cc.Pass, form=Form("pass", "pass", N_("Passed."), make=lambda f, me: cc.Pass(me), whole=True)),
    Declared(
        cc.DrawEvent,
        form=Form("draw", "draw", N_("Drew an event."), make=lambda f, me: cc.DrawEvent(me, _mouse(f)), whole=True),
    ),
    Declared(
        cc.Cast,
        form=Form(
            "cast",
            "cast",
            N_("Cast."),
            make=lambda f, me: cc.Cast(
                me,
                f["mage_id"],
                f["spell"],
                f["target"],
                _whole(f, "vis"),
                _yes(f, "mother_may_i"),
                listed(f, "more_targets[]"),
            ),
            whole=True,
        ),
    ),
    Declared(
        cc.UseMouse,
        form=Form(
            "mouse",
            "mouse",
            N_("Mouse used."),
            make=lambda f, me: cc.UseMouse(me, f["card_id"], _whole(f, "by")),
            whole=True,
        ),
    ),
    Declared(
        cc.DecideEvent,
        form=Form(
            "event",
            "event",
            N_("Event decided."),
            make=lambda f, me: cc.DecideEvent(me, f["choice"], f.get("target") or None, f.get("season") or None),
            whole=True,
        ),
    ),
    Declared(
        cc.TakeAction,
        form=Form(
            "action",
            "action",
            N_("Action taken."),
            make=lambda f, me: cc.TakeAction(me, f["action"], f.get("text", "")),
            whole=True,
        ),
    ),
    Declared(
        cc.RuleOnAction,
        form=Form(
            "rule",
            "rule",
            N_("Ruled."),
            make=lambda f, me: cc.RuleOnAction(_whole(f, "index"), _yes(f, "approved"), f.get("note", "")),
            whole=True,
        ),
    ),
    Declared(
        cc.OfferTrade,
        form=Form(
            "offer",
            "offer",
            N_("Trade offered."),
            make=lambda f, me: cc.OfferTrade(me, f["to"], _amounts(f, "give"), _amounts(f, "get")),
            whole=True,
        ),
    ),
    Declared(
        cc.AnswerTrade,
        form=Form(
            "trade",
            "trade",
            N_("Trade answered."),
            make=lambda f, me: cc.AnswerTrade(me, f["trade_id"], _yes(f, "accept")),
            whole=True,
        ),
    ),
    Declared(cc.PayTax, form=Form("tax", "tax", N_("Tax paid."), make=lambda f, me: cc.PayTax(me), whole=True)),
    Declared(
        cc.Investigate,
        form=Form(
            "investigate",
            "investigate",
            N_("Rolled for the Quaesitors."),
            make=lambda f, me: cc.Investigate(me),
            whole=True,
        ),
    ),
    Declared(
        cc.AttendTribunal,
        form=Form(
            "tribunal",
            "tribunal",
            N_("Unmarked by the Tribunal."),
            make=lambda f, me: cc.AttendTribunal(me),
            whole=True,
        ),
    ),
    Declared(
        cc.FaceHedgeMage,
        form=Form(
            "hedge",
            "hedge",
            N_("Hedge Mage answered."),
            make=lambda f, me: cc.FaceHedgeMage(me, f.get("give_up") or None),
            whole=True,
        ),
    ),
    Declared(
        cc.FaceBandits,
        form=Form(
            "bandits",
            "bandits",
            N_("Bandits answered."),
            make=lambda f, me: cc.FaceBandits(me, _yes(f, "fight"), _allocation(f) if _yes(f, "fight") else None),
            whole=True,
        ),
    ),
    Declared(
        cc.AnswerService,
        form=Form(
            "service",
            "service",
            N_("Service answered."),
            make=lambda f, me: cc.AnswerService(me, f.get("grogs") or None, _yes(f, "pay")),
            whole=True,
        ),
    ),
    Declared(cc.RollChaos, form=Form("chaos", "chaos", N_("Rolled."), make=lambda f, me: cc.RollChaos(me), whole=True)),
    Declared(
        cc.ChooseRival,
        form=Form("rival", "rival", N_("Rival chosen."), make=lambda f, me: cc.ChooseRival(me, f["rival"]), whole=True),
    ),
    Declared(
        cc.AvertBattle,
        form=Form("avert", "avert", N_("Answered."), make=lambda f, me: cc.AvertBattle(me, _yes(f, "pay")), whole=True),
    ),
    Declared(
        cc.AllocateDamage,
        form=Form(
            "allocate",
            "allocate",
            N_("Damage allocated."),
            make=lambda f, me: cc.AllocateDamage(me, _allocation(f), _yes(f, "pay_off")),
            whole=True,
        ),
    ),
    Declared(
        cc.ChoosePlagued,
        form=Form(
            "plague",
            "plague",
            N_("Plague answered."),
            make=lambda f, me: cc.ChoosePlagued(me, listed(f, "cards[]")),
            whole=True,
        ),
    ),
    Declared(
        cc.Heal,
        form=Form("heal", "heal", N_("Healed."), make=lambda f, me: cc.Heal(me, f["healer"], f["target"]), whole=True),
    ),
    Declared(
        cc.NoCounter,
        form=Form(
            "nocounter", "nocounter", N_("Confirmed: no counter."), make=lambda f, me: cc.NoCounter(me), whole=True
        ),
    ),
    Declared(
        cc.Challenge,
        form=Form(
            "challenge",
            "challenge",
            N_("Challenged."),
            make=lambda f, me: cc.Challenge(me, f["mage_id"], f["target_mage"]),
            whole=True,
        ),
    ),
    Declared(
        cc.Convert,
        form=Form(
            "convert",
            "convert",
            N_("Converted."),
            make=lambda f, me: cc.Convert(me, f["give"], _whole(f, "amount"), f["get"]),
            whole=True,
        ),
    ),
    Declared(
        cc.ChooseArt,
        form=Form(
            "art",
            "art",
            N_("Art chosen."),
            make=lambda f, me: cc.ChooseArt(me, f["challenge_id"], f["art"]),
            whole=True,
        ),
    ),
    Declared(
        cc.SealBid,
        form=Form(
            "bid",
            "bid",
            N_("Bid sealed."),
            make=lambda f, me: cc.SealBid(me, f["challenge_id"], _whole(f, "vis")),
            whole=True,
        ),
    ),
    Declared(
        cc.ResolveCertamen,
        form=Form(
            "resolve",
            "resolve",
            N_("Resolved."),
            make=lambda f, me: cc.ResolveCertamen(me, f["challenge_id"]),
            whole=True,
        ),
    ),
    Declared(
        cc.Forfeit,
        form=Form(
            "forfeit", "forfeit", N_("Forfeited."), make=lambda f, me: cc.Forfeit(me, f["challenge_id"]), whole=True
        ),
    ),
    Declared(
        cc.Support,
        form=Form(
            "support",
            "support",
            N_("Support allocated."),
            make=lambda f, me: cc.Support(me, listed(f, "starve[]"), _amounts(f, "keep")),
            whole=True,
        ),
    ),
    Declared(
        cc.AddCovenant,
        form=Form(
            "seat",
            "seat",
            N_("Covenant seated."),
            make=lambda f, me: cc.AddCovenant(
                _filled(f, "seat_id"),
                _filled(f, "name"),
                _filled(f, "covenant"),
                _yes(f, "host"),
                listed(f, "arts[]"),
                _whole(f, "score") if str(f.get("score", "")).strip() else 0,
            ),
            whole=True,
        ),
    ),
    Declared(
        cc.BeginGame,
        form=Form("begin", "begin", N_("The game has begun."), make=lambda f, me: cc.BeginGame(), whole=True),
    ),
)
