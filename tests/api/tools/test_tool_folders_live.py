"""A running server sees its tool folders change (issue 48.6): a tool made, edited or
removed while it runs is listed as it now is, without a restart; a broken one is listed with
its reason and takes nothing from the others."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import httpx
import pytest

from tests.live_server import LiveServer
from tests.tools.conftest import make_tool

pytestmark = pytest.mark.subprocess

FRESH = '''
from words import TITLE

TOOL_NAME = TITLE
TOOL_DESCRIPTION = "made while the server runs"
TOOL_ICON = "🆕"


def get_function_declaration():
    return {"name": "fresh", "description": "fresh",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}},
                           "required": ["n"]}}


def execute(args, context):
    return {"success": True, "result": {"double": args["n"] * 2, "title": TITLE}}
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("live-folders")
    (root / "tool").mkdir()
    server = LiveServer(root).start()
    yield server
    server.stop()


def _tools(server: LiveServer) -> dict[str, dict]:
    response = httpx.get(f"{server.url}/api/tools", timeout=10)
    response.raise_for_status()
    return {t["name"]: t for t in response.json()["tools"]}


def test_a_tool_made_while_the_server_runs_is_listed_and_runs(server: LiveServer) -> None:
    tools_dir = server.data_dir / "tool"
    assert "fresh" not in _tools(server)
    folder = make_tool(tools_dir, "fresh", FRESH)
    (folder / "words.py").write_text('TITLE = "できたて"\n', encoding="utf-8")
    listed = _tools(server)
    assert listed["fresh"]["status"] == "ok" and listed["fresh"]["title"] == "できたて"
    ran = httpx.post(f"{server.url}/api/tools/fresh/execute", json={"args": {"n": 21}},
                     timeout=30).json()
    assert ran["success"] and ran["result"] == {"double": 42, "title": "できたて"}

    # a broken tool beside it: listed with its reason, the others unaffected
    make_tool(tools_dir, "cracked", "def execute(args, context:\n")
    listed = _tools(server)
    assert listed["cracked"]["status"] == "error"
    assert "syntax error" in listed["cracked"]["error"]
    assert listed["fresh"]["status"] == "ok" and listed["calculator"]["status"] == "ok"
    ran = httpx.post(f"{server.url}/api/tools/fresh/execute", json={"args": {"n": 1}},
                     timeout=30).json()
    assert ran["success"]

    # an edit of a module beside the entry file is read again
    (folder / "words.py").write_text('TITLE = "書き直した版"\n', encoding="utf-8")
    assert _tools(server)["fresh"]["title"] == "書き直した版"

    # fixed, it is a tool; removed, it is gone
    make_tool(tools_dir, "cracked", FRESH.replace('"fresh"', '"cracked"').replace(
        "from words import TITLE", 'TITLE = "直した"'))
    assert _tools(server)["cracked"]["status"] == "ok"
    shutil.rmtree(folder)
    listed = _tools(server)
    assert "fresh" not in listed and listed["cracked"]["status"] == "ok"
    assert httpx.get(f"{server.url}/api/tools/fresh", timeout=10).status_code == 404
