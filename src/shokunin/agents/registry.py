"""The agents a server offers, built from its services."""

from __future__ import annotations

import logging
from typing import Any

from shokunin.agents.advisor import PlaybookError, advisor_agent
from shokunin.agents.analyst.factory import analyst_agent
from shokunin.agents.studio import PipelineError, studio_parts
from shokunin.agents.tool_run import tool_run_agent
from shokunin.agents.workbench import workbench_agent
from shokunin.knowledge import EmbedderError


def build_agents(services: dict[str, Any]) -> list[Any]:
    """Every agent, each handed the server's one checkpointer (``services["checkpointer"]``).
    An Advisor whose playbook (or dense plug-in) cannot be loaded is left out, with the
    reason logged (its API then answers 503 with it), as is a Studio whose pipeline cannot
    be; the other faces go on."""
    settings, checkpointer = services["settings"], services.get("checkpointer")
    agents = [workbench_agent(settings, services["map_package"], checkpointer),
              analyst_agent(settings, checkpointer), tool_run_agent(services)]
    try:
        agents.append(advisor_agent(settings, checkpointer))
    except (PlaybookError, EmbedderError) as exc:
        services["advisor_error"] = str(exc)
        logging.getLogger(__name__).error("the Advisor is unavailable: %s", exc)
    try:
        parts = studio_parts(services)
    except PipelineError as exc:
        services["studio_error"] = str(exc)
        logging.getLogger(__name__).error("the Studio is unavailable: %s", exc)
    else:
        services["studio_parts"] = parts
        agents.append(parts.agent)
    return agents
