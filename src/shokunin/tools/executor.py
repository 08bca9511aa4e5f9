"""The executor: runs one call of a loaded tool with a timeout, progress and abort.

In-process tools run in a daemon thread of their own, so a tool that hangs holds no pool
slot and never blocks the event loop; it cannot be killed, so on timeout its abort_event is
set and the call returns at once. Venv tools run in a warm child process (``child.py``),
which is killed when it overruns or ignores an abort, and restarted on the next call. A tool
with a UI runs in a child process too (the server's own interpreter when it has no venv), so
the web server it starts on ``context["ui_port"]`` can be stopped: when the call returns
with that process listening on the port, the process becomes the execution's live UI
(``tool_ui.py``) instead of going back to the pool. An MCP server's tool is a request on its
server's session, cancelled there on timeout or abort.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from shokunin.tools import leak_guard, venv
from shokunin.tools.child import Worker, WorkerPool
from shokunin.tools.errors import ToolLoadError, VenvError, WorkerDied
from shokunin.tools.loader import LoadedTool
from shokunin.tools.masking import mask_text
from shokunin.tools.results import ABORTED_MESSAGE, failure, finish
from shokunin.tools.runtime import Runtime
from shokunin.tools.tool_ui import ToolUi, ToolUis
from shokunin.tools.ui_port import owns_listener
from shokunin.tools.worker import RUNTIME_KEY

log = logging.getLogger(__name__)
ABORT_GRACE_SEC = 2.0  # how long a tool gets to notice its abort_event and return
POLL_SEC = 0.05  # how often a caller's own abort event is looked at

Progress = Callable[..., None]
Waited = Literal["done", "timeout", "aborted"]


@dataclass
class Execution:
    """One call in flight: what ``abort(execution_id)`` reaches."""

    id: str
    loop: asyncio.AbstractEventLoop
    abort_event: threading.Event = field(default_factory=threading.Event)
    on_abort: Callable[[], None] | None = None
    aborted: asyncio.Future[None] = field(init=False)

    def __post_init__(self) -> None:
        self.aborted = self.loop.create_future()

    def request_abort(self) -> None:
        """Safe from any thread: set the tool's abort_event and wake the waiting call."""
        self.abort_event.set()
        if self.on_abort:
            self.on_abort()
        with contextlib.suppress(RuntimeError):  # loop already closed
            self.loop.call_soon_threadsafe(_resolve, self.aborted)


@dataclass
class Call:
    """Everything one run needs besides the tool."""

    execution_id: str
    args: dict[str, Any]
    context: dict[str, Any]
    timeout: float
    allowed: list[Path]
    secrets: list[str]
    progress: Progress
    abort: threading.Event | None = None
    shared: Path | None = None  # the tool's runtime.shared_storage folder


