"""GET /api/kernels: each live kernel's memory as PSS and USS, and the template's; an API
key sees only its own threads' kernels."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from shokunin.config import Settings
from shokunin.sandbox import ExecPythonInput
from tests.api.perimeter.test_auth import create_key

pytestmark = pytest.mark.kernel

TOKEN = "a-token-for-the-kernels-test"


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    return Settings(data_dir=tmp_path / "data", tools_dirs=[tmp_path / "tool"],
                    tool_settings_file=tmp_path / "userdata" / "s.json", sandbox_pool_size=0,
                    **overrides)


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Rss:"):
            return int(line.split()[1])
    raise AssertionError("no Rss line")


def test_kernels_report_what_each_adds_to_the_template(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path))) as client:
        sandbox = client.app.state.engine.sandbox  # type: ignore[attr-defined]
        for thread in ("a", "b"):
            result = client.portal.call(sandbox.execute, thread, ExecPythonInput(
                code="import pandas as pd\nframe = pd.DataFrame({'x': range(1000)})"))
            assert result.ok, result
        report = client.get("/api/kernels").json()
        rss = {k["pid"]: _rss_kb(k["pid"]) for k in report["kernels"]}
    assert report["template"]["pss_kb"] > 0
    assert [k["thread_id"] for k in report["kernels"]] == ["a", "b"]
    for kernel in report["kernels"]:
        assert kernel["forked"] and 0 < kernel["uss_kb"] < kernel["pss_kb"]
        # what it holds alone is well under what it maps: most is the template's
        assert kernel["uss_kb"] < 0.6 * rss[kernel["pid"]], (kernel, rss)


def test_a_key_sees_only_its_own_threads_kernels(tmp_path: Path) -> None:
    settings = _settings(tmp_path, auth_token=TOKEN)
    alice = {"Authorization": f"Bearer {create_key(settings, 'alice')}"}
    with TestClient(create_app(settings)) as client:
        engine = client.app.state.engine  # type: ignore[attr-defined]
        for owner, thread in (("alice", "alice-notes"), ("bob", "bob-secret-plans")):
            client.portal.call(engine.store.ensure_thread, thread, "workbench", "",
                               f"key:{owner}")
            result = client.portal.call(engine.sandbox.execute, thread,
                                        ExecPythonInput(code="x = 1"))
            assert result.ok, result
        assert client.get("/api/kernels").status_code == 401
        admin = client.get("/api/kernels", headers={"Authorization": f"Bearer {TOKEN}"})
        mine = client.get("/api/kernels", headers=alice)
    assert admin.status_code == 200 and admin.json()["template"]["pid"] > 0
    assert [k["thread_id"] for k in admin.json()["kernels"]] == ["alice-notes",
                                                                "bob-secret-plans"]
    assert mine.status_code == 200
    report = mine.json()
    assert [k["thread_id"] for k in report["kernels"]] == ["alice-notes"]
    assert report["kernels"][0]["pss_kb"] > 0
    # no pid of any process, nor the template's, nor another owner's thread id
    assert "template" not in report and "pid" not in mine.text and "bob" not in mine.text
    assert report["max_kernels"] == admin.json()["max_kernels"]
