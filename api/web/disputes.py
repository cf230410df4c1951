"""Disputes in the browser (issue 29 item 4), for every ruleset: ``/play/{game}/disputes`` lists the disputes the
viewer may read (the event in their own numbering and in words, the answers and what each points at, the outcome),
with the forms to raise one (a seat; ``?seq=N`` from a feed line's "Dispute" link), answer and settle one (the GM, or
the hosts it was raised to) and withdraw one (its raiser). No script; every form sends a platform command through
``Games.run``, and a refusal is shown beside its form. The board's feed marks a disputed event (``marks``)."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.routes.disputes import disputes_seen
from api.schemas import Position
from api.security import web_session
from api.web.kit import caller_for, flash, form_of, games_of, integer, local_receipt, signed_in, templates, who
from domain.errors import DomainError
from domain.platform import feed as words_of
from domain.platform.commands import AnswerDispute, RaiseDispute, SettleDispute
from domain.platform.disputes import POINTS
from domain.platform.i18n import N_, _

router = APIRouter(include_in_schema=False)

OUTCOME_WORDS = {
    None: N_("open"),
    "upheld": N_("upheld"),
    "rejected": N_("rejected"),
    "withdrawn": N_("withdrawn"),
}
POINT_WORDS = {
    "derivation": N_("the derivation of the result (its Why? on the board)"),
    "preview": N_("a preview of the pending step"),
    "rollback": N_("a rollback to {phase}"),
    "replay": N_("a replay of the game under the changed rules"),
}
POINT_CHOICES = {
    "": N_("nothing"),
    "derivation": N_("the result's derivation"),
    "preview": N_("a preview"),
    "rollback": N_("a rollback"),
    "replay": N_("a rules replay"),
}


def outcome_words(outcome: str | None) -> str:
    return _(OUTCOME_WORDS.get(outcome, OUTCOME_WORDS[None]))


def capital(name: str) -> str:
    """A name at the start of a sentence ("the GM" -> "The GM"), the rest as it is."""
    return name[:1].upper() + name[1:]


def pointer_words(game: Any, points_at: str | None) -> str | None:
    """What an answer points at, in words (never the ids it names)."""
    if not points_at:
        return None
    kind, _sep, ref = points_at.partition(":")
    if kind == "rollback":
        return _(POINT_WORDS["rollback"]).format(phase=words_of.phase_title(game.ruleset, ref) or _("an earlier phase"))
    return _(POINT_WORDS[kind]) if kind in POINT_WORDS else None


def marks(projector: Any, game: Any, me: str) -> dict[int, dict[str, Any]]:
    """The viewer's own numbers of the events disputed in disputes they may read: number -> the dispute's anchor and
    its outcome in words (the feed marks those lines). The raiser's number is kept with the dispute; the GM's or a
    host's is read from the timelines, one lookup a dispute."""
    out: dict[int, dict[str, Any]] = {}
    key = str(game.id)
    for d in game.disputes_for(me):
        seq = d["seq"] if d["raiser"] == me else None
        if seq is None:
            version = projector.seen_version(key, d["raiser"], d["seq"])
            seq = projector.seq_of(key, me, version) if version is not None else None
        if seq is not None:
            out[seq] = {"anchor": f"dispute-{d['id']}", "outcome": outcome_words(d["outcome"])}
    return out


def audit_marks(projector: Any, game: Any) -> dict[int, dict[str, Any]]:
    """The versions of the disputed events (the GM's audit marks those rows): version -> anchor and outcome."""
    out: dict[int, dict[str, Any]] = {}
    for d in game.disputes_for("gm"):
        version = projector.seen_version(str(game.id), d["raiser"], d["seq"])
        if version is not None:
            out[version] = {"anchor": f"dispute-{d['id']}", "outcome": outcome_words(d["outcome"])}
    return out


@router.get("/play/{game_id}/disputes", response_class=HTMLResponse)
def disputes_page(request: Request, game_id: str, seq: Position | None = None) -> Response:
    """The disputes you may read, and the forms to raise, answer, settle or withdraw one."""
    me = signed_in(request, game_id)
    if isinstance(me, Response):
        return me
    games = games_of(request)
    game = games.get_game(game_id, for_update=False)
    names = {"gm": _("the GM"), **{pid: p.name for pid, p in game.seats.items()}}
    items = disputes_seen(games, request.app.state.projector, game_id, me)
    for d in items:
        d["outcome_words"] = outcome_words(d["outcome"])
        d["event_words"] = words_of.words(d["event"]["kind"])
        d["answers"] = [
            {**a, "by_name": capital(names.get(a["by"], a["by"])), "points": pointer_words(game, a["points_at"])}
            for a in d["answers"]
        ]
        d["anchor"] = f"dispute-{d['dispute_id']}"
    zone = ZoneInfo(games.timezone_for(game_id, me))
    return templates.TemplateResponse(
        request,
        "disputes.html",
        {
            "game_id": game_id,
            "me": me,
            "disputes": items,
            "seated": me in game.seats,
            "seq": seq,
            "point_choices": [(k, _(v)) for k, v in POINT_CHOICES.items()],
            "flash": local_receipt(web_session(request).pop("flash", None), zone),
        },
    )


def _send(request: Request, game_id: str, form: str, build: Any, ok: str) -> Response:
    games = games_of(request)
    try:
        me = who(request, game_id)
    except DomainError:
        return RedirectResponse(f"/play/{game_id}", status_code=303)
    caller = caller_for(request, game_id, me)
    try:
        receipt = games.run(caller, game_id, build())
    except DomainError as err:
        flash(request, kind="error", form=form, field=err.field, rule=err.rule, text=err.message)
        return RedirectResponse(f"/play/{game_id}/disputes#{form}", status_code=303)
    flash(
        request,
        kind="ok",
        form=form,
        text=ok,
        receipt={"sequence": receipt.sequence, "digest": receipt.digest, "at": receipt.recorded_at},
    )
    anchor = receipt.result.get("dispute_id")
    return RedirectResponse(f"/play/{game_id}/disputes" + (f"#dispute-{anchor}" if anchor else ""), status_code=303)


@router.post("/play/{game_id}/disputes/raise")
async def raise_dispute(request: Request, game_id: str) -> Response:
    """A seat disputes the event it numbers so in its feed."""
    f = await form_of(request)
    seq = integer(f.get("seq"), 0)
    text = str(f.get("text", ""))
    return _send(request, game_id, "raise", lambda: RaiseDispute(seq, text), _("Dispute raised."))


@router.post("/play/{game_id}/disputes/{dispute_id}/answer")
async def answer_dispute(request: Request, game_id: str, dispute_id: str) -> Response:
    """The GM (or a host it was raised to) answers, pointing at what settles it."""
    f = await form_of(request)
    kind = str(f.get("points", "")).strip()
    ref = str(f.get("reference", "")).strip()
    points = (f"{kind}:{ref}" if ref else kind) if kind in POINTS else (kind or None)
    text = str(f.get("text", ""))
    return _send(request, game_id, "answer", lambda: AnswerDispute(dispute_id[:128], text, points), _("Answer posted."))


@router.post("/play/{game_id}/disputes/{dispute_id}/settle")
async def settle_dispute(request: Request, game_id: str, dispute_id: str) -> Response:
    """Uphold, reject or withdraw a dispute, with a note."""
    f = await form_of(request)
    outcome, note = str(f.get("outcome", "")), str(f.get("note", ""))
    return _send(
        request, game_id, "settle", lambda: SettleDispute(dispute_id[:128], outcome, note), _("Dispute settled.")
    )


__all__ = ["marks", "router"]
