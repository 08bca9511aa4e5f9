"""Warm child processes that run venv tools (and tools with a UI), and the JSON-lines
protocol they speak.

One JSON object per line; the server writes to the child's stdin and reads its stdout::

    child  -> server   {"type": "ready", "pid": 123}            tool imported, accepting calls
                       {"type": "load_error", "error": "..."}   import failed; the child exits
                       {"type": "described", "exports": {...}}  answer in describe mode
                       {"type": "progress", "id": ID, "message": "..."}
                       {"type": "result", "id": ID, "result": {...}}     execute() returned
                       {"type": "result", "id": ID, "raised": "..."}     execute() raised
                       {"type": "result", "id": ID, "malformed": "..."}  not JSON-able
    server -> child    {"type": "execute", "id": ID, "args": {...}, "context": {...}}
                       {"type": "abort", "id": ID}              sets that call's abort_event

The context sent is the in-process one without its callables, plus ``"_runtime"`` (what
``context["runtime"]`` needs: the shared storage folder); the worker adds its own
message_callback, abort_event and runtime. Each child serves one call at a time, so a call that must
be killed (timeout, ignored abort) takes no other call down with it.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from shokunin.tools import worker as worker_module
from shokunin.tools.errors import ToolLoadError, WorkerDied
from shokunin.tools.leak_guard import output_log
from shokunin.tools.masking import mask_text

log = logging.getLogger(__name__)
WORKER_SCRIPT = Path(worker_module.__file__).resolve()
STDERR_TAIL = 20


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PYTHONIOENCODING="utf-8", PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def describe(python: Path, entry: Path, timeout: float = 60.0) -> dict[str, Any]:
    """Import the tool inside its venv and return its exports (``read_exports`` form)."""
    try:
        done = subprocess.run(
            [str(python), str(WORKER_SCRIPT), "describe", str(entry)], capture_output=True,
            timeout=timeout, env=_child_env(), cwd=entry.parent, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ToolLoadError(f"importing the tool in its venv took over {timeout:g} s") from None
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        message = json.loads(line)
        if message.get("type") == "described":
            return message["exports"]
        if message.get("type") == "load_error":
            raise ToolLoadError(message["error"])
    tail = done.stderr.decode("utf-8", "replace")[-500:]
    raise ToolLoadError(f"the tool's venv python failed (exit {done.returncode}): {tail}")


class Worker:
    """One child process serving one tool from its venv."""

    def __init__(self, python: Path, entry: Path) -> None:
        self.entry = entry
        self._proc = subprocess.Popen(
            [str(python), str(WORKER_SCRIPT), "serve", str(entry)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_child_env(), cwd=entry.parent)
        self._ready: Future[None] = Future()
        self._call: tuple[str, Future[dict[str, Any]], Callable[[str], None]] | None = None
        self._lock = threading.Lock()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self.secrets: list[str] = []
        threading.Thread(target=self._read_stdout, daemon=True, name="tool-child-out").start()
        threading.Thread(target=self._read_stderr, daemon=True, name="tool-child-err").start()

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    @property
    def pid(self) -> int:
        return self._proc.pid

    def wait_ready(self, timeout: float) -> None:
        """Block until the tool is imported; raises ToolLoadError or TimeoutError."""
        self._ready.result(timeout)

    def call(self, request_id: str, args: dict[str, Any], context: dict[str, Any],
             on_progress: Callable[[str], None],
             secrets: list[str] | None = None) -> Future[dict[str, Any]]:
        """Send one call; the future gets the child's result message. ``secrets`` are masked
        in what the child writes to stderr (a tool's print goes there) before it is logged."""
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            self._call = (request_id, future, on_progress)
            self.secrets = list(secrets or [])
        self._send({"type": "execute", "id": request_id, "args": args, "context": context})
        return future

    def abort(self, request_id: str) -> None:
        self._send({"type": "abort", "id": request_id})

    def kill(self) -> None:
        if self.alive:
            self._proc.kill()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a zombie we cannot reap
            log.warning("tool child %s did not exit after kill", self._proc.pid)

    def _send(self, message: dict[str, Any]) -> None:
        line = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            with self._lock:
                assert self._proc.stdin is not None
                self._proc.stdin.write(line)
                self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the reader thread reports the death to whoever waits

    def _read_stdout(self) -> None:
        assert self._proc.stdout is not None
        for raw in self._proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            kind = message.get("type")
            if kind == "ready":
                self._ready.set_result(None)
            elif kind == "load_error":
                self._ready.set_exception(ToolLoadError(message.get("error", "load failed")))
            elif self._call and message.get("id") == self._call[0]:
                if kind == "progress":
                    self._call[2](str(message.get("message", "")))
                elif kind == "result":
                    _, future, _ = self._call
                    with self._lock:
                        self._call = None
                    future.set_result(message)
        code = self._proc.wait()
        died = WorkerDied(f"the tool's process exited (code {code})"
                          + (f": {self._stderr[-1]}" if self._stderr else ""))
        if not self._ready.done():
            self._ready.set_exception(ToolLoadError(str(died)))
        with self._lock:
            call, self._call = self._call, None
        if call and not call[1].done():
            call[1].set_exception(died)

    def _read_stderr(self) -> None:
        assert self._proc.stderr is not None
        for raw in self._proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            line = mask_text(line, self.secrets)
            self._stderr.append(line)
            output_log.info("[%s] %s", self.entry.parent.name, line)


class WorkerPool:
    """Warm workers of one tool: a call takes an idle one or starts one, then gives it back."""

    def __init__(self, python: Path, entry: Path, max_idle: int = 2) -> None:
        self.python = python
        self.entry = entry
        self.max_idle = max_idle
        self._idle: list[Worker] = []
        self._lock = threading.Lock()
        self._closed = False

    def take_idle(self) -> Worker | None:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive:
                    return worker
        return None

    def start(self, timeout: float) -> Worker:
        """Start a new worker and wait until the tool is imported (blocking)."""
        worker = Worker(self.python, self.entry)
        try:
            worker.wait_ready(timeout)
        except BaseException:
            worker.kill()
            raise
        return worker

    def give_back(self, worker: Worker) -> None:
        with self._lock:
            if worker.alive and not self._closed and len(self._idle) < self.max_idle:
                self._idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()
