"""The Studio (seed 002): a multi-agent project pipeline with human approval checkpoints."""

from shokunin.agents.studio.agent import StudioAgent
from shokunin.agents.studio.contracts import parse_resolution, socket_resolution
from shokunin.agents.studio.errors import (
    StudioConflict,
    StudioError,
    StudioInvalid,
    StudioNotFound,
)
from shokunin.agents.studio.factory import StudioParts, studio_parts
from shokunin.agents.studio.pipeline import Pipeline, PipelineError, load_pipeline
from shokunin.agents.studio.projects import Studio

__all__ = ["Pipeline", "PipelineError", "Studio", "StudioAgent", "StudioConflict",
           "StudioError", "StudioInvalid", "StudioNotFound", "StudioParts", "load_pipeline",
           "parse_resolution", "socket_resolution", "studio_parts"]
