"""The Studio's wire types (seed 002), as pydantic models that dump camelCase.

Enum values are the seed's. One spelling differs between the seed's two halves: a change
request is ``changes_requested`` on the socket and ``revision_requested`` in REST; both
are accepted everywhere (``parse_resolution``) and stored as ``revision_requested``.

A project's ``concept`` and ``config`` keep the fields a client adds beyond the seed (the
seed project's React client sends ``concept.references``, ``config.scale``,
``config.assetGeneration``, ...): they are stored and given back as sent; the seed's own
fields are still checked. An empty ``platform`` or ``scope`` (that client's form before a
button is pressed) is the seed's first value, ``web`` / ``mvp``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

# SQLite gives back naive datetimes (stored as UTC): every time on the wire says it is UTC.
Timestamp = Annotated[datetime, AfterValidator(
    lambda value: value if value.tzinfo else value.replace(tzinfo=UTC))]

ProjectStatus = Literal["draft", "running", "paused", "completed", "failed"]
AgentStatus = Literal["pending", "running", "completed", "failed", "blocked"]
CheckpointStatus = Literal["pending", "approved", "rejected", "revision_requested"]
AgentType = Literal[
    "concept", "design", "scenario", "character", "world", "task_split",
    "code_leader", "asset_leader", "code_worker", "asset_worker",
    "integrator", "tester", "reviewer"]
OutputType = Literal[
    "concept_doc", "design_doc", "scenario_doc", "character_specs", "world_design",
    "task_breakdown", "code", "asset_image", "asset_audio",
    "build_result", "test_result", "review_result"]
CheckpointType = Literal[
    "concept_review", "design_review", "scenario_review", "character_review", "world_review",
    "task_split_review", "code_review", "asset_review", "integration_review",
    "test_review", "final_review", "release_decision"]
ErrorType = Literal["timeout", "llm_error", "validation_error", "dependency_error"]
Resolution = Literal["approved", "rejected", "revision_requested"]
RESOLUTIONS = ("approved", "rejected", "revision_requested", "changes_requested")


def parse_resolution(value: str) -> Resolution:
    """Either spelling of a change request, as stored: ``revision_requested``."""
    if value == "changes_requested":
        return "revision_requested"
    if value in ("approved", "rejected", "revision_requested"):
        return value  # type: ignore[return-value]
    raise ValueError(f"{', '.join(RESOLUTIONS)} のどれかにしてください")


def socket_resolution(value: str) -> str:
    """The socket's spelling of a stored resolution (seed 1.1 CheckpointResolvedEvent)."""
    return "changes_requested" if value == "revision_requested" else value


class Wire(BaseModel):
    """Dumps camelCase (``model_dump(by_alias=True)``), accepts either case; built from a
    stored row, it ignores the row's own columns."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True,
                              extra="ignore")


class Input(Wire):
    """A request body: an unknown field is an error that names it, and so is text with a NUL
    character (PostgreSQL cannot store it)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="after")
    def _no_nul(self) -> Input:
        for name, value in self:
            if isinstance(value, str) and "\x00" in value:
                raise ValueError(f"{name} に NUL 文字は使えません")
        return self


class Optional_(Input):
    """The seed's optional fields (``genre?``) are left out when unset, not sent as null."""

    @model_serializer(mode="wrap")
    def _without_unset(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}


PLATFORMS = ("web", "desktop", "mobile")  # the seed's GameConcept.platform, default first
SCOPES = ("mvp", "full")  # the seed's GameConcept.scope, default first
MAX_EXTRA_FIELDS = 50  # a client's own fields kept in a concept or a config


def _chosen(default: str) -> Any:
    """An empty choice (a form sent before a button was pressed) is the default."""
    return BeforeValidator(lambda value: default if value == "" else value)


class Open(Optional_):
    """A seed record a client may extend: its unknown fields are kept as sent (stored and
    given back), the seed's own are checked."""

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def _few_extras(self) -> Open:
        if len(self.model_extra or {}) > MAX_EXTRA_FIELDS:
            raise ValueError(f"シードにない項目は {MAX_EXTRA_FIELDS} 個までです")
        return self


class GameConcept(Open):
    description: str = Field(min_length=1, max_length=10_000)
    platform: Annotated[Literal["web", "desktop", "mobile"], _chosen(PLATFORMS[0])]
    scope: Annotated[Literal["mvp", "full"], _chosen(SCOPES[0])]
    genre: str | None = Field(default=None, max_length=200)
    target_audience: str | None = Field(default=None, max_length=500)


class ProjectConfig(Open):
    llm_provider: Literal["claude", "gpt4"] | None = None
    max_tokens_per_agent: int | None = Field(default=None, ge=1, le=10_000_000)
    enable_asset_generation: bool | None = None


class CreateProjectInput(Input):
    name: str = Field(min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=10_000)
    concept: GameConcept
    config: ProjectConfig | None = None

    @field_validator("name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("空白だけの名前は使えません")
        return value.strip()


class UpdateProjectInput(Input):
    """PATCH: the fields given replace the stored ones (a changed concept only while a
    draft). ``status: "draft"`` stops a running or paused project (the seed project's
    client's stop button); other statuses change through start, pause and resume."""

    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=10_000)
    concept: GameConcept | None = None
    config: ProjectConfig | None = None
    status: Literal["draft"] | None = None


