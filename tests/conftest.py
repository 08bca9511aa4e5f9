"""Shared fixtures, and the suite's tiers. Each test folder adds its own conftest for what
only it needs.

The markers say what a test starts; ``slow`` is any of them, and ``pytest -m "not slow"`` is
the edit loop's tier (scripts/test.sh). Tests are marked by the fixtures they use, and a test
that starts a kernel, a server process or PostgreSQL without its marker fails: the fast tier
stays fast because nothing can slip into it unmarked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import backends
from tests.live_server import LiveServer

MARKS = {
    "kernel": "starts a Jupyter kernel of the sandbox (in this process or its own)",
    "subprocess": "starts a shokunin server, worker or CLI process",
    "browser": "drives a real headless Chromium",
    "postgres": "uses the PostgreSQL server",
    "slow": "any of the above: left out of the fast tier (-m 'not slow')",
}
# fixtures that start what a marker names: their tests carry it
BY_FIXTURE = {
    "kernel": {"sandbox", "bare"},
    "subprocess": {"live_server", "fresh_server", "tools_server", "http"},
    "browser": {"browser", "ui", "make_page"},
}


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in MARKS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    _watch_everything()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for mark, fixtures in BY_FIXTURE.items():
            if used & fixtures:
                item.add_marker(mark)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgres" in params.values():
            item.add_marker("postgres")
        if any(item.get_closest_marker(mark) for mark in MARKS if mark != "slow"):
            item.add_marker("slow")


_running: list[pytest.Item] = []  # the test being set up, run or torn down
_started: dict[str, set[str]] = {}  # test id -> what it started unmarked


def _watch(owner: Any, method: str, mark: str) -> None:
    """Record ``owner.method`` called for a test of the fast tier (no slow marker), from
    whichever fixture calls it, module- and session-scoped ones included."""
    original = getattr(owner, method)

    def watched(*args: Any, **kwargs: Any) -> Any:
        if _running and _running[0].get_closest_marker("slow") is None:
            _started.setdefault(_running[0].nodeid, set()).add(mark)
        return original(*args, **kwargs)

    setattr(owner, method, watched)


def _watch_everything() -> None:
    from shokunin.sandbox.kernel import Kernel

    _watch(Kernel, "start", "kernel")
    _watch(LiveServer, "start", "subprocess")
    _watch(backends, "create_database", "postgres")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _running[:] = [item]  # before its fixtures are set up


@pytest.fixture(autouse=True)
def _marked_for_what_it_starts(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test of the fast tier that started a kernel, a server process or a PostgreSQL
    database: it must carry the marker, so that ``-m "not slow"`` leaves it out."""
    yield
    started = _started.pop(request.node.nodeid, set())
    assert not started, (
        f"this test started what {sorted(started)} marks: mark it (pytestmark = "
        f"pytest.mark.{sorted(started)[0]} in its module), so that the fast tier leaves it out")


TEST_HOST = "testserver"  # the Host of Starlette's TestClient and of httpx's ASGI clients


@pytest.fixture(autouse=True, scope="session")
def _test_client_host() -> Iterator[None]:
    """In-process clients name the host ``testserver``, which the server answers to only
    when configured (loopback names pass by default; live servers are on 127.0.0.1).
    Session-wide, so module-scoped apps built before any test's own fixtures see it too."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SHOKUNIN_ALLOWED_HOSTS", f'["{TEST_HOST}"]')
        # No warm kernel in the background of every in-process app, as live servers have
        # none: a kernel starts when a test runs code (a test of the pool asks for one).
        mp.setenv("SHOKUNIN_SANDBOX_POOL_SIZE", "0")
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
