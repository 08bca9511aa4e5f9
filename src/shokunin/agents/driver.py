"""The driver: runs a compiled LangGraph graph under the Runner, its stream turned into Events.

    a model's tokens, as they arrive            -> TextDelta (and every model call's usage
                                                   -> the run's usage, its metrics event)
        except an internal call's: structured output (``with_structured_output``: a
        step detector's or a router's JSON) or a call tagged ``nostream``
        (LangGraph's ``TAG_NOSTREAM``): their tokens are no answer text
    "updates"  AI tool calls, tool messages     -> ToolCall, ToolResult (once per call id)
    "updates"  __interrupt__ of the root graph  -> Interrupted (the run waits for a human)
    "custom"   get_stream_writer()(event)       -> that Event (an Event, or a dict with "kind")

Tokens are emitted by a callback inside the model call, so they come before whatever the
node emits after it (its answer's ``text``); the "messages" stream mode is asked for only
because it makes LangChain models stream. Events a node emits itself (``ctx.emit``) are
stored at once; tool calls and results are stored as the driver reads the stream, so they
may come a little after a node's own events. A resumed run (``ctx.resume_value``) sends
``Command(resume=value)`` on the same thread; LangGraph then re-runs the interrupted node
from its start, so whatever a node does before ``interrupt()`` must be safe to repeat.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, Durability, Interrupt
from pydantic import ValidationError

from shokunin import events as ev
from shokunin.errors import ShokuninError
from shokunin.models import UsageRecorder
from shokunin.runs import Interrupted, RunContext

STREAM_MODES = ["updates", "custom", "values"]
# "messages" puts a callback handler on every node and runnable of the graph (and makes
# models stream): asked for only when the graph calls a model, as are our callbacks.
MODEL_STREAM_MODES = ["updates", "messages", "custom", "values"]
# Checkpoint when the graph stops (done, or waiting at an interrupt), not after every step:
# our store already holds every event a user sees, and a run cut short by a crash is marked
# failed on restart, so per-step checkpoints would buy nothing visible and cost a write per
# step. The checkpoint of an interrupt is written before the run is marked interrupted.
DURABILITY: Durability = "exit"
_INTERRUPT = "__interrupt__"


class CustomEventError(ShokuninError, TypeError):
    """A node wrote something to the custom stream that is not an Event."""


async def drive(
    graph: CompiledStateGraph, ctx: RunContext, input: Any, *,
    config: RunnableConfig | None = None, context: Any = None,
    durability: Durability = DURABILITY, models: bool = True,
) -> dict[str, Any]:
    """Run ``graph`` for this run on ``ctx.thread_id``, emitting its stream as Events;
    return the graph's final state. Raise ``Interrupted`` (payload ``{"value", "interrupts":
    [{"id", "value"}]}``) when it stops at ``interrupt()``. ``models=False`` says the graph
    calls no chat model: no token stream and no usage to record, so none is listened for."""
    run_config: RunnableConfig = {**(config or {})}
    run_config["configurable"] = {**run_config.get("configurable", {}),
                                  "thread_id": ctx.thread_id}
    if models:  # every model call adds its tokens to the run's usage (its metrics event)
        run_config["callbacks"] = [*(run_config.get("callbacks") or []),
                                   UsageRecorder(ctx.usage), _Tokens(ctx)]
    resuming = ctx.resume_value is not None
    kwargs: dict[str, Any] = {}
    if isinstance(graph.checkpointer, BaseCheckpointSaver):  # else LangGraph warns
        kwargs["durability"] = durability
    translator = _Translator(ctx)
    async for part in graph.astream(
        Command(resume=ctx.resume_value) if resuming else input, run_config,
        context=context, stream_mode=MODEL_STREAM_MODES if models else STREAM_MODES,
        subgraphs=True, version="v2", **kwargs,
    ):
        await translator.take(part)
    if translator.interrupts:
        raise Interrupted(_payload(translator.interrupts))
    return translator.state


class _Tokens(AsyncCallbackHandler):
    """Emits a streaming model's text as TextDelta events, awaited inside the model call;
    an internal call's tokens (structured output, or tagged ``nostream``) are not text."""

    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_custom_event = True

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self._internal: set[UUID] = set()  # internal calls in flight: no text

    async def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *,
        run_id: UUID, tags: list[str] | None = None, **kwargs: Any,
    ) -> None:
        options = kwargs.get("options") or {}
        if TAG_NOSTREAM in (tags or ()) or options.get("ls_structured_output_format"):
            self._internal.add(run_id)

    async def on_llm_new_token(
        self, token: str, *, chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID | None = None, **kwargs: Any,
    ) -> None:
        if run_id in self._internal:
            return
        message = getattr(chunk, "message", None)
        delta = _text(message.content) if isinstance(message, AIMessageChunk) else token
        if delta:
            await self.ctx.emit(ev.TextDelta(delta=delta))

    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._internal.discard(run_id)

    async def on_llm_error(self, error: BaseException, *, run_id: UUID,
                           **kwargs: Any) -> None:
        self._internal.discard(run_id)


