"""The app factory: routes, exception handlers and the lifespan that builds the engine."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from shokunin import __version__
from shokunin.agents.registry import build_agents
from shokunin.agents.workbench import load_map
from shokunin.api import health, runs, threads, tools, web, workbench_ws
from shokunin.api.errors import ApiError, handle_api_error
from shokunin.api.services import Services
from shokunin.config import Settings
from shokunin.runs import MemoryBus, RunError, Runner, RunNotFound
from shokunin.sandbox import Sandbox
from shokunin.store import Store, close_checkpointer, open_checkpointer
from shokunin.tools import ToolRegistry

log = logging.getLogger(__name__)


async def build_services(settings: Settings) -> Services:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = await Store.open(settings.resolved_database_url)
    # Runs waiting for a human are left alone: they resume on this process.
    stale = await store.fail_unfinished_runs("server restarted while the run was in progress")
    if stale:
        log.warning("marked %d unfinished runs from a previous process as failed", stale)
    try:
        checkpointer = await open_checkpointer(settings.resolved_database_url)
    except BaseException:
        await store.close()
        raise
    bus = MemoryBus()
    tool_registry = ToolRegistry.from_settings(settings)
    sandbox = Sandbox(settings)
    runner = Runner(store, bus, settings.data_dir / "workspaces")
    services = Services(settings=settings, store=store, bus=bus, runner=runner,
                        tools=tool_registry, sandbox=sandbox, map_package=load_map(settings),
                        checkpointer=checkpointer)
    runner.services.update(services.as_agent_services())
    for agent in build_agents(services.as_agent_services()):
        runner.register(agent)
    return services


async def close_services(services: Services) -> None:
    await services.runner.shutdown()
    for agent in services.runner.agents.values():  # an agent's own resources, if any
        if hasattr(agent, "aclose"):
            await agent.aclose()
    await services.sandbox.shutdown()
    await services.tools.close()
    await close_checkpointer(services.checkpointer)  # after the runs that use it
    await services.store.close()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await build_services(settings)
        app.state.services = services
        await services.sandbox.start()
        try:
            yield
        finally:
            await close_services(services)

    app = FastAPI(title="shokunin", version=__version__, lifespan=lifespan)
    app.state.settings = settings

    @app.exception_handler(RunNotFound)
    async def _run_not_found(_request: Request, exc: RunNotFound) -> JSONResponse:
        return JSONResponse({"error": f"no run {exc}"}, status_code=404)

    @app.exception_handler(RunError)
    async def _run_error(_request: Request, exc: RunError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=409)

    app.add_exception_handler(ApiError, handle_api_error)
    for module in (health, tools, threads, runs, workbench_ws, web):
        app.include_router(module.router)
    return app
