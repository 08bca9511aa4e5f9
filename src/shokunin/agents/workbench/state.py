"""The Workbench graph's state: the conversation, kept per thread by the checkpointer."""

from __future__ import annotations

from typing import Annotated, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class WorkbenchState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
