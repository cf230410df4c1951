"""Fixtures for the integration tests: a fixture named here is found by every test of the folder without an
import, which a linter would take for a redefinition when a test names it as a parameter."""

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from tests.integration.helpers import close_app
from tests.integration.topology import private_redis  # noqa: F401 - a fixture


@pytest.fixture
def api(store_settings):
    """The JSON API on each real store (SQLite and PostgreSQL), through a test client."""
    app = create_app(store_settings)
    with TestClient(app) as client:
        yield client
    close_app(app)
