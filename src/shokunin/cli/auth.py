"""``shokunin auth``: create, list and revoke API keys (the secret is shown once)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

if TYPE_CHECKING:  # imported by the commands that use them, not by --help
    from shokunin.auth import KeyStore
    from shokunin.config import Settings

app = typer.Typer(help="API keys: create, list, revoke.", no_args_is_help=True)
console = Console()
T = TypeVar("T")
JSON_OPTION = typer.Option(False, "--json", help="Print JSON instead of a table.")


@asynccontextmanager
async def open_keys(settings: Settings) -> AsyncIterator[KeyStore]:
    """The key store of the database ``settings`` name, migrated to the latest schema."""
    from shokunin.auth import KeyStore
    from shokunin.store import create_engine, migrate

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_engine(settings.resolved_database_url)
    try:
        await migrate(engine)
        yield KeyStore(engine)
    finally:
        await engine.dispose()


async def auth_enabled(settings: Settings) -> bool:
    """Whether a server on ``settings`` will ask for a token (admin token, or any key)."""
    if settings.auth_token is not None:
        return True
    async with open_keys(settings) as keys:
        return await keys.any_exist()


def _run(action: Callable[[KeyStore], Awaitable[T]]) -> T:
    from shokunin.auth import AuthError
    from shokunin.config import Settings

    async def go() -> T:
        async with open_keys(Settings()) as keys:
            return await action(keys)

    try:
        return asyncio.run(go())
    except AuthError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


@app.command("create-key")
def create_key(name: str, as_json: bool = JSON_OPTION) -> None:
    """Create an API key named NAME and print it once: it is stored only as a hash."""
    key, token = _run(lambda keys: keys.create(name))
    if as_json:
        _print_json(key.to_json() | {"token": token})
        return
    console.print(Panel(
        f"[bold]{token}[/bold]\n\nCopy it now: it is stored only as a hash and cannot be "
        f"shown again.\nSend it as [cyan]Authorization: Bearer <key>[/cyan], or paste it "
        f"into the login page.\nThreads started with it belong to "
        f"[cyan]{escape(key.principal)}[/cyan].",
        title=f"API key {escape(key.name)}", expand=False), soft_wrap=True)


@app.command("list-keys")
def list_keys(as_json: bool = JSON_OPTION) -> None:
    """List API keys (never their secrets), revoked ones included."""
    found = _run(lambda keys: keys.list_keys())
    if as_json:
        _print_json({"keys": [key.to_json() for key in found]})
        return
    if not found:
        console.print("no API keys yet: [cyan]shokunin auth create-key NAME[/cyan]")
        return
    table = Table(title="API keys")
    for column in ("name", "id", "created (UTC)", "status"):
        table.add_column(column)
    for key in found:
        status = (f"[red]revoked[/red] {key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at
                  else "[green]active[/green]")
        table.add_row(escape(key.name), key.id, f"{key.created_at:%Y-%m-%d %H:%M}", status)
    console.print(table)


@app.command("revoke-key")
def revoke_key(name: str, as_json: bool = JSON_OPTION) -> None:
    """Revoke the API key NAME: a running server refuses it from its next request."""
    key = _run(lambda keys: keys.revoke(name))
    if as_json:
        _print_json(key.to_json())
        return
    console.print(f"revoked API key [bold]{escape(key.name)}[/bold] ({key.id})")
