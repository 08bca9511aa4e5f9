"""Secrets stay masked on the paths a tool controls: a dying child's stderr, the server log
of it, and events an in-process tool emits to clients."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from shokunin import events as ev
from shokunin.tools import MASK
from shokunin.tools.venv import VenvManager
from tests.tools.conftest import make_tool, registry_for

SECRET = "SUPERSECRET123"
SCHEMA = '''
def get_settings_schema():
    return {"api_key": {"type": "string", "label": "key", "default": "", "secret": True}}
'''
DYING = '''
import os
TOOL_NAME = "leaky"
TOOL_DESCRIPTION = "prints its key, then dies"
TOOL_ICON = "x"
def get_function_declaration():
    return {"name": "leaky", "description": "x",
            "parameters": {"type": "object", "properties": {}}}
def execute(args, context):
    print("connecting with " + context["settings"]["api_key"], flush=True)
    os._exit(3)
''' + SCHEMA
UNSERIALISABLE = '''
TOOL_NAME = "opaque"
TOOL_DESCRIPTION = "returns an object named after its key"
TOOL_ICON = "x"
def get_function_declaration():
    return {"name": "opaque", "description": "x",
            "parameters": {"type": "object", "properties": {}}}
def execute(args, context):
    return {"success": True, "result": type(context["settings"]["api_key"], (), {})()}
''' + SCHEMA
EMITTING = '''
from shokunin.events import Text
TOOL_NAME = "talky"
TOOL_DESCRIPTION = "tells clients its key"
TOOL_ICON = "x"
def get_function_declaration():
    return {"name": "talky", "description": "x",
            "parameters": {"type": "object", "properties": {}}}
def execute(args, context):
    context["emit"](Text(text="the key is " + context["settings"]["api_key"]))
    return {"success": True, "result": "ok"}
''' + SCHEMA


async def test_dying_venv_child_does_not_leak_its_stderr(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "tool"
    folder = make_tool(root, "leaky", DYING, requirements="# nothing to install\n")
    VenvManager().ensure(folder)
    registry = registry_for(tmp_path, root)
    try:
        registry.save_settings("leaky", {"api_key": SECRET})
        with caplog.at_level(logging.DEBUG, logger="shokunin.tools"):
            result = await registry.execute("leaky", {})
    finally:
        await registry.close()
    assert not result["success"] and "exited (code 3)" in result["error"]
    assert f"connecting with {MASK}" in result["error"]
    assert SECRET not in result["error"]
    assert SECRET not in caplog.text and f"connecting with {MASK}" in caplog.text


async def test_malformed_venv_result_does_not_leak(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    folder = make_tool(root, "opaque", UNSERIALISABLE, requirements="# nothing to install\n")
    VenvManager().ensure(folder)
    registry = registry_for(tmp_path, root)
    try:
        registry.save_settings("opaque", {"api_key": SECRET})
        result = await registry.execute("opaque", {})
    finally:
        await registry.close()
    assert not result["success"] and "malformed result" in result["error"]
    assert f"type {MASK}" in result["error"] and SECRET not in result["error"]


async def test_events_an_in_process_tool_emits_are_masked(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    make_tool(root, "talky", EMITTING)
    registry = registry_for(tmp_path, root)
    sent: list[ev.BaseEvent] = []
    try:
        registry.save_settings("talky", {"api_key": SECRET})
        result = await registry.execute("talky", {}, emit=sent.append)
    finally:
        await registry.close()
    assert result["success"], result
    assert [type(e) for e in sent] == [ev.Text]
    assert sent[0].text == f"the key is {MASK}"
