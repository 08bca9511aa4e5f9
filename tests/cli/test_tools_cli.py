"""``shokunin tools ...`` with typer's CliRunner, configured through the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shokunin.cli.app import app
from shokunin.tools import MASK
from tests.tools.conftest import PROBE, SEED_TEMPLATE, make_tool

runner = CliRunner()


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tool"
    make_tool(root, "probe", PROBE)
    make_tool(root, "broken", "import nope_nope\n")
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SHOKUNIN_TOOLS_DIRS", json.dumps([str(root)]))
    monkeypatch.setenv("SHOKUNIN_TOOL_SETTINGS_FILE", str(tmp_path / "userdata" / "s.json"))
    monkeypatch.setenv("COLUMNS", "200")
    return root


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["tools", *args])
    return result.exit_code, result.output


def test_list_shows_errors(tools: Path) -> None:
    code, out = invoke("list")
    assert code == 0
    assert "probe" in out and "calculator" in out and "nope_nope" in out


def test_show(tools: Path) -> None:
    code, out = invoke("show", "probe")
    assert code == 0 and '"function_name": "probe"' in out
    code, out = invoke("show", "nope")
    assert code == 1 and "no tool named" in out


def test_run(tools: Path) -> None:
    code, out = invoke("run", "calculator", "--args", '{"expression": "1200 * 8%"}')
    assert code == 0 and '"96"' in out
    code, out = invoke("run", "probe", "--args", '{"mode": "progress"}')
    assert code == 0 and "step 2" in out
    code, out = invoke("run", "probe", "--args", '{"mode": "raise"}')
    assert code == 1 and "boom" in out
    code, out = invoke("run", "probe", "--args", "{bad")
    assert code == 1 and "not JSON" in out
    code, out = invoke("run", "probe", "--args", '{"mode": 1}')
    assert code == 1 and "invalid args" in out
    code, out = invoke("run", "probe", "--args", '{"mode": "hang"}', "--timeout", "0.2")
    assert code == 1 and "timed out" in out


def test_settings_set_and_mask(tools: Path) -> None:
    code, out = invoke("settings", "probe", "--set", "api_key=sk-cli-secret", "--set",
                       "limit=7", "--set", "verbose=true")
    assert code == 0 and MASK in out and "sk-cli-secret" not in out and "7" in out
    code, out = invoke("settings", "probe")
    assert "sk-cli-secret" not in out
    code, out = invoke("run", "probe", "--args", '{"mode": "leak"}')
    assert "sk-cli-secret" not in out and MASK in out
    code, out = invoke("show", "probe")
    assert "sk-cli-secret" not in out
    code, out = invoke("settings", "probe", "--set", "limit=0", "--set", "ratio=x")
    assert code == 1 and "must be at least 1" in out and "must be a number" in out


def test_new_scaffolds_the_seed_template(tools: Path) -> None:
    code, out = invoke("new", "my_tool")
    assert code == 0
    entry = tools / "my_tool" / "my_tool_tool.py"
    assert entry.read_text(encoding="utf-8") == SEED_TEMPLATE.replace(
        '"tool_function_name"', '"my_tool"')
    code, out = invoke("list")
    assert "my_tool" in out
    code, out = invoke("run", "my_tool", "--args", '{"param1": "x"}')
    assert code == 0 and "処理結果" in out
    code, out = invoke("new", "my_tool")
    assert code == 1 and "refusing to overwrite" in out
    code, out = invoke("new", "Bad-Name")
    assert code == 1 and "invalid tool name" in out
