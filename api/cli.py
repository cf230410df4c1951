"""The ``emissary`` command line: ``serve`` (the API), the other services, ``migrate``, ``health`` and tools."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a command runs: `emissary health` loads only what its check needs (issue 27)
    from projections.settings import Settings

log = logging.getLogger("emissary.cli")


def _settings() -> Settings:
    from projections.settings import Settings

    return Settings()


def _logging() -> Settings:
    """A service's logging, configured first thing: at the settings' level, every secret redacted (issue 24)."""
    from projections import logs

    settings = _settings()
    logs.configure(settings.log_level)
    return settings


def serve(args: argparse.Namespace) -> int:
    """Run the API with uvicorn on the configured host and port."""
    import uvicorn

    from api.app import create_app

    settings = _logging()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    host = args.host or settings.host
    port = args.port or settings.port
    store = "PostgreSQL" if settings.is_postgres else (settings.database_url or f"SQLite in {settings.data_dir}/")
    log.info("Emissary on http://%s:%s  (API docs at /docs; store: %s)", host, port, store)
    if args.workers > 1:
        # Several processes: each builds its own app (and cache); the store's optimistic concurrency
        # keeps them consistent, and a command that raced another process is retried.
        from workers import lifeline

        os.environ[lifeline.PARENT] = str(os.getpid())  # each ends with this process (served_app)
        uvicorn.run(
            "api.cli:served_app",
            factory=True,
            host=host,
            port=port,
            workers=args.workers,
            log_level=settings.log_level.lower(),
            log_config=None,  # uvicorn's loggers reach ours: JSON lines, from its first line (issue 27)
            access_log=args.access_log,
        )
        # uvicorn stopped and waited for its server processes; the helper their start needed goes too (issue 27)
        from multiprocessing import resource_tracker

        getattr(resource_tracker._resource_tracker, "_stop", lambda: None)()
    else:
        uvicorn.run(
            create_app(settings, embedded_workers=True),
            host=host,
            port=port,
            log_level=settings.log_level.lower(),
            log_config=None,  # uvicorn's loggers reach ours: JSON lines, from its first line (issue 27)
            access_log=args.access_log,
        )
    return 0


def served_app() -> object:
    """The app of one of ``serve --workers N``'s server processes, which ends when ``serve`` does (issue 27)."""
    from api.app import create_served_app
    from workers import lifeline

    lifeline.bind(parent=int(os.environ.pop(lifeline.PARENT, 0)) or None)
    return create_served_app()


def demo(args: argparse.Namespace) -> int:
    """Play the scripted demo of a ruleset (by default the first that has one: Powers, one month, or with
    ``--long`` (or its first name ``--season``) a whole season of its map, wallets, development, magic and class
    actions; the covenant game: one year) on a throwaway in-memory game and print what happened."""
    from api import rulesets

    if args.ruleset is None:
        demos = rulesets.parts("demo")
    elif args.ruleset in rulesets.API_PACKAGES:
        demos = [m for m in [rulesets.part(args.ruleset, "demo")] if m is not None]
    else:
        print(f"no ruleset {args.ruleset!r} here; there are: {', '.join(rulesets.API_PACKAGES)}")
        return 1
    if args.long:
        demos = [d for d in demos if hasattr(d, "play_demo_long")]
    if not demos:
        print("no ruleset here has that demo")
        return 1
    if args.long:
        demos[0].play_demo_long(print)
        return 0
    demos[0].play_demo(print)  # every ruleset's demo module offers play_demo (api.rulesets)
    return 0


def projections_cmd(args: argparse.Namespace) -> int:
    """Rebuild every read model from event 1, or catch up."""
    from api.compose import build_games, build_projector

    settings = _settings()
    games = build_games(settings)
    projector = build_projector(games, settings)
    if args.action == "rebuild":
        n = projector.rebuild()
        print(f"rebuilt the read models from {n} events")
    else:
        n = projector.catch_up()
        print(f"applied {n} events; {projector.lag()} behind")
    return 0


def audit_cmd(args: argparse.Namespace) -> int:
    """Print a game's GM audit log (operators: reads the store directly)."""
    from fastapi import Response

    from api.compose import build_games, build_projector
    from api.routes.history import render_rows

    settings = _settings()
    games = build_games(settings)
    projector = build_projector(games, settings)
    projector.catch_up()
    game_id = str(games.get_game(args.game_id, for_update=False).id)
    rows = projector.audit(game_id, seat=args.seat, phase=args.phase, event_type=args.type, actor=args.actor)
    out = render_rows(rows, args.format if args.format != "json" else "jsonl")
    assert isinstance(out, Response), "JSON Lines and CSV come as a response"
    sys.stdout.write(bytes(out.body).decode())
    return 0


