"""Discovery and validation: every kind of broken tool is listed with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.config import Settings
from shokunin.tools import ToolNotFound, ToolRegistry, ToolUnavailable
from tests.tools.conftest import SEED_TEMPLATE, make_tool, registry_for

GOOD = '''
TOOL_NAME = "good"
TOOL_DESCRIPTION = "works"
TOOL_ICON = "✅"
def get_function_declaration():
    return {"name": "%s", "description": "d",
            "parameters": {"type": "object", "properties": {}}}
def execute(args, context):
    return {"success": True, "result": "fine"}
'''


def good(function: str = "good_fn") -> str:
    return GOOD % function


BROKEN = {
    "syntax": ("def oops(:\n", "syntax"),
    "importerr": ("import not_a_real_module_xyz\n" + good("imp"), "No module named"),
    "missing": ('TOOL_NAME = "x"\nTOOL_ICON = "x"\n'
                "def execute(args, context):\n    return {}\n",
                "missing required export(s): TOOL_DESCRIPTION, get_function_declaration"),
    "badschema": (good("bad_schema").replace('"properties": {}', '"properties": 5'),
                  "not a valid JSON Schema"),
    "notobject": (good("not_object").replace('"type": "object"', '"type": "array"'),
                  '"type": "object"'),
    "badname": (good("bad-name!"), "must be 1-64 ASCII letters"),
    "jpname": (good("計算"), "must be 1-64 ASCII letters"),
    "raising": (good("raising").replace('return {"name"', 'raise RuntimeError("nope")\n    '
                                        'return {"name"'), "raised RuntimeError: nope"),
    "badsettings": (good("bad_settings") + "\ndef get_settings_schema():\n"
                    "    return {'x': {'type': 'date'}}\n", "type must be one of"),
    "badui": (good("bad_ui") + "\ndef get_ui_info():\n"
              "    return {'has_ui': True, 'html_file': '../../etc/passwd'}\n",
              "outside the tool folder"),
    "exits": ("raise SystemExit(3)\n", "SystemExit"),
}


def test_each_broken_tool_is_listed_with_its_reason_and_good_ones_still_work(
        tmp_path: Path) -> None:
    root = tmp_path / "tool"
    make_tool(root, "good", good())
    for name, (source, _) in BROKEN.items():
        make_tool(root, name, source)
    make_tool(root, "zdup", good("good_fn"))  # same function name as "good"
    make_tool(root, "prefix", good("pre"), entry="other_tool.py")
    registry = registry_for(tmp_path, root)
    tools = {info.name: info for info in registry.list()}
    assert tools["good"].status == "ok" and tools["good"].error is None
    for name, (_, reason) in BROKEN.items():
        assert tools[name].status == "error", name
        assert reason in tools[name].error, (name, tools[name].error)
    assert "duplicate function name 'good_fn'" in tools["zdup"].error
    assert "prefix_tool.py" in tools["prefix"].error and "other_tool.py" in tools["prefix"].error
    with pytest.raises(ToolUnavailable, match="syntax"):
        registry.validate_args("syntax", {})


async def test_good_tool_runs_next_to_broken_ones(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    make_tool(root, "good", good())
    make_tool(root, "syntax", "def (:\n")
    registry = registry_for(tmp_path, root)
    assert (await registry.execute("good", {}))["result"] == "fine"
    assert (await registry.execute("good_fn", {}))["success"]  # by function name too


def test_missing_folders_and_non_tool_folders_are_empty(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    (root / "userdata").mkdir(parents=True)
    (root / "__pycache__").mkdir()
    registry = registry_for(tmp_path, root, tmp_path / "does-not-exist")
    assert registry.list() == []
    with pytest.raises(ToolNotFound):
        registry.get("nothing")


def test_seed_template_verbatim_loads(tmp_path: Path) -> None:
    make_tool(tmp_path / "tool", "template", SEED_TEMPLATE)
    info = registry_for(tmp_path, tmp_path / "tool").get("template")
    assert info.status == "ok", info.error
    assert info.function_name == "tool_function_name"
    assert (info.title, info.icon, info.has_settings, info.has_ui) == (
        "ツール表示名", "🔧", True, False)


async def test_seed_template_runs_unchanged(tmp_path: Path) -> None:
    make_tool(tmp_path / "tool", "template", SEED_TEMPLATE)
    registry = registry_for(tmp_path, tmp_path / "tool")
    messages: list[str] = []
    result = await registry.execute("template", {"param1": "x"}, progress=messages.append)
    assert result["success"] and result["result"] == {"data": "処理結果"}
    assert messages == ["処理を開始しています..."]
    bad = await registry.execute("template", {"param2": 1})
    assert not bad["success"] and "param1" in bad["error"]


def test_builtin_tools_come_first_and_user_tools_follow(tmp_path: Path) -> None:
    make_tool(tmp_path / "tool", "good", good())
    make_tool(tmp_path / "tool", "calculator", good("calc2"))  # clashes with a builtin folder
    registry = ToolRegistry.from_settings(Settings(
        data_dir=tmp_path, tools_dirs=[tmp_path / "tool"],
        tool_settings_file=tmp_path / "s.json"))
    infos = registry.list()
    assert [i.source for i in infos[:2]] == ["builtin", "builtin"]
    assert {"calculator", "table_format"} <= {i.name for i in infos if i.source == "builtin"}
    assert registry.get("calculator").source == "builtin"
    clash = [i for i in infos if i.name == "calculator" and i.source == "user"]
    assert clash and "duplicate tool name" in clash[0].error
    # The builtin venv tool is validated from its source, without building its venv.
    table = registry.get("table_format")
    assert table.status == "ok" and table.has_venv and table.has_settings


def test_venv_tool_is_validated_without_importing_it(tmp_path: Path) -> None:
    source = "import package_only_in_the_venv\n" + good("venv_only")
    make_tool(tmp_path / "tool", "venvonly", source, requirements="package_only_in_the_venv\n")
    broken = "import x\n" + good("dyn").replace('"name": "dyn"', '"name": make_name()')
    make_tool(tmp_path / "tool", "dynamic", broken, requirements="x\n")
    make_tool(tmp_path / "tool", "venvsyntax", "def (:\n", requirements="x\n")
    registry = registry_for(tmp_path, tmp_path / "tool")
    assert registry.get("venvonly").status == "ok"
    assert not (tmp_path / "tool" / "venvonly" / ".venv").exists()
    assert "shokunin tools setup dynamic" in registry.get("dynamic").error
    assert "syntax error" in registry.get("venvsyntax").error


def test_reload_picks_up_new_and_fixed_tools(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    make_tool(root, "later", "def (:\n")
    registry = registry_for(tmp_path, root)
    assert registry.get("later").status == "error"
    make_tool(root, "later", good("later_fn"))
    registry.reload()
    assert registry.get("later").status == "ok"


def test_a_ui_declared_without_html_file_is_its_index_html_as_in_the_origin(
        tmp_path: Path) -> None:
    root = tmp_path / "tool"
    folder = make_tool(root, "plain_ui", good("plain_ui") + "\ndef get_ui_info():\n"
                       "    return {'has_ui': True}\n")
    (folder / "index.html").write_text("<p>ui</p>", encoding="utf-8")
    make_tool(root, "no_page", good("no_page") + "\ndef get_ui_info():\n"
              "    return {'has_ui': True}\n")
    tools = {info.name: info for info in registry_for(tmp_path, root).list()}
    assert tools["plain_ui"].status == "ok", tools["plain_ui"].error
    assert "'index.html' does not exist" in tools["no_page"].error
