"""Small helpers shared by the integration tests."""

from __future__ import annotations


def bearer(token: str, key: str | None = None) -> dict:
    """The headers of a call with this token (and, if given, this ``Idempotency-Key``)."""
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


def close_app(app) -> None:
    """Close what ``api.app.create_app`` opened (``close_services``)."""
    close_services(app.state.games, app.state.projector)


def close_services(games, projector) -> None:
    """Close the read models' database (a connection pool on PostgreSQL) and the event store's connections,
    the store even if closing the read models fails."""
    try:
        projector.db.close()
    finally:
        games.close()
