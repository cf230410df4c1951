"""Reads while commands write, over real HTTP on one game (issue 24, item 8): a read never meets a command of
another request halfway (the shared cached game is brought up to date under the game's lock), so no read and no
command answers 500, and every write is recorded once."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import uvicorn

from api.app import create_app
from tests.integration.helpers import bearer, close_app
from tests.integration.topology import free_port

WRITERS = 4
POSTS = 25
READERS = 4


@pytest.fixture
def server(store_settings):
    """The real app under uvicorn on a loopback port, on each store."""
    app = create_app(store_settings)
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)
        close_app(app)


def test_reads_during_concurrent_posts_never_fail_and_every_post_is_recorded(server):
    with httpx.Client(base_url=server, timeout=60) as http:
        r = http.post("/games", json={"name": "Busy"})
        gid, gm = r.json()["game_id"], bearer(r.json()["gm_token"])
        tokens = [
            http.post(
                f"/games/{gid}/powers", headers=gm, json={"name": f"S{i}", "cls": "champion", "subclass": "dragon"}
            ).json()["token"]
            for i in range(WRITERS)
        ]
    writing = threading.Event()
    writing.set()

    def write(token: str) -> list[int]:
        with httpx.Client(base_url=server, timeout=60) as client:
            return [
                client.post(
                    f"/games/{gid}/threads/table/posts", headers=bearer(token), json={"text": f"word {n}"}
                ).status_code
                for n in range(POSTS)
            ]

    def read(token: str) -> list[int]:
        codes = []
        with httpx.Client(base_url=server, timeout=60) as client:
            while writing.is_set():
                for path in ("view", "threads", "threads/table/posts", "events"):
                    codes.append(client.get(f"/games/{gid}/{path}", headers=bearer(token)).status_code)
        return codes

    with ThreadPoolExecutor(WRITERS + READERS) as pool:
        readers = [pool.submit(read, tokens[i % WRITERS]) for i in range(READERS)]
        writers = [pool.submit(write, token) for token in tokens]
        written = [code for w in writers for code in w.result()]
        writing.clear()
        read_codes = [code for r in readers for code in r.result()]
    assert written == [201] * WRITERS * POSTS
    assert read_codes and [c for c in read_codes if c >= 500] == []
    with httpx.Client(base_url=server, timeout=60) as http:
        events = http.get(f"/games/{gid}/audit", headers=gm, params={"type": "PostMade", "limit": 500}).json()
    assert len(events) == WRITERS * POSTS
