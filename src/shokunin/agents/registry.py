"""The agents a server offers, built from its services."""

from __future__ import annotations

from typing import Any

from shokunin.agents.tool_run import tool_run_agent
from shokunin.agents.workbench import workbench_agent
from shokunin.analyst.factory import analyst_agent


def build_agents(services: dict[str, Any]) -> list[Any]:
    """Every agent, each handed the server's one checkpointer (``services["checkpointer"]``)."""
    return [workbench_agent(services["settings"], services["map_package"],
                            services.get("checkpointer")),
            analyst_agent(services["settings"], services.get("checkpointer")),
            tool_run_agent(services)]
