"""Build the Advisor from Settings: its playbook, its knowledge index (brought up to date
with the knowledge folder), and the offline brain or a model's."""

from __future__ import annotations

import logging

from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.advisor.agent import AdvisorAgent
from shokunin.agents.advisor.brains import LLMBrain, OfflineBrain
from shokunin.agents.advisor.playbook import load_playbook
from shokunin.config import Settings
from shokunin.knowledge import open_index
from shokunin.models import is_offline, model_from_settings

log = logging.getLogger(__name__)


def advisor_agent(settings: Settings, checkpointer: BaseCheckpointSaver | None) -> AdvisorAgent:
    playbook = load_playbook(settings.advisor_playbook)
    index = open_index(settings)
    if settings.knowledge_dir.is_dir():
        report = index.ingest(settings.knowledge_dir)
        for name, why in report.errors.items():
            log.warning("knowledge base: skipped %s: %s", name, why)
    else:
        log.warning("knowledge base: %s is not a folder", settings.knowledge_dir)
    model = model_from_settings(settings)
    brain = (OfflineBrain(playbook, index) if is_offline(model) else LLMBrain(model, index))
    return AdvisorAgent(brain, playbook, index, checkpointer)
