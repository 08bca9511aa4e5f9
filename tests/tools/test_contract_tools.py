"""A tool folder written to seed 003 by someone else (tests/tools/data/contract_tools) loads and
runs: select/number/boolean/text/secret settings, an inline SVG icon, message_callback called
directly, context["runtime"].workspace() in-process and in a venv child, relative and data:
file paths, root files that are not tools, and one broken tool that stops nothing."""

from __future__ import annotations

import base64
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shokunin.tools import MASK, SettingsInvalid, ToolRegistry
from shokunin.tools.venv import VenvManager
from tests.tools.conftest import DATA, registry_for

CONTRACT = DATA / "contract_tools"


@pytest.fixture(scope="module")
def contract_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy (the venv is built in it, not in the repository), venv built once."""
    root = tmp_path_factory.mktemp("contract") / "tool"
    shutil.copytree(CONTRACT, root)
    VenvManager().ensure(root / "field_notes")
    return root


@pytest.fixture
async def contract(tmp_path: Path, contract_root: Path) -> AsyncIterator[ToolRegistry]:
    registry = registry_for(tmp_path, contract_root)
    yield registry
    await registry.close()


def test_every_tool_folder_is_listed_and_root_files_are_not_tools(
    contract: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    tools = {info.name: info for info in contract.list()}
    assert set(tools) == {"unit_convert", "field_notes", "weather_report"}
    assert tools["unit_convert"].ok and tools["field_notes"].ok, tools
    assert tools["field_notes"].has_venv
    assert tools["weather_report"].status == "error"
    assert "No module named 'pyowm_not_installed_anywhere'" in tools["weather_report"].error
    assert tools["unit_convert"].icon.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    warned = [r.getMessage() for r in caplog.records]
    assert not any(word in line for line in warned
                   for word in ("template", "tool_loader", "README", "tool_rule", "userdata"))


def test_settings_schema_of_every_type(contract: ToolRegistry) -> None:
    view = contract.get_settings("unit_convert")
    schema = view["schema"]
    assert {k: spec["type"] for k, spec in schema.items()} == {
        "system": "select", "precision": "number", "show_formula": "boolean", "footer": "text",
        "api_token": "secret", "timeout_sec": "number"}
    assert schema["system"]["options"] == [{"value": "metric", "label": "メートル法"},
                                           {"value": "imperial", "label": "ヤード・ポンド法"}]
    assert schema["api_token"]["secret"] is True and schema["api_token"]["is_set"] is False
    assert view["values"] == {"system": "metric", "precision": 2, "show_formula": True,
                              "footer": "以上", "api_token": "", "timeout_sec": 120.0}


def test_settings_values_are_checked_against_their_type(contract: ToolRegistry) -> None:
    with pytest.raises(SettingsInvalid) as caught:
        contract.save_settings("unit_convert", {
            "system": "nautical", "precision": 2.5, "show_formula": "yes", "footer": 3,
            "api_token": 12})
    assert caught.value.errors == {
        "system": "must be one of 'metric', 'imperial'",
        "precision": "must be a multiple of 1 from 0",
        "show_formula": "must be a boolean", "footer": "must be a string",
        "api_token": "must be a string"}
    with pytest.raises(SettingsInvalid) as caught:
        contract.save_settings("unit_convert", {"precision": 11})
    assert caught.value.errors == {"precision": "must be at most 10"}
    saved = contract.save_settings("unit_convert", {
        "system": "imperial", "precision": 3, "show_formula": False, "footer": "以上です\n終",
        "api_token": "tok-abc-123"})
    assert saved["api_token"] == MASK and saved["system"] == "imperial"


async def test_in_process_tool_uses_callback_runtime_and_file_paths(
    contract: ToolRegistry, contract_root: Path, tmp_path: Path
) -> None:
    contract.save_settings("unit_convert", {"precision": 1, "api_token": "tok-abc-123"})
    messages: list[str] = []
    result = await contract.execute(
        "unit_convert", {"value": 10, "from_unit": "m", "to_unit": "ft"}, thread_id="t-units",
        progress=messages.append)
    assert result["success"], result
    assert messages == ["単位を変換しています...", "結果を記録しています..."]
    assert result["result"] == {"text": "10 m = 32.8 ft  (x * 3.28084)", "value": 32.8,
                                "system": "metric", "token_set": True}
    report, legend, inline = result["files"]
    workspace = tmp_path / "workspaces" / "t-units"
    assert report["path"] == str(workspace / "reports" / "convert.md")
    assert Path(report["path"]).read_text(encoding="utf-8").endswith("10 m = 32.8 ft  "
                                                                     "(x * 3.28084)\n\n以上\n")
    assert legend["path"] == str(contract_root / "unit_convert" / "assets" / "legend.txt")
    assert inline["path"].startswith("data:text/plain;base64,")
    assert base64.b64decode(inline["path"].split(",", 1)[1]).decode() == result["result"]["text"]
    assert inline["name"] == "summary.txt"


async def test_venv_tool_uses_callback_and_the_workspace_from_its_child(
    contract: ToolRegistry, contract_root: Path, tmp_path: Path
) -> None:
    contract.save_settings("field_notes", {"author": "佐藤"})
    messages: list[str] = []
    args = {"title": "点検", "body": "配電盤 OK", "folder": "notes/2026"}
    result = await contract.execute("field_notes", args, thread_id="t-notes",
                                    progress=messages.append)
    assert result["success"], result
    workspace = tmp_path / "workspaces" / "t-notes"
    out = result["result"]
    assert out["python"] == str(contract_root / "field_notes" / ".venv")  # ran in its venv
    assert messages == ["メモを書いています...", "一覧を作っています..."]
    assert out["replaced"] is False and out["workspace"] == str(workspace)
    assert out["text"] == "# 点検\n\n配電盤 OK\n\n— 佐藤\n"
    assert out["files"] == ["notes/2026/点検.md"] and out["dirs"] == ["notes", "notes/2026"]
    assert result["files"] == [{"path": str(workspace / "notes" / "2026" / "点検.md"),
                                "name": "点検.md", "type": "text/markdown"}]
    again = await contract.execute("field_notes", args, thread_id="t-notes")
    assert again["result"]["replaced"] is True
    escape = await contract.execute("field_notes", {**args, "folder": "../outside"},
                                    thread_id="t-notes")
    assert not escape["success"] and "leaves the workspace" in escape["error"]
    assert not (tmp_path / "workspaces" / "outside").exists()


async def test_a_broken_tool_stops_no_other(contract: ToolRegistry) -> None:
    result = await contract.execute("unit_convert",
                                    {"value": 212, "from_unit": "F", "to_unit": "C"})
    assert result["success"] and result["result"]["value"] == 100
