"""The agents a server offers, built from the engine parts a run may use."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from shokunin.agents.advisor import PlaybookError, advisor_agent
from shokunin.agents.analyst.factory import analyst_agent
from shokunin.agents.studio import PipelineError, StudioParts, studio_parts
from shokunin.agents.tool_run import tool_run_agent
from shokunin.agents.workbench import workbench_agent
from shokunin.knowledge import EmbedderError
from shokunin.runs import Agent, RunServices
from shokunin.store import Store

log = logging.getLogger(__name__)


@dataclass
class Agents:
    """The agents to register, the Studio's parts (its service needs them), and why a face
    is unavailable (face -> reason; its API answers 503 with it)."""

    agents: list[Agent]
    studio: StudioParts | None = None
    unavailable: dict[str, str] = field(default_factory=dict)


def build_agents(services: RunServices, store: Store) -> Agents:
    """Every agent, each handed the server's one checkpointer. An Advisor whose playbook (or
    dense plug-in) cannot be loaded is left out, with the reason logged, as is a Studio
    whose pipeline cannot be; the other faces go on."""
    settings, checkpointer = services.settings, services.checkpointer
    assert settings is not None and services.tools is not None
    built = Agents([workbench_agent(settings, services.map_package, checkpointer),
                    analyst_agent(settings, checkpointer), tool_run_agent(services.tools)])
    try:
        built.agents.append(advisor_agent(settings, checkpointer))
    except (PlaybookError, EmbedderError) as exc:
        built.unavailable["advisor"] = str(exc)
        log.error("the Advisor is unavailable: %s", exc)
    try:
        built.studio = studio_parts(settings, store, checkpointer)
    except PipelineError as exc:
        built.unavailable["studio"] = str(exc)
        log.error("the Studio is unavailable: %s", exc)
    else:
        built.agents.append(built.studio.agent)
    return built