class _Translator:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.state: dict[str, Any] = {}
        self.interrupts: list[Interrupt] = []
        self._calls: set[str] = set()
        self._results: set[str] = set()

    async def take(self, part: dict[str, Any]) -> None:
        kind, ns, data = part["type"], part["ns"], part["data"]
        if kind == "updates":
            for node, update in data.items():
                if node == _INTERRUPT:
                    if not ns:  # a subgraph's interrupt also reaches the root: count it once
                        self.interrupts.extend(update)
                else:
                    for message in _messages(update):
                        await self._message(message)
        elif kind == "custom":
            await self.ctx.emit(_custom_event(data))
        elif kind == "values" and not ns and isinstance(data, dict):
            self.state = data

    async def _message(self, message: BaseMessage) -> None:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                call_id = call.get("id") or ""
                if not call_id or call_id not in self._calls:
                    self._calls.add(call_id)
                    await self.ctx.emit(ev.ToolCall(call_id=call_id, name=call["name"],
                                                    args=call.get("args") or {}))
        elif isinstance(message, ToolMessage) and message.tool_call_id not in self._results:
            self._results.add(message.tool_call_id)
            failed = message.status == "error"
            content = message.content if isinstance(message.content, str) else _text(
                message.content)
            await self.ctx.emit(ev.ToolResult(
                call_id=message.tool_call_id, name=message.name or "", success=not failed,
                result=None if failed else content, error=content if failed else None))


def _messages(update: Any) -> list[BaseMessage]:
    """The messages in one node's update, however the node returned them."""
    if isinstance(update, BaseMessage):
        return [update]
    if isinstance(update, Command):
        return _messages(update.update)
    if isinstance(update, dict):
        return [m for value in update.values() for m in _messages(value)]
    if isinstance(update, list | tuple):
        return [m for value in update for m in _messages(value)]
    return []


def _text(content: str | list[Any]) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") if isinstance(block, dict) else str(block)
                   for block in content
                   if isinstance(block, str) or block.get("type") in (None, "text"))


def _custom_event(data: Any) -> ev.BaseEvent:
    if isinstance(data, ev.BaseEvent):
        return data
    if isinstance(data, dict) and "kind" in data:
        try:
            return ev.parse_event(data)
        except ValidationError as exc:
            raise CustomEventError(f"custom stream write is not a valid event: {exc}") from None
    raise CustomEventError(
        f"custom stream writes must be Events (shokunin.events) or dicts with a 'kind'; "
        f"got {type(data).__name__}")


def _payload(interrupts: list[Interrupt]) -> dict[str, Any]:
    return {"value": interrupts[0].value,
            "interrupts": [{"id": i.id, "value": i.value} for i in interrupts]}