def verify_cmd(args: argparse.Namespace) -> int:
    """Verify an export (JSON Lines of the events you were shown) with the checks of the ruleset its first event
    names; exit 1 on any mismatch, 2 if it is malformed or names a ruleset not installed here."""
    import json

    from domain.platform.verify import InvalidExport, parse_export, verify_export

    with open(args.export, "rb") as fh:
        raw = fh.read()
    try:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InvalidExport(f"the export is not UTF-8 text (byte {err.start})", line=None, field="body") from None
        _register_for(text)
        report = verify_export(parse_export(text))
    except InvalidExport as err:
        print(json.dumps(err.as_dict(), indent=2))
        return 2
    print(json.dumps(report.as_dict(), indent=2))
    return 0 if report.ok else 1


def _register_for(export: str) -> None:
    """Register the ruleset the export's first line names, its plugin alone if it is not registered already (the
    platform's verifier then loads no other ruleset's code); every installed one if it names none, or one not
    installed."""
    import json

    from domain.platform import plugin
    from domain.platform import ruleset as registry
    from domain.platform.verify import ruleset_of

    first = next((line for line in export.splitlines() if line.strip()), "")
    try:
        named = ruleset_of(json.loads(first))
    except (ValueError, RecursionError):
        named = None  # not JSON: parse_export says where
    if named not in registry.names() and (named is None or plugin.load(named) is None):
        import domain.rulesets  # noqa: F401  (registers the installed rulesets)


def projector_cmd(args: argparse.Namespace) -> int:
    """The projection runner: ``--run`` alone, or (default) under its watchdog; ``--check`` for health checks."""
    settings = _logging()
    if args.check:
        from workers import health

        position, head = health.lag(settings)
        print(f"position={position} head={head} behind={head - position}")
        return 0 if head - position <= args.max_lag else 1
    from workers import lifeline, projection_runner

    if args.run:
        if parent := os.environ.pop(lifeline.PARENT, None):  # the watchdog's child: it ends with it (issue 27)
            lifeline.bind(parent=int(parent))
        projection_runner.run(settings)
    else:
        os.environ[lifeline.PARENT] = str(os.getpid())
        projection_runner.Watchdog(settings).run()
    return 0


def celery_cmd(args: argparse.Namespace) -> int:
    """Run the Celery worker or beat for this app, restarted if it dies (what deploy/ starts)."""
    from workers.supervisor import supervise

    level = _logging().log_level
    # Celery logs as every service does, JSON lines (workers.celery_main); --quiet: no banner; what it still writes
    # past its logging (its shutdown notices) the supervisor writes as JSON lines too (issue 27)
    argv = [sys.executable, "-m", "celery", "-A", "workers.celery_main:celery_app", "--quiet", args.role]
    argv += ["--loglevel", level]
    if args.role == "worker":
        argv += ["--queues", "emissary", "--concurrency", str(args.concurrency), "--without-mingle", "--without-gossip"]
    else:  # the scheduler touches <schedule>.heartbeat at every tick, for `emissary health beat`
        argv += ["--schedule", args.schedule, "--scheduler", "workers.scheduler:HeartbeatScheduler"]
    return supervise(argv, json_lines=True)


def smtpd_cmd(args: argparse.Namespace) -> int:
    """The SMTP server for turns by email."""
    import time

    from api import smtpd

    settings = _logging()
    controller = smtpd.start(settings, args.host, args.port)
    log.info("Emissary smtpd on %s:%s for turns+...@%s", controller.hostname, controller.port, settings.mail_domain)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        controller.stop()
    return 0


def migrate_cmd(args: argparse.Namespace) -> int:
    """Create the event store's tables and the read models, and apply the schema revisions (idempotent).
    Production processes create nothing themselves: deploy/ runs this once before they start."""
    from projections import migrations

    applied: list[str] = []
    revisions = migrations.migrate(_logging(), applied)
    print(f"applied {', '.join(applied)}" if applied else "already up to date: nothing applied", flush=True)
    print(f"schema at revision {', '.join(revisions)} (latest: {', '.join(migrations.heads())})", flush=True)
    return 0 if revisions == migrations.heads() else 1


def vapid_cmd(args: argparse.Namespace) -> int:
    """Push's VAPID key (issue 31): ``--new`` prints a new private key for EMISSARY_VAPID_PRIVATE_KEY (kept
    nowhere); else the public key of the one in use (the setting's, or the data directory's, made if missing)."""
    from application import push
    from projections.settings import Settings

    if args.new:
        print(push.new_private_key(), flush=True)
        return 0
    print(push.public_key(push.vapid(Settings())), flush=True)
    return 0