class BrushupInput(Input):
    """POST /api/projects/{id}/brushup, as the seed project's React client sends it: the
    agent types to run again and what to tell them (per agent and for all)."""

    selected_agents: list[str] = Field(default_factory=list, max_length=50)
    agent_options: dict[str, list[Annotated[str, Field(max_length=200)]]] = Field(
        default_factory=dict, max_length=50)
    agent_instructions: dict[str, Annotated[str, Field(max_length=10_000)]] = Field(
        default_factory=dict, max_length=50)
    custom_instruction: str = Field(default="", max_length=10_000)
    clear_assets: bool = False
    reference_image_ids: list[str] = Field(default_factory=list, max_length=20)


class AssetVerdict(Input):
    """PATCH /api/projects/{id}/assets/{asset}: a person's verdict on one asset."""

    approval_status: Literal["approved", "rejected", "pending"]


class AssetVerdicts(AssetVerdict):
    """PATCH /api/projects/{id}/assets/bulk: the same verdict on several assets."""

    asset_ids: list[Annotated[str, Field(max_length=64)]] = Field(min_length=1,
                                                                   max_length=500)


class ResolveCheckpointRequest(Input):
    resolution: Literal["approved", "rejected", "revision_requested", "changes_requested"]
    feedback: str | None = Field(default=None, max_length=20_000)


class SocketResolution(ResolveCheckpointRequest):
    checkpoint_id: str = Field(min_length=1, max_length=64)


class Seed(Wire):
    """A seed record whose ``field?`` (absent-or-value) fields are left out when unset, not
    sent as null; a ``field: T | null`` stays null."""

    absent_if_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _without_absent(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        for name in self.absent_if_none:
            for key in (name, to_camel(name)):
                if key in data and data[key] is None:
                    del data[key]
        return data


class Project(Seed):
    absent_if_none = frozenset({"description", "concept", "state", "config"})
    id: str
    name: str
    description: str | None = None
    concept: GameConcept | None = None
    status: ProjectStatus
    current_phase: Literal[1, 2, 3]
    state: dict[str, Any] | None = None
    config: ProjectConfig | None = None
    created_at: Timestamp
    updated_at: Timestamp


class Agent(Wire):
    id: str
    project_id: str
    type: AgentType
    status: AgentStatus
    progress: int
    current_task: str | None
    tokens_used: int
    started_at: Timestamp | None
    completed_at: Timestamp | None
    error: str | None
    parent_agent_id: str | None
    metadata: dict[str, Any]
    created_at: Timestamp


class AgentLogEntry(Seed):
    absent_if_none = frozenset({"progress", "metadata"})
    id: str
    timestamp: Timestamp
    level: Literal["debug", "info", "warn", "error"]
    message: str
    progress: int | None = None
    metadata: dict[str, Any] | None = None


class AgentOutput(Wire):
    id: str
    agent_id: str
    output_type: OutputType
    content: dict[str, Any] | None
    file_path: str | None
    tokens_used: int
    generation_time_ms: int
    created_at: Timestamp


class CheckpointOutput(Seed):
    absent_if_none = frozenset({"document_type", "summary", "content", "tokens_used",
                                "generation_time_ms", "preview_url"})
    document_type: str | None = None
    summary: str | None = None
    content: dict[str, Any] | None = None
    tokens_used: int | None = None
    generation_time_ms: int | None = None
    preview_url: str | None = None


class Checkpoint(Wire):
    id: str
    project_id: str
    agent_id: str
    type: CheckpointType
    title: str
    description: str | None
    output: CheckpointOutput
    status: CheckpointStatus
    feedback: str | None
    resolved_at: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp


class AgentMetrics(Wire):
    agent_id: str
    agent_type: AgentType
    status: AgentStatus
    progress: int
    current_task: str | None
    tokens_used: int
    tokens_estimated: int
    runtime_seconds: float
    estimated_remaining_seconds: float | None
    completed_tasks: int
    total_tasks: int
    active_sub_agents: int
    sub_agent_metrics: list[AgentMetrics]


class GenerationCount(Wire):
    """How much of one kind of output a project has (the seed project's client's tiles)."""

    count: int
    unit: str
    calls: int


class ProjectMetrics(Wire):
    project_id: str
    total_tokens_used: int
    estimated_total_tokens: int
    elapsed_time_seconds: float
    # null until agents of the remaining types have finished somewhere (no sample to go by)
    estimated_remaining_seconds: float | None
    estimated_end_time: Timestamp | None
    completed_tasks: int
    total_tasks: int
    progress_percent: float
    current_phase: Literal[1, 2, 3]
    phase_name: str
    # beyond the seed: the project's outputs by kind (``generation_counts``), what the seed
    # project's client shows as its output tiles
    generation_counts: dict[str, GenerationCount] = Field(default_factory=dict)
