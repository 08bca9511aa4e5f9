"""Tool folders built per test: an in-process probe tool and a venv tool built once."""

from __future__ import annotations

import textwrap
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from shokunin.tools import ToolRegistry
from shokunin.tools.venv import VenvManager

DATA = Path(__file__).parent / "data"
SEED_TEMPLATE = (DATA / "seed_template.txt").read_text(encoding="utf-8")

PROBE = '''
import json, os, threading, time

TOOL_NAME = "プローブ"
TOOL_DESCRIPTION = "test probe"
TOOL_ICON = "🧪"


def get_function_declaration():
    return {"name": "probe", "description": "probe",
            "parameters": {"type": "object", "properties": {
                "mode": {"type": "string"}, "path": {"type": "string"}},
                "required": ["mode"]}}


def get_settings_schema():
    return {"api_key": {"type": "string", "label": "API key", "default": "", "secret": True},
            "limit": {"type": "integer", "label": "limit", "default": 10, "min": 1, "max": 100},
            "ratio": {"type": "number", "label": "ratio", "default": 0.5},
            "verbose": {"type": "boolean", "label": "verbose", "default": False}}


def execute(args, context):
    mode = args["mode"]
    say = context.get("message_callback")
    abort = context.get("abort_event")
    if mode == "context":
        return {"success": True, "result": {
            k: (type(v).__name__ if callable(v) or k in ("abort_event", "runtime") else v)
            for k, v in context.items()}}
    if mode == "progress":
        for i in range(3):
            say(f"step {i}")
        return {"success": True, "result": "done"}
    if mode == "raise":
        raise ValueError("boom")
    if mode == "hang":
        time.sleep(30)
    if mode == "wait_abort":
        say("waiting")
        while not abort.wait(0.02):
            pass
        if args.get("path"):
            open(args["path"], "w").close()
        return {"success": False, "error": "中断されました", "aborted": True}
    if mode == "sleep":
        time.sleep(0.3)
        return {"success": True, "result": threading.get_ident()}
    if mode == "not_dict":
        return "hello"
    if mode == "no_success":
        return {"result": 1}
    if mode == "non_json":
        return {"success": True, "result": {1, 2}}
    if mode == "file":
        return {"success": True, "result": None, "files": [{"path": args["path"]}]}
    if mode == "leak":
        key = context["settings"]["api_key"]
        say("using " + key)
        if args.get("path") == "raise":
            raise RuntimeError("bad key " + key)
        return {"success": False, "error": "rejected key " + key}
    if mode == "emit":
        from shokunin.events import Text
        context["emit"](Text(text="from tool"))
        return {"success": True, "result": "emitted"}
    return {"success": False, "error": "unknown mode"}
'''

VENV_TOOL = '''
import importlib.util, os, sys, time

TOOL_NAME = "venv tool"
TOOL_DESCRIPTION = "runs in its own venv"
TOOL_ICON = "📦"


def get_function_declaration():
    return {"name": "venv_probe", "description": "venv probe",
            "parameters": {"type": "object", "properties": {"mode": {"type": "string"}},
                           "required": ["mode"]}}


def execute(args, context):
    mode = args["mode"]
    say = context["message_callback"]
    abort = context["abort_event"]
    if mode == "info":
        say("step 1")
        print("noise on stdout must not break the protocol")
        say("step 2")
        return {"success": True, "result": {
            "pid": os.getpid(), "prefix": sys.prefix,
            "jsonschema": importlib.util.find_spec("jsonschema") is not None,
            "context": {k: (v if isinstance(v, (str, bool, type(None), dict)) else "<obj>")
                        for k, v in context.items()}}}
    if mode == "wait_abort":
        say("waiting")
        while not abort.wait(0.02):
            pass
        return {"success": False, "error": "中断されました", "aborted": True}
    if mode == "hang":
        time.sleep(60)
    if mode == "die":
        os._exit(3)
    if mode == "raise":
        raise KeyError("nope")
    if mode == "non_json":
        return {"success": True, "result": object()}
    return {"success": True, "result": "ok"}
'''


def make_tool(root: Path, name: str, source: str, *, requirements: str | None = None,
              entry: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (entry or f"{name}_tool.py")).write_text(textwrap.dedent(source), encoding="utf-8")
    if requirements is not None:
        (folder / "requirements.txt").write_text(requirements, encoding="utf-8")
    return folder


def registry_for(tmp_path: Path, *roots: Path, timeout: float = 120.0) -> ToolRegistry:
    return ToolRegistry([(root, "user") for root in roots], tmp_path / "userdata" / "s.json",
                        workspace_root=tmp_path / "workspaces", default_timeout=timeout)


@pytest.fixture
def tools_root(tmp_path: Path) -> Path:
    root = tmp_path / "tool"
    make_tool(root, "probe", PROBE)
    return root


@pytest.fixture
async def registry(tmp_path: Path, tools_root: Path) -> AsyncIterator[ToolRegistry]:
    reg = registry_for(tmp_path, tools_root)
    yield reg
    await reg.close()


@pytest.fixture(scope="session")
def venv_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A venv tool whose venv is built once per session (comment-only requirements)."""
    root = tmp_path_factory.mktemp("venv_tools")
    folder = make_tool(root, "venv_probe", VENV_TOOL,
                       requirements="# nothing to install: builds with no network\n")
    VenvManager().ensure(folder)
    yield root
