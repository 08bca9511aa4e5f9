"""A fake model provider on loopback, in a thread, for tests of real HTTP providers.

It speaks OpenAI's chat completions and Anthropic's messages API (``POST /v1/messages``).

It follows the public API where a client can tell: ``POST /v1/chat/completions`` with the
request rules a real endpoint enforces (function names, description length, ``required``
naming declared properties, every tool call answered by a tool message, a bearer key),
OpenAI's 400 error shape, streaming as Server-Sent Events with tool-call arguments split
across chunks and usage in the last chunk when ``stream_options.include_usage`` is set.

Replies are scripted per test (``server.script(...)``): a ``Reply`` (text and/or tool
calls, or raw argument text for broken JSON), ``Status(429)``, ``Cut()`` (the stream
stops mid-answer) or ``Hang()`` (nothing is ever sent). Every request body is kept in
``server.requests``, but ``serve``'s start-up model check's: it is answered "OK" and
counted in ``server.checks``, so it never takes a test's scripted reply.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from shokunin.models.check import PROMPT as CHECK_PROMPT
from tests.live_server import LiveServer
from tests.waiting import wait_until

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
MAX_DESCRIPTION = 1024
API_KEY = "sk-fake-test-key"


@dataclass
class Call:
    name: str
    args: dict[str, Any] | None = None
    raw_args: str | None = None  # sent as is: broken JSON for the invalid-tool-call tests
    id: str = ""


@dataclass
class Reply:
    text: str = ""
    calls: list[Call] = field(default_factory=list)


@dataclass
class Status:
    code: int
    message: str = "Rate limit reached for requests"


@dataclass
class Cut:
    """Send the start of the answer, then break the connection (no ``[DONE]``)."""

    text: str = "This answer will be cut"


@dataclass
class Hang:
    """Accept the request and send nothing, ever."""


def _error(status: int, message: str, param: str | None = None,
           code: str | None = None, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "param": param,
                                   "code": code}}, status_code=status)


def _schema_problem(schema: Any, where: str, top: bool = True) -> str | None:
    if top and (not isinstance(schema, dict) or schema.get("type") != "object"):
        return f"Invalid schema for function '{where}': schema must be a JSON Schema of " \
               "'type: \"object\"'."
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties") or {}
    for name in schema.get("required") or []:
        if name not in properties:
            return (f"Invalid schema for function '{where}': In context=(), 'required' is "
                    f"present but '{name}' is not in 'properties'.")
    for sub in properties.values():
        if (problem := _schema_problem(sub, where, top=False)) is not None:
            return problem
    return None


def check_request(body: dict[str, Any]) -> JSONResponse | None:
    """The 400 a real endpoint answers this request with, or None."""
    for i, tool in enumerate(body.get("tools") or []):
        fn = tool.get("function") or {}
        name = fn.get("name", "")
        if not NAME.fullmatch(name):
            return _error(400, f"Invalid 'tools[{i}].function.name': string does not match "
                               "pattern. Expected a string that matches the pattern "
                               "'^[a-zA-Z0-9_-]+$'.", f"tools[{i}].function.name",
                          "invalid_value")
        description = fn.get("description") or ""
        if len(description) > MAX_DESCRIPTION:
            return _error(400, f"Invalid 'tools[{i}].function.description': string too long. "
                               f"Expected a string with maximum length {MAX_DESCRIPTION}, but "
                               f"got a string with length {len(description)} instead.",
                          f"tools[{i}].function.description", "string_above_max_length")
        problem = _schema_problem(fn.get("parameters", {"type": "object"}), name)
        if problem:
            return _error(400, problem, f"tools[{i}].function.parameters",
                          "invalid_function_parameters")
    pending: list[str] = []
    for i, message in enumerate(body.get("messages") or []):
        role = message.get("role")
        if role == "tool":
            if message.get("tool_call_id") in pending:
                pending.remove(message["tool_call_id"])
            continue
        if pending:
            return _error(400, "An assistant message with 'tool_calls' must be followed by "
                               "tool messages responding to each 'tool_call_id'. The following "
                               f"tool_call_ids did not have response messages: "
                               f"{', '.join(pending)}", f"messages.[{i}].role")
        if role == "assistant":
            pending = [c["id"] for c in message.get("tool_calls") or []]
    return None


class FakeOpenAI:
    """The server; ``with FakeOpenAI() as fake:`` serves on ``fake.base_url``."""

    def __init__(self, api_key: str | None = API_KEY) -> None:
        self.api_key = api_key  # None: any key will do, as on Ollama, llama.cpp, LM Studio
        self.requests: list[dict[str, Any]] = []
        self.checks = 0  # start-up checks answered (never in ``requests``)
        self._script: list[Any] = []
        self._lock = threading.Lock()
        self._ids = 0
        self._stop = threading.Event()
        self.port = _free_port()
        app = Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"]),
                                Route("/v1/messages", self._messages, methods=["POST"])])
        self._server = uvicorn.Server(uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning",
            timeout_graceful_shutdown=1))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        """The base URL of the Anthropic messages API (its client adds ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.port}"

    def script(self, *replies: Any) -> None:
        with self._lock:
            self._script.extend(replies)

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        wait_until(lambda: self._server.started or not self._thread.is_alive(), 20,
                   what="the fake OpenAI server started")
        if not self._server.started:
            raise RuntimeError("the fake OpenAI server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def _next(self) -> Any:
        with self._lock:
            return self._script.pop(0) if self._script else Reply("(the fake has no script)")

    async def _chat(self, request: Request) -> Response:
        if self.api_key and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided.", kind="invalid_request_error",
                          code="invalid_api_key")
        body = await request.json()
        if _is_check(body):  # serve's start-up check: answered, counted, not recorded
            self.checks += 1
            step: Any = Reply("OK")
        else:
            self.requests.append(body)
            refused = check_request(body)
            if refused is not None:
                return refused
            step = self._next()
        if isinstance(step, Status):
            return _error(step.code, step.message,
                          kind="rate_limit_exceeded" if step.code == 429 else "server_error")
        if isinstance(step, Hang):
            while not self._stop.is_set():
                await asyncio.sleep(0.05)
            return Response(status_code=503)
        model = body.get("model", "")
        if body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(self._chunks(step, model, usage),
                                     media_type="text/event-stream")
        if isinstance(step, Cut):
            return Response(status_code=500)
        return JSONResponse(self._completion(step, model))

    def _call_id(self, call: Call) -> str:
        self._ids += 1
        return call.id or f"call_{self._ids}"

    @staticmethod
    def _usage() -> dict[str, int]:
        return {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}

    def _completion(self, reply: Reply, model: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.calls:
            message["tool_calls"] = [
                {"id": self._call_id(c), "type": "function",
                 "function": {"name": c.name, "arguments": _args(c)}} for c in reply.calls]
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                "model": model, "usage": self._usage(),
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if reply.calls else "stop"}]}

    async def _chunks(self, step: Reply | Cut, model: str, usage: bool) -> AsyncIterator[str]:
        def chunk(delta: dict[str, Any], finish: str | None = None,
                  **extra: Any) -> str:
            data = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                    "model": model, **extra,
                    "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                 "finish_reason": finish}]}
            return f"data: {json.dumps(data)}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        text = step.text
        for word in re.findall(r"\S+\s*", text):
            yield chunk({"content": word})
            await asyncio.sleep(0.01)  # a real provider's tokens arrive over time
        if isinstance(step, Cut):  # the connection breaks: no finish_reason, no [DONE]
            raise ConnectionAbortedError("the fake cuts this stream")
        for index, call in enumerate(step.calls):
            args = _args(call)
            yield chunk({"tool_calls": [{"index": index, "id": self._call_id(call),
                                         "type": "function",
                                         "function": {"name": call.name, "arguments": ""}}]})
            for piece in (args[i:i + 5] for i in range(0, len(args), 5)):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, "tool_calls" if step.calls else "stop")
        if usage:
            data = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                    "model": model, "choices": [], "usage": self._usage()}
            yield f"data: {json.dumps(data)}\n\n"
        yield "data: [DONE]\n\n"


    async def _messages(self, request: Request) -> Response:
        """Anthropic's ``POST /v1/messages``, streamed or not, with its request rules."""
        # The SDK sends the key as x-api-key or (newer versions) as a bearer token.
        if self.api_key not in (request.headers.get("x-api-key"),
                           request.headers.get("authorization", "").removeprefix("Bearer ")):
            return _anthropic_error(401, "invalid x-api-key", "authentication_error")
        body = await request.json()
        if _is_check(body):  # serve's start-up check: answered, counted, not recorded
            self.checks += 1
            step: Any = Reply("OK")
        else:
            self.requests.append(body)
            refused = check_anthropic_request(body)
            if refused is not None:
                return refused
            step = self._next()
        if isinstance(step, Status):
            return _anthropic_error(step.code, step.message, "rate_limit_error"
                                    if step.code == 429 else "api_error")
        if isinstance(step, Hang):
            while not self._stop.is_set():
                await asyncio.sleep(0.05)
            return Response(status_code=503)
        model = body.get("model", "")
        if body.get("stream"):
            return StreamingResponse(self._events(step, model), media_type="text/event-stream")
        if isinstance(step, Cut):
            return Response(status_code=500)
        content: list[dict[str, Any]] = [{"type": "text", "text": step.text}] if step.text else []
        content += [{"type": "tool_use", "id": self._call_id(c).replace("call", "toolu"),
                     "name": c.name, "input": c.args or {}} for c in step.calls]
        return JSONResponse({"id": "msg_fake", "type": "message", "role": "assistant",
                             "model": model, "content": content,
                             "stop_reason": "tool_use" if step.calls else "end_turn",
                             "stop_sequence": None,
                             "usage": {"input_tokens": 11, "output_tokens": 7}})

    async def _events(self, step: Reply | Cut, model: str) -> AsyncIterator[str]:
        def event(kind: str, **data: Any) -> str:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"

        yield event("message_start", message={
            "id": "msg_fake", "type": "message", "role": "assistant", "content": [],
            "model": model, "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 11, "output_tokens": 1}})
        index = 0
        if step.text:
            yield event("content_block_start", index=0,
                        content_block={"type": "text", "text": ""})
            for word in re.findall(r"\S+\s*", step.text):
                yield event("content_block_delta", index=0,
                            delta={"type": "text_delta", "text": word})
                await asyncio.sleep(0.01)
            if isinstance(step, Cut):
                raise ConnectionAbortedError("the fake cuts this stream")
            yield event("content_block_stop", index=0)
            index = 1
        calls = [] if isinstance(step, Cut) else step.calls
        for call in calls:
            yield event("content_block_start", index=index, content_block={
                "type": "tool_use", "id": self._call_id(call).replace("call", "toolu"),
                "name": call.name, "input": {}})
            args = _args(call)
            for piece in (args[i:i + 5] for i in range(0, len(args), 5)):
                yield event("content_block_delta", index=index,
                            delta={"type": "input_json_delta", "partial_json": piece})
            yield event("content_block_stop", index=index)
            index += 1
        yield event("message_delta", delta={"stop_reason": "tool_use" if calls else "end_turn",
                                            "stop_sequence": None},
                    usage={"input_tokens": 11, "output_tokens": 7})
        yield event("message_stop")


def _anthropic_error(status: int, message: str,
                     kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"type": "error", "error": {"type": kind, "message": message}},
                        status_code=status)


def check_anthropic_request(body: dict[str, Any]) -> JSONResponse | None:
    """The 400 Anthropic's messages API answers this request with, or None."""
    if not isinstance(body.get("max_tokens"), int):
        return _anthropic_error(400, "max_tokens: Field required")
    for i, tool in enumerate(body.get("tools") or []):
        if not NAME.fullmatch(tool.get("name", "")):
            return _anthropic_error(400, f"tools.{i}.custom.name: String should match "
                                         "pattern '^[a-zA-Z0-9_-]{1,64}$'")
        problem = _schema_problem(tool.get("input_schema"), tool.get("name", ""))
        if problem:
            return _anthropic_error(400, f"tools.{i}.custom.input_schema: {problem}")
    pending: list[str] = []
    for i, message in enumerate(body.get("messages") or []):
        blocks = message.get("content")
        blocks = blocks if isinstance(blocks, list) else []
        answered = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
        if pending and (message.get("role") != "user" or set(pending) - answered):
            return _anthropic_error(400, f"messages.{i}: `tool_use` ids were found without "
                                         "`tool_result` blocks immediately after: "
                                         f"{', '.join(sorted(set(pending) - answered))}. Each "
                                         "`tool_use` block must have a corresponding "
                                         "`tool_result` block in the next message.")
        pending = [b["id"] for b in blocks if b.get("type") == "tool_use"]
    return None


def _is_check(body: dict[str, Any]) -> bool:
    """Whether a request is ``serve``'s start-up model check (``models.check``)."""
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content") if isinstance(messages[-1], dict) else None
    if isinstance(content, list):  # Anthropic's blocks
        content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content == CHECK_PROMPT


def _args(call: Call) -> str:
    return call.raw_args if call.raw_args is not None else json.dumps(call.args or {})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def model_server(folder: Path) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    """A live shokunin whose model is a FakeOpenAI that each test scripts."""
    with FakeOpenAI() as fake:
        server = LiveServer(folder, env={
            "SHOKUNIN_MODEL": "openai:fake-gpt", "SHOKUNIN_MODEL_BASE_URL": fake.base_url,
            "SHOKUNIN_MODEL_API_KEY": API_KEY}).start()
        try:
            yield server, fake
        finally:
            server.stop()
