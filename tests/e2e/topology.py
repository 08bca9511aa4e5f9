"""Helpers of the tests of several shokunin processes (web processes and workers): a slow
tool run started through one process, followed, cancelled and read through any, and a
Studio project approved through two."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.api.studio.watcher import Watcher, new_project
from tests.backends import PG_ADMIN_URL
from tests.live_server import LiveServer

T = TypeVar("T")

SLOW_TOOL = '''
import time

TOOL_NAME = "slow"
TOOL_DESCRIPTION = "counts slowly, saying each step"
TOOL_ICON = "x"


def get_function_declaration():
    return {"name": "slow", "description": "x", "parameters": {"type": "object",
            "properties": {"steps": {"type": "integer"}}}}


def execute(args, context):
    for i in range(args.get("steps", 10)):
        if context["abort_event"].is_set():
            return {"success": False, "error": "aborted", "aborted": True}
        context["message_callback"](f"step {i}")
        time.sleep(0.1)
    return {"success": True, "result": args.get("steps", 10)}
'''


def in_own_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end in a thread of its own: a browser test before may leave its
    event loop running in this one (Playwright's sync API)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def psql(sql: str) -> None:
    async def run() -> None:
        engine = create_async_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
        async with engine.connect() as conn:
            await conn.execute(text(sql))
        await engine.dispose()

    in_own_loop(run())


def start_slow(server: LiveServer, steps: int) -> tuple[str, threading.Thread]:
    """Start the slow tool through ``server``'s SSE face, its client kept reading in a
    thread (leaving would cancel the run); the run's id and that thread."""
    started = threading.Event()
    seen: dict[str, str] = {}

    def client() -> None:
        try:
            with httpx.stream("POST", f"{server.url}/api/tools/slow/execute/stream",
                              json={"args": {"steps": steps}}, timeout=600) as stream:
                for event, data in sse(stream.iter_lines()):
                    if event == "started":
                        seen["run_id"] = data["run_id"]
                        started.set()
        except httpx.HTTPError:
            pass  # its server was killed under it

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    assert started.wait(30), "the tool's run did not start"
    return seen["run_id"], thread


def sse(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    event, data = "message", ""
    for line in lines:
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data += line[5:].strip()
        elif not line and data:
            yield event, json.loads(data)
            event, data = "message", ""


def follow(server: LiveServer, run_id: str, after: int = 0) -> list[dict[str, Any]]:
    """The run's events through ``server``'s runs SSE face, from ``after`` to its end (the
    stream's closing ``end`` message left out)."""
    seen: list[dict[str, Any]] = []
    follow_into(seen, server, run_id, after)
    return seen


def follow_into(seen: list[dict[str, Any]], server: LiveServer, run_id: str,
                after: int = 0) -> None:
    """``follow``, each event put in ``seen`` as it comes (for a follower in a thread)."""
    headers = {"Last-Event-ID": str(after)} if after else {}
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events", headers=headers,
                      timeout=60) as stream:
        for event, data in sse(stream.iter_lines()):
            if event != "end":
                seen.append(data)


def under_way(server: LiveServer, run_id: str) -> None:
    """Wait until ``server`` has the slow tool's first progress message of the run (read
    through its runs SSE face, left then: a follower leaving that face cancels nothing)."""
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events", timeout=60) as stream:
        for _, data in sse(stream.iter_lines()):
            if data.get("kind") == "progress":
                return
    raise AssertionError(f"run {run_id} ended before any progress")


stored = follow  # of an ended run: what the store holds


def status(server: LiveServer, run_id: str) -> str:
    return str(httpx.get(f"{server.url}/api/runs/{run_id}", timeout=10).json()["status"])


async def watch_and_approve(a: LiveServer, b: LiveServer) -> tuple[Watcher, list[str]]:
    async with httpx.AsyncClient(base_url=a.url, timeout=30) as on_a, \
            httpx.AsyncClient(base_url=b.url, timeout=30) as on_b:
        pid = await new_project(on_a)
        async with Watcher(b.url, "seed") as watcher:
            assert (await watcher.sio.call("subscribe:project", pid, timeout=10))["ok"]
            assert (await on_a.post(f"/api/projects/{pid}/start")).status_code == 200
            resolved: list[str] = []
            async with asyncio.timeout(60):
                while not [s for s in watcher.named("project:status_changed")
                           if s.get("newStatus") == "completed"]:
                    for created in watcher.named("checkpoint:created"):
                        cid = created["checkpointId"]
                        if cid not in resolved:
                            http = (on_a, on_b)[len(resolved) % 2]
                            response = await http.post(f"/api/checkpoints/{cid}/resolve",
                                                       json={"resolution": "approved"})
                            assert response.status_code == 200, response.text
                            resolved.append(cid)
                    await asyncio.sleep(0.05)
    return watcher, resolved
