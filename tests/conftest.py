"""Shared fixtures. Each test folder adds its own conftest for what only it needs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live_server import LiveServer


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real server for the session (offline brain, SQLite, shipped sample data)."""
    server = LiveServer(tmp_path_factory.mktemp("server")).start()
    yield server
    server.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of the test's own, for tests that restart or break it."""
    server = LiveServer(tmp_path / "server").start()
    yield server
    server.stop()
