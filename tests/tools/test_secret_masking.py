"""Secrets of every type (an integer PIN, a float, a string with a quote and non-ASCII letters)
stay masked on every path out: results (nested, as keys), errors, progress, the HTTP API and
its SSE stream, the CLI (text and --json), and the server log, where an in-process tool's
print() and logging land."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from shokunin.api import create_app
from shokunin.cli.app import app as cli_app
from shokunin.config import Settings
from shokunin.tools import MASK, ToolRegistry
from tests.tools.conftest import make_tool, registry_for

PIN = 48151623
FACTOR = 2.718281
TOKEN = 'tok-Überschall"q'
CLEAR = (str(PIN), str(FACTOR), TOKEN, json.dumps(TOKEN)[1:-1])
PIN_TOOL = '''
import logging

TOOL_NAME = "pin tool"
TOOL_DESCRIPTION = "uses an integer PIN, a float factor and a token"
TOOL_ICON = "🔐"
log = logging.getLogger("their_pin_tool")


def get_function_declaration():
    return {"name": "pin_tool", "description": "x", "parameters": {
        "type": "object", "properties": {"mode": {"type": "string"}}, "required": ["mode"]}}


def get_settings_schema():
    return {"pin": {"type": "integer", "label": "PIN", "default": 0, "secret": True},
            "factor": {"type": "number", "label": "factor", "default": 0, "secret": True},
            "token": {"type": "secret", "label": "token", "default": ""}}


def execute(args, context):
    s = context["settings"]
    mode = args["mode"]
    if mode == "result":
        return {"success": True, "result": {
            "pin": s["pin"], "factor": s["factor"], "nested": [{"deep": [s["pin"], 7]}],
            "text": f"pin={s['pin']} token={s['token']}", s["token"]: "as a key"}}
    if mode == "fail":
        return {"success": False, "error": f"PIN {s['pin']} refused",
                "result": {"pin": s["pin"]}}
    if mode == "raise":
        raise RuntimeError(s["pin"], s["token"])
    if mode == "talk":
        context["message_callback"](s["pin"])
        context["message_callback"]("factor", s["factor"])
        print("pin is", s["pin"], "token", s["token"])
        print(f"a partial line with {s['token']}", end="")
        log.warning("logging the pin %s and %r", s["pin"], s["token"])
        try:
            raise ValueError(s["token"])
        except ValueError:
            log.exception("with a traceback")
        return {"success": True, "result": "talked"}
    return {"success": False, "error": "unknown mode"}
'''
VALUES = {"pin": PIN, "factor": FACTOR, "token": TOKEN}


def assert_masked(text: str) -> None:
    for clear in CLEAR:
        assert clear not in text, (clear, text)


@pytest.fixture
def pin_root(tmp_path: Path) -> Path:
    root = tmp_path / "tool"
    make_tool(root, "pin_tool", PIN_TOOL)
    return root


@pytest.fixture
async def pins(tmp_path: Path, pin_root: Path) -> AsyncIterator[ToolRegistry]:
    registry = registry_for(tmp_path, pin_root)
    registry.save_settings("pin_tool", VALUES)
    yield registry
    await registry.close()


async def test_results_mask_numbers_nested_values_and_keys(pins: ToolRegistry) -> None:
    result = await pins.execute("pin_tool", {"mode": "result"})
    assert result["success"], result
    assert_masked(json.dumps(result, ensure_ascii=False))
    assert_masked(json.dumps(result))
    assert result["result"] == {"pin": MASK, "factor": MASK, "nested": [{"deep": [MASK, 7]}],
                                "text": f"pin={MASK} token={MASK}", MASK: "as a key"}


async def test_errors_mask_every_secret(pins: ToolRegistry) -> None:
    failed = await pins.execute("pin_tool", {"mode": "fail"})
    assert failed["error"] == f"PIN {MASK} refused"
    raised = await pins.execute("pin_tool", {"mode": "raise"})
    assert raised["error"] == f"the tool raised RuntimeError: ({MASK}, '{MASK}')"
    assert_masked(json.dumps([failed, raised]))


async def test_progress_print_and_logging_reach_the_log_masked(
    pins: ToolRegistry, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    messages: list[str] = []
    with caplog.at_level(logging.DEBUG):
        result = await pins.execute("pin_tool", {"mode": "talk"}, progress=messages.append)
        logging.getLogger("uvicorn.error").error("echoing %s", PIN)  # any logger at all
    assert result["success"], result
    assert messages == [MASK, f"factor {MASK}"]
    out, err = capsys.readouterr()
    assert_masked(out + err)
    assert "pin is" not in out  # a tool's print goes to the log, not the server's stdout
    text = caplog.text
    assert_masked(text)
    lines = [r.getMessage() for r in caplog.records if r.name == "shokunin.tools.output"]
    assert lines == [f"[pin_tool] pin is {MASK} token {MASK}",
                     f"[pin_tool] a partial line with {MASK}"]
    assert f"logging the pin {MASK} and '{MASK}'" in text
    assert "with a traceback" in text and f"ValueError: {MASK}" in text
    assert f"echoing {MASK}" in text


@pytest.fixture
def client(tmp_path: Path, pin_root: Path) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=tmp_path / "data", tools_dirs=[pin_root],
                              tool_settings_file=tmp_path / "s.json", sandbox_pool_size=0))
    with TestClient(app) as test_client:
        assert test_client.put("/api/tools/pin_tool/settings",
                               json={"values": VALUES}).status_code == 200
        yield test_client


def test_http_api_and_its_stream_mask_numeric_secrets(client: TestClient) -> None:
    shown = client.get("/api/tools/pin_tool/settings")
    assert shown.json()["values"] == {"pin": MASK, "factor": MASK, "token": MASK,
                                      "timeout_sec": 120.0}
    for mode in ("result", "fail", "raise"):
        answer = client.post("/api/tools/pin_tool/execute", json={"args": {"mode": mode}})
        assert answer.status_code == 200 and MASK in answer.text
        assert_masked(answer.text)
    stream = client.post("/api/tools/pin_tool/execute/stream",
                         json={"args": {"mode": "result"}})
    assert stream.status_code == 200 and MASK in stream.text
    assert_masked(stream.text)
    talk = client.post("/api/tools/pin_tool/execute/stream", json={"args": {"mode": "talk"}})
    assert f'"message": "factor {MASK}"' in talk.text
    assert_masked(talk.text)


def test_cli_text_and_json_mask_numeric_secrets(
    tmp_path: Path, pin_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SHOKUNIN_TOOLS_DIRS", json.dumps([str(pin_root)]))
    monkeypatch.setenv("SHOKUNIN_TOOL_SETTINGS_FILE", str(tmp_path / "s.json"))
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli_app, ["tools", *args])
        return result.stdout + result.stderr

    out = run("settings", "pin_tool", "--set", f"pin={PIN}", "--set", f"factor={FACTOR}",
              "--set", f"token={TOKEN}")
    assert json.loads((tmp_path / "s.json").read_text())["pin_tool"] == VALUES
    outputs = [out, run("settings", "pin_tool"), run("show", "pin_tool"),
               run("show", "pin_tool", "--json")]
    for mode in ("result", "fail", "raise", "talk"):
        args = json.dumps({"mode": mode})
        outputs += [run("run", "pin_tool", "--args", args),
                    run("run", "pin_tool", "--args", args, "--json")]
    for output in outputs:
        assert_masked(output)
    assert json.loads(outputs[5])["result"]["pin"] == MASK  # run --json, mode result


SHORT_TOOL = '''
TOOL_NAME = "short"
TOOL_DESCRIPTION = "has a one-character key"
TOOL_ICON = "x"


def get_function_declaration():
    return {"name": "short", "description": "x", "parameters": {
        "type": "object", "properties": {"fail": {"type": "boolean"}}}}


def get_settings_schema():
    return {"key": {"type": "string", "label": "key", "default": "", "secret": True},
            "pin": {"type": "integer", "label": "PIN", "default": 0, "secret": True}}


def execute(args, context):
    if args.get("fail"):
        return {"success": False, "error": "run a2b22 failed with code 2"}
    return {"success": True, "result": {"id": "a2b22", "count": 2, "seven": 7}}
'''


async def test_secrets_shorter_than_the_minimum_do_not_mask_results_or_errors(
        tmp_path: Path) -> None:
    # A key "2" masked every 2 (ids broken, the key shown by the holes); the log ignores
    # secrets under MIN_MASKED_CHARS, and so do results, errors and ids now.
    root = tmp_path / "tool"
    make_tool(root, "short", SHORT_TOOL)
    registry = registry_for(tmp_path, root)
    try:
        registry.save_settings("short", {"key": "2", "pin": 7})
        done = await registry.execute("short", {})
        failed = await registry.execute("short", {"fail": True})
    finally:
        await registry.close()
    assert done["result"] == {"id": "a2b22", "count": 2, "seven": 7}
    assert failed["error"] == "run a2b22 failed with code 2"
    for answer in (done, failed):
        assert MASK not in json.dumps(answer), answer
