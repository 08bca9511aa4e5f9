"""``shokunin tools``: list, show, run, new, settings and setup.

On a terminal the output is drawn with rich; piped, it is plain text whose names, statuses
and reasons are never cut, and ``--json`` (list, show, run) prints one JSON document on
stdout for scripts. Values printed here come from the registry, which masks secrets, so
nothing below needs to know which settings are secret. The registry is told not to log
broken tools: each command shows a reason once, itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.panel import Panel
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.syntax import Syntax
from rich.table import Table

if TYPE_CHECKING:  # the registry is imported by the commands that use it, not by --help
    from shokunin.tools import ToolInfo, ToolRegistry

app = typer.Typer(help="Tools (seed 003): list, show, run, new, settings.", no_args_is_help=True)
console = Console()
err_console = Console(stderr=True)

JSON_HELP = "Print one JSON document on stdout (stable keys, secrets masked)."


def _registry() -> ToolRegistry:
    from shokunin.config import Settings
    from shokunin.engine import tool_registry

    return tool_registry(Settings(), log_unavailable=False)


def _connected_list(registry: ToolRegistry) -> list[ToolInfo]:
    """Every tool, the configured MCP servers' included (their sessions opened for this)."""
    async def listed() -> list[ToolInfo]:
        try:
            await registry.connect()
            return registry.list()
        finally:
            await registry.close()

    return asyncio.run(listed())


def _find(registry: ToolRegistry, name: str) -> ToolInfo:
    """A folder tool at once; any other name once the MCP servers' sessions are open."""
    from shokunin.tools import ToolError

    try:
        return registry.get(name)
    except ToolError:
        tools = _connected_list(registry)
    return next((tool for tool in tools if name in (tool.name, tool.function_name)), None
                ) or registry.get(name)


def _source(info: ToolInfo) -> str:
    return f"mcp:{info.server}" if info.server else info.source


def _fail(message: str, *, as_json: bool = False) -> typer.Exit:
    if as_json:
        _echo_json({"error": message})
    else:
        console.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    return typer.Exit(1)


def _echo_json(document: Any) -> None:
    typer.echo(json.dumps(document, ensure_ascii=False, indent=2))


def _icon_text(icon: str | None) -> str:
    """A terminal cannot draw an inline SVG or fetch a URL: show a placeholder instead."""
    text = (icon or "").strip()
    head = text[:200].lower()
    if head.startswith("<svg") or (head.startswith("<?xml") and "<svg" in text.lower()):
        return "[svg]"
    if head.startswith(("http://", "https://", "data:", "/")):
        return "[img]"
    return text


def _status(info: ToolInfo) -> str:
    if not info.ok:
        return "error"
    return "needs-settings" if info.needs_settings else "ok"


def _needs(info: ToolInfo) -> str:
    """What to set before the tool works: ``a or b, c``."""
    return ", ".join(" or ".join(s["key"] for s in group) for group in info.needs_settings)


