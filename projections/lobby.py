"""The lobby's read model (issue 28 item 5): every seat a GM opened and chose to list, with its game's public facts.

A row holds only what anyone may know of a game: its name and ruleset, the seat's public name, and the terms the GM
wrote when opening it (a note, the pace, the language): all from public events (``SeatOpened`` is public; a seat's
name and the game's name are public), never a sheet, a link or an address. A fork is its keeper's sandbox and is
never listed. Rows are written by the projector, as each game stands after its last batch (a seat taken, closed or
rolled back leaves the lobby with it).
"""

from __future__ import annotations

from typing import Any

from projections.db import Cursor, ReadModelDB

PAGE = 50  # seats a page of the lobby lists


def flush_lobby(cur: Cursor, game_id: str, game: Any, ruleset: str, forked: bool) -> None:
    """The projector's part: this game's listed open seats, as the game now stands."""
    cur.execute("DELETE FROM rm_lobby WHERE game_id = ?", (game_id,))
    listed: dict[str, dict[str, str]] = {} if forked else game.listed_seats
    cur.executemany(
        "INSERT INTO rm_lobby (game_id, seat, game_name, ruleset, seat_name, note, pace, language) "
        "VALUES (?,?,?,?,?,?,?,?)",
        [
            (
                game_id,
                seat,
                game.state.name,
                ruleset,
                str(getattr(game.seats.get(seat), "name", "") or seat),
                terms["note"],
                terms["pace"],
                terms["language"],
            )
            for seat, terms in sorted(listed.items())
            if seat in game.seats
        ],
    )


def listed(
    db: ReadModelDB, *, ruleset: str = "", language: str = "", pace: str = "", after: str = ""
) -> list[dict[str, str]]:
    """A page of listed seats, by game name, filtered by ruleset, language and pace (each empty: any); ``after``:
    the last row's key of the page before (``game_id/seat``)."""
    where, params = ["1 = 1"], []
    for column, value in (("ruleset", ruleset), ("language", language), ("pace", pace)):
        if value:
            where.append(f"{column} = ?")
            params.append(value)
    if after:
        where.append("(game_id || '/' || seat) > ?")
        params.append(after)
    rows = db.query(
        "SELECT game_id, seat, game_name, ruleset, seat_name, note, pace, language FROM rm_lobby "
        f"WHERE {' AND '.join(where)} ORDER BY game_id, seat LIMIT ?",
        (*params, PAGE),
    )
    keys = ("game_id", "seat", "game_name", "ruleset", "seat_name", "note", "pace", "language")
    return [dict(zip(keys, r, strict=True)) for r in rows]


def seat_listed(db: ReadModelDB, game_id: str, seat: str) -> dict[str, str] | None:
    """One listed seat, or None."""
    rows = db.query(
        "SELECT game_id, seat, game_name, ruleset, seat_name, note, pace, language FROM rm_lobby "
        "WHERE game_id = ? AND seat = ?",
        (game_id, seat),
    )
    keys = ("game_id", "seat", "game_name", "ruleset", "seat_name", "note", "pace", "language")
    return dict(zip(keys, rows[0], strict=True)) if rows else None


def languages(db: ReadModelDB) -> list[str]:
    """The languages some listed seat is played in (the lobby's filter offers these)."""
    return [r[0] for r in db.query("SELECT DISTINCT language FROM rm_lobby WHERE language <> '' ORDER BY language")]
