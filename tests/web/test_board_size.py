"""Issue 17, "Checks": board HTML under 100 KB at any game length. Two long games (thousands of events, built
through the service and the domain as the bench builds them, ``tests.bench.played_game``), each past the
number of phases a board offers to look back at (``BOARD_PHASES``), are served to a player and to the GM:
the board and the console stay under 100 KB, and the longer game's pages are no bigger than the shorter's
(give or take a few hundred bytes of numbers), so nothing on them grows with the game's length: the feed
is paged, the phase choices are the latest ``BOARD_PHASES``, the history is the audit's."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.compose import build_games
from api.web.routes import BOARD_PHASES
from projections.settings import Settings
from tests.bench import played_game

LIMIT = 100_000
LENGTHS = (4_000, 6_000)


@pytest.fixture
def long_games(tmp_path):
    settings = Settings(data_dir=tmp_path, embedded_workers=False)
    builder = build_games(settings)
    try:
        built = {n: played_game(builder, n) for n in LENGTHS}
    finally:
        builder.close()
    app = create_app(settings)
    try:
        while app.state.projector.catch_up():
            pass
        yield app, built, app.state.games
    finally:
        app.state.projector.db.close()
        app.state.games.close()


def page_of(app, game_id: str, token: str) -> str:
    with TestClient(app) as client:
        assert client.get(f"/signin/{game_id}/{token}", follow_redirects=False).status_code == 303
        r = client.get(f"/play/{game_id}")
        assert r.status_code == 200, r.text[:500]
        return r.text


def test_the_board_and_the_console_stay_under_100_kb_at_any_game_length(long_games):
    app, built, games = long_games
    sizes = {}
    for n, (game_id, token, gm_token) in built.items():
        assert games.get_game(game_id, for_update=False).version >= n
        assert len(games.recent_phases(game_id, BOARD_PHASES + 1)) > BOARD_PHASES  # every bounded list is full
        board, console = page_of(app, game_id, token), page_of(app, game_id, gm_token)
        assert "GM console" in console and "GM console" not in board  # each page is the one it should be
        sizes[n] = {"player's board": len(board.encode()), "GM console": len(console.encode())}
    short, long = LENGTHS
    for page in ("player's board", "GM console"):
        assert sizes[short][page] < LIMIT and sizes[long][page] < LIMIT, sizes
        assert sizes[long][page] <= sizes[short][page] + 500, sizes  # flat: nothing grows with the length