def backup_cmd(args: argparse.Namespace) -> int:
    """Back up the configured store (PostgreSQL: pg_dump; SQLite: its online backup) with a manifest."""
    from application import backup

    try:
        manifest = backup.backup(_logging(), Path(args.file))
    except backup.BackupError as err:
        print(f"backup failed: {err}", file=sys.stderr)
        return 1
    events = sum(g["events"] for g in manifest["games"].values())
    print(f"backed up {len(manifest['games'])} games ({events} events) to {args.file}", flush=True)
    return 0


def restore_cmd(args: argparse.Namespace) -> int:
    """Restore a backup into an empty store (or, with --force, over what is there), migrate, rebuild the reads."""
    from application import backup

    try:
        manifest = backup.restore(_logging(), Path(args.file), force=args.force)
    except backup.BackupError as err:
        print(f"restore refused: {err}", file=sys.stderr)
        return 1
    done = manifest["restored"]
    print(
        f"restored {len(manifest['games'])} games from {args.file} (made {manifest['created_at']}); schema at "
        f"{', '.join(done['migration_heads'])}; read models rebuilt from {done['events']} events",
        flush=True,
    )
    return 0


def health_cmd(args: argparse.Namespace) -> int:
    """Health checks, one per service, each probing only its own process and importing only what it checks
    (workers.health): exit 0 if healthy."""
    from workers import health

    if args.service == "api":
        problem = health.api(args.url or f"http://127.0.0.1:{_settings().port}/health", args.timeout)
    elif args.service == "worker":  # this container's node only
        import socket

        problem = health.worker(args.node or f"celery@{socket.gethostname()}", args.timeout)
    elif args.service == "beat":
        problem = health.beat(_settings(), args.schedule, args.max_age)
    elif args.service == "projector":
        problem = health.projector(_settings(), args.max_lag, args.max_age)
    else:
        problem = health.smtpd(args.host or "127.0.0.1", args.port or _settings().smtpd_port, args.timeout)
    print(f"{args.service}: {problem or 'ok'}", flush=True)
    return 1 if problem else 0


