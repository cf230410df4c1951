"""Fixtures for the integration tests: a fixture named here is found by every test of the folder without an
import, which a linter would take for a redefinition when a test names it as a parameter."""

from tests.integration.topology import private_redis  # noqa: F401 - a fixture
