"""The Workbench agent's tools: its own (map, data, Python), built once per agent, and
every plugin of the registry, adapted for each run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from shokunin.agents.workbench.tools.map_tools import map_tools
from shokunin.agents.workbench.tools.run_python import run_python_tool
from shokunin.agents.workbench.tools.save_data import save_data_tool
from shokunin.agents.workbench.tools.sql_engine import sql_engine_tool
from shokunin.maps import MapError, MapPackage
from shokunin.models import usable_tools
from shokunin.runs import RunContext


def own_tools(pkg: MapPackage | MapError, sample_db: Path) -> list[BaseTool]:
    """The agent's own tools; each finds the run calling it (run_of_call.py), so they are
    built once, not per run. Without a map, its map tools are not offered."""
    tools = [sql_engine_tool(sample_db), save_data_tool(), run_python_tool()]
    return [*map_tools(pkg), *tools] if isinstance(pkg, MapPackage) else tools


def build_toolbox(ctx: RunContext, own: list[BaseTool]) -> dict[str, BaseTool]:
    """The run's tools: ``own``, then the registry's plugins (bound to ``ctx``). A
    declaration a provider would refuse fails the whole request: such a tool is left out."""
    tools = [*own, *_plugins(ctx, {t.name for t in own})]
    return {t.name: t for t in usable_tools(tools)}


def _plugins(ctx: RunContext, exclude: set[str]) -> list[BaseTool]:
    registry = ctx.services.get("tools")
    if registry is None:
        return []
    from shokunin.tools import as_langchain_tools

    return list(as_langchain_tools(registry, ctx, exclude=exclude))


def own_declarations(pkg: MapPackage | MapError, sample_db: Path) -> list[dict[str, Any]]:
    """The agent's own tools as a model sees them (``{"name", "description",
    "parameters"}``), for people to read."""
    return [convert_to_openai_tool(t)["function"] for t in own_tools(pkg, sample_db)]
