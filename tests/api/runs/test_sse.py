"""The one SSE implementation: every stream route is FastAPI's EventSourceResponse, idle
streams send keep-alive pings, and a client that leaves stops the stream's producer.

The server runs in this process (uvicorn in a thread), so the test can shorten FastAPI's
ping interval and look at the Runner's bus.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import fastapi.routing
import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from shokunin import events as ev
from shokunin.api import create_app
from shokunin.api.runs import sse
from shokunin.config import Settings
from tests.live_server import free_port
from tests.tools.conftest import PROBE, make_tool
from tests.waiting import wait_until


class InProcessServer:
    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> InProcessServer:
        self.thread.start()
        wait_until(lambda: self.server.started or not self.thread.is_alive(), 60,
                   what="the server started")
        assert self.server.started, "server did not start"
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessServer]:
    monkeypatch.setattr(fastapi.routing, "_PING_INTERVAL", 0.1)
    make_tool(tmp_path / "tool", "probe", PROBE)
    app = create_app(Settings(data_dir=tmp_path / "data", tools_dirs=[tmp_path / "tool"],
                              tool_settings_file=tmp_path / "s.json", sandbox_pool_size=0))
    with InProcessServer(app) as live:
        yield live


def test_every_stream_route_is_an_event_source_response() -> None:
    """FastAPI documents an EventSourceResponse route as text/event-stream: every route
    named like a stream must be one."""
    paths = create_app(Settings(sandbox_pool_size=0)).openapi()["paths"]
    kinds = {(method, path): set(op["responses"]["200"].get("content", {}))
             for path, ops in paths.items() for method, op in ops.items()
             if path.endswith(("/events", "/stream"))}
    assert {("get", "/api/runs/{run_id}/events"), ("get", "/api/threads/{thread_id}/events"),
            ("post", "/api/tools/{name}/execute/stream")} <= set(kinds)
    assert all(content == {"text/event-stream"} for content in kinds.values()), kinds


def test_idle_stream_pings_and_a_client_that_leaves_stops_the_producer(
        server: InProcessServer, tmp_path: Path) -> None:
    services = server.app.state.engine
    with httpx.stream("POST", f"{server.url}/api/tools/probe/execute/stream",
                      json={"args": {"mode": "wait_abort", "path": str(tmp_path / "m")}},
                      timeout=10) as tool_stream:
        lines = tool_stream.iter_lines()
        started = next(line for line in lines if line.startswith("data: "))
        run_id = json.loads(started.removeprefix("data: "))["run_id"]
        with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events",
                          timeout=10) as follower:
            follower_lines = follower.iter_lines()
            assert ": ping" in follower_lines  # the run is idle: the stream pings
            wait_until(lambda: services.bus.subscriber_count(run_id) == 2, 10,
                       what="both streams following the run")
        # the follower left: its subscription is gone, the run and the other stream go on
        wait_until(lambda: services.bus.subscriber_count(run_id) == 1, 10,
                   what="the follower's producer stopped")
        assert services.runner.is_live(run_id)
    wait_until(lambda: not services.runner.is_live(run_id), 10,
               what="the run cancelled by leaving")
    assert (tmp_path / "m").exists()


def test_thread_stream_pings_and_ends_its_subscription_when_the_client_leaves(
        server: InProcessServer) -> None:
    bus = server.app.state.engine.bus
    httpx.post(f"{server.url}/api/tools/calculator/execute", timeout=10,
               json={"args": {"expression": "1"}, "thread_id": "watched"})

    def watchers() -> int:
        return len(bus._thread_subs.get("watched", ()))  # noqa: SLF001 - the bus's own count

    with httpx.stream("GET", f"{server.url}/api/threads/watched/events",
                      timeout=10) as response:
        lines = response.iter_lines()  # held: a dropped iterator closes the connection
        assert ": ping" in lines  # nothing runs: the stream pings
        assert watchers() == 1
    wait_until(lambda: watchers() == 0, 10,
               what="the thread subscription ended with its client")


def test_a_threads_own_event_leaves_the_resume_id_at_the_last_run_event() -> None:
    """A thread stream resumes after ``<run_id>:<seq>``; a thread's own event (a Studio
    project's status: no run) labelled ``:<seq>`` made the browser's reconnect a 400."""
    own = ev.ProjectStatus(project_id="p", old_status="draft", new_status="running",
                           run_id="", thread_id="p", seq=4)
    of_run = ev.Text(text="hi", run_id="r1", thread_id="p", seq=3)
    assert sse.thread_event_message(own).id is None
    assert sse.thread_event_message(of_run).id == "r1:3"
