"""Token usage of every model call, fed into the run's Usage (and its metrics event)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0
    model: str | None = None  # the model that answered last, as its provider names it

    def add(self, input_tokens: int, output_tokens: int, total_tokens: int | None = None,
            model: str | None = None) -> None:
        self.model = model or self.model
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.total_tokens += total_tokens if total_tokens is not None else (
            input_tokens + output_tokens)
        self.calls += 1

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input_tokens": self.input_tokens,
                               "output_tokens": self.output_tokens,
                               "total_tokens": self.total_tokens, "calls": self.calls}
        return out | {"model": self.model} if self.model else out


def _model_name(message: Any, llm_output: dict[str, Any]) -> str | None:
    """The model that answered, as the provider names it (OpenAI ``model_name``,
    Anthropic ``model``)."""
    meta = getattr(message, "response_metadata", None) or {}
    name = meta.get("model_name") or meta.get("model") or llm_output.get("model_name")
    return str(name) if name else None


class UsageRecorder(BaseCallbackHandler):
    """Pass as a callback to any LangChain call; adds each call's tokens to ``usage``."""

    # Only model calls matter. Under ainvoke/astream LangChain sends each event of a sync
    # handler through a thread-pool hop; without these a run paid ~40 hops (every node's and
    # tool's start and end) for nothing.
    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_custom_event = True

    def __init__(self, usage: Usage) -> None:
        self.usage = usage

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        llm_output = response.llm_output or {}
        for generations in response.generations:
            for gen in generations:
                message = getattr(gen, "message", None)
                meta = getattr(message, "usage_metadata", None)
                if meta:
                    self.usage.add(meta.get("input_tokens", 0), meta.get("output_tokens", 0),
                                   meta.get("total_tokens"), _model_name(message, llm_output))
                    return
        token_usage = llm_output.get("token_usage") or {}
        if token_usage:
            self.usage.add(token_usage.get("prompt_tokens", 0),
                           token_usage.get("completion_tokens", 0),
                           token_usage.get("total_tokens"), _model_name(None, llm_output))
