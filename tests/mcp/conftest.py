"""Fixtures shared with other test packages."""

from tests.agents.conftest import make_runner  # noqa: F401 - an in-process engine
