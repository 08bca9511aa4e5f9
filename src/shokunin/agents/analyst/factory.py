"""Build the Analyst agent from Settings: the offline brain, or a model's."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.analyst.agent import AnalystAgent
from shokunin.agents.analyst.brains import LLMBrain, OfflineBrain
from shokunin.config import Settings
from shokunin.models import is_offline, model_from_settings


def analyst_agent(settings: Settings, checkpointer: BaseCheckpointSaver | None) -> AnalystAgent:
    model = model_from_settings(settings)
    brain = OfflineBrain() if is_offline(model) else LLMBrain(model)
    return AnalystAgent(brain, checkpointer, max_attempts=settings.analyst_max_attempts)
