"""The Studio (seed 002): a multi-agent project pipeline with human approval checkpoints."""

from shokunin.studio.agent import StudioAgent
from shokunin.studio.contracts import parse_resolution, socket_resolution
from shokunin.studio.factory import StudioParts, studio_parts
from shokunin.studio.pipeline import Pipeline, PipelineError, load_pipeline
from shokunin.studio.service import Studio, StudioConflict, StudioError, StudioNotFound

__all__ = ["Pipeline", "PipelineError", "Studio", "StudioAgent", "StudioConflict",
           "StudioError", "StudioNotFound", "StudioParts", "load_pipeline", "parse_resolution",
           "socket_resolution", "studio_parts"]
