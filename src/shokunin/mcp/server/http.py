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

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from starlette.types import ASGIApp

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from shokunin.engine import Engine

MCP_PATH = "/mcp"


@asynccontextmanager
async def mcp_http_app(engine_of: Callable[[], Engine], *,
                       max_body_bytes: int) -> AsyncIterator[ASGIApp]:
    """The ASGI app to route at ``/mcp``, served while its session manager's task group
    runs (entered and left by one task). Importing the SDK takes half a second: the web
    server opens this on the first request to ``/mcp`` (``api.lazy_app``)."""
    manager = await asyncio.to_thread(_manager, engine_of, max_body_bytes)  # off the loop
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp

    async with manager.run():
        yield StreamableHTTPASGIApp(manager)


def _manager(engine_of: Callable[[], Engine],
             max_body_bytes: int) -> StreamableHTTPSessionManager:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from shokunin.mcp.server.app import build_server

    return StreamableHTTPSessionManager(
        app=build_server(engine_of, local=False), json_response=False, stateless=True,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=max_body_bytes)
