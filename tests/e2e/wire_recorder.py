"""Wire transcripts of the faces: one live server driven through a fixed script with the
transports the faces' real clients use (httpx for REST and SSE, ``websockets`` for the
Workbench's WS /ws, the ``mcp`` SDK's streamable HTTP client for /mcp), every answer kept
as the client sees it and normalised for what changes from one run to the next.

A transcript is ``{face: [step, ...]}``; a step is ``{"step": what was sent, ...}`` with

    REST  "status", "type" (the media type), "body" (JSON, or the text)
    SSE   "status", "type", "events": [{"event", "id", "data"}]  (comments dropped)
    WS    "messages": [each JSON message, in order]
    MCP   "result": the tool list or the tool result

Volatile values become stable placeholders: hex ids (run, thread, dataset, error ids)
``<id N>`` numbered by first appearance, ISO times ``<ts>``, durations and sizes that vary
``<n>``, the server's data directory ``<data>``, an image's bytes ``<image>``. Used by
test_wire_transcripts.py. To record the code of another tree (``before.json`` was recorded
on issue 36's code, its Analyst face on issue 37's; the first one was the code before issue
35's redesign, commit aa7e0f5, checked out with ``git worktree add /tmp/wt_old aa7e0f5``):

    .venv/bin/python -m tests.e2e.wire_recorder tests/e2e/wire_transcripts/before.json \
        /tmp/wt_old/src
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import websockets

SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"
BAD = ".hidden"  # well-formed in a URL and JSON; not a thread id (a leading '.')
UNKNOWN_SESSION = "no-such-session"  # a well-formed thread id nobody made
TIMEOUT = 60.0

HEX_ID = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,64}"
                    r"(?![0-9A-Za-z])")
IMAGE_KEYS = {"data_base64", "plot_png_base64"}
DATA_URL = re.compile(r"(data:image/[a-z+]+;base64,)[A-Za-z0-9+/=]+")
ISO = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")
VOLATILE = re.compile(r"(?i)(duration|elapsed|_ms$|timems|remaining|seconds|timestamp"
                      r"|^ts$|^time$|created|updated|mtime)")
TMP_PATH = re.compile(r"/tmp/[^\s\"')\]]*")


class Normaliser:
    """Ids become ``<id N>`` in order of first appearance, times ``<ts>``, durations and
    sizes ``<n>``, paths under the data directory ``<data>``: what is left is what every
    run of the same script says."""

    def __init__(self, data_dir: str | None = None) -> None:
        self.ids: dict[str, str] = {}
        self.data_dir = data_dir

    def _id(self, match: re.Match[str]) -> str:
        return self.ids.setdefault(match[0], f"<id {len(self.ids)}>")

    def text(self, value: str) -> str:
        if self.data_dir:
            value = value.replace(self.data_dir, "<data>")
        value = TMP_PATH.sub("<data>", value)
        value = ISO.sub("<ts>", value)
        value = DATA_URL.sub(r"\1<image>", value)
        return HEX_ID.sub(self._id, value)

    def __call__(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {self.text(k): self(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, key) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int | float) and VOLATILE.search(key):
            return "<n>"
        if isinstance(value, str):
            if key in IMAGE_KEYS:  # pixels are drawn, not said: their bytes vary by font
                return "<image>"
            return self.text(value)
        return value


def _data(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def form(raw: str, parsed: Any) -> str:
    """How a JSON text was written: with the parsed value (its keys in order) this gives
    back the bytes. ``compact`` / ``spaced`` separators, ``ascii`` when non-ASCII is
    escaped; ``text`` for what is not JSON, ``other`` for any other layout."""
    if parsed is raw:
        return "text"
    for separators, name in (((",", ":"), "compact"), ((", ", ": "), "spaced")):
        for ascii_, suffix in ((False, ""), (True, " ascii")):
            if json.dumps(parsed, separators=separators, ensure_ascii=ascii_) == raw:
                return name + suffix
    return "other"


def _forms(raws: list[str], values: list[Any]) -> list[str]:
    return sorted({form(raw, value) for raw, value in zip(raws, values, strict=True)})


def _body(response: httpx.Response) -> tuple[Any, str | None]:
    if not response.content:
        return None, None
    parsed = _data(response.text)
    return parsed, form(response.text, parsed)


def _media_type(response: httpx.Response) -> str | None:
    kind = response.headers.get("content-type")
    return kind.split(";")[0].strip() if kind else None


class SseParser:
    """Lines of a stream -> its events as a client reads them: ``event``/``id``/``data``
    fields up to a blank line; comment lines (keep-alives) are not events. ``raws`` keeps
    each event's data as sent."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.raws: list[str] = []
        self._fields: dict[str, str] = {}
        self._data: list[str] = []

    def feed(self, line: str) -> dict[str, Any] | None:
        """The event ``line`` completes, if it does."""
        if line.startswith(":"):
            return None
        if line:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                self._data.append(value)
            elif name in ("event", "id"):
                self._fields[name] = value
            return None
        if not (self._data or self._fields):
            return None
        raw = "\n".join(self._data)
        event = {"event": self._fields.get("event"), "id": self._fields.get("id"),
                 "data": _data(raw)}
        self.events.append(event)
        self.raws.append(raw)
        self._fields, self._data = {}, []
        return event


