"""Shared fixtures. Each test folder adds its own conftest for what only it needs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live_server import LiveServer

TEST_HOST = "testserver"  # the Host of Starlette's TestClient and of httpx's ASGI clients


@pytest.fixture(autouse=True, scope="session")
def _test_client_host() -> Iterator[None]:
    """In-process clients name the host ``testserver``, which the server answers to only
    when configured (loopback names pass by default; live servers are on 127.0.0.1).
    Session-wide, so module-scoped apps built before any test's own fixtures see it too."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SHOKUNIN_ALLOWED_HOSTS", f'["{TEST_HOST}"]')
        yield


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
