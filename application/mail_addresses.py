"""The addresses mail is answered to (README "Playing by email"): a seat's secret turn address, and a thread's
reply address. The workers write them into the mail they send; the intake (``api.mail_intake``) reads them."""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any
from urllib.parse import quote

ADDRESS = re.compile(r"^turns\+(?P<game>[0-9a-fA-F-]{36})\.(?P<token>[A-Za-z0-9_-]{16,128})@", re.IGNORECASE)


# A thread's reply address (issue 16): ``talk+<game>.<thread>.<seat>.<mac>@<domain>``, the mac an HMAC under the
# service's secret key of the game, thread, seat and the seat's current sign-in token hash, so that replacing the
# sign-in link replaces every thread address too, and nobody can make one up.
TALK = re.compile(
    r"^talk\+(?P<game>[0-9a-fA-F-]{36})\.(?P<thread>[^.@\s]{1,64})\.(?P<seat>[^.@\s]{1,64})\.(?P<mac>[0-9a-f]{24})@",
    re.IGNORECASE,
)


def thread_mac(secret: str, game_id: str, thread_id: str, seat: str, token_hash: str) -> str:
    """The proof in a thread's reply address that this service made it for this seat's current link."""
    what = f"talk:{game_id.lower()}:{thread_id}:{seat}:{token_hash}".encode()
    return hmac.new(secret.encode(), what, hashlib.sha256).hexdigest()[:24]


def talk_address(domain: str, secret: str, game: Any, seat: str, thread_id: str) -> str | None:
    """The address ``seat`` replies to, to post in ``thread_id`` (None: the seat has no sign-in link)."""
    hashes = sorted(h for h, p in game.state.credentials.items() if p == seat)
    if not hashes:
        return None
    return f"talk+{game.id}.{thread_id}.{seat}.{thread_mac(secret, str(game.id), thread_id, seat, hashes[0])}@{domain}"


def reply_address(domain: str, game_id: str, token: str) -> str:
    """The secret address a power (or the GM) sends turns to; the token in it says who is writing."""
    return f"turns+{game_id}.{token}@{domain}"


# A seat's board link in its mail (issue 28): ``<base>/signin/mail/<game>.<seat>.<mac>``, the mac an HMAC under the
# service's secret key of the game, the seat and the seat's current sign-in token hash, as a thread's reply address
# is: it opens that seat's board only, while the seat's link stands (replacing the link replaces it). Its secret part
# is redacted in every log (``projections.logs``: a /signin/<...>/ link), and it is never kept: the worker writes it
# into the mail as it sends it, so the ledger never holds it.
BOARD = re.compile(r"^(?P<game>[0-9a-fA-F-]{36})\.(?P<seat>[^/\s]{1,64})\.(?P<mac>[0-9a-f]{32})$")


def board_mac(secret: str, game_id: str, seat: str, token_hash: str) -> str:
    """The proof in a seat's board link that this service made it for this seat's current link."""
    what = f"board:{game_id.lower()}:{seat}:{token_hash}".encode()
    return hmac.new(secret.encode(), what, hashlib.sha256).hexdigest()[:32]


def board_link(base: str, secret: str, game: Any, seat: str) -> str | None:
    """The link that opens ``seat``'s board from its mail (None: the seat has no sign-in link)."""
    hashes = sorted(h for h, p in game.state.credentials.items() if p == seat)
    if not hashes:
        return None
    mac = board_mac(secret, str(game.id), seat, hashes[0])
    return f"{base.rstrip('/')}/signin/mail/{game.id}.{quote(seat, safe='')}.{mac}"


def board_holder(secret: str, game: Any, seat: str, mac: str) -> str | None:
    """The token hash of ``seat``'s current link if ``mac`` is the proof of a board link made for it, else None."""
    for token_hash in sorted(h for h, p in game.state.credentials.items() if p == seat):
        if hmac.compare_digest(board_mac(secret, str(game.id), seat, token_hash), mac.lower()):
            return token_hash
    return None
