"""What an operator watches (issue 27, Observability): Prometheus metrics, and the same figures for ``emissary status``.

Two kinds of figure:

* Counters of what this process did: commands by ruleset and outcome, their latency, the saves that lost a race and
  the retries, rate-limit refusals. Each process counts its own; with several server processes (``serve --workers``)
  set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory shared by them and ``/metrics`` sums every process's counts
  (prometheus-client's multiprocess mode).
* Figures of the store, read from the database when they are asked for (``figures``), so they are right whichever
  process asks and however many run: the projector's lag in events, the outbox's depth and failures, the games a
  refused default blocks, and each closed window's close lag (seconds from its deadline to its close).
"""

from __future__ import annotations

import contextvars
import functools
import json
import os
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any, TypeVar

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from domain.errors import Conflict, DomainError
from projections.db import utc_key

__all__ = ["CONTENT_TYPE_LATEST", "counted", "exposition", "figures", "rate_limited", "retried", "seen"]

F = TypeVar("F", bound=Callable[..., Any])

COMMANDS = Counter(
    "emissary_commands",
    "Commands run (one transaction each), by ruleset and outcome: accepted, replayed (a repeat of a key already "
    "recorded), refused (a rule, a field, a role), conflict (409: raced, or busy through every retry), error",
    ["ruleset", "outcome"],
)
LATENCY = Histogram(
    "emissary_command_seconds",
    "Time to run a command: load, decide, save (retries included)",
    ["ruleset"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
CONFLICTS = Counter("emissary_command_conflicts", "Saves that lost a race with another process (each one retried)")
RETRIES = Counter(
    "emissary_command_retries",
    "Commands run again: after a conflicting save (conflict), or refused on cached state and tried on fresh (stale)",
    ["reason"],
)
RATE_LIMITED = Counter("emissary_rate_limit_refusals", "Requests refused 429 by a rate limit, by limit", ["limit"])

# The ruleset of the game the current command runs on (``seen``), read when the command ends (``counted``).
_RULESET: contextvars.ContextVar[str] = contextvars.ContextVar("emissary_metrics_ruleset", default="none")

# Close lag buckets, in seconds: a sweep every few seconds, a worker down for minutes or hours.
CLOSE_LAG_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 21600.0, 86400.0)


def counted(run: F) -> F:
    """Count every call of the service's command path (``Games._run``): its outcome and its latency, by ruleset."""

    @functools.wraps(run)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = _RULESET.set("none")
        started = time.perf_counter()
        outcome = "error"
        try:
            receipt = run(*args, **kwargs)
            outcome = "replayed" if getattr(receipt, "replayed", False) else "accepted"
            return receipt
        except Conflict:
            outcome = "conflict"
            raise
        except DomainError:
            outcome = "refused"
            raise
        finally:
            ruleset = _RULESET.get()
            _RULESET.reset(token)
            COMMANDS.labels(ruleset, outcome).inc()
            LATENCY.labels(ruleset).observe(time.perf_counter() - started)

    return wrapper  # type: ignore[return-value]


def seen(game: Any) -> None:
    """The command being counted runs on this game (its ruleset labels the count)."""
    _RULESET.set(str(getattr(game.state, "ruleset", None) or "none"))


def retried(reason: str) -> None:
    """A command is run again (``conflict``: its save lost a race; ``stale``: refused on cached state)."""
    if reason == "conflict":
        CONFLICTS.inc()
    RETRIES.labels(reason).inc()


def rate_limited(limit: str) -> None:
    RATE_LIMITED.labels(limit).inc()


# ---------------------------------------------------------------------------------------------- the store's figures


def _seconds(later: str, earlier: str) -> float:
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()


def _query(db: Any, sql: str, params: tuple = ()) -> list[tuple] | None:
    """Rows, or None where the table is not there (a store the migrations have not reached)."""
    try:
        return db.query(sql, params)
    except Exception:  # noqa: BLE001 - a missing table reads as "not known", never as a failed scrape
        return None


def figures(projector: Any) -> dict[str, Any]:
    """The store's figures now, read from the database (any process may ask; all see the same):

    ``projector_lag_events``, ``outbox_depth`` (mail to send: not yet handed to a worker, queued or sending),
    ``outbox_failed`` (given up after every attempt), ``outbox_retrying`` (queued again after a failed attempt),
    ``blocked_games`` (games whose latest event is a block on closing a window), ``open_windows``,
    ``overdue_windows`` (open past their deadline), and ``close_lag``: for each closed window, by how it closed, the
    seconds from its deadline to its close (0 when it closed early)."""
    db = projector.db
    out: dict[str, Any] = {"projector_lag_events": projector.lag()}
    pending = _query(
        db,
        "SELECT COUNT(*) FROM rm_outbox o WHERE NOT EXISTS (SELECT 1 FROM mail_ledger m WHERE m.game_id = o.game_id "
        "AND m.version = o.version AND m.recipient = o.recipient AND m.kind = o.kind)",
    )
    if pending is None:  # no ledger yet: every outbox row is still to send
        pending = db.query("SELECT COUNT(*) FROM rm_outbox")
    ledger = _query(db, "SELECT status, attempts > 0, COUNT(*) FROM mail_ledger GROUP BY status, attempts > 0") or []
    by_status: dict[str, int] = {}
    retrying = 0
    for status, tried, n in ledger:
        by_status[status] = by_status.get(status, 0) + n
        if status == "queued" and tried:
            retrying += n
    out["outbox_depth"] = pending[0][0] + by_status.get("queued", 0) + by_status.get("sending", 0)
    out["outbox_failed"] = by_status.get("failed", 0)
    out["outbox_retrying"] = retrying
    out["outbox_sent"] = by_status.get("sent", 0)
    out["blocked_games"] = db.query(
        "SELECT COUNT(*) FROM rm_audit a WHERE a.type = 'GameBlocked' AND a.superseded_by IS NULL "
        "AND a.version = (SELECT MAX(b.version) FROM rm_audit b WHERE b.game_id = a.game_id)"
    )[0][0]
    now = datetime.now(timezone.utc).isoformat()
    for name, sql in (
        ("open_windows", "SELECT COUNT(*) FROM rm_windows WHERE closed = 0"),
        ("overdue_windows", "SELECT COUNT(*) FROM rm_windows WHERE closed = 0 AND closes_at < ?"),
    ):
        out[name] = db.query(sql, (utc_key(now),) if "?" in sql else ())[0][0]
    out["close_lag"] = close_lags(db)
    return out


def close_lags(db: Any) -> dict[str, list[float]]:
    """Each closed window's close lag in seconds (from its last deadline, extensions included, to its close; 0 when
    it closed before it), sorted, by how it closed: ``deadline`` (the sweep) or ``early`` (everyone acted, the GM
    moved on). Folded from the window events the audit keeps (the state forgets a month's windows when it ends)."""
    deadlines: dict[tuple[str, str], list[str]] = {}
    lags: dict[str, list[float]] = {}
    for game_id, kind, at, data in db.query(
        "SELECT game_id, type, at, data FROM rm_audit WHERE type IN ('WindowOpened', 'DeadlineSet', "
        "'ExtensionGranted', 'WindowClosed') AND superseded_by IS NULL ORDER BY game_id, version"
    ):
        d = json.loads(data)
        key = (game_id, d.get("window_id", ""))
        if kind == "WindowOpened":
            deadlines[key] = [d["closes_at"]]
        elif kind == "DeadlineSet" and key in deadlines:
            deadlines[key][0] = d["closes_at"]
        elif kind == "ExtensionGranted" and key in deadlines:
            deadlines[key].append(d["until"])
        elif kind == "WindowClosed" and key in deadlines:
            final = max(deadlines.pop(key), key=datetime.fromisoformat)
            how = "deadline" if d.get("reason") == "deadline" else "early"
            lags.setdefault(how, []).append(max(0.0, _seconds(d.get("closed_at") or at, final)))
    return {how: sorted(values) for how, values in sorted(lags.items())}


class StoreCollector(Collector):
    """The store's figures as Prometheus gauges and a close-lag histogram, read at every scrape."""

    def __init__(self, projector: Any) -> None:
        self.projector = projector

    def collect(self) -> Iterator[Metric]:
        f = figures(self.projector)
        for name, text in (
            ("projector_lag_events", "Events the read models are behind the event store"),
            ("outbox_depth", "Mail to send: not yet handed to a worker, queued or being sent"),
            ("outbox_failed", "Mail given up after every attempt"),
            ("outbox_retrying", "Mail queued again after a failed attempt"),
            ("blocked_games", "Games whose latest event is a block: a window's default refused by a rule"),
            ("open_windows", "Windows open now"),
            ("overdue_windows", "Windows open past their deadline (the sweep has not closed them yet)"),
        ):
            yield GaugeMetricFamily(f"emissary_{name}", text, value=f[name])
        lag = HistogramMetricFamily(
            "emissary_window_close_lag_seconds",
            "Seconds from a closed window's deadline (its last extension's) to its close (0: closed early), by how "
            "it closed",
            labels=["reason"],
        )
        for reason, values in f["close_lag"].items():
            buckets = [(str(b), sum(1 for v in values if v <= b)) for b in CLOSE_LAG_BUCKETS]
            lag.add_metric([reason], [*buckets, ("+Inf", len(values))], sum(values))
        yield lag


def exposition(projector: Any) -> bytes:
    """The text Prometheus scrapes: this process's counters (every process's, in multiprocess mode), then the
    store's figures."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        counters = CollectorRegistry()
        multiprocess.MultiProcessCollector(counters)
    else:
        counters = REGISTRY
    store = CollectorRegistry(auto_describe=False)
    store.register(StoreCollector(projector))
    return generate_latest(counters) + generate_latest(store)


def scraped(text: str) -> dict[str, Any]:
    """The counters of a ``/metrics`` page (``emissary status`` reads a running API's): commands by ruleset and
    outcome, the count and mean of their latency, conflicts, retries by reason and rate-limit refusals by limit."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, Any] = {"commands": {}, "retries": {}, "rate_limit_refusals": {}, "conflicts": 0}
    seconds = count = 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "emissary_commands_total":
                by = out["commands"].setdefault(s.labels["ruleset"], {})
                by[s.labels["outcome"]] = by.get(s.labels["outcome"], 0) + int(s.value)
            elif s.name == "emissary_command_seconds_sum":
                seconds += s.value
            elif s.name == "emissary_command_seconds_count":
                count += s.value
            elif s.name == "emissary_command_conflicts_total":
                out["conflicts"] += int(s.value)
            elif s.name == "emissary_command_retries_total":
                out["retries"][s.labels["reason"]] = int(s.value)
            elif s.name == "emissary_rate_limit_refusals_total":
                out["rate_limit_refusals"][s.labels["limit"]] = int(s.value)
    out["command_mean_ms"] = round(1000 * seconds / count, 1) if count else None
    return out
