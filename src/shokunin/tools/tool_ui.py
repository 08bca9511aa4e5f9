"""Live tool UIs: the web servers tools started on their ``context["ui_port"]``.

A tool with a UI runs in a child process of its own. When its ``execute()`` returns and that
process listens on the port it was given, the process is kept (not given back to the warm
pool) as the execution's *live UI*, which the API proxies under
``/api/tools/<name>/ui/<execution_id>/<key>/``. ``key`` is a secret of that UI: the page's
own requests (its links, images, scripts and fetches, from a sandboxed frame that carries
no login cookie) are let in by it alone, so only who was shown the page's address can use
it. Its lifetime:

* it lives after the run ends (a tool such as the origin's ``flask_test`` starts its
  server, returns, and its page is looked at afterwards);
* it is stopped by ``stop()`` (the API's ``DELETE``), when the run is cancelled or times
  out before returning (the process is killed), when it has not been used for
  ``IDLE_SEC``, when more than ``MAX_LIVE`` are live (the least recently used goes), when
  the tools are reloaded, and when the server stops;
* stopping kills the process, so no server of a tool outlives it; a child whose server
  dies (its pipe closes) exits too, so none is orphaned.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shokunin.tools.ui_port import owns_listener

IDLE_SEC = 30 * 60.0
MAX_LIVE = 8


@dataclass
class ToolUi:
    """One live tool UI: the execution it came from and the loopback port it serves."""

    execution_id: str
    tool: str
    port: int
    pid: int
    stop_process: Callable[[], None] = field(repr=False)
    key: str = field(default_factory=lambda: secrets.token_urlsafe(24), repr=False)
    started: float = field(default_factory=time.monotonic)
    used: float = field(default_factory=time.monotonic)

    @property
    def path(self) -> str:
        """Where the API serves it (relative links of the page resolve under it)."""
        return f"/api/tools/{self.tool}/ui/{self.execution_id}/{self.key}/"

    def opens(self, key: str) -> bool:
        """Whether ``key`` is this UI's secret (compared in constant time)."""
        return hmac.compare_digest(self.key.encode(), key.encode())

    def serving(self) -> bool:
        """Whether the tool's own process still listens on the port."""
        return owns_listener(self.pid, self.port)


class ToolUis:
    """The live tool UIs of one registry (thread-safe)."""

    def __init__(self, idle_sec: float = IDLE_SEC, max_live: int = MAX_LIVE) -> None:
        self.idle_sec = idle_sec
        self.max_live = max_live
        self._live: dict[str, ToolUi] = {}
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def add(self, ui: ToolUi) -> None:
        """Keep ``ui`` live; the least recently used go first when there are too many."""
        with self._lock:
            self._live[ui.execution_id] = ui
            gone = self._expired_locked()
            while len(self._live) > self.max_live:
                oldest = min(self._live.values(), key=lambda u: u.used)
                gone.append(self._live.pop(oldest.execution_id))
            self._arm_locked()
        _stop_all(gone)

    def get(self, execution_id: str) -> ToolUi | None:
        """The live UI of that execution, marked as used; None when there is none (or its
        server has stopped, which ends it)."""
        with self._lock:
            gone = self._expired_locked()
            ui = self._live.get(execution_id)
        _stop_all(gone)
        if ui is None:
            return None
        if not ui.serving():
            self.stop(execution_id)
            return None
        ui.used = time.monotonic()
        return ui

    def live(self) -> list[ToolUi]:
        with self._lock:
            return list(self._live.values())

    def stop(self, execution_id: str) -> bool:
        """Stop that execution's UI (its process ends); False when none is live."""
        with self._lock:
            ui = self._live.pop(execution_id, None)
        if ui is None:
            return False
        ui.stop_process()
        return True

    def stop_all(self) -> None:
        with self._lock:
            gone, self._live = list(self._live.values()), {}
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        _stop_all(gone)

    def sweep(self) -> None:
        """Stop the UIs unused for ``idle_sec``; runs by itself while any is live."""
        with self._lock:
            self._timer = None
            gone = self._expired_locked()
            self._arm_locked()
        _stop_all(gone)

    def _arm_locked(self) -> None:
        if self._timer is not None or not self._live:
            return
        due = min(ui.used for ui in self._live.values()) + self.idle_sec
        self._timer = threading.Timer(max(due - time.monotonic(), 0.0) + 1.0, self.sweep)
        self._timer.daemon = True
        self._timer.start()

    def _expired_locked(self) -> list[ToolUi]:
        now = time.monotonic()
        gone = [ui for ui in self._live.values() if now - ui.used > self.idle_sec]
        for ui in gone:
            del self._live[ui.execution_id]
        return gone


def _stop_all(uis: list[ToolUi]) -> None:
    for ui in uis:
        ui.stop_process()
