"""Fixtures for the integration tests: a fixture named here is found by every test of the folder without an
import, which a linter would take for a redefinition when a test names it as a parameter."""

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from tests.integration.helpers import close_app
from tests.integration.topology import private_redis  # noqa: F401 - a fixture


@pytest.fixture
def app(store_settings):
    """The web app on each real store (SQLite and PostgreSQL), closed afterwards; ``games`` hands out its service."""
    app = create_app(store_settings)
    yield app
    close_app(app)


@pytest.fixture
def api(app):
    """The JSON API on each real store (SQLite and PostgreSQL), through a test client."""
    with TestClient(app) as client:
        yield client
