"""The CLI imports what the command asked for (issue 50, point 1): ``shokunin --help`` costs
about ``import typer``, and no command's help loads the engine, a face, pandas or the MCP
SDK. Each case runs in a fresh interpreter, so what is imported is what the command imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from shokunin.cli.app import COMMANDS, load

pytestmark = pytest.mark.subprocess

_HELP = """
import json, sys
from shokunin.cli import app
try:
    app(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""

# what no help may import: the stack a command pays for only when it runs
HEAVY = ("pandas", "numpy", "duckdb", "matplotlib", "sqlalchemy", "mcp",
         "langchain_core", "langgraph", "uvicorn", "starlette", "jupyter_client")
OURS = ("shokunin.agents", "shokunin.engine", "shokunin.api", "shokunin.store",
        "shokunin.runs", "shokunin.sandbox", "shokunin.tools", "shokunin.models",
        "shokunin.mcp", "shokunin.knowledge", "shokunin.config")


def imported_by(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _HELP, *argv], capture_output=True,
                          text=True, timeout=60, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules
                  if m.split(".")[0] in HEAVY or m.startswith(OURS))


def test_the_root_help_imports_no_command_and_no_rich() -> None:
    modules = imported_by("--help")
    assert heavy(modules) == []
    assert not [m for m in modules if m.startswith("shokunin.cli.") and m not in (
        "shokunin.cli.app", "shokunin.cli.logs")]
    assert "rich" not in modules  # plain help: rich is imported by the commands that draw
    assert "pydantic" not in modules  # typer imports it for a command's parameters


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_s_help_imports_none_of_the_stack(name: str) -> None:
    assert heavy(imported_by(name, "--help")) == []


_COMPLETE = """
import json, sys
from shokunin.cli import app
try:
    app([], prog_name="shokunin", complete_var="_SHOKUNIN_COMPLETE")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def test_completing_a_command_name_imports_no_command() -> None:
    env = {**os.environ, "_SHOKUNIN_COMPLETE": "complete_bash", "COMP_WORDS": "shokunin an",
           "COMP_CWORD": "1"}
    done = subprocess.run([sys.executable, "-c", _COMPLETE], capture_output=True, text=True,
                          timeout=60, check=True, env=env)
    *offered, modules = done.stdout.strip().splitlines()
    assert offered == ["analyze"]
    loaded = set(json.loads(modules))
    assert heavy(loaded) == []
    assert not [m for m in loaded if m.startswith("shokunin.cli.") and m not in (
        "shokunin.cli.app", "shokunin.cli.logs")]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_root_help_says_what_the_command_says_of_itself(name: str) -> None:
    command = load(name)
    assert command.help is not None
    assert COMMANDS[name].summary == command.help.strip().split("\n\n")[0].replace("\n", " ")


@pytest.mark.parametrize(("argv", "code", "said"), [
    (["--help"], 0, "Commands:"), (["nosuch"], 2, "No such command"),
    (["analyse"], 2, "Did you mean 'analyze'?"),
    (["analyze", "--out", "x.txt", "a.csv", "q"], 2, "Invalid value")])
def test_the_command_ends_at_once_with_its_status_and_all_it_printed(
        argv: list[str], code: int, said: str) -> None:
    """``main`` leaves without the interpreter's teardown: the status and the output must
    be the command's all the same."""
    done = subprocess.run([sys.executable, "-m", "shokunin", *argv], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == code, done.stderr
    assert said in done.stdout + done.stderr
