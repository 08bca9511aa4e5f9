"""``shokunin tools ...`` with typer's CliRunner, configured through the environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from shokunin.cli import tools as tools_cli
from shokunin.cli.app import app
from shokunin.tools import MASK
from tests.tools.conftest import DATA, PROBE, SEED_TEMPLATE, make_tool

pytestmark = pytest.mark.subprocess

runner = CliRunner()
LONG_NAME = "unit_converter_for_metric_and_imperial_x"  # 40 characters
LONG_TOOL = PROBE.replace('"probe"', '"convert"').replace("プローブ", "単位変換")
BROKEN_REASON = "No module named 'nope_nope'"


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


@pytest.fixture
def long_tools(tools: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assert len(LONG_NAME) == 40
    make_tool(tools, LONG_NAME, LONG_TOOL)
    monkeypatch.setenv("COLUMNS", "80")
    return tools


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["tools", *args])
    return result.exit_code, result.stdout


def test_list_shows_errors(tools: Path) -> None:
    code, out = invoke("list")
    assert code == 0
    assert "probe" in out and "calculator" in out and "nope_nope" in out


def _row(out: str, name: str) -> list[str]:
    rows = [line.split() for line in out.splitlines() if line.split()[:1] == [name]]
    assert len(rows) == 1, out
    return rows[0]


def test_list_never_cuts_a_name_or_status_at_80_columns(long_tools: Path) -> None:
    code, out = invoke("list")
    assert code == 0
    assert _row(out, LONG_NAME)[:5] == [LONG_NAME, "convert", "user", "no", "ok"]
    assert _row(out, "broken")[4] == "error"
    assert "…" not in out
    # ready to list, not to use: what to set is said (issue 48.2)
    assert _row(out, "web_search")[4] == "needs-settings"
    assert "web_search: set tavily_api_key or searxng_url (shokunin tools settings" in out


def test_list_piped_from_a_real_process_keeps_names_and_says_each_reason_once(
    long_tools: Path
) -> None:
    done = subprocess.run([sys.executable, "-m", "shokunin", "tools", "list"],
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"},
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert _row(done.stdout, LONG_NAME)[4] == "ok"
    assert _row(done.stdout, "broken")[4] == "error"
    assert (done.stdout + done.stderr).count(BROKEN_REASON) == 1


@pytest.mark.parametrize("command", [("list",), ("show", "broken"), ("run", "broken")])
def test_a_broken_tools_reason_is_printed_once(tools: Path, command: tuple[str, ...]) -> None:
    result = runner.invoke(app, ["tools", *command])
    assert (result.stdout + result.stderr).count(BROKEN_REASON) == 1


def test_list_on_a_wide_terminal_draws_a_table_with_whole_names(
    long_tools: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for width, boxed in ((160, True), (80, False)):
        monkeypatch.setattr(tools_cli, "console", Console(force_terminal=True, width=width,
                                                          color_system=None))
        code, out = invoke("list")
        assert code == 0 and ("┃" in out) is boxed
        assert LONG_NAME in out and "…" not in out


def test_list_json(tools: Path) -> None:
    code, out = invoke("list", "--json")
    assert code == 0
    tools_ = {t["name"]: t for t in json.loads(out)["tools"]}
    assert set(tools_["probe"]) == {"name", "function_name", "title", "description", "icon",
                                    "declaration", "status", "error", "source", "server",
                                    "has_venv", "has_settings", "has_ui", "needs_settings"}
    assert tools_["probe"]["status"] == "ok" and tools_["calculator"]["source"] == "builtin"
    assert tools_["broken"]["status"] == "error" and BROKEN_REASON in tools_["broken"]["error"]


def test_show_and_run_json_mask_secrets(tools: Path) -> None:
    assert invoke("settings", "probe", "--set", "api_key=sk-json-secret")[0] == 0
    code, out = invoke("show", "probe", "--json")
    shown = json.loads(out)
    assert code == 0 and set(shown) == {"tool", "settings"}
    assert shown["tool"]["function_name"] == "probe"
    assert shown["settings"]["values"]["api_key"] == MASK and "sk-json-secret" not in out
    code, out = invoke("run", "probe", "--args", '{"mode": "leak"}', "--json")
    result = json.loads(out)
    assert code == 1 and set(result) == {"success", "result", "error", "files", "aborted",
                                         "execution_id"}
    assert result["error"] == f"rejected key {MASK}" and "sk-json-secret" not in out
    code, out = invoke("run", "calculator", "--args", '{"expression": "2 * 21"}', "--json")
    assert code == 0 and json.loads(out)["result"]["value"] == "42"
    code, out = invoke("run", "nope", "--json")
    assert code == 1 and json.loads(out)["error"] == "no tool named 'nope'"
    code, out = invoke("show", "nope", "--json")
    assert code == 1 and json.loads(out) == {"error": "no tool named 'nope'"}


def test_run_json_keeps_progress_out_of_stdout(tools: Path) -> None:
    result = runner.invoke(app, ["tools", "run", "probe", "--args", '{"mode": "progress"}',
                                 "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["result"] == "done"
    assert result.stderr.splitlines() == ["step 0", "step 1", "step 2"]


def test_show(tools: Path) -> None:
    code, out = invoke("show", "probe")
    assert code == 0 and "function: probe" in out and "status: ok" in out and "\"mode\"" in out
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


def test_settings_of_the_contract_types_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tool"
    shutil.copytree(DATA / "contract_tools", root)
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SHOKUNIN_TOOLS_DIRS", json.dumps([str(root)]))
    monkeypatch.setenv("SHOKUNIN_TOOL_SETTINGS_FILE", str(tmp_path / "s.json"))
    code, out = invoke("settings", "unit_convert", "--set", "system=imperial", "--set",
                       "precision=3", "--set", "show_formula=false", "--set",
                       "api_token=tok-cli-1")
    assert code == 0 and "tok-cli-1" not in out
    assert json.loads((tmp_path / "s.json").read_text())["unit_convert"] == {
        "system": "imperial", "precision": 3, "show_formula": False, "api_token": "tok-cli-1"}
    code, out = invoke("settings", "unit_convert", "--set", "system=nautical")
    assert code == 1 and "must be one of 'metric', 'imperial'" in out
    code, out = invoke("list")
    assert _row(out, "unit_convert")[4] == "ok" and "template" not in out
    code, out = invoke("show", "unit_convert")
    assert out.startswith("[svg] 単位変換") and "<svg" not in out
