"""Agents: one sub-package per agent, each a LangGraph graph driven by a brain, and the
driver that runs any compiled graph under the Runner."""

from shokunin.agents.driver import CustomEventError, drive

__all__ = ["CustomEventError", "drive"]
