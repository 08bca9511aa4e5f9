"""The Advisor (seed 001): a step-guided consulting agent over a playbook and a knowledge
base."""

from shokunin.advisor.agent import NAME, AdvisorAgent
from shokunin.advisor.factory import advisor_agent
from shokunin.advisor.playbook import UNKNOWN, Playbook, PlaybookError, Step, load_playbook
from shokunin.advisor.steps import StepClassifier, StepDetection, settle

__all__ = ["NAME", "UNKNOWN", "AdvisorAgent", "Playbook", "PlaybookError", "Step",
           "StepClassifier", "StepDetection", "advisor_agent", "load_playbook", "settle"]
