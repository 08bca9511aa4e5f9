"""The Workbench agent (seed 000): map, data and Python tools around one LangGraph graph."""

from shokunin.agents.workbench.agent import WorkbenchAgent
from shokunin.agents.workbench.brain import Brain, LLMBrain
from shokunin.agents.workbench.factory import workbench_agent
from shokunin.agents.workbench.graph import build_graph
from shokunin.agents.workbench.offline_brain import OfflineBrain

__all__ = ["Brain", "LLMBrain", "OfflineBrain", "WorkbenchAgent", "build_graph",
           "workbench_agent"]
