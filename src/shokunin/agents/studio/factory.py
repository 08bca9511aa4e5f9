"""Build the Studio from Settings: its pipeline, its records, the brain (offline or a
model's) and the agent that runs a project's graph."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.studio.agent import StudioAgent
from shokunin.agents.studio.brains import LLMBrain, OfflineBrain
from shokunin.agents.studio.pipeline import Pipeline, load_pipeline
from shokunin.config import Settings
from shokunin.models import is_offline, model_from_settings
from shokunin.store import Store
from shokunin.store.studio_records import StudioRecords


class StudioParts:
    def __init__(self, agent: StudioAgent, pipeline: Pipeline) -> None:
        self.agent = agent
        self.pipeline = pipeline


def studio_parts(settings: Settings, store: Store,
                 checkpointer: BaseCheckpointSaver | None) -> StudioParts:
    """Raise ``PipelineError`` if the configured pipeline cannot be used."""
    pipeline = load_pipeline(settings.studio_pipeline)
    model = model_from_settings(settings)
    brain = OfflineBrain() if is_offline(model) else LLMBrain(model)
    agent = StudioAgent(brain, StudioRecords(store.engine), checkpointer)
    return StudioParts(agent, pipeline)
