"""The agents a server offers, built from the engine parts a run may use.

Each face's package is imported only when that face is offered: ``shokunin analyze`` builds
the Analyst and imports no other face.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shokunin.runs import Agent, RunServices
from shokunin.store import Store

if TYPE_CHECKING:
    from shokunin.agents.studio import StudioParts

log = logging.getLogger(__name__)
FACES = ("workbench", "analyst", "tool", "advisor", "studio")  # the agents' names


@dataclass
class Agents:
    """The agents to register, the Studio's parts (its service needs them), and why a face
    is unavailable (face -> reason; its API answers 503 with it)."""

    agents: list[Agent]
    studio: StudioParts | None = None
    unavailable: dict[str, str] = field(default_factory=dict)


def build_agents(services: RunServices, store: Store,
                 faces: Collection[str] | None = None) -> Agents:
    """The agents of ``faces`` (by name; None: every one), each handed the server's one
    checkpointer. An Advisor whose playbook (or dense plug-in) cannot be loaded is left out,
    with the reason logged, as is a Studio whose pipeline cannot be; the other faces go on."""
    settings, checkpointer = services.settings, services.checkpointer
    assert settings is not None and services.tools is not None
    wanted = set(FACES if faces is None else faces)
    if unknown := wanted - set(FACES):
        raise ValueError(f"no such face: {', '.join(sorted(unknown))} (there are {FACES})")
    built = Agents([])
    if "workbench" in wanted:
        from shokunin.agents.workbench import workbench_agent

        built.agents.append(workbench_agent(settings, services.map_package, checkpointer))
    if "analyst" in wanted:
        from shokunin.agents.analyst.factory import analyst_agent

        built.agents.append(analyst_agent(settings, checkpointer))
    if "tool" in wanted:
        from shokunin.agents.tool_run import tool_run_agent

        built.agents.append(tool_run_agent(services.tools))
    if "advisor" in wanted:
        from shokunin.agents.advisor import PlaybookError, advisor_agent
        from shokunin.knowledge import EmbedderError

        try:
            built.agents.append(advisor_agent(settings, checkpointer))
        except (PlaybookError, EmbedderError) as exc:
            built.unavailable["advisor"] = str(exc)
            log.error("the Advisor is unavailable: %s", exc)
    if "studio" in wanted:
        from shokunin.agents.studio import PipelineError, studio_parts

        try:
            built.studio = studio_parts(settings, store, checkpointer)
        except PipelineError as exc:
            built.unavailable["studio"] = str(exc)
            log.error("the Studio is unavailable: %s", exc)
        else:
            built.agents.append(built.studio.agent)
    return built
