"""Token usage of every model call, fed into the run's Usage (and its metrics event)."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from shokunin.runs import Usage


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
        for generations in response.generations:
            for gen in generations:
                meta = getattr(getattr(gen, "message", None), "usage_metadata", None)
                if meta:
                    self.usage.add(meta.get("input_tokens", 0), meta.get("output_tokens", 0),
                                   meta.get("total_tokens"))
                    return
        token_usage = (response.llm_output or {}).get("token_usage") or {}
        if token_usage:
            self.usage.add(token_usage.get("prompt_tokens", 0),
                           token_usage.get("completion_tokens", 0),
                           token_usage.get("total_tokens"))
