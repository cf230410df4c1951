"""The example configuration keeps within its own PostgreSQL connection budget at the README's scale (issue 27,
item 6): deploy/docker-compose.yml with deploy/.env.example (filled in), scaled as the README's command scales
it, opens at most PostgreSQL's max_connections (the postgres service's ``-c max_connections=N``, else 100) less a
reserve for an operator.

Each process that holds pools holds one event-store pool (``EMISSARY_DB_POOL_SIZE`` kept open, up to
``EMISSARY_DB_MAX_OVERFLOW`` more) and one read-model pool (up to ``EMISSARY_READMODEL_POOL_SIZE``), and nothing
else (tests/integration/test_db_connections.py checks the pools' sizes against these settings, and measures each
process of a running topology in pg_stat_activity). Which processes hold pools, from each service's command:

- ``emissary serve --workers N``: N server processes (with N > 1 uvicorn's parent holds none);
- ``emissary worker --concurrency N``: N Celery pool processes (the supervisor and Celery's parent hold none);
- ``emissary beat``: none; ``emissary smtpd``: one;
- ``emissary projector``: the watchdog and its runner;
- ``emissary migrate``: one, and the connection that holds its lock (a second ``up -d`` runs it again while the
  others run).

And single connections: the projector's health check reads its lag in one (workers/health.py), migrate's lock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from api.cli import build_parser
from tests.integration.test_deploy import COMPOSE, DEPLOY, EMISSARY, SERVICES, env_example, filled, settings_from
from tests.integration.topology import ROOT

DEFAULT_MAX_CONNECTIONS = 100  # PostgreSQL's
PSQL_SESSIONS = 3  # an operator's
BACKUP = 2  # `emissary backup`: its snapshot connection and pg_dump's


def service_env(dotenv: Mapping[str, str], service: Mapping) -> dict[str, str]:
    """A container's environment: env_file, then its service's ``environment`` (x-emissary's merged), interpolated."""

    def interpolate(value: object) -> str:
        return re.sub(r"\$\{(\w+)[^}]*\}", lambda m: dotenv.get(m.group(1), ""), str(value))

    return {**dotenv, **{k: interpolate(v) for k, v in service.get("environment", {}).items()}}


def per_process(env: Mapping[str, str]) -> int:
    """The most connections one process opens: its event-store pool's size and overflow, its read-model pool."""
    settings = settings_from(dict(env))
    return settings.db_pool_size + settings.db_max_overflow + settings.readmodel_pool_size


def processes(command: list[str]) -> int:
    """How many processes of an ``emissary`` command hold pools (the module docstring says which)."""
    args = build_parser().parse_args(command[1:])
    if args.command == "serve":
        return args.workers
    if args.command == "worker":
        return args.concurrency
    if args.command == "beat":
        return 0
    if args.command == "projector":
        return 1 if args.run or args.check else 2
    if args.command in ("smtpd", "migrate"):
        return 1
    raise AssertionError(f"no budget known for {command}")


def connections(name: str, dotenv: Mapping[str, str]) -> int:
    """The most connections one container of a service opens: its processes' pools, and the single connections
    of the projector's health check and of migrate's lock."""
    service = SERVICES[name]
    each = per_process(service_env(dotenv, service))
    test = service.get("healthcheck", {}).get("test") or []
    single = 1 if test[:4] == ["CMD", "emissary", "health", "projector"] or service["command"][1] == "migrate" else 0
    return processes(service["command"]) * each + single


def readme_scale() -> dict[str, int]:
    """The replicas the README's `docker compose ... up` command asks for (1 for a service it does not scale)."""
    readme = (ROOT / "README.md").read_text()
    commands = [line for line in readme.splitlines() if line.startswith("docker compose") and " up" in line]
    assert commands, "the README has no `docker compose ... up` command"
    scale = {name: 1 for name in EMISSARY}
    for line in commands:
        for service, n in re.findall(r"--scale (\w+)=(\d+)", line):
            scale[service] = max(scale.get(service, 1), int(n))
    return scale


def max_connections() -> int:
    command = SERVICES["postgres"].get("command") or []
    found = [m.group(1) for part in command for m in [re.fullmatch(r"max_connections=(\d+)", str(part))] if m]
    return int(found[-1]) if found else DEFAULT_MAX_CONNECTIONS


def test_the_readme_scales_as_the_compose_file_says():
    scale = readme_scale()
    assert scale["api"] >= 2 and scale["worker"] >= 2, scale
    compose_text = (DEPLOY / "docker-compose.yml").read_text()
    for service, n in scale.items():
        if n > 1:
            assert f"--scale {service}={n}" in compose_text, service


def test_the_example_configuration_fits_its_connection_budget_at_the_readmes_scale():
    dotenv = filled(env_example())
    scale = readme_scale()
    used = {name: scale[name] * connections(name, dotenv) for name in EMISSARY}
    biggest = max(per_process(service_env(dotenv, SERVICES[name])) for name in EMISSARY)
    reserve = biggest + BACKUP + PSQL_SESSIONS  # an operator's `emissary status` or `restore`, a backup, psql
    limit = max_connections()
    assert sum(used.values()) + reserve <= limit, (
        f"{sum(used.values())} connections at the README's scale ({used}) and {reserve} in reserve: "
        f"more than PostgreSQL's max_connections={limit}"
    )


def test_the_budget_counts_what_the_defaults_open():
    # The formula's inputs, as .env.example sets them and the compose file starts the services.
    dotenv = filled(env_example())
    each = per_process(service_env(dotenv, SERVICES["api"]))
    assert each == int(dotenv["EMISSARY_DB_POOL_SIZE"]) + int(dotenv["EMISSARY_DB_MAX_OVERFLOW"]) + int(
        dotenv["EMISSARY_READMODEL_POOL_SIZE"]
    )
    assert connections("beat", dotenv) == 0
    assert connections("api", dotenv) == 2 * each  # `serve --workers 2`
    assert connections("worker", dotenv) == 4 * each  # `worker --concurrency 4`
    assert connections("projector", dotenv) == 2 * each + 1  # watchdog, runner; the health check's one
    assert connections("migrate", dotenv) == each + 1


def test_the_compose_file_states_the_budget_formula():
    text = (DEPLOY / "docker-compose.yml").read_text()
    assert "max_connections" in text and "EMISSARY_DB_POOL_SIZE" in text and "--concurrency" in text
    assert "x-emissary" in COMPOSE
