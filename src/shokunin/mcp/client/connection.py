"""One long-lived session with one MCP server, kept open and reopened when it breaks.

A new session per call would break stateful servers (and start a stdio server per call),
so each configured server gets one supervising task that holds the SDK's ``Client`` open,
lists the server's tools, refreshes the list now and then (which also notices a server
that went away) and reconnects with a growing pause after a failure. Calls from any task
share the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, Any, Literal

import anyio
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from shokunin import __version__
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.mcp.client.servers import HttpServer, StdioServer
from shokunin.tools import mask_text

log = logging.getLogger(__name__)

CONNECT_SEC = 30.0  # a server that has not answered its first listing by then is down
REFRESH_SEC = 60.0  # how often the tool list is read again (a dead server shows here)
MAX_PAUSE_SEC = 60.0  # the longest wait between two reconnection attempts
STDERR_TAIL_CHARS = 400  # how much of a dying stdio server's stderr its status quotes

CLIENT_INFO = types.Implementation(name="shokunin", version=__version__)

Status = Literal["connecting", "ok", "error"]
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


class McpUnavailable(ShokuninError):
    """The server is not connected (yet, or any more); the message says why."""
    status = 503
    code = ErrorCode.UNAVAILABLE


class McpConnection:
    """The session with one server: ``status``, ``error`` and ``tools`` describe it."""

    def __init__(self, name: str, spec: StdioServer | HttpServer, *, stderr_dir: Path,
                 on_change: Callable[[], None]) -> None:
        self.name = name
        self.spec = spec
        self.status: Status = "connecting"
        self.error: str | None = None
        self.tools: list[types.Tool] = []
        self._stderr_path = stderr_dir / f"{name}.stderr.log"
        self._on_change = on_change
        self._client: Client | None = None
        self._stop = asyncio.Event()
        self._broken = asyncio.Event()
        self._settled = asyncio.Event()  # the first attempt has ended, either way
        self._task: asyncio.Task[None] | None = None
        self._attempt: anyio.CancelScope | None = None  # the running connection attempt

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._supervise(), name=f"mcp:{self.name}")

    async def wait_settled(self, timeout: float) -> None:
        """Wait until the first connection attempt succeeded or failed (at most ``timeout``)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), timeout)

    async def close(self) -> None:
        """End the session and stop the server's process.

        A session that is open ends politely (up to 10 s); an attempt still connecting has
        nothing to end and is cancelled at once. Cancelling goes through the attempt's
        anyio scope, never ``task.cancel()``: the SDK's shielded shutdown, which stops a
        stdio server's process, does not survive a native task cancellation.
        """
        self._stop.set()
        if self._task is None:
            return
        if self._client is None and self._attempt is not None:
            self._attempt.cancel()
        for _ in range(2):
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 10)
                return
            except TimeoutError:
                if self._attempt is not None:
                    self._attempt.cancel()
            except Exception:  # its reason is already in self.error
                return
        self._task.cancel()

    async def call(self, tool: str, args: dict[str, Any],
                   progress: ProgressFn | None = None) -> types.CallToolResult:
        """Call ``tool``; McpUnavailable when the server is not connected or drops the call.

        Cancelling the calling task cancels the request on the server too.
        """
        client = self._client
        if client is None:
            raise McpUnavailable(self._why_down())
        try:
            return await client.call_tool(tool, args, progress_callback=progress)
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                raise
            if self._client is client:  # listed as down at once; the supervisor reconnects
                self._set(None, [], "error", "the server closed the connection (reconnecting)")
                self._broken.set()
            raise McpUnavailable(f"MCP server {self.name!r} closed the connection during the "
                                 "call (reconnecting)") from None

    def _why_down(self) -> str:
        if self.status == "connecting":
            return f"MCP server {self.name!r} is still connecting"
        return f"MCP server {self.name!r} is unavailable: {self.error}"

    async def _supervise(self) -> None:
        pause = 1.0
        while not self._stop.is_set():
            self._broken.clear()
            try:
                with anyio.CancelScope() as self._attempt, self._stderr() as errlog:
                    async with contextlib.AsyncExitStack() as stack:
                        async with asyncio.timeout(CONNECT_SEC):
                            client = await stack.enter_async_context(Client(
                                self._transport(errlog), client_info=CLIENT_INFO))
                            tools = (await client.list_tools()).tools
                        self._set(client, tools, "ok", None)
                        self._settled.set()
                        pause = 1.0
                        await self._hold(client)
            except Exception as exc:  # the SDK wraps failures in exception groups
                self._client = None
                self._set(None, [], "error", self._reason(exc))
                log.warning("MCP server %s: %s", self.name, self.error)
            else:
                if self.status == "ok" and not self._stop.is_set():
                    self._set(None, [], "error", "the connection broke (reconnecting)")
                self._client = None
            finally:
                self._attempt = None
                self._settled.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), pause)
            pause = min(pause * 2, MAX_PAUSE_SEC)

    async def _hold(self, client: Client) -> None:
        """Keep the session until close() or a broken call; re-read the tools meanwhile."""
        while True:
            stop = asyncio.ensure_future(self._stop.wait())
            broken = asyncio.ensure_future(self._broken.wait())
            done, pending = await asyncio.wait({stop, broken}, timeout=REFRESH_SEC,
                                               return_when=asyncio.FIRST_COMPLETED)
            for waiter in pending:
                waiter.cancel()
            if done:
                return
            tools = (await asyncio.wait_for(client.list_tools(), REFRESH_SEC)).tools
            if [t.model_dump() for t in tools] != [t.model_dump() for t in self.tools]:
                self._set(client, tools, "ok", None)

    def _set(self, client: Client | None, tools: list[types.Tool], status: Status,
             error: str | None) -> None:
        self._client, self.tools, self.status, self.error = client, tools, status, error
        try:
            self._on_change()
        except Exception:  # a listener's fault must not stop the connection
            log.exception("MCP server %s: change listener failed", self.name)

    def _transport(self, errlog: IO[str] | None) -> Any:
        spec = self.spec
        if isinstance(spec, StdioServer):
            params = StdioServerParameters(command=spec.command, args=spec.args,
                                           env=spec.env,
                                           cwd=spec.cwd)
            return stdio_client(params, errlog=errlog) if errlog else stdio_client(params)
        http = httpx2.AsyncClient(headers=spec.headers,
                                  timeout=httpx2.Timeout(30.0, read=300.0))
        return streamable_http_client(spec.url, http_client=http)

    @contextlib.contextmanager
    def _stderr(self) -> Any:
        """A stdio server's stderr goes to a file, whose tail explains a server that dies."""
        if not isinstance(self.spec, StdioServer):
            yield None
            return
        self._stderr_path.parent.mkdir(parents=True, exist_ok=True)
        with self._stderr_path.open("w", encoding="utf-8", errors="replace") as errlog:
            yield errlog

    def _reason(self, exc: BaseException) -> str:
        leaf = _leaf(exc)
        if isinstance(leaf, FileNotFoundError) and isinstance(self.spec, StdioServer):
            reason = f"command not found: {self.spec.command}"
        elif isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED:
            reason = "the server closed the connection"
        elif isinstance(leaf, httpx2.HTTPStatusError):
            reason = f"HTTP {leaf.response.status_code} from the server"
        else:
            reason = f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__
        tail = self._stderr_tail()
        # A server may echo its own key; env and header values never reach a listing.
        secrets = [*self.spec.env.values()] if isinstance(self.spec, StdioServer) else [
            *self.spec.headers.values()]
        return mask_text(f"{reason} (stderr: {tail})" if tail else reason,
                         [s for s in secrets if len(s) >= 4])

    def _stderr_tail(self) -> str:
        if not isinstance(self.spec, StdioServer):
            return ""
        try:
            text = self._stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return " ".join(text.split())[-STDERR_TAIL_CHARS:]


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside the SDK's (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
