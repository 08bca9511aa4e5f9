"""``/mcp``: the MCP server over streamable HTTP, inside the web server.

Stateless (no session id: any server process can answer any request) with SSE responses,
so progress notifications reach the client while a call runs; JSON response mode would
drop them. The route sits behind the app's perimeter like every other: Origin, auth (a
Bearer token or an API key when auth is on), declared body type and size.

The SDK's own DNS-rebinding check (Host and Origin against a list) is off on purpose: the
perimeter's OriginMiddleware already judges every route's Origin the same way, and a fixed
host list would refuse the names a real deployment is reached by.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from mcp.server.streamable_http_manager import (
    StreamableHTTPASGIApp,
    StreamableHTTPSessionManager,
)
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from shokunin.engine import Engine
from shokunin.mcp.server.app import build_server

PATH = "/mcp"


class McpEndpoint:
    """The ASGI app to route at ``/mcp`` and the lifespan it needs (``running()``): a
    mounted app's own lifespan never runs, so the web server's lifespan enters this one."""

    def __init__(self, engine_of: Callable[[], Engine], *, max_body_bytes: int) -> None:
        self.manager = StreamableHTTPSessionManager(
            app=build_server(engine_of, local=False), json_response=False, stateless=True,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=max_body_bytes)
        self.app: ASGIApp = StreamableHTTPASGIApp(self.manager)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield
