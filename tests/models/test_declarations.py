"""The providers' rules for tool declarations: checked when tools load, builtin and plugin."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from shokunin.agents.workbench.tools.map_tools import map_tools
from shokunin.config import PACKAGE_DIR
from shokunin.maps import MapPackage
from shokunin.maps.definition import MapDefinition
from shokunin.models import MAX_DESCRIPTION, DeclarationError, check_tool, function_problems
from shokunin.tools import ToolRegistry
from tests.fake_openai import check_request

GOOD = {"name": "lookup-v2", "description": "Look a word up.",
        "parameters": {"type": "object", "properties": {"word": {"type": "string"}},
                       "required": ["word"]}}


def test_a_good_declaration_has_no_problems() -> None:
    assert function_problems(GOOD) == []


@pytest.mark.parametrize(("change", "reason"), [
    ({"name": "look up"}, "function name 'look up'"),
    ({"name": "x" * 65}, "1-64 letters"),
    ({"name": "調べる"}, "function name"),
    ({"description": "d" * (MAX_DESCRIPTION + 1)}, "description is 1025 characters"),
    ({"parameters": {"type": "array"}}, '"type": "object"'),
    ({"parameters": {"type": "object", "properties": {}, "required": ["word"]}},
     "parameters.required names undeclared properties: word"),
    ({"parameters": {"type": "object", "properties": {"where": {
        "type": "object", "properties": {"x": {"type": "number"}}, "required": ["y"]}}}},
     "parameters.properties.where.required names undeclared properties: y"),
])
def test_a_declaration_a_provider_refuses_says_why(change: dict[str, Any], reason: str) -> None:
    function = {**GOOD, **change}
    problems = function_problems(function)
    assert any(reason in p for p in problems), problems
    # The fake server, which follows the public API, refuses the same declaration.
    refused = check_request({"tools": [{"type": "function", "function": function}],
                             "messages": []})
    assert refused is not None and refused.status_code == 400


def _big_building(rooms: int) -> MapPackage:
    """A building of many long room names (never drawn: only its names matter here)."""
    floors = [{"floorId": f"F{f}", "floorName": f"Floor {f}", "floorImage": "floor.png",
               "coordinateSystem": {"topLeft": {"x": 0, "y": 0},
                                    "bottomRight": {"x": 100, "y": 100}},
               "rectangles": [{"name": f"Conference room {f}-{r} east wing",
                               "topLeft": {"x": 0, "y": 0},
                               "bottomRight": {"x": 1, "y": 1}}
                              for r in range(rooms // 4)]}
              for f in range(4)]
    bitmaps = [{"bitmapId": f"icon_{i}", "bitmapName": f"Icon {i}", "bitmapFile": "i.png"}
               for i in range(30)]
    definition = MapDefinition.model_validate({"floors": floors, "bitmaps": bitmaps})
    rooms_by_name = {r.name: (fl, r) for fl in definition.floors for r in fl.rectangles}
    return MapPackage(folder=Path("."), definition=definition, _rooms=rooms_by_name)


@pytest.mark.parametrize("package", ["shipped", "large"])
def test_builtin_map_tools_pass_the_rules_for_any_building(package: str) -> None:
    pkg = (MapPackage.load(PACKAGE_DIR / "data" / "map") if package == "shipped"
           else _big_building(400))
    tools = map_tools(pkg)  # declarations only, never run
    assert {t.name for t in tools} >= {"show_map", "draw_arrow", "highlight_room"}
    for tool in tools:
        check_tool(tool)  # raises DeclarationError with the reasons


def test_check_tool_raises_with_every_reason() -> None:
    from langchain_core.tools import StructuredTool

    async def fn(x: str) -> str:
        return x

    tool = StructuredTool.from_function(coroutine=fn, name="bad name",
                                        description="d" * 2000)
    with pytest.raises(DeclarationError, match="function name 'bad name'.*2000 characters"):
        check_tool(tool)


PLUGIN = '''
TOOL_NAME = "{name}"
TOOL_DESCRIPTION = {tool_description!r}
TOOL_ICON = "x"


def get_function_declaration():
    return {declaration!r}


def execute(args, context):
    return {{"success": True, "result": "ok"}}
'''


def _plugin(root: Path, name: str, declaration: dict[str, Any],
            tool_description: str = "A tool.") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / f"{name}_tool.py").write_text(textwrap.dedent(PLUGIN.format(
        name=name, declaration=declaration, tool_description=tool_description)))


def test_plugins_a_provider_would_refuse_are_listed_as_errors(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    _plugin(root, "good", {**GOOD, "name": "good"})
    _plugin(root, "wordy", {**GOOD, "name": "wordy", "description": "w" * 1100})
    _plugin(root, "dangling", {**GOOD, "name": "dangling", "parameters": {
        "type": "object", "properties": {}, "required": ["word"]}})
    # No description of its own: the model is sent TOOL_DESCRIPTION, so that is checked.
    _plugin(root, "fallback", {"name": "fallback", "parameters": {"type": "object"}},
            tool_description="t" * 1500)
    registry = ToolRegistry([(root, "user")], tmp_path / "settings.json",
                            workspace_root=tmp_path / "ws", log_unavailable=False)
    listed = {info.name: info for info in registry.list()}
    assert listed["good"].status == "ok"
    assert listed["wordy"].status == "error"
    assert "description is 1100 characters" in (listed["wordy"].error or "")
    assert listed["dangling"].status == "error"
    assert "undeclared properties: word" in (listed["dangling"].error or "")
    assert listed["fallback"].status == "error"
    assert "description is 1500 characters" in (listed["fallback"].error or "")


def test_sql_engine_passes_the_rules_for_a_large_database(tmp_path: Path) -> None:
    import sqlite3

    from shokunin.agents.workbench.tools.sql_engine import run_query, sql_engine_tool

    db = tmp_path / "big.db"
    with sqlite3.connect(db) as con:
        for i in range(60):
            con.execute(f"CREATE TABLE sensor_readings_{i} (id INTEGER PRIMARY KEY, "
                        "room_name TEXT, measured_at TEXT, value REAL)")
    tool = sql_engine_tool(db)
    check_tool(tool)
    assert "sqlite_master" in tool.description
    # What the description tells the model to run works.
    columns, rows, _ = run_query(db, "SELECT name, sql FROM sqlite_master WHERE "
                                     "type = 'table'")
    assert columns == ["name", "sql"] and len(rows) == 60
