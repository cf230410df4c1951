"""Posts (issue 16): the threads a caller may read, their pages, posting, editing, hiding, read marks and
search. Writes are commands through the one service; reads come from the posts read models
(``projections.posts``). A thread the caller may not read is answered exactly as one that does not exist
(404, the same words), so nobody learns a private thread's existence from the API."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from api.deps import GamesDep, Principal, SenderDep
from api.routes.history import ProjectorDep, WaitFor, read_models_at
from api.schemas import (
    BODY,
    COMMAND,
    GAME_READ,
    LAGGING,
    EditPostRequest,
    HidePostRequest,
    Position,
    PostRequest,
    ReadMarkRequest,
    ReceiptPublic,
    ThreadRequest,
)
from domain.errors import NotFound
from domain.platform.commands import EditPost, HidePost, MakePost, OpenThread

router = APIRouter(prefix="/games/{game_id}", tags=["posts"], responses=GAME_READ)


def no_thread(thread_id: str) -> NotFound:
    shown = thread_id if len(thread_id) <= 64 else "?"
    return NotFound(f"no thread {shown!r} that you may read", field="thread_id")


@router.get("/threads")
def list_threads(game_id: str, games: GamesDep, projector: ProjectorDep, me: Principal) -> list[dict]:
    """The threads you may read, each with how many posts you have not read."""
    game = games.get_game(game_id, for_update=False)
    return projector.posts.threads(str(game.id), me, seats=sorted(game.seats) if me == "gm" else None)


@router.post("/threads", status_code=201, response_model=ReceiptPublic, responses=COMMAND)
async def open_thread(game_id: str, body: ThreadRequest, sender: SenderDep) -> dict:
    """Open a private thread with the seats named (the GM sees every thread)."""
    return await sender.run(game_id, OpenThread(list(body.seats), body.title))


@router.get("/threads/{thread_id}/posts", responses=LAGGING)
def thread_page(
    game_id: str,
    thread_id: str,
    request: Request,
    response: Response,
    games: GamesDep,
    projector: ProjectorDep,
    me: Principal,
    before: Position | None = None,
    after: Position | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    wait_for: WaitFor = None,
) -> list[dict]:
    """One page of a thread, oldest first: the newest posts, or those ``before`` or ``after`` a post's number;
    ``X-Next-Before`` / ``X-Next-After`` give where the next page starts."""
    read_models_at(request, response, game_id, me, wait_for)
    game = games.get_game(game_id, for_update=False)
    found = projector.posts.page(
        str(game.id),
        me,
        thread_id,
        before=before,
        after=after,
        limit=limit,
        show_earlier=bool(game.state.options.get("show_earlier_text")),
    )
    if found is None:
        raise no_thread(thread_id)
    posts, cursor = found
    if cursor is not None:
        response.headers["X-Next-After" if after is not None else "X-Next-Before"] = str(cursor)
    return posts


@router.post("/threads/{thread_id}/posts", status_code=201, response_model=ReceiptPublic, responses=COMMAND)
async def make_post(game_id: str, thread_id: str, body: PostRequest, sender: SenderDep) -> dict:
    """Post to a thread you may read; ``[roll 3d6]`` rolls the game's committed dice with the post; ``reply_to``:
    the post of this thread it answers (refused, naming ``reply_to``, if you cannot see it there)."""
    return await sender.run(game_id, MakePost(thread_id, body.text, body.tied_to, body.reply_to))


@router.put("/posts/{post_id}", response_model=ReceiptPublic, responses=COMMAND)
async def edit_post(game_id: str, post_id: str, body: EditPostRequest, sender: SenderDep) -> dict:
    """Rewrite your own post (readers see it was edited)."""
    return await sender.run(game_id, EditPost(post_id, body.text))


@router.post("/posts/{post_id}/hide", response_model=ReceiptPublic, responses=COMMAND)
async def hide_post(game_id: str, post_id: str, body: HidePostRequest, sender: SenderDep) -> dict:
    """GM (a host, where there is no GM): hide a post from the players, with a reason the audit keeps."""
    return await sender.run(game_id, HidePost(post_id, body.reason))


@router.post("/threads/{thread_id}/read", responses=BODY)
def mark_read(
    game_id: str,
    thread_id: str,
    games: GamesDep,
    projector: ProjectorDep,
    me: Principal,
    body: ReadMarkRequest,
) -> dict:
    """You have read the thread up to post ``seq`` (``{}``: the latest); the mark never moves back."""
    game = games.get_game(game_id, for_update=False)
    marked = projector.posts.mark_read(str(game.id), me, thread_id, body.seq)
    if marked is None:
        raise no_thread(thread_id)
    return {"thread_id": thread_id, "read_up_to": marked}


@router.get("/posts")
def tied_posts(
    game_id: str,
    games: GamesDep,
    projector: ProjectorDep,
    me: Principal,
    tied_to: Annotated[str, Query(min_length=3, max_length=128, pattern=r"^(phase|action|battle):.+$")],
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[dict]:
    """The posts tied to a phase, an action or a battle (``tied_to=action:<id>``), in the threads you may read."""
    game = games.get_game(game_id, for_update=False)
    return projector.posts.tied(str(game.id), me, tied_to, limit=limit)


@router.get("/search")
def search(
    game_id: str,
    games: GamesDep,
    projector: ProjectorDep,
    me: Principal,
    q: Annotated[str, Query(min_length=1, max_length=200)],
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[dict]:
    """Posts matching every word of ``q``, newest first, in the threads you may read."""
    game = games.get_game(game_id, for_update=False)
    return projector.posts.search(str(game.id), me, q, limit=limit)
