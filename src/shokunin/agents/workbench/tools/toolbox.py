"""The tools of one Workbench run: the map tools, data tools, Python, and every plugin."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from langchain_core.tools import BaseTool

from shokunin.agents.workbench.tools.map_tools import map_tools
from shokunin.agents.workbench.tools.run_python import ImageHold, run_python_tool
from shokunin.agents.workbench.tools.save_data import save_data_tool
from shokunin.agents.workbench.tools.sql_engine import SqlLimits, sql_engine_tool
from shokunin.maps import MapPackage
from shokunin.models import usable_tools
from shokunin.runs import RunContext


def build_toolbox(ctx: RunContext, pkg: MapPackage, sample_db: Path, hold: ImageHold,
                  step: Callable[[], str]) -> dict[str, BaseTool]:
    limits = SqlLimits.from_settings(ctx.services.get("settings"))
    tools = [*map_tools(ctx, pkg), sql_engine_tool(sample_db, limits),
             save_data_tool(ctx.workspace), run_python_tool(ctx, hold, step)]
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
