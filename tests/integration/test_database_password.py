"""A PostgreSQL password with any characters (``@ : / % # ?``, a space, quotes) works end to end, and never reaches
a log line or an error message (issue 27, item 6).

deploy/docker-compose.yml passes POSTGRES_PASSWORD to Emissary apart from the URL (EMISSARY_DATABASE_PASSWORD),
so it is never pasted into a URL unescaped. Every connection (the event store's pool, the read models' pool,
``emissary migrate``'s lock, pg_dump's environment) takes it from ``Settings.eventsourcing_env``.

The shared test server trusts every local connection, so there a password is never checked: connecting there
proves the settings parse and libpq holds that password (``conn.info.password``). A PostgreSQL server of the test's
own, with scram-sha-256 authentication, proves it is the password the server accepts, and a wrong one is refused.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from pydantic import ValidationError

from projections.settings import Settings
from tests import procs
from tests.conftest import IN_CI, PG_URL
from tests.integration.test_deploy import compose_env, emissary, env_example, filled, production_env, settings_from
from tests.integration.topology import free_port

PASSWORD = "Pw@:/%41#?&= 'q\"\\$x-" + secrets.token_hex(4)
SPELLINGS = (PASSWORD, quote(PASSWORD, safe=""), quote(PASSWORD))  # as it is, and URL-encoded either way


def shown(text: str) -> list[str]:
    return [s for s in SPELLINGS if s in text]


def test_a_password_given_apart_from_the_url_is_the_one_every_connection_gets():
    from application.backup import _pg_env
    from projections.db import conninfo

    settings = Settings(
        _env_file=None, database_url="postgresql://emissary@db:5432/emissary", database_password=PASSWORD
    )
    assert settings.eventsourcing_env()["POSTGRES_PASSWORD"] == PASSWORD  # the event store's pool
    fields = conninfo_to_dict(conninfo(settings))  # the read models' pool, migrate's lock, backup's counts
    assert (fields["password"], fields["user"], fields["host"], fields["dbname"]) == (
        PASSWORD,
        "emissary",
        "db",
        "emissary",
    )
    assert _pg_env(settings)["PGPASSWORD"] == PASSWORD  # pg_dump and pg_restore
    assert not shown(repr(settings)) and not shown(str(settings)) and not shown(settings.database_url)


def test_compose_passes_the_postgres_password_apart_from_the_url():
    example = {**filled(env_example()), "POSTGRES_PASSWORD": PASSWORD}
    env = compose_env(example)
    assert not shown(env["EMISSARY_DATABASE_URL"])
    assert env["EMISSARY_DATABASE_PASSWORD"] == PASSWORD
    assert settings_from(env).eventsourcing_env()["POSTGRES_PASSWORD"] == PASSWORD


@pytest.mark.parametrize("password", [PASSWORD, "a/b", "a#b", "a?b", "pa:ss/word"])
def test_a_password_put_in_the_url_unescaped_is_refused_without_being_shown(password):
    with pytest.raises(ValidationError) as refused:
        Settings(_env_file=None, database_url=f"postgresql://emissary:{password}@db:5432/emissary")
    message = str(refused.value)
    assert "EMISSARY_DATABASE_URL" in message and "EMISSARY_DATABASE_PASSWORD" in message
    assert password not in message and quote(password, safe="") not in message


def test_a_refused_setting_never_echoes_the_password():
    # Production refuses a missing secret key: before, pydantic's message ended with the input, the URL included.
    url = f"postgresql://emissary:{quote(PASSWORD, safe='')}@db:5432/emissary"
    for given in (
        {"database_url": url},
        {"database_url": url.replace(quote(PASSWORD, safe=""), "x"), "inbound_key": ""},
    ):
        with pytest.raises(ValidationError) as refused:
            Settings(_env_file=None, env="production", database_password=PASSWORD, **given)
        assert not shown(str(refused.value)), str(refused.value)
    with pytest.raises(ValidationError, match="give it once") as refused:  # the URL's and the setting's: which one?
        Settings(_env_file=None, database_url=url, database_password=PASSWORD)
    assert not shown(str(refused.value))
    with pytest.raises(ValueError, match="'mysql' URL") as refused:
        Settings(_env_file=None, database_url=f"mysql://emissary:{quote(PASSWORD, safe='')}@db/x").eventsourcing_env()
    assert not shown(str(refused.value))


def test_a_url_encoded_password_still_works():
    url = f"postgresql://emissary:{quote(PASSWORD, safe='')}@db:5432/emissary"
    assert Settings(_env_file=None, database_url=url).eventsourcing_env()["POSTGRES_PASSWORD"] == PASSWORD


# --- end to end, on PostgreSQL -------------------------------------------------------------------------------


def _pg_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _cannot(reason: str) -> NoReturn:
    """Skip where this machine cannot run a server of the test's own, but never in CI, whose machine runs
    PostgreSQL from Debian's packages (its programs and its ``postgres`` user are there)."""
    if IN_CI:
        pytest.fail(f"{reason}: CI's machine must run this test")
    pytest.skip(reason)


