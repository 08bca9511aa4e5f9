"""The run a tool is called for: the Workbench's tools are built once per agent and find
their run's deps (RunDeps) in LangGraph's runtime of the node that calls them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph.runtime import get_runtime

if TYPE_CHECKING:
    from shokunin.agents.workbench.deps import RunDeps


def run_deps() -> RunDeps:
    """The calling run's deps; only inside a node of the Workbench graph."""
    return get_runtime().context
