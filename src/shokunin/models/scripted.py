"""ScriptedChatModel: replays a list of responses, and records what it was asked.

Tests register a script under a name and resolve ``scripted:NAME`` like any provider, so
the LLM code paths run for real with no network. A response is a string (text), an
``AIMessage`` (text and tool calls), or a dict ``{"tool_calls": [...]}`` / a pydantic
object for structured output. Asked to stream (inside a graph streamed with "messages"),
it sends its text a word at a time, then its tool calls, as a real provider does.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, PrivateAttr

_scripts: dict[str, list[Any]] = {}
_ids = itertools.count(1)


def register_script(name: str, responses: Sequence[Any]) -> None:
    """Make ``resolve("scripted:NAME")`` replay these responses."""
    _scripts[name] = list(responses)


def unregister_script(name: str) -> None:
    _scripts.pop(name, None)


def _as_message(response: Any) -> AIMessage:
    if isinstance(response, AIMessage):
        return response
    if isinstance(response, str):
        return AIMessage(content=response)
    if isinstance(response, dict) and "tool_calls" in response:
        calls = [{"name": c["name"], "args": c.get("args", {}),
                  "id": c.get("id") or f"call_{next(_ids)}", "type": "tool_call"}
                 for c in response["tool_calls"]]
        return AIMessage(content=response.get("content", ""), tool_calls=calls)
    raise TypeError(f"cannot replay {type(response).__name__} as a chat message")


class ScriptedChatModel(BaseChatModel):
    responses: list[Any]
    name_: str = "scripted"
    _cursor: int = PrivateAttr(default=0)
    _asked: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def asked(self) -> list[list[BaseMessage]]:
        """Every prompt this model received, in order."""
        return self._asked

    def _next(self) -> Any:
        if self._cursor >= len(self.responses):
            raise RuntimeError(
                f"scripted model ran out of responses after {len(self.responses)}")
        response = self.responses[self._cursor]
        self._cursor += 1
        return response

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        self._asked.append(list(messages))
        message = _as_message(self._next())
        prompt_tokens = sum(len(str(m.content).split()) for m in messages)
        out_tokens = len(str(message.content).split())
        message.usage_metadata = {"input_tokens": prompt_tokens, "output_tokens": out_tokens,
                                  "total_tokens": prompt_tokens + out_tokens}
        return message

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
        message = self._reply(messages)
        text = message.content if isinstance(message.content, str) else ""
        for word in re.findall(r"\S+\s*|\s+", text):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))
        yield ChatGenerationChunk(message=AIMessageChunk(
            content="", usage_metadata=message.usage_metadata, chunk_position="last",
            tool_call_chunks=[{"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"],
                               "index": i, "type": "tool_call_chunk"}
                              for i, c in enumerate(message.tool_calls)]))

    def _stream(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            if run_manager and chunk.text:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    async def _astream(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            if run_manager and chunk.text:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable:
        return self

    def with_structured_output(self, schema: Any, *, include_raw: bool = False,
                               **kwargs: Any) -> Runnable:
        """Replay the next response as ``schema``; with ``include_raw``, as providers do:
        ``{"raw": AIMessage (with usage), "parsed": ..., "parsing_error": ...}``."""
        def parse(messages: Any) -> Any:
            asked = list(messages) if isinstance(messages, list) else [messages]
            self._asked.append(asked)
            response = self._next()
            parsed, error = response, None
            if isinstance(schema, type) and issubclass(schema, BaseModel):
                try:
                    parsed = response if isinstance(response, schema) else (
                        schema.model_validate(response))
                except ValueError as exc:  # pydantic's ValidationError
                    if not include_raw:
                        raise
                    parsed, error = None, exc
            if not include_raw:
                return parsed
            text = response.model_dump_json() if isinstance(response, BaseModel) else (
                json.dumps(response, ensure_ascii=False, default=str))
            prompt_tokens = sum(len(str(getattr(m, "content", m)).split()) for m in asked)
            out_tokens = len(text.split())
            raw = AIMessage(content=text, usage_metadata={
                "input_tokens": prompt_tokens, "output_tokens": out_tokens,
                "total_tokens": prompt_tokens + out_tokens})
            return {"raw": raw, "parsed": parsed, "parsing_error": error}

        return RunnableLambda(parse)


def scripted_model(name: str) -> ScriptedChatModel:
    if name not in _scripts:
        raise LookupError(f"no script registered as {name!r}; call register_script first")
    return ScriptedChatModel(responses=_scripts[name], name_=name)
