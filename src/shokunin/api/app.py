"""The app factory: routes, the perimeter middleware, exception handlers and the lifespan
that builds the engine."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.middleware import Middleware

from shokunin import __version__
from shokunin.agents.registry import build_agents
from shokunin.agents.studio import Studio
from shokunin.agents.workbench import load_map
from shokunin.api import health, web
from shokunin.api.advisor import sessions as advisor_sessions
from shokunin.api.advisor import sse as advisor_sse
from shokunin.api.analyst import datasets as analyst_datasets
from shokunin.api.analyst import runs as analyst_runs
from shokunin.api.errors import install_error_handlers
from shokunin.api.perimeter import login
from shokunin.api.perimeter.auth import AuthMiddleware
from shokunin.api.perimeter.body_limit import BodyLimitMiddleware
from shokunin.api.perimeter.content_type import ContentTypeMiddleware
from shokunin.api.perimeter.host import HostMiddleware
from shokunin.api.perimeter.live import LiveConnections
from shokunin.api.perimeter.live_middleware import LiveMiddleware
from shokunin.api.perimeter.origin import OriginMiddleware
from shokunin.api.perimeter.security_headers import SecurityHeadersMiddleware
from shokunin.api.runs import runs, threads
from shokunin.api.services import Services
from shokunin.api.studio import rest as studio_rest
from shokunin.api.studio.socket import StudioSocket
from shokunin.api.tools import agent_tools, mcp_servers
from shokunin.api.tools import routes as tools
from shokunin.api.workbench import ws as workbench_ws
from shokunin.auth import Authenticator, KeyStore
from shokunin.config import Settings
from shokunin.mcp.client import McpTools
from shokunin.runs import MemoryBus, RunError, Runner, RunNotFound
from shokunin.sandbox import Sandbox
from shokunin.store import Store, close_checkpointer, open_checkpointer
from shokunin.tools import ToolRegistry

log = logging.getLogger(__name__)
MCP_STARTUP_WAIT_SEC = 3.0  # how long start-up waits for MCP servers' first answers


async def build_services(settings: Settings, *, beside_web: bool = False) -> Services:
    """The engine. ``beside_web`` is for ``shokunin mcp serve``, which may share the
    database with a running web server: it leaves unfinished runs alone (the web server's
    may be live; only a web server's start marks a previous process's runs failed), and it
    opens no MCP client sessions (their tools are not served over MCP)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = await Store.open(settings.resolved_database_url)
    # Runs waiting for a human are left alone: they resume on this process.
    stale = 0 if beside_web else await store.fail_unfinished_runs(
        "server restarted while the run was in progress")
    if stale:
        log.warning("marked %d unfinished runs from a previous process as failed", stale)
    try:
        checkpointer = await open_checkpointer(store)
    except BaseException:
        await store.close()
        raise
    bus = MemoryBus()
    tool_registry = ToolRegistry.from_settings(
        settings, mcp=None if beside_web else McpTools.from_settings(settings))
    # The configured MCP servers' tools join the list; a slow server joins later.
    await tool_registry.connect(wait=MCP_STARTUP_WAIT_SEC)
    sandbox = Sandbox(settings)
    runner = Runner(store, bus, settings.data_dir / "workspaces")
    services = Services(settings=settings, store=store, bus=bus, runner=runner,
                        tools=tool_registry, sandbox=sandbox, map_package=load_map(settings),
                        checkpointer=checkpointer)
    runner.services.update(services.as_agent_services())
    for agent in build_agents(runner.services):  # it may note a face that is unavailable
        runner.register(agent)
    parts = runner.services.get("studio_parts")
    if parts is not None:
        services.studio = Studio(runner, parts.agent.records, parts.pipeline, parts.agent.pauses)
    return services


async def close_services(services: Services) -> None:
    if services.studio is not None:
        await services.studio.close()
    await services.runner.shutdown()
    for agent in services.runner.agents.values():  # an agent's own resources, if any
        if hasattr(agent, "aclose"):
            await agent.aclose()
    await services.sandbox.shutdown()
    await services.tools.close()
    await close_checkpointer(services.checkpointer)  # after the runs that use it
    await services.store.close()


def perimeter(app: FastAPI, settings: Settings, authenticator: Authenticator,
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
        Middleware(OriginMiddleware, allowed_origins=settings.allowed_origins),
        Middleware(AuthMiddleware, authenticator=authenticator),
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
    socket = StudioSocket(settings.studio_socket_dialect)
    # Imported here: the MCP face reads api/ helpers, and api/ imports this module first.
    from shokunin.mcp.server.http import PATH as MCP_PATH
    from shokunin.mcp.server.http import McpEndpoint

    mcp = McpEndpoint(lambda: app.state.services, max_body_bytes=settings.max_body_bytes)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await build_services(settings)
        app.state.services = services
        authenticator.keys = KeyStore(services.store.engine)
        try:
            await services.sandbox.start()  # may refuse (SandboxUnavailable): still close
            socket.studio = services.studio
            if services.studio is not None:
                await services.studio.recover()  # projects cut short by a restart go on
            async with mcp.running():
                yield
        finally:
            await socket.close()
            await live.aclose()
            await close_services(services)

    app = FastAPI(title="shokunin", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    app.state.authenticator = authenticator
    live = LiveConnections(authenticator, settings.max_streams_per_client,
                           settings.max_streams_per_key)
    socket.live = live
    app.state.live = live
    app.user_middleware[:0] = perimeter(app, settings, authenticator, live)
    install_error_handlers(app)

    @app.exception_handler(RunNotFound)
    async def _run_not_found(_request: Request, exc: RunNotFound) -> JSONResponse:
        return JSONResponse({"error": f"no run {exc}", "code": "not_found"}, status_code=404)

    @app.exception_handler(RunError)
    async def _run_error(_request: Request, exc: RunError) -> JSONResponse:
        return JSONResponse({"error": str(exc), "code": exc.code}, status_code=409)

    app.mount("/socket.io", socket.app)  # seed 002's Socket.IO on the same port, before
    # the web face's catch-all routes
    app.add_route(MCP_PATH, mcp.app, include_in_schema=False)  # MCP, streamable HTTP
    for module in (health, login, mcp_servers, tools, agent_tools, threads, runs,
                   analyst_datasets, analyst_runs, advisor_sessions, advisor_sse, studio_rest,
                   workbench_ws, web):
        app.include_router(module.router)
    return app
