"""``/mcp`` on a real server (streamable HTTP, stateless) with auth on, driven by the SDK's
own client: refused without a token; with one, the listing, calls stored as runs, progress,
cancel, files, the older initialize handshake, and the Analyst over HTTP."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.live_server import LiveServer
from tests.mcp.server_helpers import (
    PNG,
    SAMPLES,
    cancel_after_start,
    progress_of,
    texts,
    write_probes,
)
from tests.waiting import eventually

pytestmark = pytest.mark.subprocess

TOKEN = "mcp-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data = tmp_path_factory.mktemp("mcp_http")
    tools = write_probes(data / "tools")
    live = LiveServer(data / "server", env={"SHOKUNIN_AUTH_TOKEN": TOKEN,
                                            "SHOKUNIN_TOOLS_DIRS": f'["{tools}"]'}).start()
    yield live
    live.stop()


@asynccontextmanager
async def connect(server: LiveServer, **options: Any) -> Any:
    http = httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(30, read=300))
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http),
                            **options) as client:
        yield client


async def test_a_caller_without_the_token_is_refused(server: LiveServer) -> None:
    answer = httpx.post(f"{server.url}/mcp", json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"Accept": "application/json, text/event-stream"})
    assert answer.status_code == 401
    with pytest.raises(Exception):  # noqa: B017 - whatever the client raises, no listing
        async with Client(f"{server.url}/mcp") as client:
            await client.list_tools()


async def test_with_the_token_a_call_is_a_stored_run_of_the_tool_agent(
        server: LiveServer) -> None:
    async with connect(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("calculator", {"expression": "2**10"})
    assert "broken_probe" not in tools and "progress_probe" in tools
    assert "csv_path" not in tools["ask_analyst"].input_schema["properties"]  # remote
    assert result.structured_content["result"]["value"] == "1024"
    run = httpx.get(f"{server.url}/api/runs/{result.structured_content['run_id']}",
                    headers=AUTH)
    assert run.status_code == 200 and run.json()["agent"] == "tool"


async def test_progress_notifications_stream_over_http(server: LiveServer) -> None:
    async with connect(server) as client:
        result, messages = await progress_of(client, "progress_probe", {})
    assert texts(result) == "done" and messages == ["step 0", "step 1", "step 2"]


async def test_a_client_that_cancels_over_http_sets_the_tools_abort_event(
        server: LiveServer, tmp_path: Path) -> None:
    marker = tmp_path / "aborted"
    async with connect(server) as client:
        await cancel_after_start(client, marker)
        await eventually(marker.exists, 30, what="the tool's abort event set")


async def test_files_and_errors_come_back_over_http(server: LiveServer) -> None:
    async with connect(server) as client:
        files = await client.call_tool("file_probe", {})
        broken = await client.call_tool("broken_probe", {})
    [image] = [b for b in files.content if isinstance(b, types.ImageContent)]
    assert base64.b64decode(image.data) == PNG
    assert broken.is_error and "broken on purpose" in texts(broken)


async def test_a_client_on_the_older_initialize_handshake_works_over_http(
        server: LiveServer) -> None:
    async with connect(server, mode="legacy") as legacy:
        assert legacy.session.protocol_version < "2026"
        result, messages = await progress_of(legacy, "progress_probe", {})
    assert texts(result) == "done" and messages == ["step 0", "step 1", "step 2"]


async def test_the_analyst_answers_about_an_uploaded_dataset_and_reads_no_server_path(
        server: LiveServer) -> None:
    with open(SAMPLES / "sales_en.csv", "rb") as f:
        upload = httpx.post(f"{server.url}/api/analyst/datasets", headers=AUTH,
                            files={"file": ("sales_en.csv", f)}, timeout=60)
    dataset = upload.json()["id"]
    async with connect(server) as client:
        listed = await client.call_tool("list_datasets", {})
        result = await client.call_tool("ask_analyst", {
            "dataset_id": dataset, "question": "total revenue by region"})
        path = await client.call_tool("ask_analyst", {
            "dataset_id": dataset, "csv_path": str(SAMPLES / "sales_en.csv"),
            "question": "total revenue"})
        after = await client.call_tool("list_datasets", {})
    assert dataset in {d["id"] for d in listed.structured_content["datasets"]}
    assert after.structured_content == listed.structured_content  # nothing was uploaded
    # the answer first, in words, its number formatted (issue 49)
    assert result.is_error is False and "South has the highest total of revenue: 119,027" in \
        texts(result)
    assert path.is_error and "csv_path" in texts(path)
