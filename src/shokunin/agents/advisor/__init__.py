"""The Advisor (seed 001): a step-guided consulting agent over a playbook and a knowledge
base."""

from shokunin.agents.advisor.agent import MAX_MESSAGE_CHARS, NAME, AdvisorAgent
from shokunin.agents.advisor.factory import advisor_agent
from shokunin.agents.advisor.playbook import UNKNOWN, Playbook, PlaybookError, Step, load_playbook
from shokunin.agents.advisor.steps import StepClassifier, StepDetection, settle

__all__ = ["AdvisorAgent", "MAX_MESSAGE_CHARS", "NAME", "Playbook", "PlaybookError", "Step",
    "StepClassifier", "StepDetection", "UNKNOWN", "advisor_agent", "load_playbook", "settle"]