def _ended(event: dict[str, Any]) -> bool:
    return event["event"] in ("run_completed", "run_failed", "run_cancelled",
                              "run_interrupted")


def _label(method: str, path: str, options: dict[str, Any]) -> str:
    """What was sent, in one line: the step's name in the transcript."""
    parts = [method, path + (f"?{urlencode(options['params'])}" if "params" in options else "")]
    parts += [f"{k}: {v}" for k, v in options.get("headers", {}).items()]
    if "json" in options:
        parts.append(json.dumps(options["json"], ensure_ascii=False))
    parts += [f"{k}={v}" for k, v in options.get("data", {}).items()]
    parts += [f"{k}=@{v[0]}" for k, v in options.get("files", {}).items()]
    return " ".join(parts)


class Script:
    """Steps of one face; each keeps what the client saw."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.steps: list[dict[str, Any]] = []

    async def rest(self, method: str, path: str, **options: Any) -> Any:
        response = await self.http.request(method, path, **options)
        body, written = _body(response)
        self.steps.append({"step": _label(method, path, options), "status": response.status_code,
                           "type": _media_type(response), "form": written, "body": body})
        return body

    async def sse(self, method: str, path: str, until: Any = None,
                  **options: Any) -> list[dict[str, Any]]:
        """The stream to its end, or to the first event ``until`` accepts (a stream that
        then goes live)."""
        parser = SseParser()
        step: dict[str, Any] = {"step": "SSE " + _label(method, path, options)}
        async with self.http.stream(method, path, **options) as response:
            step |= {"status": response.status_code, "type": _media_type(response)}
            if step["type"] != "text/event-stream":
                await response.aread()
                body, written = _body(response)
                self.steps.append(step | {"form": written, "body": body})
                return []
            async for line in response.aiter_lines():
                event = parser.feed(line)
                if event is not None and until is not None and until(event):
                    break
            parser.feed("")
        self.steps.append(step | {"forms": _forms(parser.raws, [
            e["data"] for e in parser.events]), "events": parser.events})
        return parser.events


# -- the faces ------------------------------------------------------------------------------
class Socket:
    """One WS /ws connection; each step keeps the messages it got."""

    def __init__(self, ws: Any, steps: list[dict[str, Any]]) -> None:
        self.ws = ws
        self.steps = steps

    async def take(self, step: str, count: int = 1, to_done: bool = False
                   ) -> list[dict[str, Any]]:
        """``count`` messages, or all up to a run's closing ``debug`` (``done``)."""
        raws: list[str] = []
        messages: list[dict[str, Any]] = []
        while len(messages) < count or (to_done and not messages[-1].get("done")):
            raws.append(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
            messages.append(json.loads(raws[-1]))
        self.steps.append({"step": step, "forms": _forms(raws, messages),
                           "messages": messages})
        return messages

    async def send(self, raw: str, count: int = 1, to_done: bool = False
                   ) -> list[dict[str, Any]]:
        await self.ws.send(raw)
        return await self.take(f"WS send {raw}", count, to_done)


async def workbench(ws_url: str) -> list[dict[str, Any]]:
    """WS /ws: the map on connecting, a question the offline brain answers with a map
    command, a replay of its run, a cancel with nothing running, a frame that is not JSON;
    then a connection asking for a malformed thread and one naming a new thread."""
    steps: list[dict[str, Any]] = []
    async with websockets.connect(ws_url, max_size=None) as ws:
        socket = Socket(ws, steps)
        await socket.take("WS connect /ws")
        answer = await socket.send(json.dumps({"message": "Kitchenに左矢印を表示して"},
                                              ensure_ascii=False), to_done=True)
        await socket.send(json.dumps({"run_id": answer[0]["run_id"], "after": 3}),
                          to_done=True)
        await socket.send(json.dumps({"cancel": True}))
        await socket.send("this is not JSON")
        await socket.send(json.dumps({"text": "no message"}))
    async with websockets.connect(f"{ws_url}?thread={BAD}", max_size=None) as ws:
        await Socket(ws, steps).take(f"WS connect /ws?thread={BAD}", count=2)
    async with websockets.connect(f"{ws_url}?thread=new-thread", max_size=None) as ws:
        await Socket(ws, steps).take("WS connect /ws?thread=new-thread")
    return steps


async def advisor(http: httpx.AsyncClient) -> list[dict[str, Any]]:
    s = Script(http)
    session = (await s.rest("POST", "/api/session", json={"user_info": {
        "industry": "製造業", "companySize": "中小企業"}}))["session_id"]
    events = await s.sse("POST", "/api/chat", json={"message": "価格転嫁の進め方を教えて",
                                                    "session_id": session})
    run_id = events[0]["data"]["run_id"]
    await s.sse("GET", f"/api/chat/runs/{run_id}/events", headers={"Last-Event-ID": "3"})
    await s.rest("GET", f"/api/session/{session}/messages")
    await s.rest("GET", "/api/sessions")
    await s.rest("POST", f"/api/session/{session}/step", json={"step": "STEP_2"})
    await s.rest("GET", "/api/diagrams/latest", params={"session_id": session})
    await s.sse("POST", "/api/chat", json={"message": "こんにちは", "session_id": BAD})
    await s.sse("POST", "/api/chat", json={"message": "こんにちは",
                                           "session_id": UNKNOWN_SESSION})
    await s.sse("POST", "/api/chat", json={"message": "こんにちは"})
    await s.rest("GET", f"/api/session/{BAD}/messages")
    await s.rest("GET", f"/api/session/{UNKNOWN_SESSION}/messages")
    await s.rest("POST", "/api/session", json={"user_info": {"colour": "blue"}})
    return s.steps


async def tools(http: httpx.AsyncClient) -> list[dict[str, Any]]:
    s = Script(http)
    await s.rest("GET", "/api/tools")
    await s.rest("GET", "/api/tools/calculator")
    await s.rest("GET", "/api/tools/no_such_tool")
    await s.rest("POST", "/api/tools/calculator/execute", json={"args": {"expression": "6*7"}})
    started = await s.sse("POST", "/api/tools/calculator/execute/stream",
                          json={"args": {"expression": "(1+2)*3"}})
    await s.sse("GET", f"/api/runs/{started[0]['data']['run_id']}/events")
    await s.rest("POST", "/api/tools/calculator/execute", json={"args": {"expr": 1}})
    await s.rest("POST", "/api/tools/calculator/execute", json={"args": {"expression": "1/0"}})
    await s.rest("POST", "/api/tools/calculator/execute", json={"args": [1]})
    await s.rest("POST", "/api/tools/calculator/execute",
                 json={"args": {"expression": "1+1"}, "thread_id": BAD})
    await s.sse("POST", "/api/tools/calculator/execute/stream",
                json={"args": {"expression": "1+1"}, "thread_id": BAD})
    await s.rest("POST", "/api/tools/no_such_tool/execute", json={"args": {}})
    await s.rest("POST", "/api/tools/executions/no-such-run/abort")
    return s.steps


async def analyst(http: httpx.AsyncClient, advisor_thread: str) -> list[dict[str, Any]]:
    s = Script(http)
    name = "sales_en.csv"
    content = (SAMPLES / name).read_bytes()
    dataset = await s.rest("POST", "/api/analyst/datasets",
                           files={"file": (name, content, "text/csv")})
    await s.rest("GET", f"/api/analyst/datasets/{dataset['id']}/preview")
    run = await s.rest("POST", "/api/analyst/runs", json={
        "dataset_id": dataset["id"], "question": "total revenue by region"})
    await s.sse("GET", f"/api/runs/{run['run_id']}/events")
    await s.rest("GET", f"/api/analyst/runs/{run['run_id']}/report.md")
    await s.rest("POST", "/api/analyst/runs", json={"dataset_id": "no-such-dataset",
                                                    "question": "total"})
    await s.rest("POST", "/api/analyst/runs", json={"dataset_id": dataset["id"]})
    await s.rest("POST", "/api/analyst/datasets", data={"thread_id": advisor_thread},
                 files={"file": (name, content, "text/csv")})
    await s.rest("POST", "/api/analyst/datasets", data={"thread_id": BAD},
                 files={"file": (name, content, "text/csv")})
    return s.steps


def _rows(body: Any, key: str) -> list[dict[str, Any]]:
    return body[key] if isinstance(body, dict) else body


async def threads(http: httpx.AsyncClient, advisor_thread: str) -> list[dict[str, Any]]:
    s = Script(http)
    await s.rest("GET", "/api/threads")
    await s.rest("GET", f"/api/threads/{advisor_thread}")
    await s.rest("GET", f"/api/threads/{advisor_thread}/messages")
    runs = _rows(await s.rest("GET", f"/api/threads/{advisor_thread}/runs"), "runs")
    await s.rest("GET", f"/api/runs/{runs[0]['id']}")
    await s.sse("GET", f"/api/threads/{advisor_thread}/events",
                params={"after": f"{runs[0]['id']}:0"}, until=_ended)
    await s.rest("GET", f"/api/threads/{BAD}/messages")
    await s.rest("GET", f"/api/threads/{BAD}")
    await s.rest("GET", "/api/threads/no-such-thread/messages")
    await s.rest("GET", "/api/runs/no-such-run")
    await s.rest("POST", f"/api/runs/{runs[0]['id']}/cancel")
    return s.steps


async def mcp(url: str) -> list[dict[str, Any]]:
    """/mcp with the SDK's streamable HTTP client: the tool list and a few calls."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    steps: list[dict[str, Any]] = []
    client_http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120))
    async with client_http, Client(streamable_http_client(f"{url}/mcp",
                                                          http_client=client_http)) as client:
        listed = await client.list_tools()
        steps.append({"step": "MCP list_tools", "result": [
            tool.model_dump(mode="json", exclude_none=True) for tool in listed.tools]})
        for name, args in (("calculator", {"expression": "6*7"}),
                           ("calculator", {"expr": 1}),
                           ("list_datasets", {}),
                           ("ask_advisor", {"question": "こんにちは", "session_id": BAD})):
            result = await client.call_tool(name, args)
            steps.append({"step": f"MCP call_tool {name} {json.dumps(args, ensure_ascii=False)}",
                          "result": result.model_dump(mode="json", exclude_none=True)})
    return steps


async def record_async(url: str, data_dir: str | None = None) -> dict[str, Any]:
    ws_url = url.replace("http://", "ws://", 1) + "/ws"
    transcript: dict[str, Any] = {"workbench": await workbench(ws_url)}
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
        transcript["advisor"] = await advisor(http)
        advisor_thread = transcript["advisor"][0]["body"]["session_id"]
        transcript["tools"] = await tools(http)
        transcript["threads"] = await threads(http, advisor_thread)
        transcript["analyst"] = await analyst(http, advisor_thread)
        health = Script(http)
        await health.rest("GET", "/health")
        transcript["health"] = health.steps
    transcript["mcp"] = await mcp(url)
    return Normaliser(data_dir)(transcript)


def record(url: str, data_dir: str | Path | None = None) -> dict[str, Any]:
    """The transcript of the script against the server at ``url``."""
    return asyncio.run(record_async(url, None if data_dir is None else str(data_dir)))


def dump(transcript: dict[str, Any]) -> str:
    return json.dumps(transcript, ensure_ascii=False, indent=1) + "\n"


def record_server(out: Path, src: Path | None = None) -> dict[str, Any]:
    """Start a server of its own (a fresh data directory; the code under ``src`` when
    given, e.g. a worktree of an older commit), record it, stop it; write ``out``."""
    import os
    import tempfile

    from tests.live_server import LiveServer

    if src is not None:
        os.environ["PYTHONPATH"] = str(src.resolve())
    with tempfile.TemporaryDirectory(prefix="wire-") as root:
        server = LiveServer(Path(root) / "server").start()
        try:
            transcript = record(server.url, server.data_dir)
        finally:
            server.stop()
    out.write_text(dump(transcript), encoding="utf-8")
    return transcript


if __name__ == "__main__":
    record_server(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
