"""An invitation's mail, queued by the projector from the event (issue 28 item 5), not by the request that sent it.

``InvitationSent`` queues one row in the mail ledger (the outbox: ``workers.mail`` sends it, framed as it goes by
``application.invitations.frame``, which writes the link: the ledger never keeps it) in the projector's transaction,
with the position it brings the read models to: the mail exists once the event does, whatever stops between the
command and the projector, and a projector that replays the event (a rebuild: the ledger is never dropped) finds
the row keyed by the event (game, version, recipient, kind) and adds nothing, so nothing is sent twice.
``InvitationWithdrawn`` withdraws the row while it is still unsent: a dead link is never mailed (and a row claimed
already is stopped as it is framed, ``application.invitations.Withdrawn``). A fork's copied events mail nobody.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

from projections.db import Cursor, utc_key

KIND = "invitation "  # a ledger row's kind: "invitation <id>" (``application.invitations.KIND``)
KINDS = frozenset({"InvitationSent", "InvitationWithdrawn"})
UNSENT = ("queued", "failed", "held")  # statuses of a row not yet sent


def recipient(invitation: str) -> str:
    """The ledger's recipient of an invitation's mail: the invitation, since the address holds no seat yet."""
    return f"invitation:{invitation}"


def project(cur: Cursor, kind: str, game_id: str, version: int, data: dict[str, Any], subject: str) -> None:
    """The projector's part: queue the mail of an invitation sent, withdraw the unsent mail of one withdrawn."""
    invitation = str(data["invitation"])
    if kind == "InvitationSent":
        now = datetime.now(timezone.utc)
        cur.execute(
            "INSERT INTO mail_ledger (id, game_id, version, recipient, address, kind, subject, body, status, "
            "created_at, due_at) VALUES (?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
            (
                uuid.uuid4().hex,
                game_id,
                version,
                recipient(invitation),
                str(data["email"]),
                f"{KIND}{invitation}",
                subject,
                "",
                "queued",
                now.isoformat(),
                utc_key(now),
            ),
        )
    elif kind == "InvitationWithdrawn":
        cur.execute(
            f"UPDATE mail_ledger SET status = 'withdrawn' WHERE game_id = ? AND recipient = ? AND kind = ? "
            f"AND status IN ({','.join('?' * len(UNSENT))})",
            (game_id, recipient(invitation), f"{KIND}{invitation}", *UNSENT),
        )
