"""The tools of one Workbench run: the map tools, data tools, Python, and every plugin."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from shokunin.agents.workbench.tools.map_tools import map_tools
from shokunin.agents.workbench.tools.run_python import ImageHold, run_python_tool
from shokunin.agents.workbench.tools.save_data import save_data_tool
from shokunin.agents.workbench.tools.sql_engine import SqlLimits, sql_engine_tool
from shokunin.maps import MapError, MapPackage
from shokunin.models import usable_tools
from shokunin.runs import RunContext


def build_toolbox(ctx: RunContext, pkg: MapPackage | MapError, sample_db: Path,
                  hold: ImageHold, step: Callable[[], str]) -> dict[str, BaseTool]:
    limits = SqlLimits.from_settings(ctx.services.get("settings"))
    tools = [sql_engine_tool(sample_db, limits), save_data_tool(ctx.workspace),
             run_python_tool(ctx, hold, step)]
    if isinstance(pkg, MapPackage):  # no map tools over a map that failed to load
        tools = [*map_tools(ctx, pkg), *tools]
    own = {t.name for t in tools}
    tools += _plugins(ctx, own)
    # A declaration a provider would refuse fails the whole request: leave that tool out.
    return {t.name: t for t in usable_tools(tools)}


def _plugins(ctx: RunContext, exclude: set[str]) -> list[BaseTool]:
    registry = ctx.services.get("tools")
    if registry is None:
        return []
    from shokunin.tools import as_langchain_tools

    return list(as_langchain_tools(registry, ctx, exclude=exclude))


def own_declarations(pkg: MapPackage | MapError, sample_db: Path) -> list[dict[str, Any]]:
    """The agent's own tools as a model sees them (``{"name", "description",
    "parameters"}``), for people to read; without a map, its map tools are not offered."""
    # Built only to read their declarations: nothing here calls them, so no run is needed.
    tools = [sql_engine_tool(sample_db, SqlLimits()), save_data_tool(Path()),
             run_python_tool(None, None, str)]  # type: ignore[arg-type]
    if isinstance(pkg, MapPackage):
        tools = [*map_tools(None, pkg), *tools]  # type: ignore[arg-type]
    return [convert_to_openai_tool(t)["function"] for t in tools]
