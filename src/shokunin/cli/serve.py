"""``shokunin serve``: run the server on its embedded defaults."""

from __future__ import annotations

import logging

import typer
import uvicorn

from shokunin.config import Settings


def serve(
    host: str = typer.Option(None, help="Bind address (default SHOKUNIN_HOST or 127.0.0.1)."),
    port: int = typer.Option(None, help="Port (default SHOKUNIN_PORT or 8000)."),
    log_level: str = typer.Option("info", help="uvicorn log level."),
) -> None:
    """Start the server: Workbench UI at /, API docs at /docs."""
    from shokunin.api import create_app
    from shokunin.models import ModelConfigError, model_from_settings

    overrides = {k: v for k, v in {"host": host, "port": port}.items() if v is not None}
    settings = Settings(**overrides)
    try:  # a model that cannot be made stops here with one line, not a startup traceback
        model_from_settings(settings)
    except ModelConfigError as exc:
        typer.echo(f"shokunin: {exc}", err=True)
        raise typer.Exit(2) from None
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                log_level=log_level, ws_max_size=max(settings.ws_max_message_bytes * 4, 1 << 20),
                # Frames are small JSON; deflating each one costs more CPU than it saves.
                ws_per_message_deflate=False)
