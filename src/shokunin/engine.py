"""The engine: the one composition root every face runs on.

``Engine.open(settings)`` builds the store, the LangGraph checkpointer, the event bus, the
Runner, the sandbox, the tools (with the configured MCP servers' tools) and the agents, in
one start-up sequence; ``close()`` takes them down in reverse. ``shokunin serve`` opens one
in its lifespan, ``shokunin mcp serve`` and ``shokunin analyze`` open their own: nothing
else assembles the parts.

Where runs run: with a job queue configured (``SHOKUNIN_QUEUE_URL``), a web process
(``queue="send"``) sends each run to the ``shokunin worker`` processes (``queue="take"``);
``shokunin analyze`` runs its own here (``queue="none"``). Without one, every run runs in
the process that received it.

Who recovers: the process that owns the runs (``serve``, ``recover=True``) fails the runs a
previous process left unfinished and lets the Studio's projects go on. A process that may
share the database with a running server (``mcp serve``, ``analyze``) leaves them alone:
they may be the server's live runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.model_settings import ModelSettings, apply_saved
from shokunin.agents.registry import build_agents
from shokunin.config import Settings
from shokunin.maps import MapError, MapPackage, load_map
from shokunin.runs import EventBus, MemoryBus, RedisBus, Runner, RunQueue, RunServices
from shokunin.sandbox import Sandbox
from shokunin.store import Store, close_checkpointer, open_checkpointer
from shokunin.tools import ToolRegistry

if TYPE_CHECKING:
    from shokunin.agents.analyst import Datasets
    from shokunin.agents.studio import Studio

log = logging.getLogger(__name__)
MCP_STARTUP_WAIT_SEC = 3.0  # how long start-up waits for MCP servers' first answers
TOOLLESS_FACES = frozenset({"analyst"})  # agents that never call a tool of a folder or MCP


def tool_registry(settings: Settings, *, mcp_clients: bool = True,
                  log_unavailable: bool = True, folders: bool = True) -> ToolRegistry:
    """The tools of the builtin and configured folders (none without ``folders``) and, with
    ``mcp_clients``, of the configured MCP servers (once ``connect()`` is awaited): the
    engine's, or the tools CLI's own when it needs no more of the engine."""
    mcp = None
    # The MCP SDK (half a second of imports) only where servers are listed: the file is
    # read once, at start ("no file, no servers").
    if mcp_clients and settings.mcp_config.is_file():
        from shokunin.mcp.client import McpTools

        mcp = McpTools.from_settings(settings)
    # without folders no builtin tool is loaded, and so no matplotlib (half a second)
    return ToolRegistry.from_settings(settings, log_unavailable=log_unavailable, mcp=mcp,
                                      folders=folders)


@dataclass
class Engine:
    """The parts one process holds. Faces reach them through the use cases (``runs.access``,
    ``runs.follow``, the agents' own) and never build any of them."""

    settings: Settings
    store: Store
    checkpointer: BaseCheckpointSaver
    bus: EventBus
    runner: Runner
    tools: ToolRegistry
    sandbox: Sandbox
    map_package: MapPackage | MapError
    datasets: Datasets  # the Analyst's datasets (upload, ask, preview, delete)
    models: ModelSettings  # the model settings the Models page saves and tests
    studio: Studio | None = None  # None when its pipeline cannot be loaded
    unavailable: dict[str, str] = field(default_factory=dict)  # face -> why it is off
    queue: RunQueue | None = None  # the job queue to workers, when one is configured
    _heartbeat: asyncio.Task[None] | None = field(default=None, repr=False)

    @classmethod
    async def open(cls, settings: Settings, *, recover: bool = True,
                   mcp_clients: bool = True, faces: Collection[str] | None = None,
                   queue: Literal["send", "take", "none"] = "send") -> Engine:
        """Build and start the engine. ``recover``: this process owns the runs (see the
        module docstring). ``mcp_clients``: open sessions with the configured MCP servers
        (``mcp serve`` does not: their tools are not served over MCP). ``faces``: the agents
        to offer, by name (None: every one); a process that runs one face (``shokunin
        analyze``: ``{"analyst"}``) registers no other agent, starts no Studio and, when
        none of its agents calls a tool, loads no tool. ``queue``: with a job queue
        configured, send runs to workers, take them (a worker), or ignore it."""
        wanted = None if faces is None else frozenset(faces)
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        settings = apply_saved(settings)  # the Models page's, unless the environment decides
        async with contextlib.AsyncExitStack() as undo:  # closes what opened if one fails
            # Kernels take longest to be ready (a template importing pandas and matplotlib):
            # they start first, while the rest opens and the faces are imported.
            sandbox = Sandbox(settings)
            undo.push_async_callback(sandbox.shutdown)
            starting = asyncio.create_task(sandbox.start(), name="sandbox-start")
            undo.push_async_callback(_settled, starting)
            store = await Store.open(settings.resolved_database_url,
                                     settings.run_lease_seconds)
            undo.push_async_callback(store.close)
            sandbox.homes = store.kernel_homes
            checkpointer = await open_checkpointer(store)
            undo.push_async_callback(close_checkpointer, checkpointer)
            tools = tool_registry(settings, mcp_clients=mcp_clients,
                                  folders=wanted is None or not wanted <= TOOLLESS_FACES)
            undo.push_async_callback(tools.close)
            # The configured MCP servers' tools join the list; a slow server joins later.
            await tools.connect(wait=MCP_STARTUP_WAIT_SEC)
            map_package = load_map(settings.map_dir)
            services = RunServices(settings=settings, tools=tools, sandbox=sandbox,
                                   checkpointer=checkpointer, map_package=map_package)
            bus: EventBus = MemoryBus()
            if settings.redis_url is not None:  # several processes: events cross on Redis
                bus = await RedisBus.open(settings.redis_url.get_secret_value(),
                                          settings.redis_namespace)
                undo.push_async_callback(bus.close)
            runner = Runner(store, bus, settings.data_dir / "workspaces", services)
            runner.shares_threads = settings.redis_url is not None
            undo.push_async_callback(runner.shutdown)
            run_queue = None
            if settings.queue_url is not None and queue != "none":
                run_queue = await RunQueue.open(settings.queue_url.get_secret_value(),
                                                settings.redis_namespace)
                undo.push_async_callback(run_queue.close)
                runner.use_queue(run_queue, send=queue == "send")
                if queue == "take":  # runs of threads whose kernel it holds come here
                    store.kernel_homes.queue = run_queue.own(store.leases.holder)
            # Several processes hold kernels: each checks its kernel is still the thread's.
            store.kernel_homes.shared = runner.shares_threads
            # Imported (LangGraph, a second) and built in a thread while the loop starts the
            # kernels: the Advisor reads its knowledge folder as it is built.
            built = await asyncio.to_thread(build_agents, services, store, wanted)
            for agent in built.agents:
                runner.register(agent)
            studio = None
            if built.studio is not None:
                from shokunin.agents.studio import Studio

                parts = built.studio
                studio = Studio(runner, parts.agent.records, parts.pipeline)
            from shokunin.agents.analyst import Datasets

            engine = cls(settings=settings, store=store, checkpointer=checkpointer,
                         bus=runner.bus, runner=runner, tools=tools, sandbox=sandbox,
                         map_package=map_package,
                         datasets=Datasets(runner, settings, sandbox.parser_walls),
                         models=ModelSettings(settings),
                         studio=studio, queue=run_queue,
                         unavailable=built.unavailable)
            await starting  # may refuse (SandboxUnavailable): then all is closed
            if recover:  # runs a gone process left: failed, or the Studio's go on
                await runner.recover()
            # Leases on this process's runs; with recover, it takes over others' orphans.
            engine._heartbeat = asyncio.create_task(runner.keep_leases(recover=recover),
                                                    name="run-leases")
            undo.pop_all()
        return engine

    async def close(self) -> None:
        """Stop every run and close every part, the runs first, the store last."""
        if self.studio is not None:
            await self.studio.close()
        await self.runner.shutdown()
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
        for agent in self.runner.agents.values():  # an agent's own resources, if any
            if hasattr(agent, "aclose"):
                await agent.aclose()
        await self.sandbox.shutdown()
        await self.tools.close()
        await close_checkpointer(self.checkpointer)  # after the runs that use it
        if self.queue is not None:
            await self.queue.close()
        if isinstance(self.bus, RedisBus):  # after the runs' last events
            await self.bus.close()
        await self.store.close()

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def why_unavailable(self, face: str) -> str | None:
        """Why ``face`` ("advisor", "studio") is off in this process, or None if it is on."""
        return self.unavailable.get(face)


async def _settled(task: asyncio.Task[None]) -> None:
    """Wait for ``task`` to end (not cancelled: it may be claiming the runtime folder in a
    thread), so that what it started is closed after it. Its failure is not raised here:
    ``open`` unwinds for a failure of its own."""
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # retrieved: the failure that unwound ``open`` is the one to report
