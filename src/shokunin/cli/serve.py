"""``shokunin serve``: run the server on its embedded defaults.

Binding beyond loopback without auth would hand the sandbox to anyone on the network, so
it is refused unless ``--insecure`` says the user means it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from fastapi import FastAPI

    from shokunin.config import Settings

REFUSAL = (
    "refusing to listen on {host}: it is reachable from other machines and auth is off, so "
    "anyone who can reach it could run code in the sandbox.\n"
    "Turn auth on (set SHOKUNIN_AUTH_TOKEN, or run `shokunin auth create-key NAME`), or bind "
    "to 127.0.0.1, or pass --insecure if the network is yours alone."
)


def serve(
    host: str = typer.Option(None, help="Bind address (default SHOKUNIN_HOST or 127.0.0.1)."),
    port: int = typer.Option(None, help="Port (default SHOKUNIN_PORT or 8000)."),
    log_level: str = typer.Option("info", help="uvicorn log level."),
    insecure: bool = typer.Option(
        False, "--insecure", help="Allow a non-loopback --host without auth."),
) -> None:
    """Start the server: Workbench UI at /, API docs at /docs."""
    from shokunin.cli.collector import starting, tune_gc

    with starting():  # the whole server, imported and built, then frozen
        import uvicorn

        app = _app(host, port, log_level, insecure)
    settings = app.state.settings
    tune_gc(settings.gc_interval_sec)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level=log_level,
                **uvicorn_options(settings))


def _app(host: str | None, port: int | None, log_level: str, insecure: bool) -> FastAPI:
    """The server's app, its settings checked."""
    from shokunin.api import create_app
    from shokunin.api.perimeter import is_loopback_name
    from shokunin.cli.auth import auth_enabled
    from shokunin.config import Settings
    from shokunin.models import ModelConfigError, model_from_settings
    from shokunin.tools import install_log_masking, remember

    overrides = {k: v for k, v in {"host": host, "port": port}.items() if v is not None}
    settings = Settings(**overrides)
    if not is_loopback_name(settings.host.lower()) and not asyncio.run(auth_enabled(settings)):
        if not insecure:
            typer.echo(REFUSAL.format(host=settings.host), err=True)
            raise typer.Exit(2)
        typer.echo(f"warning: listening on {settings.host} without auth (--insecure)", err=True)
    try:  # a model that cannot be made stops here with one line, not a startup traceback
        model_from_settings(settings)
    except ModelConfigError as exc:
        typer.echo(f"shokunin: {exc}", err=True)
        raise typer.Exit(2) from None
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    install_log_masking()  # secrets and credentials (uvicorn's access log too) never logged
    if settings.auth_token is not None:  # wherever a client puts it: a path, any parameter
        remember([settings.auth_token.get_secret_value()])
    return create_app(settings)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How ``serve`` runs uvicorn, beyond host, port and log level (the benches' servers
    run the same)."""
    from shokunin.cli.http_limits import protocol_class

    http = protocol_class(settings.header_timeout_sec, settings.max_connections_per_client,
                          settings.body_timeout_sec)
    return {
        "ws_max_size": max(settings.ws_max_message_bytes * 4, 1 << 20),
        # Frames are small JSON; deflating each one costs more CPU than it saves.
        "ws_per_message_deflate": False,
        # Open streams (SSE, a Socket.IO long-poll) would hold a stop for as long as they
        # last: they get this long to end, then are closed.
        "timeout_graceful_shutdown": 5,
        # Half-sent requests time out, one address holds a bounded number of connections.
        "http": http,
        "ws": http.ws_class or "auto",  # WebSockets stay in their address's count
        "timeout_keep_alive": 5,  # seconds an idle kept-alive connection stays open
        # uvicorn believes X-Forwarded-For from 127.0.0.1 by default: any local process
        # could then pose as many addresses to the per-address limits. Only the proxies
        # named are believed; none by default.
        "proxy_headers": bool(settings.forwarded_allow_ips),
        "forwarded_allow_ips": settings.forwarded_allow_ips or None,
    }

