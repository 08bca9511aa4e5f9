"""RunDeps: what the graph's nodes use during one run (LangGraph runtime context).

Kept out of the state on purpose: it holds the live run context and tool objects, which
must not be checkpointed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from langchain_core.tools import BaseTool

from shokunin.agents.workbench.tools import ImageHold
from shokunin.runs import RunContext


@dataclass
class RunDeps:
    ctx: RunContext
    hold: ImageHold
    tools: Mapping[str, BaseTool] = field(default_factory=dict)  # shared by runs: read only
    step: str = "Step 1"
    language: str = "en"  # the UI's, for a message in no language of its own ("Room1")
