"""Shared by the MCP server tests: probe tool folders, the client's side of a call, and
how to reach ``shokunin mcp serve`` as a subprocess."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "src/shokunin/data/analyst"
PNG = bytes.fromhex(  # a 1x1 PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")

PROBES = {
    "progress_probe": '''
        def get_function_declaration():
            return {"name": "progress_probe", "description": "says three things",
                    "parameters": {"type": "object", "properties": {}}}

        def execute(args, context):
            for i in range(3):
                context["message_callback"](f"step {i}")
            return {"success": True, "result": "done"}
    ''',
    "abort_probe": '''
        def get_function_declaration():
            return {"name": "abort_probe", "description": "waits for its abort",
                    "parameters": {"type": "object", "properties": {
                        "marker": {"type": "string"}}, "required": ["marker"]}}

        def execute(args, context):
            context["message_callback"]("waiting")
            while not context["abort_event"].wait(0.02):
                pass
            open(args["marker"], "w").close()
            return {"success": False, "error": "aborted", "aborted": True}
    ''',
    "file_probe": f'''
        import os

        def get_function_declaration():
            return {{"name": "file_probe", "description": "returns a PNG and a text file",
                    "parameters": {{"type": "object", "properties": {{}}}}}}

        def execute(args, context):
            png = os.path.join(context["workspace"], "dot.png")
            with open(png, "wb") as f:
                f.write(bytes.fromhex("{PNG.hex()}"))
            notes = os.path.join(context["workspace"], "notes.txt")
            with open(notes, "w", encoding="utf-8") as f:
                f.write("職人のメモ")
            return {{"success": True, "result": "two files", "files": [png, notes]}}
    ''',
    "broken_probe": '''
        raise RuntimeError("broken on purpose")
    ''',
}


EXPORTS = 'TOOL_NAME = "{name}"\nTOOL_DESCRIPTION = "a test probe"\nTOOL_ICON = "🧪"\n'


def write_probes(folder: Path) -> Path:
    """The probe tools as a tool folder (``SHOKUNIN_TOOLS_DIRS``)."""
    for name, source in PROBES.items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / f"{name}_tool.py").write_text(
            textwrap.dedent(source) + EXPORTS.format(name=name), encoding="utf-8")
    return folder


def stdio_params(data_dir: Path, tools_dir: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOKUNIN_")}
    env.update({
        "SHOKUNIN_DATA_DIR": str(data_dir),
        "SHOKUNIN_TOOLS_DIRS": f'["{tools_dir}"]',
        "SHOKUNIN_TOOL_SETTINGS_FILE": str(data_dir / "tool_settings.json"),
        "SHOKUNIN_SANDBOX_POOL_SIZE": "0",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]),
    })
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "shokunin", "mcp", "serve"], env=env)


async def progress_of(client: Client, name: str, args: dict[str, Any]
                      ) -> tuple[types.CallToolResult, list[str]]:
    """The call's result and the progress messages the client received."""
    messages: list[str] = []

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    result = await client.call_tool(name, args, progress_callback=heard)
    return result, messages


async def cancel_after_start(client: Client, marker: Path) -> None:
    """Call abort_probe, and cancel the call once the tool says it is waiting."""
    started = anyio.Event()

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    async with anyio.create_task_group() as group:
        async def call() -> None:
            await client.call_tool("abort_probe", {"marker": str(marker)},
                                   progress_callback=heard)

        group.start_soon(call)
        with anyio.fail_after(60):
            await started.wait()
        group.cancel_scope.cancel()


def texts(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
