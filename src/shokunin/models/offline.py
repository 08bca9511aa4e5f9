"""The offline marker model: no language ability, so agents use their OfflineBrain."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult


class OfflineChatModel(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "offline"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        raise RuntimeError("the offline model cannot generate text; agents use an OfflineBrain")


def is_offline(model: BaseChatModel) -> bool:
    return isinstance(model, OfflineChatModel)