class Executor:
    def __init__(self, max_idle_workers: int = 2) -> None:
        self.venvs = venv.VenvManager()
        self.max_idle_workers = max_idle_workers
        self._pools: dict[Path, WorkerPool] = {}
        self._running: dict[str, Execution] = {}
        self.uis = ToolUis()

    async def run(self, tool: LoadedTool, call: Call) -> dict[str, Any]:
        exe = Execution(call.execution_id, asyncio.get_running_loop())
        self._running[exe.id] = exe
        try:
            if tool.remote is not None:
                return await self._remote(tool, call, exe)
            if tool.module is not None and not call.context.get("ui_port"):
                return await self._in_process(tool, call, exe)
            return await self._in_child(tool, call, exe)
        finally:
            self._running.pop(exe.id, None)

    def abort(self, execution_id: str) -> bool:
        exe = self._running.get(execution_id)
        if exe is None:
            return False
        exe.request_abort()
        return True

    def prepare(self, tool: LoadedTool, progress: Progress | None = None) -> Path:
        """Build the tool's venv if needed (blocking); returns its python."""
        return self.venvs.ensure(tool.tool_dir, progress)

    def close(self) -> None:
        for exe in list(self._running.values()):
            exe.request_abort()
        self.stop_workers()

    def stop_workers(self) -> None:
        """Stop warm workers and live UIs (after a reload they would run the old code)."""
        pools, self._pools = self._pools, {}
        for pool in pools.values():
            pool.close()
        self.uis.stop_all()

    async def _in_process(self, tool: LoadedTool, call: Call, exe: Execution) -> dict[str, Any]:
        assert tool.module is not None
        execute = tool.module.execute
        context = {**call.context, "message_callback": call.progress,
                   "abort_event": exe.abort_event,
                   "runtime": Runtime(call.context.get("workspace") or tool.tool_dir,
                                      shared=call.shared, chat_id=call.context.get("chat_id"))}
        future: asyncio.Future[tuple[bool, Any]] = exe.loop.create_future()

        def target() -> None:
            try:
                with leak_guard.captured(tool.name, call.secrets):  # its print()s: to the log
                    outcome: tuple[bool, Any] = (True, execute(call.args, context))
            except BaseException as exc:  # a tool's SystemExit is a failure too
                outcome = (False, exc)
            with contextlib.suppress(RuntimeError):
                exe.loop.call_soon_threadsafe(_resolve, future, outcome)

        threading.Thread(target=target, daemon=True, name=f"tool:{tool.name}").start()
        try:
            waited = await self._wait(exe, future, call)
        except asyncio.CancelledError:
            exe.request_abort()
            raise
        if waited != "done":
            exe.abort_event.set()
            return self._stopped(waited, call)
        ok, value = future.result()
        if not ok:
            log.info("tool %s raised %s", tool.name,
                     mask_text(f"{type(value).__name__}: {value}", call.secrets))
            return failure(mask_text(f"the tool raised {type(value).__name__}: {value}",
                                     call.secrets), call.execution_id)
        return finish(value, execution_id=call.execution_id, allowed=call.allowed,
                      secrets=call.secrets)

    async def _remote(self, tool: LoadedTool, call: Call, exe: Execution) -> dict[str, Any]:
        assert tool.remote is not None
        workspace = Path(call.context.get("workspace") or tool.tool_dir)
        request = asyncio.ensure_future(tool.remote(call.args, call.progress, workspace))
        # An abort cancels the request at once: the SDK tells the server to stop it.
        exe.on_abort = lambda: exe.loop.call_soon_threadsafe(request.cancel)
        try:
            waited = await self._wait(exe, request, call)
        except asyncio.CancelledError:
            request.cancel()
            raise
        if waited != "done" or request.cancelled():
            request.cancel()
            return self._stopped("timeout" if waited == "timeout" else "aborted", call)
        if (error := request.exception()) is not None:
            log.info("MCP tool %s failed: %r", tool.name, error)
            return failure(mask_text(f"the MCP call failed: {type(error).__name__}: {error}",
                                     call.secrets), call.execution_id)
        return finish(request.result(), execution_id=call.execution_id,
                      allowed=[workspace.resolve(), *call.allowed], secrets=call.secrets)

    async def _in_child(self, tool: LoadedTool, call: Call, exe: Execution) -> dict[str, Any]:
        if not tool.info.has_venv:  # a UI tool without a venv: the server's interpreter
            return await self._serve(tool, call, exe, Path(sys.executable))
        python = venv.venv_python(tool.tool_dir)
        if not venv.is_ready(tool.tool_dir):
            stale = self._pools.pop(tool.tool_dir, None)
            if stale is not None:
                stale.close()  # its workers run the old environment
            try:
                await asyncio.to_thread(self.venvs.ensure, tool.tool_dir, call.progress,
                                        exe.abort_event)
            except VenvError as exc:
                return failure(str(exc), call.execution_id, aborted=exe.abort_event.is_set())
        return await self._serve(tool, call, exe, python)

    async def _serve(self, tool: LoadedTool, call: Call, exe: Execution,
                     python: Path) -> dict[str, Any]:
        pool = self._pool(tool, python)
        try:
            worker = pool.take_idle() or await self._start_worker(pool, call.timeout)
        except ToolLoadError as exc:
            return failure(f"the tool could not be loaded in its venv: {exc}", call.execution_id)
        except TimeoutError:
            return failure(f"timed out after {call.timeout:g} s while the tool was loading",
                           call.execution_id)
        wire_context = {**call.context, "has_venv": tool.info.has_venv,
                        "venv_python": str(python) if tool.info.has_venv else None,
                        RUNTIME_KEY: {"shared": str(call.shared) if call.shared else None}}
        future = asyncio.wrap_future(worker.call(exe.id, call.args, wire_context, call.progress,
                                                call.secrets))
        future.add_done_callback(_consume)
        exe.on_abort = lambda: worker.abort(exe.id)
        if exe.abort_event.is_set():
            worker.abort(exe.id)
        try:
            waited = await self._wait(exe, future, call)
        except asyncio.CancelledError:
            worker.kill()
            raise
        if waited != "done":
            worker.kill()
            return self._stopped(waited, call)
        try:
            message = future.result()
        except WorkerDied as exc:
            return failure(mask_text(f"{exc} (it is restarted on the next call)", call.secrets),
                           call.execution_id)
        ui = self._keep_ui(tool, call, worker, pool, _reported_port(message),
                           aborted=exe.abort_event.is_set())
        result = self._outcome(tool, call, message)
        return result if ui is None else {**result, "ui": {"url": ui.path, "port": ui.port}}

    @staticmethod
    def _outcome(tool: LoadedTool, call: Call, message: dict[str, Any]) -> dict[str, Any]:
        if "raised" in message:
            error = f"the tool raised {message['raised']}"
            log.info("tool %s: %s", tool.name, mask_text(error, call.secrets))
            return failure(mask_text(error, call.secrets), call.execution_id)
        if "malformed" in message:
            return failure(mask_text(f"malformed result: {message['malformed']}", call.secrets),
                           call.execution_id)
        return finish(message.get("result"), execution_id=call.execution_id,
                      allowed=call.allowed, secrets=call.secrets)

    def _keep_ui(self, tool: LoadedTool, call: Call, worker: Worker, pool: WorkerPool,
                 reported: int | None, *, aborted: bool) -> ToolUi | None:
        """The execution's live UI when the tool's process now serves its ui_port (or the
        port its result's ``ui_info`` names, as the origin's web_search does: proxied only
        when that process is the one listening there); else the worker goes back to the
        pool (or ends, when a cancelled call left a server)."""
        ports = [p for p in (call.context.get("ui_port"), reported) if p]
        port = next((p for p in ports if owns_listener(worker.pid, p)), None)
        if port is None:
            pool.give_back(worker)
            return None
        if aborted:  # a cancelled run leaves no page behind
            worker.kill()
            return None
        ui = ToolUi(call.execution_id, tool.name, port, worker.pid, worker.kill)
        self.uis.add(ui)
        return ui

    async def _start_worker(self, pool: WorkerPool, timeout: float) -> Worker:
        starting = asyncio.ensure_future(asyncio.to_thread(pool.start, timeout))
        try:
            return await asyncio.shield(starting)
        except asyncio.CancelledError:
            # The caller left while the child was starting: keep it warm for the next call.
            starting.add_done_callback(
                lambda f: None if f.cancelled() or f.exception() else pool.give_back(f.result()))
            raise

    async def _wait(self, exe: Execution, future: asyncio.Future[Any], call: Call) -> Waited:
        loop = exe.loop
        deadline = loop.time() + call.timeout
        while not future.done():
            remaining = deadline - loop.time()
            if remaining <= 0:
                return "timeout"
            step = min(remaining, POLL_SEC) if call.abort is not None else remaining
            await asyncio.wait({future, exe.aborted}, timeout=step,
                               return_when=asyncio.FIRST_COMPLETED)
            if call.abort is not None and call.abort.is_set() and not exe.aborted.done():
                exe.request_abort()
                await asyncio.sleep(0)  # let the wake-up land
            if exe.aborted.done() and not future.done():
                grace = min(ABORT_GRACE_SEC, max(deadline - loop.time(), 0.0))
                done, _ = await asyncio.wait({future}, timeout=grace)
                return "done" if done else "aborted"
        return "done"

    def _stopped(self, waited: Waited, call: Call) -> dict[str, Any]:
        if waited == "timeout":
            return failure(f"timed out after {call.timeout:g} s", call.execution_id)
        return failure(ABORTED_MESSAGE, call.execution_id, aborted=True)

    def _pool(self, tool: LoadedTool, python: Path) -> WorkerPool:
        pool = self._pools.get(tool.tool_dir)
        if pool is None:
            pool = self._pools[tool.tool_dir] = WorkerPool(python, tool.entry,
                                                           self.max_idle_workers)
        return pool


def _reported_port(message: dict[str, Any]) -> int | None:
    """The port a tool's result says its own UI serves (``{"ui_info": {"ui_port": N}}``)."""
    result = message.get("result")
    info = result.get("ui_info") if isinstance(result, dict) else None
    port = info.get("ui_port") if isinstance(info, dict) else None
    return port if isinstance(port, int) and not isinstance(port, bool) and 0 < port < 65536 \
        else None


def _resolve(future: asyncio.Future[Any], value: Any = None) -> None:
    if not future.done():
        future.set_result(value)


def _consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # a killed worker's error is expected; don't log it as unretrieved