@contextlib.contextmanager
def scram_server() -> Iterator[tuple[str, int, str]]:
    """A PostgreSQL server of this test's own on a free loopback port, every connection authenticated by
    scram-sha-256. Yields (host, port, superuser password). Run as the ``postgres`` user when the tests run as
    root (initdb refuses root)."""
    initdb, postgres = _pg_binary("initdb"), _pg_binary("postgres")
    if not initdb or not postgres:
        _cannot("PostgreSQL's server programs (initdb, postgres) are not installed")
    as_user: list[str] = []
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            runuser = None
        if not runuser:
            _cannot("running as root without runuser or a postgres user: initdb refuses root")
        as_user = [runuser, "-u", "postgres", "--"]
    root = Path(tempfile.mkdtemp(prefix="emissary-pg-"))
    superuser = secrets.token_hex(12)
    (root / "pw").write_text(superuser + "\n")
    if as_user:
        shutil.chown(root, "postgres")
        shutil.chown(root / "pw", "postgres")
    port = free_port()
    server = None
    try:
        subprocess.run(
            [*as_user, initdb, "-D", str(root / "data"), "-A", "scram-sha-256", "-U", "postgres"]
            + [f"--pwfile={root / 'pw'}", "-N", "-E", "UTF8", "--locale=C"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        server = procs.start(
            [*as_user, postgres, "-D", str(root / "data"), "-p", str(port), "-k", str(root)]
            + ["-c", "listen_addresses=127.0.0.1", "-c", "shared_buffers=16MB", "-c", "max_connections=40"]
            + ["-c", "fsync=off", "-c", "log_min_messages=warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(
                    host="127.0.0.1", port=port, user="postgres", password=superuser, dbname="postgres"
                ).close()
                break
            except psycopg.OperationalError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield "127.0.0.1", port, superuser
    finally:
        if server is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGINT)  # a fast shutdown
            procs.stop(server)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def scratch_role(admin: dict[str, object]) -> Iterator[tuple[str, str]]:
    """A login role whose password is PASSWORD, and a database it owns, dropped afterwards: (role, database)."""
    name = f"emissary_pw_{secrets.token_hex(5)}"
    with psycopg.connect(**admin, autocommit=True) as conn:  # type: ignore[arg-type]
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(name), sql.Literal(PASSWORD)))
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(name), sql.Identifier(name)))
    try:
        yield name, name
    finally:
        with psycopg.connect(**admin, autocommit=True) as conn:  # type: ignore[arg-type]
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture(params=["shared", "scram"])
def server(request, pg_available) -> Iterator[tuple[dict[str, object], bool]]:
    """(an admin's connection parameters, whether the server checks passwords)."""
    if request.param == "shared":
        yield conninfo_to_dict(PG_URL.split("?")[0]), False
        return
    with scram_server() as (host, port, superuser):
        yield {"host": host, "port": port, "user": "postgres", "password": superuser, "dbname": "postgres"}, True


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    done = emissary(env, *args, timeout=120)
    assert not shown(done.stdout + done.stderr), "the password is in the output"
    return done


@pytest.mark.integration
def test_a_password_with_every_url_character_migrates_backs_up_and_connects(server, tmp_path):
    """`emissary migrate` and `emissary backup` (pg_dump) with the production environment compose gives
    (EMISSARY_DATABASE_PASSWORD apart from the URL), at DEBUG: they succeed, and neither says the password."""
    from api.compose import build_games
    from projections.db import ReadModelDB

    admin, checks_passwords = server
    with scratch_role(admin) as (role, dbname):
        env = production_env(
            f"postgresql://{role}@{admin['host']}:{admin['port']}/{dbname}",
            tmp_path,
            EMISSARY_DATABASE_PASSWORD=PASSWORD,
            EMISSARY_LOG_LEVEL="DEBUG",
        )
        migrated = run(env, "migrate")
        assert migrated.returncode == 0, migrated.stderr[-3000:]
        assert "applied" in migrated.stdout
        backed_up = run(env, "backup", str(tmp_path / "backup.tar"))
        assert backed_up.returncode == 0, backed_up.stderr[-3000:]
        assert (tmp_path / "backup.tar").stat().st_size > 0
        settings = settings_from(env)
        games, db = build_games(settings), ReadModelDB(settings)
        try:  # each pool's connections carry the password as it is
            with games.recorder.datastore.get_connection() as conn:
                assert (conn.info.user, conn.info.password) == (role, PASSWORD)
            with db.pool.connection() as conn:
                assert (conn.info.user, conn.info.password, conn.info.dbname) == (role, PASSWORD, dbname)
            assert "alembic_version" in {t for (t,) in db.query("SELECT tablename FROM pg_tables")}
        finally:
            db.close()
            games.close()
        if checks_passwords:  # and a wrong password is refused, the refusal naming neither password
            wrong = run({**env, "EMISSARY_DATABASE_PASSWORD": PASSWORD[::-1]}, "migrate")
            assert wrong.returncode != 0 and "password authentication failed" in wrong.stderr
            assert PASSWORD[::-1] not in wrong.stdout + wrong.stderr


def test_a_url_password_in_a_log_line_is_redacted():
    from projections.logs import redact

    line = redact(
        f"could not reach postgresql://emissary:{quote(PASSWORD, safe='')}@db:5432/emissary, nor redis://:pw@r/0"
    )
    assert not shown(line) and ":pw@" not in line
    assert "postgresql://emissary:[redacted]@db:5432/emissary" in line


def test_a_url_without_a_host_reaches_the_local_socket_and_is_not_refused():
    """``postgresql:///emissary`` (no host: libpq's local socket) has no password to have been cut short."""
    assert Settings(database_url="postgresql:///emissary").is_postgres
