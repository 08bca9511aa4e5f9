"""The Workbench agent's tools: its own (map, data, Python) and every plugin of the
registry. All are built once, not per run: each finds the run calling it (run_of_call.py)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from shokunin.agents.workbench.tools.map_tools import map_tools
from shokunin.agents.workbench.tools.run_of_call import run_deps
from shokunin.agents.workbench.tools.run_python import run_python_tool
from shokunin.agents.workbench.tools.save_data import save_data_tool
from shokunin.agents.workbench.tools.sql_engine import sql_engine_tool
from shokunin.maps import MapError, MapPackage
from shokunin.models import usable_tools
from shokunin.runs import RunContext


def own_tools(pkg: MapPackage | MapError, sample_db: Path) -> list[BaseTool]:
    """The agent's own tools; without a map, its map tools are not offered."""
    tools = [sql_engine_tool(sample_db), save_data_tool(), run_python_tool()]
    return [*map_tools(pkg), *tools] if isinstance(pkg, MapPackage) else tools


def _calling_run() -> RunContext:
    return run_deps().ctx


class Toolbox:
    """The agent's own tools and the registry's plugins, adapted again only when the
    registry's list changes (a reload, an MCP server coming or going)."""

    def __init__(self, pkg: MapPackage | MapError, sample_db: Path) -> None:
        self.own = own_tools(pkg, sample_db)
        self._key: tuple[Any, ...] | None = None
        self._listed: list[Any] = []  # keeps the ids in the key from being reused
        self._tools: Mapping[str, BaseTool] = MappingProxyType({})

    def for_run(self, ctx: RunContext) -> Mapping[str, BaseTool]:
        """The tools a run may call (shared by runs: read-only). A declaration a provider
        would refuse fails the whole request: such a tool is left out."""
        registry = ctx.services.tools
        listed = registry.list() if registry is not None else []
        key = (id(registry), *((id(info), info.status) for info in listed))
        if key != self._key:
            tools = [*self.own, *self._plugins(registry, {t.name for t in self.own})]
            self._tools = MappingProxyType({t.name: t for t in usable_tools(tools)})
            self._key, self._listed = key, listed
        return self._tools

    @staticmethod
    def _plugins(registry: Any, exclude: set[str]) -> list[BaseTool]:
        if registry is None:
            return []
        from shokunin.agents.tool_adapter import as_langchain_tools

        return list(as_langchain_tools(registry, _calling_run, exclude=exclude))


def own_declarations(pkg: MapPackage | MapError, sample_db: Path) -> list[dict[str, Any]]:
    """The agent's own tools as a model sees them (``{"name", "description",
    "parameters"}``), for people to read."""
    return [convert_to_openai_tool(t)["function"] for t in own_tools(pkg, sample_db)]
