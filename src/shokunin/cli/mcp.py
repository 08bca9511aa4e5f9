"""``shokunin mcp``: shokunin as an MCP server.

``shokunin mcp serve`` speaks MCP over stdio for a local client (an IDE, a desktop
assistant): every valid tool of the configured folders, and the faces as coarse tools. The
running web server serves the same at ``/mcp``. Only MCP JSON-RPC goes to stdout; logs go to
stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # the MCP SDK and the engine are imported to serve, not by --help
    from shokunin.config import Settings

app = typer.Typer(help="shokunin as an MCP server.", no_args_is_help=True)


@app.command("serve")
def serve(log_level: str = typer.Option("warning", help="Log level (to stderr).")) -> None:
    """Serve shokunin's tools and faces over MCP on stdin/stdout."""
    from shokunin.config import Settings
    from shokunin.models import ModelConfigError, model_from_settings

    logging.basicConfig(stream=sys.stderr, level=log_level.upper(),
                        format="%(levelname)s %(name)s: %(message)s")
    settings = Settings()
    try:  # a model that cannot be made stops here with one line, not a traceback
        model_from_settings(settings)
    except ModelConfigError as exc:
        typer.echo(f"shokunin: {exc}", err=True)
        raise typer.Exit(2) from None
    asyncio.run(_until_signal(settings))


async def _until_signal(settings: Settings) -> None:
    """Serve until stdin closes, or until SIGINT/SIGTERM, which end the process once its
    engine is closed (kernels stopped, runs ended)."""
    import anyio

    from shokunin.mcp.server import serve_stdio

    closed = anyio.Event()
    task = asyncio.ensure_future(serve_stdio(settings, closed))
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, task.cancel)
    closing = asyncio.ensure_future(closed.wait())
    await asyncio.wait({task, closing}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():  # the client closed stdin: a normal end
        closing.cancel()
        task.result()
        return
    # The SDK's stdin reader is a thread no signal wakes, and leaving normally would wait
    # for it: the engine is closed, so the process ends here.
    sys.stderr.flush()
    os._exit(0)
