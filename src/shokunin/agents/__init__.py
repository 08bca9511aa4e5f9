"""Agents: one sub-package per agent, each a LangGraph graph driven by a brain."""
