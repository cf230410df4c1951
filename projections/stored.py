"""The audit's payloads, read from the event store (issue 30).

The audit (``rm_audit``) keeps what it is searched and paged by (type, actor, phase, audience, who was shown it)
and points at the event store for the rest: an event's payload is read by its game and version, a key of the
store's own table, as the readers need it (a page at a time), instead of a copy of every event's JSON in the read
models (most of their size, and of a rebuild's writes). The payload read is the one the audit kept before: the
stored JSON as it is (when the store neither compresses nor encrypts it and the event's class is at the version
it was stored at), else the event decoded (upcast) and written as canonical JSON.

A few kinds are still kept in the row (``KEPT``: the windows', contacts' and posts' events), because SQL reads them
(the close-lag metrics, the webhooks' public windows, a fork's contacts, the chains of quoted replies); so is a sealed
event's ``{"sealed": true}``, whose payload is never read from the store for anyone.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import Any

from eventsourcing.utils import resolve_topic

from projections.gamestore import event_data

# PostMade: a reply names the post it answers there, and the chains of quotes are read in SQL (``posts.quote_facts``).
KEPT = frozenset({"WindowOpened", "DeadlineSet", "ExtensionGranted", "WindowClosed", "ContactSet", "PostMade"})
SEALED = '{"sealed":true}'
GAP = 8  # versions apart that one range read of the store still spans (the rest are read and left)


class Payloads:
    """Reads events' payloads (with their envelope, as the audit's ``data`` kept them) from a game store."""

    def __init__(self, games: Any) -> None:
        self.games = games
        self.raw_json = (
            getattr(games.mapper, "cipher", None) is None and getattr(games.mapper, "compressor", None) is None
        )
        self._versions: dict[str, int] = {}

    def class_version(self, topic: str) -> int:
        """The version the event class stored under ``topic`` is at now (the library's upcasting brings older
        shapes up to it)."""
        version = self._versions.get(topic)
        if version is None:
            version = self._versions[topic] = int(getattr(resolve_topic(topic), "class_version", 1))
        return version

    def parsed(self, stored: Any) -> dict:
        """A stored event's JSON as the audit kept it, parsed."""
        if self.raw_json and not stored.topic.endswith(".StateRestored"):
            d = json.loads(stored.state)
            if d.get("class_version", 1) >= self.class_version(stored.topic):
                return d
        from projections.projector import to_json

        return json.loads(to_json(event_data(self.games.mapper.to_domain_event(stored))))

    def of(self, game_id: str, rows: Iterable[tuple[int, str | None]]) -> dict[int, dict]:
        """Each row's payload with its envelope, by version: ``rows`` are (version, the audit row's ``data``),
        read from the store where ``data`` is NULL (a few range reads of the store's key, merged across gaps of
        at most ``GAP`` versions)."""
        out: dict[int, dict] = {}
        wanted: list[int] = []
        for version, data in rows:
            if data is not None:
                out[version] = json.loads(data)
            else:
                wanted.append(version)
        wanted.sort()
        want = set(wanted)
        key = uuid.UUID(str(game_id))
        i = 0
        while i < len(wanted):
            j = i
            while j + 1 < len(wanted) and wanted[j + 1] - wanted[j] <= GAP:
                j += 1
            for stored in self.games.recorder.select_events(key, gt=wanted[i] - 1, lte=wanted[j]):
                if stored.originator_version in want:
                    out[stored.originator_version] = self.parsed(stored)
            i = j + 1
        return out
