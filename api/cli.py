"""The ``emissary`` command line: ``serve`` (the API) and ``demo`` (one scripted month)."""

from __future__ import annotations

import argparse
import logging
import sys

from projections.settings import Settings


def serve(args: argparse.Namespace) -> int:
    """Run the API with uvicorn on the configured host and port."""
    import uvicorn

    from api.app import create_app

    settings = Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    host = args.host or settings.host
    port = args.port or settings.port
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    store = "PostgreSQL" if settings.is_postgres else (settings.database_url or f"SQLite in {settings.data_dir}/")
    print(f"Emissary on http://{host}:{port}  (API docs at /docs; store: {store})", flush=True)
    if args.workers > 1:
        # Several processes: each builds its own app (and cache); the store's optimistic concurrency
        # keeps them consistent, and a command that raced another process is retried.
        uvicorn.run("api.app:create_app", factory=True, host=host, port=port, workers=args.workers,
                    log_level="info", access_log=args.access_log)
    else:
        uvicorn.run(create_app(settings), host=host, port=port, log_level="info", access_log=args.access_log)
    return 0


def demo(args: argparse.Namespace) -> int:
    """Play one scripted Powers month on a throwaway in-memory game and print what happened."""
    from api.demo import play_demo_month

    play_demo_month(print)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="emissary", description="Event-sourced play-by-post game service")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="run the web service (embedded SQLite store by default)")
    p_serve.add_argument("--host", default=None)
    p_serve.add_argument("--port", type=int, default=None)
    p_serve.add_argument("--workers", type=int, default=1, help="server processes (default 1)")
    p_serve.add_argument("--no-access-log", dest="access_log", action="store_false",
                         help="do not log every request")
    p_serve.set_defaults(func=serve)
    p_demo = sub.add_parser("demo", help="play one scripted month on a throwaway game and print it")
    p_demo.set_defaults(func=demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
