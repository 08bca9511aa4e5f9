"""Values found by fuzzing: NaN, Infinity and absurd numbers never reach the settings file, and
a file that already holds one breaks neither the settings view nor execution (registry and
the HTTP API, which uses the registry)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from shokunin.config import Settings
from shokunin.tools import SettingsInvalid, ToolLoadError, ToolRegistry
from shokunin.tools.settings_schema import check_settings_schema
from tests.tools.conftest import PROBE, make_tool

SETTINGS_FILE = Path("userdata") / "s.json"


@pytest.mark.parametrize(("values", "errors"), [
    ({"timeout_sec": math.nan}, {"timeout_sec": "must be a finite number"}),
    ({"timeout_sec": math.inf}, {"timeout_sec": "must be a finite number"}),
    ({"ratio": -math.inf, "limit": 10**30},
     {"ratio": "must be a finite number", "limit": f"must be within ±{2**53 - 1}"}),
    ({"ratio": 1e300}, {"ratio": f"must be within ±{2**53 - 1}"}),
])
def test_non_finite_and_absurd_numbers_are_refused_per_field(
    registry: ToolRegistry, tmp_path: Path, values: dict[str, float], errors: dict[str, str]
) -> None:
    with pytest.raises(SettingsInvalid) as caught:
        registry.save_settings("probe", values)
    assert caught.value.errors == errors
    assert not (tmp_path / SETTINGS_FILE).exists()


def _corrupt(tmp_path: Path) -> Path:
    path = tmp_path / SETTINGS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"probe": {"timeout_sec": NaN, "limit": 5, "ratio": Infinity}}')
    return path


async def test_a_nan_already_in_the_file_is_reported_and_the_default_used(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    path = _corrupt(tmp_path)
    view = registry.get_settings("probe")
    json.dumps(view, allow_nan=False)  # what a JSON response needs
    assert view["values"]["timeout_sec"] == 120.0 and view["values"]["limit"] == 5
    assert view["values"]["ratio"] == 0.5
    assert set(view["errors"]) == {"timeout_sec", "ratio"}
    assert "must be a finite number" in view["errors"]["timeout_sec"]
    result = await registry.execute("probe", {"mode": "context"})
    assert result["success"] and result["result"]["settings"]["ratio"] == 0.5
    registry.save_settings("probe", {"limit": 6})  # saving cleans the tool's bad values
    assert json.loads(path.read_text()) == {"probe": {"limit": 6}}
    assert registry.get_settings("probe")["errors"] == {}


@pytest.mark.parametrize("timeout", [math.inf, math.nan, -1.0, 0.0, 1e9])
async def test_a_call_timeout_must_be_finite_and_bounded(registry: ToolRegistry,
                                                         timeout: float) -> None:
    result = await registry.execute("probe", {"mode": "progress"}, timeout=timeout)
    assert not result["success"]
    assert result["error"] == "timeout must be a number of seconds above 0 and at most 86400"


def test_a_non_finite_default_timeout_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="default tool timeout"):
        ToolRegistry([], tmp_path / "s.json", workspace_root=tmp_path, default_timeout=math.inf)


@pytest.mark.parametrize(("spec", "reason"), [
    ({"type": "number", "min": math.nan}, "finite numeric value"),
    ({"type": "number", "max": math.inf}, "finite numeric value"),
    ({"type": "integer", "step": 0}, "step must be above 0"),
    ({"type": "number", "min": 5, "max": 1}, "min is above max"),
    ({"type": "number", "default": math.nan}, "must be a finite number"),
])
def test_a_schema_with_non_finite_bounds_is_a_load_error(spec: dict, reason: str) -> None:
    with pytest.raises(ToolLoadError, match=reason):
        check_settings_schema({"field": spec})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    make_tool(tmp_path / "tool", "probe", PROBE)
    app = create_app(Settings(data_dir=tmp_path / "data", tools_dirs=[tmp_path / "tool"],
                              tool_settings_file=tmp_path / SETTINGS_FILE, sandbox_pool_size=0))
    with TestClient(app) as test_client:
        yield test_client


def test_api_refuses_nan_per_field_and_survives_a_corrupted_file(
    client: TestClient, tmp_path: Path
) -> None:
    put = client.put("/api/tools/probe/settings", content='{"values": {"timeout_sec": NaN}}',
                     headers={"Content-Type": "application/json"})
    assert put.status_code == 422
    assert put.json() == {"errors": {"timeout_sec": "must be a finite number"}}
    _corrupt(tmp_path)
    got = client.get("/api/tools/probe/settings")
    assert got.status_code == 200 and got.json()["values"]["timeout_sec"] == 120.0
    assert "timeout_sec" in got.json()["errors"]
    run = client.post("/api/tools/probe/execute", json={"args": {"mode": "progress"}})
    assert run.status_code == 200 and run.json()["success"]
    endless = client.post("/api/tools/probe/execute", content='{"args": {"mode": "hang"}, '
                          '"timeout": Infinity}', headers={"Content-Type": "application/json"})
    assert endless.status_code != 500
    assert not endless.json().get("success") and "timeout" in json.dumps(endless.json())