def status_cmd(args: argparse.Namespace) -> int:
    """What an operator watches (issue 27): the store's figures (the projector's lag, the outbox, blocked games, the
    windows and their close lag), read from the database, and the running API's counters from its /metrics."""
    import json
    import urllib.request

    from api.compose import build_games, build_projector
    from application import metrics

    settings = _settings()
    games = build_games(settings)
    try:
        shown: dict = metrics.figures(build_projector(games, settings))
    finally:
        games.close()
    url = args.url or f"http://127.0.0.1:{settings.port}/metrics"
    request = urllib.request.Request(url)
    if settings.metrics_key:
        request.add_header("Authorization", f"Bearer {settings.metrics_key}")
    try:
        with urllib.request.urlopen(request, timeout=args.timeout) as response:
            shown["api"] = metrics.scraped(response.read().decode())
    except OSError as exc:
        shown["api"] = {"unreachable": f"{url}: {exc}"}
    if args.json:
        print(json.dumps(shown, indent=2, sort_keys=True))
        return 0
    lags = shown.pop("close_lag")
    api = shown.pop("api")
    for name, value in shown.items():
        print(f"{name.replace('_', ' ')}: {value}")
    for reason, values in lags.items():
        median, worst = values[len(values) // 2], values[-1]  # sorted
        print(f"windows closed ({reason}): {len(values)}, close lag median {median:.0f}s, worst {worst:.0f}s")
    if "unreachable" in api:
        print(f"api: {api['unreachable']}")
        return 0
    for ruleset, outcomes in sorted(api["commands"].items()):
        print(f"commands ({ruleset}): " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"command mean: {api['command_mean_ms']} ms; conflicts: {api['conflicts']}; retries: {api['retries'] or 0}")
    print(f"rate-limit refusals: {api['rate_limit_refusals'] or 0}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from application.version import release

    parser = argparse.ArgumentParser(prog="emissary", description="Event-sourced play-by-post game service")
    parser.add_argument("--version", action="version", version=f"emissary {release()}")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="run the web service (embedded SQLite store by default)")
    p_serve.add_argument("--host", default=None)
    p_serve.add_argument("--port", type=int, default=None)
    p_serve.add_argument("--workers", type=int, default=1, help="server processes (default 1)")
    p_serve.add_argument("--no-access-log", dest="access_log", action="store_false", help="do not log every request")
    p_serve.set_defaults(func=serve)
    p_demo = sub.add_parser("demo", help="play one scripted month on a throwaway game and print it")
    p_demo.add_argument(
        "--long",
        "--season",  # its first name, still accepted
        dest="long",
        action="store_true",
        help="the ruleset's longer demo (Powers: a whole scripted season: map, influence, wallets, magic, Cleanup)",
    )
    p_demo.add_argument("--ruleset", default=None, help="whose demo to play (default: the first that has one)")
    p_demo.set_defaults(func=demo)
    p_proj = sub.add_parser("projections", help="read models: rebuild from event 1, or catch up")
    p_proj.add_argument("action", choices=["rebuild", "catch-up"])
    p_proj.set_defaults(func=projections_cmd)
    p_audit = sub.add_parser("audit", help="a game's audit log as JSON Lines or CSV")
    p_audit.add_argument("game_id")
    p_audit.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
    p_audit.add_argument("--seat", "--power", dest="seat", help="acting, shown or named (--power: its first name)")
    p_audit.add_argument("--phase")
    p_audit.add_argument("--type")
    p_audit.add_argument("--actor")
    p_audit.set_defaults(func=audit_cmd)
    p_verify = sub.add_parser("verify", help="recompute every roll, sealed difficulty and digest in an export")
    p_verify.add_argument("export", help="a JSON Lines export (GET /games/{id}/export)")
    p_verify.set_defaults(func=verify_cmd)
    p_projector = sub.add_parser("projector", help="run the projection runner under its watchdog")
    p_projector.add_argument("--run", action="store_true", help="the runner alone, without the watchdog")
    p_projector.add_argument("--check", action="store_true", help="exit 1 if the read models are behind")
    p_projector.add_argument("--max-lag", type=int, default=1000)
    p_projector.set_defaults(func=projector_cmd)
    p_worker = sub.add_parser("worker", help="the Celery worker (closes windows, queues reminders)")
    p_worker.add_argument("--concurrency", type=int, default=4)
    p_worker.set_defaults(func=celery_cmd, role="worker")
    p_beat = sub.add_parser("beat", help="Celery beat: sends the window sweep every few seconds")
    p_beat.add_argument("--schedule", default="data/celerybeat-schedule")
    p_beat.set_defaults(func=celery_cmd, role="beat")
    p_smtpd = sub.add_parser("smtpd", help="the SMTP server that takes turns by email")
    p_smtpd.add_argument("--host", default=None)
    p_smtpd.add_argument("--port", type=int, default=None)
    p_smtpd.set_defaults(func=smtpd_cmd)
    p_migrate = sub.add_parser("migrate", help="create and migrate the schema (run once before the services)")
    p_migrate.set_defaults(func=migrate_cmd)
    p_vapid = sub.add_parser(
        "vapid", help="push's VAPID public key (made in the data directory if unset); --new: a key"
    )
    p_vapid.add_argument(
        "--new", action="store_true", help="print a new private key (PEM) for EMISSARY_VAPID_PRIVATE_KEY"
    )
    p_vapid.set_defaults(func=vapid_cmd)
    p_backup = sub.add_parser("backup", help="back up the event store and what the events cannot rebuild to FILE")
    p_backup.add_argument("file")
    p_backup.set_defaults(func=backup_cmd)
    p_restore = sub.add_parser("restore", help="restore FILE into an empty store, migrate and rebuild the reads")
    p_restore.add_argument("file")
    p_restore.add_argument("--force", action="store_true", help="replace what the target store holds")
    p_restore.set_defaults(func=restore_cmd)
    p_health = sub.add_parser("health", help="a service's health check: exit 0 if healthy (deploy/ uses these)")
    p_health.add_argument("service", choices=["api", "worker", "beat", "projector", "smtpd"])
    p_health.add_argument("--url", help="api: the URL to GET (default http://127.0.0.1:$EMISSARY_PORT/health)")
    p_health.add_argument("--node", help="worker: the node to ping (default celery@$HOSTNAME)")
    p_health.add_argument("--schedule", default="data/celerybeat-schedule", help="beat: its --schedule")
    p_health.add_argument("--max-age", type=float, help="beat, projector: seconds a heartbeat stays fresh")
    p_health.add_argument("--max-lag", type=int, default=1000, help="projector: events the read models may lag")
    p_health.add_argument("--host", help="smtpd: default 127.0.0.1")
    p_health.add_argument("--port", type=int, help="smtpd: default $EMISSARY_SMTPD_PORT")
    p_health.add_argument("--timeout", type=float, default=5.0)
    p_health.set_defaults(func=health_cmd)
    p_status = sub.add_parser("status", help="the service's figures for an operator: lag, outbox, blocks, commands")
    p_status.add_argument("--json", action="store_true", help="as one JSON object")
    p_status.add_argument("--url", help="the API's /metrics (default http://127.0.0.1:$EMISSARY_PORT/metrics)")
    p_status.add_argument("--timeout", type=float, default=3.0)
    p_status.set_defaults(func=status_cmd)
    # a ruleset's own subcommands: its add_commands(sub), named in the entry-point group emissary.commands (read
    # from the installed metadata alone, so that a health check imports no ruleset)
    for point in entry_points(group="emissary.commands"):
        point.load()(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
