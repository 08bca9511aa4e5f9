"""The pipeline as data: phases, agent types, dependencies, checkpoints, retries, fan-out.

A pipeline file (YAML) lists phases and agents::

    phases: [{number: 1, name: planning, title: "Phase 1: 企画・設計"}, ...]  # title: phaseName
    agents:
      - type: design            # a seed AgentType
        phase: 1
        depends_on: [concept]   # agents that must finish first (same or earlier phase)
        output: design_doc      # the OutputType it writes
        checkpoint: design_review   # a human approves it (a CheckpointType), or omit
        on_reject: project      # a rejection fails the project (or: phase)
        max_retries: 2
        timeout_seconds: 300
      - type: code_leader
        workers: {type: code_worker, tasks: code, output: code}  # one worker per task

A leader's ``workers`` fan out (LangGraph ``Send``) over the tasks of that kind in the
``task_breakdown``; the leader's checkpoint then covers the workers' outputs.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shokunin import bounded_yaml
from shokunin.agents.studio.contracts import AgentType, CheckpointType, OutputType
from shokunin.errors import ShokuninError

DEFAULT_PIPELINE = Path(__file__).resolve().parents[2] / "data" / "studio" / "pipeline.yaml"


class PipelineError(ShokuninError, ValueError):
    """A pipeline file that cannot be used, with the reason."""


class Phase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    number: Literal[1, 2, 3]
    name: str = Field(min_length=1)
    title: str = ""  # what a person reads (phaseName); the name when empty


class Workers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: AgentType
    tasks: str = Field(min_length=1, description="the task kind in the task breakdown")
    output: OutputType


class AgentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: AgentType
    phase: Literal[1, 2, 3]
    title: str = ""
    depends_on: list[AgentType] = Field(default_factory=list)
    output: OutputType
    checkpoint: CheckpointType | None = None
    on_reject: Literal["project", "phase"] = "project"
    max_retries: int = Field(default=2, ge=0, le=10)
    timeout_seconds: float = Field(default=300, gt=0, le=86_400)
    workers: Workers | None = None


class Pipeline(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "pipeline"
    phases: list[Phase]
    agents: list[AgentSpec]

    @model_validator(mode="after")
    def _consistent(self) -> Pipeline:
        numbers = [p.number for p in self.phases]
        if not numbers or not self.agents:
            raise ValueError("a pipeline needs at least one phase and one agent")
        if len(numbers) != len(set(numbers)):
            raise ValueError("phases must have distinct numbers")
        seen: dict[str, AgentSpec] = {}
        workers = {a.workers.type for a in self.agents if a.workers}
        for agent in self.agents:
            if agent.type in seen or agent.type in workers:
                raise ValueError(f"agent type {agent.type!r} appears twice")
            if agent.phase not in numbers:
                raise ValueError(f"agent {agent.type!r} is in phase {agent.phase}, "
                                 "which the pipeline does not list")
            for dep in agent.depends_on:
                if dep not in seen:  # listed before: no cycles by construction
                    raise ValueError(f"agent {agent.type!r} depends on {dep!r}, which is "
                                     "not an agent listed before it")
                if seen[dep].phase > agent.phase:
                    raise ValueError(f"agent {agent.type!r} (phase {agent.phase}) depends "
                                     f"on {dep!r} of a later phase")
            seen[agent.type] = agent
        if self.workers_need_breakdown and not any(
                a.output == "task_breakdown" for a in self.agents):
            raise ValueError("workers fan out over a task_breakdown, but no agent writes one")
        return self

    @property
    def workers_need_breakdown(self) -> bool:
        return any(a.workers for a in self.agents)

    @cached_property
    def by_type(self) -> dict[str, AgentSpec]:
        return {a.type: a for a in self.agents}

    def phase_name(self, number: int) -> str:
        """What a person calls the phase: its title, else its name."""
        return next((p.title or p.name for p in self.phases if p.number == number),
                    str(number))

    def dependents(self, agent_type: str) -> list[AgentSpec]:
        return [a for a in self.agents if agent_type in a.depends_on]


def load_pipeline(path: Path | None = None) -> Pipeline:
    """Read and check a pipeline file (the shipped game-development pipeline by default)."""
    path = path or DEFAULT_PIPELINE
    try:
        data = bounded_yaml.read(path)
    except OSError as exc:
        raise PipelineError(f"cannot read the pipeline {path}: {exc.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise PipelineError(f"the pipeline {path} is not valid YAML: {exc}") from None
    except bounded_yaml.YamlTooLarge as exc:
        raise PipelineError(f"the pipeline {path} is refused: {exc}") from None
    try:
        return Pipeline.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise PipelineError(f"the pipeline {path} is invalid at {where}: {first['msg']}"
                            ) from None
