"""The table talk in the browser (issue 16), for every ruleset: the threads a viewer may read with their
unread counts, a thread's page with its post form, and forms to open a private thread, edit one's post and
(GM, or a host where there is no GM) hide a post. Every form sends a platform command through
``Games.run``; every page reads the posts read models (``projections.posts``). A thread the viewer may not
read is answered as one that does not exist."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.schemas import Position
from api.security import web_session
from api.web.i18n import local_time
from api.web.kit import caller_for, flash, form_of, games_of, local_receipt, signed_in, templates, who
from domain.errors import DomainError, RuleViolation
from domain.platform.commands import EditPost, HidePost, MakePost, OpenThread
from domain.platform.i18n import _
from domain.platform.posts import (
    NO_DICE,
    check_post_text,
    dice_ready,
    mentions_of,
    replied_to,
    rolls_asked,
    would_mention,
)
from projections.render import to_html, with_mentions

router = APIRouter(include_in_schema=False)
PAGE = 30


def talk_summary(request: Request, game_id: str, me: str) -> dict[str, Any]:
    """What the board shows of the talk: the threads with unread posts, and their total."""
    games = games_of(request)
    game = games.get_game(game_id, for_update=False)
    threads = request.app.state.projector.posts.threads(
        str(game.id), me, seats=sorted(game.seats) if me == "gm" else None
    )
    for t in threads:
        t["names"] = [game.seats[m].name if m in game.seats else m for m in t["members"]]
        if t["kind"] == "desk" and t["names"]:
            t["title"] = _desk_title(t["names"][0], game.has_gm())
    return {"threads": threads, "unread": sum(t["unread"] for t in threads)}


def tied_posts(request: Request, context: dict[str, Any], ties: list[str]) -> dict[str, list[dict]]:
    """What a ruleset's board shows under its actions, battles and phases (``tied.html``): for each of ``ties``
    (``action:<id>``...) the posts tied to it in the threads the viewer may read, as the thread page shows them
    (sanitised HTML, author, time in the viewer's zone, a link to the post in its thread). One read for the
    page: the threads come from the board's talk box (``talk_summary``), the posts from one query."""
    me, game_id = context["me"], context["game_id"]
    games = games_of(request)
    game = games.get_game(game_id, for_update=False)
    found = request.app.state.projector.posts.tied_to_many(str(game.id), me, ties, context["talk"]["threads"])
    names = _names(request, game_id)
    zone = ZoneInfo(context.get("zone") or "UTC")
    for posts in found.values():
        annotate(game, names, posts, me)
        for p in posts:
            p["by"] = names.get(p["author"], p["author"])
            p["local"] = local_time(p["at"], zone)
            p["link"] = f"/play/{game_id}/talk/{p['thread_id']}?before={p['seq'] + 1}#post-{p['seq']}"
    return found


def placeholders(game: Any, names: dict[str, str], posts: list[dict]) -> None:
    """Name who hid each hidden post (``gm``, or the host's name) for its placeholder (``macros.hidden_note``)."""
    for p in posts:
        if p.get("hidden"):
            by = game.hidden_by(p["post_id"]) or "gm"
            p["hidden_by"] = "gm" if by == "gm" else names.get(by, _("a host"))


def annotate(game: Any, names: dict[str, str], posts: list[dict], me: str) -> None:
    """What a page adds to each post it shows (issue 28): a hidden post's placeholder; what a reply answers (its
    author by name, ``reply``); the seats it mentions highlighted by name in its text, and whether it mentions
    the viewer (``mentions_me``). A mention names only seats that read the thread (the post recorded them so)."""
    placeholders(game, names, posts)
    for p in posts:
        answered = replied_to(game.talk, p["post_id"])
        if answered:
            p["reply"] = {"post_id": answered[0], "by": names.get(answered[1], answered[1])}
        named = mentions_of(game.talk, p["post_id"])
        p["mentions_me"] = me in named and not p.get("hidden")
        if named and p.get("html"):
            p["html"] = with_mentions(p["html"], {s: names.get(s, s) for s in named})


def _desk_title(name: str, has_gm: bool) -> str:
    """A seat's desk thread is named for the seat and whoever rules the game (two phrases: a translator may need
    to write "the GM" and "the host" differently)."""
    return (_("{name} and the GM") if has_gm else _("{name} and the host")).format(name=name)


def _names(request: Request, game_id: str) -> dict[str, str]:
    game = games_of(request).get_game(game_id, for_update=False)
    return {"gm": "GM", **{pid: p.name for pid, p in game.seats.items()}}


@router.get("/play/{game_id}/talk", response_class=HTMLResponse)
def talk_page(request: Request, game_id: str, q: str | None = None) -> Response:
    """The threads you may read, with what is new in each; search; open a private thread."""
    me = signed_in(request, game_id)
    if isinstance(me, Response):
        return me
    games = games_of(request)
    key = str(games.get_game(game_id, for_update=False).id)
    names = _names(request, game_id)
    results = request.app.state.projector.posts.search(key, me, q[:200]) if q else None
    if results:
        annotate(games.get_game(game_id, for_update=False), names, results, me)
    return templates.TemplateResponse(
        request,
        "talk.html",
        {
            "game_id": game_id,
            "me": me,
            "names": names,
            "talk": talk_summary(request, game_id, me),
            "seats": [(pid, name) for pid, name in names.items() if pid not in ("gm", me)],
            "q": q or "",
            "results": results,
            "flash": local_receipt(web_session(request).pop("flash", None), ZoneInfo(games.timezone_for(game_id, me))),
        },
    )


@router.get("/play/{game_id}/talk/{thread_id}", response_class=HTMLResponse)
def thread_page(
    request: Request,
    game_id: str,
    thread_id: str,
    before: Position | None = None,
    tied_to: str | None = None,
    reply_to: str | None = None,
) -> Response:
    """One thread: a page of its posts (oldest first; older pages by ``before``) and the post form (``tied_to``:
    already tied to an action, a battle or a phase, from its "Discuss" link on the board; ``reply_to``: a post
    of this thread the viewer reads, quoted in the form from its "Reply" link, issue 28)."""
    draft = None
    me = signed_in(request, game_id)
    if reply_to and not isinstance(me, Response):
        key = str(games_of(request).get_game(game_id, for_update=False).id)
        quoted = request.app.state.projector.posts.one(key, me, reply_to[:128])
        if quoted and quoted["thread_id"] == thread_id and quoted["html"]:
            quote = "\n".join("> " + line for line in quoted["text"].splitlines())
            draft = {"text": quote + "\n\n", "reply_to": quoted["post_id"]}
    return _thread(request, game_id, thread_id, before, tied_to, draft)


@router.get("/play/{game_id}/talk/{thread_id}/posts/{post_id}")
def post_link(request: Request, game_id: str, thread_id: str, post_id: str) -> Response:
    """A post's own address (what a reply links to): the page of its thread that shows it."""
    me = signed_in(request, game_id)
    if isinstance(me, Response):
        return me
    key = str(games_of(request).get_game(game_id, for_update=False).id)
    found = request.app.state.projector.posts.one(key, me, post_id[:128])
    if found is None or found["thread_id"] != thread_id:
        return _thread(request, game_id, "", None, None)  # as for a thread the viewer may not read
    seq = found["seq"]
    return RedirectResponse(f"/play/{game_id}/talk/{thread_id}?before={seq + 1}#post-{seq}", status_code=303)


def preview_of(text: str, dice_ready: bool = True) -> dict[str, str]:
    """A draft as its post would show (issue 28): sanitised HTML, dice shown as asked (they roll when it is
    sent), or the rule it breaks (``dice_ready``: whether the game has committed its dice, else ``[roll ...]`` is
    refused as sending it would be). Records nothing."""
    try:
        checked = check_post_text(text)
        if rolls_asked(checked) and not dice_ready:
            raise RuleViolation(NO_DICE, field="text")
        return {"html": to_html(checked)}
    except DomainError as err:
        return {"error": err.message}


def _thread(
    request: Request,
    game_id: str,
    thread_id: str,
    before: int | None,
    tied_to: str | None,
    draft: dict[str, Any] | None = None,
) -> Response:
    me = signed_in(request, game_id)
    if isinstance(me, Response):
        return me
    games = games_of(request)
    game = games.get_game(game_id, for_update=False)
    posts = request.app.state.projector.posts
    key = str(game.id)
    found = posts.page(
        key,
        me,
        thread_id,
        before=before,
        limit=PAGE,
        show_earlier=bool(game.state.options.get("show_earlier_text")),
    )
    thread = posts.thread(key, me, thread_id)
    names = _names(request, game_id)
    if thread is not None:
        thread["names"] = [names.get(m, m) for m in thread["members"]]
        if thread["kind"] == "desk" and thread["names"]:
            thread["title"] = _desk_title(thread["names"][0], game.has_gm())
    if found is None or thread is None:
        return templates.TemplateResponse(
            request,
            "message.html",
            {"title": _("No such thread"), "text": _("There is no thread here you may read.")},
            404,
        )
    page, older = found
    if draft and draft.get("preview") is True:  # the draft as it would post, its mentions as the post would record
        draft["preview"] = preview_of(draft["text"], dice_ready(game.state))
        if draft["preview"].get("html"):
            named = would_mention(game.seats, me, game.thread(thread_id)["audience"], draft["text"])
            draft["preview"]["html"] = with_mentions(draft["preview"]["html"], {s: names.get(s, s) for s in named})
    zone = ZoneInfo(games.timezone_for(game_id, me))
    annotate(game, names, page, me)
    for p in page:
        p["local"] = local_time(p["at"], zone)  # issue 17: every time in the viewer's zone and language
    if page and before is None:
        posts.mark_read(key, me, thread_id, page[-1]["seq"])  # you have seen the newest page
    rules = me == "gm" if game.has_gm() else "host" in game.roles_of(me)
    may_post = not (me == "gm" and not game.has_gm()) and (thread["kind"] != "narration" or rules)
    return templates.TemplateResponse(
        request,
        "thread.html",
        {
            "game_id": game_id,
            "me": me,
            "names": names,
            "thread": thread,
            "posts": page,
            "older": older,
            "may_post": may_post,
            "may_hide": rules,
            "tied_to": (tied_to or "")[:128],
            "draft": draft or {},
            "talk": talk_summary(request, game_id, me),
            "flash": local_receipt(web_session(request).pop("flash", None), zone),
        },
    )


def _back(game_id: str, thread_id: str | None = None) -> RedirectResponse:
    return RedirectResponse(f"/play/{game_id}/talk" + (f"/{thread_id}" if thread_id else ""), status_code=303)


def _send(request: Request, game_id: str, form: str, build, ok: str, thread_id: str | None) -> Response:
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
        return _back(game_id, thread_id if err.status != 404 or err.field == "reply_to" else None)
    flash(
        request,
        kind="ok",
        form=form,
        text=ok,
        receipt={"sequence": receipt.sequence, "digest": receipt.digest, "at": receipt.recorded_at},
    )
    return _back(game_id, receipt.result.get("thread_id", thread_id))


@router.post("/play/{game_id}/talk/open")
async def open_thread(request: Request, game_id: str) -> Response:
    """Open a private thread with the seats ticked."""
    f = await form_of(request)
    seats = f.get("seats[]", [])
    seats = [seats] if isinstance(seats, str) else list(seats)
    return _send(
        request, game_id, "open", lambda: OpenThread(seats, str(f.get("title", ""))), _("Thread opened."), None
    )


@router.post("/play/{game_id}/talk/{thread_id}/post")
async def make_post(request: Request, game_id: str, thread_id: str) -> Response:
    """Post to this thread."""
    f = await form_of(request)
    tied = str(f.get("tied_to", "")).strip() or None
    text = str(f.get("text", ""))
    reply = str(f.get("reply_to", "")).strip() or None
    if f.get("preview"):  # "Preview": the page again with the draft shown as it would post, nothing recorded
        draft = {"text": text, "preview": True, "reply_to": reply}  # shown by ``_thread``, which reads the game
        return _thread(request, game_id, thread_id, None, tied, draft)
    return _send(request, game_id, "post", lambda: MakePost(thread_id, text, tied, reply), _("Posted."), thread_id)


@router.post("/play/{game_id}/talk/{thread_id}/edit/{post_id}")
async def edit_post(request: Request, game_id: str, thread_id: str, post_id: str) -> Response:
    """Rewrite your own post."""
    f = await form_of(request)
    return _send(request, game_id, "edit", lambda: EditPost(post_id, str(f.get("text", ""))), _("Edited."), thread_id)


@router.post("/play/{game_id}/talk/{thread_id}/hide/{post_id}")
async def hide_post(request: Request, game_id: str, thread_id: str, post_id: str) -> Response:
    """GM (a host, where there is no GM): hide a post, with a reason."""
    f = await form_of(request)
    return _send(request, game_id, "hide", lambda: HidePost(post_id, str(f.get("reason", ""))), _("Hidden."), thread_id)
