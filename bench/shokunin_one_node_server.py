"""shokunin serving the peer's one-node graph over WS /ws, for ws_bench.py.

The server of ``shokunin serve``, same settings and uvicorn options, with one change: the
Workbench agent is replaced by the peer's graph (peer_graph_agent.py). Every event is still
stored before it is published and sent in seed 000's wire form (the echo, the text, the
closing debug). The LangGraph work is then the peer's, so beside the peer this shows what
the engine itself costs; beside ``shokunin`` (the offline Workbench), what the Workbench's
own work costs (reading the request, its step reports, the map).

    python bench/shokunin_one_node_server.py --port 8123
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from shokunin.api import create_app
from shokunin.api.workbench.ws import AGENT
from shokunin.cli.collector import starting, tune_gc
from shokunin.cli.serve import uvicorn_options
from shokunin.config import Settings

sys.path.insert(0, str(Path(__file__).parent))
from peer_graph_agent import PeerGraphAgent, one_node_graph  # noqa: E402 - beside this file


def create_one_node_app(settings: Settings) -> FastAPI:
    app = create_app(settings)
    started = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with started(app):
            services = app.state.engine
            services.runner.register(PeerGraphAgent(one_node_graph(services.checkpointer),
                                                    name=AGENT))
            yield

    app.router.lifespan_context = lifespan
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8123)
    args = parser.parse_args()
    settings = Settings(port=args.port)
    with starting():  # as ``shokunin serve`` does
        app = create_one_node_app(settings)
    tune_gc(settings.gc_interval_sec)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning",
                **uvicorn_options(settings))


if __name__ == "__main__":
    main()
