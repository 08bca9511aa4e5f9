"""``shokunin analyze`` starts only what the Analyst uses (issue 37, point 4): the engine it
opens offers the Analyst alone and loads no tool (the builtin tools import matplotlib). Run
in a fresh interpreter each, so what is imported is what the command imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"

_CLI = """
import json, sys
from shokunin.cli import app
try:
    app(["analyze", sys.argv[1], "revenue trend by month"], standalone_mode=False)
finally:
    print(json.dumps(sorted(m for m in sys.modules
                            if m.split(".")[0] in ("matplotlib", "diagram_render"))))
"""

_ENGINE = """
import asyncio, json
from shokunin.config import Settings
from shokunin.engine import Engine

async def main():
    engine = await Engine.open(Settings(), recover=False, mcp_clients=False,
                               faces={"analyst"})
    try:
        print(json.dumps({"agents": sorted(engine.runner.agents),
                          "studio": engine.studio is not None,
                          "tools": len(engine.tools.list())}))
    finally:
        await engine.close()

asyncio.run(main())
"""


def _python(tmp_path: Path, code: str, *args: str) -> str:
    env = {**os.environ, "SHOKUNIN_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "100"}
    env.pop("SHOKUNIN_MODEL", None)
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_command_loads_no_tool_and_so_no_plotting_library(tmp_path: Path) -> None:
    imported = json.loads(_python(tmp_path, _CLI, str(SAMPLES / "sales_en.csv")))
    assert imported == []  # the chart is drawn in the sandbox's kernel, not here


def test_the_engine_for_one_face_offers_that_agent_alone(tmp_path: Path) -> None:
    opened = json.loads(_python(tmp_path, _ENGINE))
    assert opened == {"agents": ["analyst"], "studio": False, "tools": 0}