@app.command("list")
def list_tools(as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """List every tool; broken ones are listed with their reason."""
    tools = _connected_list(_registry())
    if as_json:
        _echo_json({"tools": [info.model_dump() for info in tools]})
        return
    table = _rich_list(tools)
    if console.is_terminal and _natural_width(table) <= console.width:
        console.print(table)
    else:  # piped, or a terminal too narrow for the table: plain lines cut nothing
        _plain_list(tools)
    broken = [info for info in tools if not info.ok]
    for info in broken:
        line = f"{info.name}: {info.error or 'unavailable'}"
        if console.is_terminal:
            console.print(f"[red]✗[/red] {escape(line)}", soft_wrap=True)
        else:
            typer.echo(f"error  {line}")
    for info in tools:
        if info.ok and info.needs_settings:
            line = (f"{info.name}: set {_needs(info)} "
                    f"(shokunin tools settings {info.name} --set key=value)")
            if console.is_terminal:
                console.print(f"[yellow]![/yellow] {escape(line)}", soft_wrap=True)
            else:
                typer.echo(f"needs-settings  {line}")


def _natural_width(table: Table) -> int:
    """The width the table needs to cut nothing (measured without the terminal's limit)."""
    return Measurement.get(console, console.options.update_width(1 << 16), table).maximum


def _rich_list(tools: list[ToolInfo]) -> Table:
    table = Table(title="Tools")
    table.add_column("", no_wrap=True)
    table.add_column("name", no_wrap=True)
    table.add_column("function", no_wrap=True)
    table.add_column("title", overflow="fold")
    table.add_column("source", no_wrap=True)
    table.add_column("venv", no_wrap=True)
    table.add_column("status", no_wrap=True, min_width=6)
    for info in tools:
        status = {"ok": "[green]ok[/green]", "error": "[red]error[/red]"}.get(
            _status(info), f"[yellow]{_status(info)}[/yellow]")
        table.add_row(escape(_icon_text(info.icon)), escape(info.name),
                      escape(info.function_name or "-"), escape(info.title or "-"),
                      escape(_source(info)),
                      "yes" if info.has_venv else "", status)
    return table


def _plain_list(tools: list[ToolInfo]) -> None:
    """Columns padded to their widest cell, titles last (their width varies by script)."""
    header = ("NAME", "FUNCTION", "SOURCE", "VENV", "STATUS", "TITLE")
    rows = [(info.name, info.function_name or "-", _source(info),
             "yes" if info.has_venv else "no", _status(info), info.title or "-")
            for info in tools]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        typer.echo("  ".join([*cells, row[-1]]).rstrip())


@app.command("show")
def show(name: str, as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Show a tool: its description, status, declaration and settings (secrets masked)."""
    from shokunin.tools import ToolError

    registry = _registry()
    try:
        info = _find(registry, name)
        settings = registry.get_settings(info.name)
    except ToolError as exc:
        raise _fail(str(exc), as_json=as_json) from None
    if as_json:
        _echo_json({"tool": info.model_dump(), "settings": settings})
        return
    if not console.is_terminal:
        _plain_show(info, settings)
        return
    console.print(Panel(escape(info.description or ""),
                        title=f"{escape(_icon_text(info.icon))} {escape(info.title or info.name)}"))
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    for key, value in _facts(info):
        facts.add_row(key, escape(value))
    console.print(facts)
    if info.declaration:
        console.print(Syntax(_dump(info.declaration), "json", word_wrap=True))
    console.print(_settings_table(settings))


def _facts(info: ToolInfo) -> list[tuple[str, str]]:
    facts = [("name", info.name), ("function", info.function_name or "-"),
             ("source", _source(info)), ("venv", "yes" if info.has_venv else "no"),
             ("status", _status(info))]
    if not info.ok:
        facts.append(("error", info.error or ""))
    elif info.needs_settings:
        facts.append(("needs", f"set {_needs(info)}"))
    return facts


def _plain_show(info: ToolInfo, settings: dict[str, Any]) -> None:
    typer.echo(f"{_icon_text(info.icon)} {info.title or info.name}".strip())
    if info.description:
        typer.echo(info.description)
    for key, value in _facts(info):
        typer.echo(f"{key}: {value}")
    if info.declaration:
        typer.echo("declaration:")
        typer.echo(_dump(info.declaration))
    typer.echo("settings:")
    for key, spec in settings["schema"].items():
        value = json.dumps(settings["values"].get(key), ensure_ascii=False)
        typer.echo(f"  {key} ({spec.get('type', '')}) = {value}")


@app.command("run")
def run(
    name: str,
    args: str = typer.Option("{}", "--args", help="Arguments as a JSON object."),
    timeout: float = typer.Option(None, "--timeout", help="Seconds before the call is stopped."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP + " Progress goes to stderr."),
) -> None:
    """Run a tool with progress; Ctrl-C aborts it. Exits 1 when the call fails."""
    from shokunin.tools import ToolError

    def refuse(message: str) -> typer.Exit:
        if as_json:  # scripts get the one result shape, whatever went wrong
            _echo_json({"success": False, "result": None, "error": message, "files": [],
                        "aborted": False, "execution_id": None})
            return typer.Exit(1)
        return _fail(message)

    try:
        parsed = json.loads(args)
    except ValueError as exc:
        raise refuse(f"--args is not JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise refuse("--args must be a JSON object")
    registry = _registry()
    try:
        if as_json:
            result = asyncio.run(_run(registry, name, parsed, timeout, _stderr_progress))
            _echo_json(result)
        else:
            with Progress(SpinnerColumn(), TextColumn("{task.description}"),
                          TimeElapsedColumn(), console=console, transient=True) as bar:
                task = bar.add_task(f"{name} を実行しています...", total=None)

                def progress(message: str) -> None:
                    bar.update(task, description=escape(message))
                    bar.console.print(f"[dim]·[/dim] {escape(message)}", soft_wrap=True)

                result = asyncio.run(_run(registry, name, parsed, timeout, progress))
            _print_result(name, result)
    except ToolError as exc:
        raise refuse(str(exc)) from None
    if not result["success"]:
        raise typer.Exit(1)


def _stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _print_result(name: str, result: dict[str, Any]) -> None:
    if not console.is_terminal:
        typer.echo(_dump(result))
        return
    style = "green" if result["success"] else "red"
    console.print(Panel(Syntax(_dump(result), "json", word_wrap=True),
                        title=f"[{style}]{escape(name)}[/{style}]"))


async def _run(registry: ToolRegistry, name: str, args: dict[str, Any], timeout: float | None,
               progress: Callable[[str], None]) -> dict[str, Any]:
    from shokunin.tools import ToolError

    loop = asyncio.get_running_loop()
    execution_id = uuid.uuid4().hex

    def interrupt() -> None:
        progress("中断しています... (aborting)")
        loop.create_task(registry.abort(execution_id))

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        try:
            registry.get(name)
        except ToolError:  # not a folder tool: an MCP server's, which needs its session
            await registry.connect()
        registry.validate_args(name, args)
        return await registry.execute(name, args, progress=progress, timeout=timeout,
                                      execution_id=execution_id)
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGINT)
        await registry.close()


@app.command("new")
def new(name: str) -> None:
    """Create a tool from the seed's template in the first user tools folder."""
    from shokunin.tools import ToolError, scaffold

    registry = _registry()
    if not registry.user_dirs:
        raise _fail("no user tools folder is configured (SHOKUNIN_TOOLS_DIRS)")
    try:
        entry = scaffold(registry.user_dirs[0], name)
    except ToolError as exc:
        raise _fail(str(exc)) from None
    console.print(f"[green]created[/green] {escape(str(entry))}", soft_wrap=True)
    # a running server reads the folders again when they change: no restart
    console.print("A running server lists it the next time its tools are listed (the Tools "
                  "view, GET /api/tools); no restart is needed.", soft_wrap=True)


@app.command("settings")
def settings(
    name: str,
    set_: list[str] = typer.Option(None, "--set", help="key=value; repeat for several."),
) -> None:
    """Show a tool's settings, or change them with --set key=value."""
    from shokunin.tools import SettingsInvalid, ToolError

    registry = _registry()
    try:
        current = registry.get_settings(name)
        if set_:
            values = dict(_parse_assignment(item, current["schema"]) for item in set_)
            cleared = registry.update_settings(name, values)[1]
            current = registry.get_settings(name)
            if cleared:
                console.print(f"[yellow]cleared[/yellow] {escape(', '.join(cleared))}: a URL "
                              "setting now names another host; set them again for it",
                              soft_wrap=True)
    except SettingsInvalid as exc:
        for key, message in exc.errors.items():
            console.print(f"[red]{escape(key)}[/red]: {escape(message)}", soft_wrap=True)
        raise typer.Exit(1) from None
    except ToolError as exc:
        raise _fail(str(exc)) from None
    console.print(_settings_table(current))


@app.command("setup")
def setup(name: str) -> None:
    """Build a venv tool's environment now (otherwise it is built on first use)."""
    from shokunin.tools import ToolError

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
    from shokunin.tools import SettingsInvalid

    key, sep, text = item.partition("=")
    if not sep:
        raise SettingsInvalid({item: "expected key=value"})
    spec = schema.get(key, {})
    if spec.get("type") == "select":  # an option's value, or its text form (--set size=2)
        for option in spec.get("options", []):
            if text in (option["value"], json.dumps(option["value"]), str(option["value"])):
                return key, option["value"]
    if spec.get("type") in ("integer", "number", "boolean"):
        with contextlib.suppress(ValueError):  # else the store says "must be a <type>"
            return key, json.loads(text)
    return key, text


def _settings_table(settings: dict[str, Any]) -> Table:
    table = Table(title="Settings")
    table.add_column("key", no_wrap=True)
    table.add_column("label", overflow="fold")
    table.add_column("type", no_wrap=True)
    table.add_column("value", overflow="fold")
    for key, spec in settings["schema"].items():
        value = settings["values"].get(key)
        table.add_row(escape(key), escape(str(spec.get("label", ""))), spec.get("type", ""),
                      escape(json.dumps(value, ensure_ascii=False)))
    return table


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
