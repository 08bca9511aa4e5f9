"""Build the Studio from Settings: its pipeline, its records, the brain (offline or a
model's) and the agent that runs a project's graph."""

from __future__ import annotations

from typing import Any

from shokunin.agents.studio.agent import StudioAgent
from shokunin.agents.studio.brains import LLMBrain, OfflineBrain
from shokunin.agents.studio.pauses import Pauses
from shokunin.agents.studio.pipeline import Pipeline, load_pipeline
from shokunin.models import is_offline, model_from_settings
from shokunin.store.studio_records import StudioRecords


class StudioParts:
    def __init__(self, agent: StudioAgent, pipeline: Pipeline) -> None:
        self.agent = agent
        self.pipeline = pipeline


def studio_parts(services: dict[str, Any]) -> StudioParts:
    """Raise ``PipelineError`` if the configured pipeline cannot be used."""
    settings = services["settings"]
    pipeline = load_pipeline(settings.studio_pipeline)
    model = model_from_settings(settings)
    brain = OfflineBrain() if is_offline(model) else LLMBrain(model)
    agent = StudioAgent(brain, StudioRecords(services["store"].engine), Pauses(),
                        services.get("checkpointer"))
    return StudioParts(agent, pipeline)
