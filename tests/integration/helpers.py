"""Small helpers shared by the integration tests."""

from __future__ import annotations


def bearer(token: str, key: str | None = None) -> dict:
    """The headers of a call with this token (and, if given, this ``Idempotency-Key``)."""
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers
