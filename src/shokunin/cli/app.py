"""Root typer app: each command's module is imported only when that command runs.

``shokunin --help`` lists the commands from ``COMMANDS`` and imports none of them, so it
costs about what ``import typer`` does; ``shokunin analyze`` imports the Analyst, not the
server, the tools CLI or the MCP SDK. ``tests/cli/test_cli_imports.py`` holds each line here
to its command's own help.
"""

from __future__ import annotations

import atexit
import contextlib
import difflib
import importlib
import os
import sys
from typing import NamedTuple, NoReturn

import typer
from typer import _click
from typer._click.shell_completion import CompletionItem
from typer.core import TyperGroup

from shokunin.cli.logs import DEBUG_ENV


class Entry(NamedTuple):
    module: str
    attribute: str  # a typer app (a group of commands) or a command function
    summary: str  # its line in ``shokunin --help``


COMMANDS = {
    "serve": Entry("shokunin.cli.serve", "serve",
                   "Start the server: Workbench UI at /, API docs at /docs."),
    "worker": Entry("shokunin.cli.worker", "worker",
                    "Take runs from the job queue (SHOKUNIN_QUEUE_URL) and run them."),
    "analyze": Entry("shokunin.cli.analyze", "analyze",
                     "Analyse a table: the Analyst writes and runs pandas code, then reports."),
    "tools": Entry("shokunin.cli.tools", "app",
                   "Tools (seed 003): list, show, run, new, settings."),
    "auth": Entry("shokunin.cli.auth", "app", "API keys: create, list, revoke."),
    "kb": Entry("shokunin.cli.kb", "app", "Knowledge base: ingest documents, search them."),
    "mcp": Entry("shokunin.cli.mcp", "app", "shokunin as an MCP server."),
    "models": Entry("shokunin.cli.models", "app", "The chat model: test that it answers."),
}


def load(name: str) -> _click.Command:
    """The click command ``name`` stands for, its module imported now."""
    entry = COMMANDS[name]
    target = getattr(importlib.import_module(entry.module), entry.attribute)
    if isinstance(target, typer.Typer):
        target.rich_markup_mode = None  # one look: plain, as the root's help is
        command: _click.Command = typer.main.get_group(target)
    else:
        single = typer.Typer(rich_markup_mode=None, add_completion=False)
        single.command(name)(target)
        command = typer.main.get_command(single)
    command.name = name
    return command


class LazyCommands(TyperGroup):
    """The commands of ``COMMANDS``, each loaded when it is called or shows its help."""

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        return load(cmd_name) if cmd_name in COMMANDS else None

    def resolve_command(self, ctx: _click.Context, args: list[str]) -> tuple[
            str | None, _click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except _click.exceptions.UsageError as exc:  # typer suggests from the commands it
            # holds, none here: the same words, from the table
            near = difflib.get_close_matches(args[0], list(COMMANDS)) if args else []
            if near:
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {near[0]!r}?"
            raise

    def shell_complete(self, ctx: _click.Context, incomplete: str) -> list[CompletionItem]:
        """The command names from the table, none imported (completing a command's own
        options loads that command), then the root's options."""
        names = [CompletionItem(name, help=entry.summary) for name, entry in COMMANDS.items()
                 if name.startswith(incomplete)]
        return names + _click.Command.shell_complete(self, ctx, incomplete)

    def format_commands(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, entry.summary) for name, entry in COMMANDS.items()])


# Plain help: rich's help panels would import rich for every ``--help`` (twice typer's cost).
app = typer.Typer(cls=LazyCommands, help="shokunin: a workbench for tool-using LLM agents.",
                  no_args_is_help=True, rich_markup_mode=None)


@app.callback()
def root(debug: bool = typer.Option(
        False, "--debug", envvar=DEBUG_ENV,
        help="Show every log line, tracebacks included (one-shot commands print one line "
        "per problem otherwise).")) -> None:
    if debug:  # the commands (and the processes they start) read it from there
        os.environ[DEBUG_ENV] = "1"


def main() -> NoReturn:
    """The ``shokunin`` command. When the command is done the process ends at once: the
    interpreter's own teardown of the thousands of modules a command imported (half a
    second after ``analyze``) serves no one. Output is flushed and the exit handlers run
    first (they remove the parsers' temporary folder)."""
    try:
        app()
        code = 0
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            code = done.code or 0
        else:  # a message: Python prints it and exits 1
            print(done.code, file=sys.stderr)
            code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):  # a reader that left (| head): nothing to say
            stream.flush()
    atexit._run_exitfuncs()  # noqa: SLF001 - what a normal exit runs, without the teardown
    os._exit(code)
