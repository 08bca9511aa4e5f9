"""``shokunin mcp serve`` as a real subprocess, driven by the SDK's own client over stdio:
the listing, calls through the Runner, progress, cancel, a broken tool, files, the older
initialize handshake, and the Advisor and Analyst answering offline."""

from __future__ import annotations

import base64
import json
import signal
import subprocess
from pathlib import Path

import mcp_types as types
import pandas as pd
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from shokunin.tools.builtin.calculator import calculator_tool
from tests.mcp.server_helpers import (
    PNG,
    SAMPLES,
    cancel_after_start,
    progress_of,
    stdio_params,
    texts,
    write_probes,
)
from tests.waiting import eventually

pytestmark = pytest.mark.subprocess


@pytest.fixture
def client(tmp_path: Path) -> Client:
    return Client(stdio_params(tmp_path / "data", write_probes(tmp_path / "tools")))


async def test_the_listing_holds_valid_tools_with_their_declared_schemas_and_the_faces(
        client: Client) -> None:
    async with client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    declared = calculator_tool.get_function_declaration()
    assert tools["calculator"].input_schema == declared["parameters"]
    assert tools["calculator"].description == declared["description"]
    assert {"progress_probe", "abort_probe", "file_probe"} <= set(tools)
    assert "broken_probe" not in tools
    assert {"ask_advisor", "list_datasets", "ask_analyst"} <= set(tools)
    assert "csv_path" in tools["ask_analyst"].input_schema["properties"]  # stdio is local


async def test_a_call_runs_the_tool_and_answers_its_result(client: Client) -> None:
    async with client:
        result = await client.call_tool("calculator", {"expression": "1200 * 8%"})
    assert result.is_error is False
    assert result.structured_content["result"] == {"expression": "1200 * 8%", "value": "96"}
    assert result.structured_content["run_id"]  # a run of the tool agent
    assert '"value": "96"' in texts(result)


async def test_progress_messages_reach_the_client_as_notifications(client: Client) -> None:
    async with client:
        result, messages = await progress_of(client, "progress_probe", {})
    assert texts(result) == "done"
    assert messages == ["step 0", "step 1", "step 2"]


async def test_a_client_that_cancels_sets_the_tools_abort_event(client: Client,
                                                               tmp_path: Path) -> None:
    marker = tmp_path / "aborted"
    async with client:
        await cancel_after_start(client, marker)
        await eventually(marker.exists, 30, what="the tool's abort event set")
        # the connection goes on
        assert (await client.call_tool("calculator", {"expression": "2+2"})).is_error is False


async def test_a_broken_tool_or_bad_input_answers_an_error_and_the_connection_goes_on(
        client: Client) -> None:
    async with client:
        broken = await client.call_tool("broken_probe", {})
        wrong = await client.call_tool("calculator", {"expr": "1"})
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("no_such_tool", {})
        after = await client.call_tool("calculator", {"expression": "6*7"})
    assert broken.is_error and "broken on purpose" in texts(broken)
    assert wrong.is_error and "'expression' is a required property" in texts(wrong)
    assert unknown.value.error.code == types.INVALID_PARAMS
    assert after.structured_content["result"]["value"] == "42"


async def test_returned_files_come_back_as_image_and_resource_content(client: Client) -> None:
    async with client:
        result = await client.call_tool("file_probe", {})
    [image] = [b for b in result.content if isinstance(b, types.ImageContent)]
    assert image.mime_type == "image/png" and base64.b64decode(image.data) == PNG
    [resource] = [b for b in result.content if isinstance(b, types.EmbeddedResource)]
    assert isinstance(resource.resource, types.TextResourceContents)
    assert resource.resource.text == "職人のメモ"


async def test_a_client_on_the_older_initialize_handshake_lists_and_calls(
        tmp_path: Path) -> None:
    params = stdio_params(tmp_path / "data", write_probes(tmp_path / "tools"))
    async with Client(params, mode="legacy") as legacy:
        assert legacy.session.protocol_version < "2026"  # a handshake-era version
        names = {t.name for t in (await legacy.list_tools()).tools}
        result, messages = await progress_of(legacy, "progress_probe", {})
    assert "calculator" in names and "broken_probe" not in names
    assert texts(result) == "done" and messages == ["step 0", "step 1", "step 2"]


async def test_ask_advisor_answers_offline_and_its_session_goes_on(client: Client) -> None:
    async with client:
        first = await client.call_tool(
            "ask_advisor", {"question": "材料費が上がったので原価を計算し直したい。450+300+150"})
        session = first.structured_content["session_id"]
        second = await client.call_tool(
            "ask_advisor", {"question": "取引先との交渉の準備は？", "session_id": session})
        unknown = await client.call_tool(
            "ask_advisor", {"question": "?", "session_id": "0" * 32})
    assert first.is_error is False and "900" in first.structured_content["answer"]
    assert second.structured_content["session_id"] == session
    assert second.structured_content["answer"]
    assert unknown.is_error and "no Advisor session" in texts(unknown)


async def test_ask_analyst_uploads_a_local_csv_and_answers_from_it(client: Client) -> None:
    async with client:
        result, messages = await progress_of(client, "ask_analyst", {
            "csv_path": str(SAMPLES / "sales_en.csv"), "question": "total revenue by region"})
        listed = await client.call_tool("list_datasets", {})
    assert result.is_error is False, texts(result)
    report = result.structured_content["answer"]
    totals = pd.read_csv(SAMPLES / "sales_en.csv").groupby("region")["revenue"].sum()
    for region, total in totals.items():
        assert f"| {region} | {total:,.0f} |" in report  # formatted (issue 49)
    assert messages  # the run said what it was doing
    [dataset] = listed.structured_content["datasets"]
    assert dataset["id"] == result.structured_content["dataset_id"]
    assert dataset["name"] == "sales_en.csv"


async def test_starting_the_stdio_server_leaves_a_running_web_servers_runs_alone(
        tmp_path: Path) -> None:
    """``shokunin mcp serve`` shares the database with a running ``shokunin serve``: a run
    that server has in progress must not be marked failed by the stdio server's start."""
    from shokunin.config import Settings
    from shokunin.store import Store

    data = tmp_path / "data"
    data.mkdir()
    store = await Store.open(Settings(data_dir=data).resolved_database_url)
    try:
        await store.ensure_thread("t-live", "tool")
        await store.create_run("r-live", "t-live", "tool", {"tool": "calculator"})
    finally:
        await store.close()
    params = stdio_params(data, write_probes(tmp_path / "tools"))
    async with Client(params) as client:  # started, answered, stopped
        await client.list_tools()
    store = await Store.open(Settings(data_dir=data).resolved_database_url)
    try:
        run = await store.get_run("r-live")
    finally:
        await store.close()
    assert run is not None and run.status == "running"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_the_stdio_server_while_its_client_keeps_stdin_open(
        tmp_path: Path, signum: int) -> None:
    """Ctrl-C (or a client's SIGTERM) ends the server even though stdin stays open: the
    SDK's stdin reader alone would keep the process alive."""
    params = stdio_params(tmp_path / "data", write_probes(tmp_path / "tools"))
    proc = subprocess.Popen([params.command, *params.args], env=params.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}).encode() + b"\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 1 and "serverInfo" in answer["result"]  # it is serving
        proc.send_signal(signum)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
