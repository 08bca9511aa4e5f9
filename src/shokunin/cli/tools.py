"""``shokunin tools``: list, show, run, new, settings and setup, with rich output.

Values printed here come from the registry, which masks secrets, so nothing below needs
to know which settings are secret.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import uuid
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.syntax import Syntax
from rich.table import Table

from shokunin.config import Settings
from shokunin.tools import SettingsInvalid, ToolError, ToolRegistry, scaffold

app = typer.Typer(help="Tools (seed 003): list, show, run, new, settings.", no_args_is_help=True)
console = Console()


def _registry() -> ToolRegistry:
    return ToolRegistry.from_settings(Settings())


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {escape(message)}")
    return typer.Exit(1)


@app.command("list")
def list_tools() -> None:
    """List every tool, broken ones with their reason."""
    table = Table(title="Tools")
    for column in ("", "name", "function", "title", "source", "venv", "status"):
        table.add_column(column)
    for info in _registry().list():
        status = "[green]ok[/green]" if info.ok else f"[red]error[/red]: {escape(info.error or '')}"
        table.add_row(info.icon or "", info.name, info.function_name or "-",
                      escape(info.title or "-"), info.source, "yes" if info.has_venv else "",
                      status)
    console.print(table)


@app.command("show")
def show(name: str) -> None:
    """Show a tool's declaration and settings (secrets masked)."""
    registry = _registry()
    try:
        info = registry.get(name)
        settings = registry.get_settings(name)
    except ToolError as exc:
        raise _fail(str(exc)) from None
    console.print(Panel(escape(info.description or info.error or ""),
                        title=f"{info.icon or ''} {escape(info.title or info.name)}"))
    console.print(json.dumps(info.model_dump(), ensure_ascii=False, indent=2), markup=False,
                  highlight=False)
    console.print(_settings_table(settings))


@app.command("run")
def run(
    name: str,
    args: str = typer.Option("{}", "--args", help="Arguments as a JSON object."),
    timeout: float = typer.Option(None, "--timeout", help="Seconds before the call is stopped."),
) -> None:
    """Run a tool with progress; Ctrl-C aborts it."""
    try:
        parsed = json.loads(args)
    except ValueError as exc:
        raise _fail(f"--args is not JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise _fail("--args must be a JSON object")
    registry = _registry()
    try:
        registry.validate_args(name, parsed)
    except ToolError as exc:
        raise _fail(str(exc)) from None
    result = asyncio.run(_run(registry, name, parsed, timeout))
    style = "green" if result["success"] else "red"
    console.print(Panel(Syntax(json.dumps(result, ensure_ascii=False, indent=2), "json"),
                        title=f"[{style}]{name}[/{style}]"))
    if not result["success"]:
        raise typer.Exit(1)


async def _run(registry: ToolRegistry, name: str, args: dict[str, Any],
               timeout: float | None) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    execution_id = uuid.uuid4().hex
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(f"{name} を実行しています...", total=None)

        def progress(message: str) -> None:
            bar.update(task, description=escape(message))
            bar.console.print(f"[dim]·[/dim] {escape(message)}")

        def interrupt() -> None:
            bar.update(task, description="中断しています... (aborting)")
            loop.create_task(registry.abort(execution_id))

        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, interrupt)
        try:
            return await registry.execute(name, args, progress=progress, timeout=timeout,
                                          execution_id=execution_id)
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGINT)
            await registry.close()


@app.command("new")
def new(name: str) -> None:
    """Create a tool from the seed's template in the first user tools folder."""
    registry = _registry()
    if not registry.user_dirs:
        raise _fail("no user tools folder is configured (SHOKUNIN_TOOLS_DIRS)")
    try:
        entry = scaffold(registry.user_dirs[0], name)
    except ToolError as exc:
        raise _fail(str(exc)) from None
    console.print(f"[green]created[/green] {escape(str(entry))}")


@app.command("settings")
def settings(
    name: str,
    set_: list[str] = typer.Option(None, "--set", help="key=value; repeat for several."),
) -> None:
    """Show a tool's settings, or change them with --set key=value."""
    registry = _registry()
    try:
        current = registry.get_settings(name)
        if set_:
            values = dict(_parse_assignment(item, current["schema"]) for item in set_)
            registry.save_settings(name, values)
            current = registry.get_settings(name)
    except SettingsInvalid as exc:
        for key, message in exc.errors.items():
            console.print(f"[red]{escape(key)}[/red]: {escape(message)}")
        raise typer.Exit(1) from None
    except ToolError as exc:
        raise _fail(str(exc)) from None
    console.print(_settings_table(current))


@app.command("setup")
def setup(name: str) -> None:
    """Build a venv tool's environment now (otherwise it is built on first use)."""
    registry = _registry()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("仮想環境を準備しています...", total=None)
        try:
            info = asyncio.run(registry.setup(
                name, lambda message: bar.update(task, description=escape(message))))
        except ToolError as exc:
            raise _fail(str(exc)) from None
    if not info.ok:
        raise _fail(info.error or "the tool is unavailable")
    console.print(f"[green]ready[/green] {escape(info.name)}")


def _parse_assignment(item: str, schema: dict[str, dict[str, Any]]) -> tuple[str, Any]:
    key, sep, text = item.partition("=")
    if not sep:
        raise SettingsInvalid({item: "expected key=value"})
    kind = schema.get(key, {}).get("type")
    if kind in ("integer", "number", "boolean"):
        with contextlib.suppress(ValueError):  # else the store says "must be a <type>"
            return key, json.loads(text)
    return key, text


def _settings_table(settings: dict[str, Any]) -> Table:
    table = Table(title="Settings")
    for column in ("key", "label", "type", "value"):
        table.add_column(column)
    for key, spec in settings["schema"].items():
        value = settings["values"].get(key)
        table.add_row(key, escape(str(spec.get("label", ""))), spec.get("type", ""),
                      escape(json.dumps(value, ensure_ascii=False)))
    return table
