"""Build the Workbench agent from Settings: the map, the brain, the server's checkpointer."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.workbench.agent import WorkbenchAgent
from shokunin.agents.workbench.brain import Brain, LLMBrain
from shokunin.agents.workbench.offline_brain import OfflineBrain
from shokunin.agents.workbench.prompt import system_prompt
from shokunin.config import Settings
from shokunin.maps import MapError, MapPackage
from shokunin.models import is_offline, model_from_settings


def workbench_agent(
    settings: Settings, pkg: MapPackage | MapError,
    checkpointer: BaseCheckpointSaver | None = None,
) -> WorkbenchAgent:
    """The Workbench; without a checkpointer its threads forget earlier turns. A map that
    failed to load leaves the agent without map tools, not without a brain."""
    model = model_from_settings(settings)
    building = pkg if isinstance(pkg, MapPackage) else MapPackage.empty()
    brain: Brain = OfflineBrain(building, settings.sample_db) if is_offline(model) else (
        LLMBrain(model, system_prompt(building)))
    return WorkbenchAgent(brain, pkg, settings.sample_db, checkpointer)
