"""Shared fixtures. PostgreSQL tests run whenever it is reachable and never skip when CI=true."""

from __future__ import annotations

import os
import uuid
from datetime import datetime, timezone

import hypothesis
import pytest

from tests.procs import procs, stop_leftover_processes  # noqa: F401 - fixtures for every test

PG_URL = os.environ.get("EMISSARY_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() == "true"

# In CI the property tests run the same examples every time (derandomized), so a landing is never blocked by a
# case that one run happened to draw; on a developer's machine they keep exploring new ones. A case found either
# way is kept in the test as an @example.
# No per-example deadline: tests assert behaviour, never wall-clock time (a loaded machine is slow, not wrong).
hypothesis.settings.register_profile("default", deadline=None)
hypothesis.settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
hypothesis.settings.load_profile("ci" if IN_CI else "default")


def _pg_reachable() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_URL.split("?")[0], connect_timeout=3) as conn:
            conn.execute("select 1")
        return None
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        return str(exc)


def pytest_configure(config) -> None:
    from tests.procs import interrupt_on_sigterm

    interrupt_on_sigterm()


@pytest.fixture(scope="session")
def pg_available() -> None:
    problem = _pg_reachable()
    if problem:
        if IN_CI:
            pytest.fail(f"PostgreSQL must be reachable in CI at {PG_URL}: {problem}")
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}: {problem}")


@pytest.fixture
def pg_schema_url(pg_available):
    """A PostgreSQL URL pointing at a fresh schema, dropped afterwards."""
    import psycopg

    schema = f"emissary_t_{uuid.uuid4().hex[:12]}"
    base = PG_URL.split("?")[0]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    yield f"{base}?schema={schema}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def now() -> datetime:
    return datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.integration)])
def store_settings(request, tmp_path):
    """Settings for each real store: the same tests run against SQLite and PostgreSQL."""
    from projections.settings import Settings

    if request.param == "sqlite":
        return Settings(data_dir=tmp_path / "data")
    url = request.getfixturevalue("pg_schema_url")
    return Settings(database_url=url)


@pytest.fixture
def sink():
    """A local SMTP server that keeps what it is sent (tests.mail.sink), stopped after the test."""
    from tests.mail.sink import Sink

    s = Sink().start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def app(tmp_path):
    """The web app over a fresh SQLite store in ``tmp_path``, closed afterwards. A module that needs other
    settings defines its own ``app``; ``games`` and ``projector`` then hand out that app's services."""
    from api.app import create_app
    from projections.settings import Settings
    from tests.integration.helpers import close_app

    app = create_app(Settings(data_dir=tmp_path))
    yield app
    close_app(app)


@pytest.fixture
def games(app):
    """The web app's application service: a test sends its commands and reads its views and events, never a
    game's ``.state`` (issue 26 item 7)."""
    return app.state.games


@pytest.fixture
def projector(app):
    """The web app's read models (the projector and its database)."""
    return app.state.projector


@pytest.fixture
def settings(app):
    """The web app's settings."""
    return app.state.settings
