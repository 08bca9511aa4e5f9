"""Agents: one sub-package per agent, each a LangGraph graph driven by a brain, and the
driver that runs any compiled graph under the Runner.

Names are imported on first use (``lazy_loader``): a process that needs one module of an
agent (the uploads' parser process needs the Analyst's readers) does not import LangGraph.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__, submod_attrs={"driver": ["CustomEventError", "drive"]})
