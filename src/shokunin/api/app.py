"""The app factory: routes, the perimeter middleware, exception handlers and the lifespan
that builds the engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.middleware import Middleware

from shokunin import __version__
from shokunin.api import (
    advisor,
    analyst,
    health,
    kernels,
    model_settings,
    perimeter,
    runs,
    studio,
    tools,
    web,
    workbench,
)
from shokunin.api.errors import install_error_handlers
from shokunin.api.lazy_app import LazyApp
from shokunin.api.perimeter import (
    AuthMiddleware,
    BodyLimitMiddleware,
    ContentTypeMiddleware,
    HostMiddleware,
    LiveConnections,
    LiveMiddleware,
    OriginMiddleware,
    SecurityHeadersMiddleware,
    is_loopback_name,
)
from shokunin.api.studio import studio_socket_app
from shokunin.api.tools import tool_ui_page
from shokunin.auth import Authenticator, KeyStore
from shokunin.config import Settings
from shokunin.engine import Engine
from shokunin.mcp.server import MCP_PATH, mcp_http_app
from shokunin.models import announce


def middleware(app: FastAPI, settings: Settings, authenticator: Authenticator,
               live: LiveConnections) -> list[Middleware]:
    """The middleware every connection passes, outermost first: headers on every answer,
    the Host check, CORS preflights, then Origin, auth, live connections' caps and
    revocation (``live``, shared with the Socket.IO face), declared body type and body size."""
    docs = [path for path in (app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url)
            if path]
    stack = [Middleware(SecurityHeadersMiddleware, docs_paths=docs),
             Middleware(HostMiddleware, allowed_hosts=settings.allowed_hosts)]
    if settings.allowed_origins:
        stack.append(Middleware(
            CORSMiddleware, allow_origins=settings.allowed_origins, allow_credentials=True,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID"], max_age=600))
    stack += [
        Middleware(OriginMiddleware, allowed_origins=settings.allowed_origins,
                   loopback=is_loopback_name(settings.host.strip().lower()),
                   capability=tool_ui_page),
        Middleware(AuthMiddleware, authenticator=authenticator, capability=tool_ui_page),
        Middleware(LiveMiddleware, live=live),
        Middleware(ContentTypeMiddleware),
        Middleware(BodyLimitMiddleware, max_body_bytes=settings.max_body_bytes,
                   max_upload_bytes=settings.max_upload_bytes),
    ]
    return stack


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    token = settings.auth_token.get_secret_value() if settings.auth_token else None
    authenticator = Authenticator(token)
    # Opened by their first request: most servers are never asked over MCP or Socket.IO.
    socket = LazyApp("Socket.IO", lambda: studio_socket_app(app.state.engine.studio, live))
    mcp = LazyApp("MCP", lambda: mcp_http_app(lambda: app.state.engine,
                                              max_body_bytes=settings.max_body_bytes))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = await Engine.open(settings)
        app.state.engine = engine
        authenticator.keys = KeyStore(engine.store.engine)
        # Does the model answer? One log line, in the background: start never waits for it.
        check = asyncio.create_task(announce(engine.settings), name="model-check")
        try:
            async with socket.running(), mcp.running():
                yield
        finally:
            check.cancel()
            await live.aclose()
            await engine.close()

    app = FastAPI(title="shokunin", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    app.state.authenticator = authenticator
    live = LiveConnections(authenticator, settings.max_streams_per_client,
                           settings.max_streams_per_key)
    app.state.live = live
    app.user_middleware[:0] = middleware(app, settings, authenticator, live)
    install_error_handlers(app)  # every ShokuninError, in one place (api/errors.py)

    app.mount("/socket.io", socket)  # seed 002's Socket.IO on the same port, before
    # the web face's catch-all routes
    app.add_route(MCP_PATH, mcp, include_in_schema=False)  # MCP, streamable HTTP
    # The faces' routes, the web face's catch-all last.
    for router in [health.router, kernels.router, model_settings.router, *perimeter.routers,
                   *tools.routers, *runs.routers,
                   *analyst.routers, *advisor.routers, *studio.routers, *workbench.routers,
                   web.router]:
        app.include_router(router)
    return app
