"""The Event vocabulary: everything a run says, whichever face is listening.

Agents and tools create events without ``run_id``/``seq``/``ts``; the run's emitter fills
them in, stores the event, then publishes it. Faces translate events to their wire form.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AliasGenerator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    model_validator,
)
from pydantic.alias_generators import to_camel


def _now() -> datetime:
    return datetime.now(UTC)


class BaseEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str = ""
    thread_id: str = ""
    seq: int = 0
    ts: datetime = Field(default_factory=_now)
    # The discriminator: each event class narrows it to its own ``Literal`` with that default.
    kind: str


class RunStarted(BaseEvent):
    kind: Literal["run_started"] = "run_started"
    agent: str
    input: dict[str, Any] = Field(default_factory=dict)


class TextDelta(BaseEvent):
    kind: Literal["text_delta"] = "text_delta"
    delta: str


class Text(BaseEvent):
    kind: Literal["text"] = "text"
    text: str


class Code(BaseEvent):
    kind: Literal["code"] = "code"
    code: str
    language: str = "python"
    step: str | None = None


class CodeResult(BaseEvent):
    kind: Literal["code_result"] = "code_result"
    ok: bool
    stdout: str = ""
    stderr: str = ""
    error_type: str | None = None
    error_message: str | None = None
    step: str | None = None


class Image(BaseEvent):
    kind: Literal["image"] = "image"
    data_base64: str
    format: str = "png"
    path: str | None = None


class Table(BaseEvent):
    kind: Literal["table"] = "table"
    markdown: str
    html: str | None = None


class MapDefinition(BaseEvent):
    kind: Literal["map_definition"] = "map_definition"
    definition: dict[str, Any]


class MapShow(BaseEvent):
    """A map display command (seed 000 ``map``, new format or legacy ``points``)."""

    kind: Literal["map"] = "map"
    content: dict[str, Any]


class HighlightRoom(BaseEvent):
    kind: Literal["highlight_room"] = "highlight_room"
    rooms: list[str]


class Arrow(BaseEvent):
    kind: Literal["arrow"] = "arrow"
    room: str
    direction: Literal["up", "down", "left", "right"]


class ClearArrows(BaseEvent):
    kind: Literal["clear_arrows"] = "clear_arrows"


class ClearMap(BaseEvent):
    kind: Literal["clear_map"] = "clear_map"


class StepUpdate(BaseEvent):
    kind: Literal["step_update"] = "step_update"
    step: str
    confidence: str | float | None = None  # the Advisor says high, medium or low
    reasoning: str | None = None


class ToolCall(BaseEvent):
    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResult(BaseEvent):
    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    success: bool
    result: Any = None
    error: str | None = None
    aborted: bool = False


class Progress(BaseEvent):
    kind: Literal["progress"] = "progress"
    message: str
    fraction: float | None = None
    source: str | None = None


class Log(BaseEvent):
    kind: Literal["log"] = "log"
    level: str = "info"
    message: str
    data: dict[str, Any] = Field(default_factory=dict)


# The Studio's records as its events carry them: typed, snake_case. How a face spells them
# (the seed's camelCase) is the face's business (api/studio/wire.py).


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)  # SQLite gives naive UTC


Time = Annotated[datetime, AfterValidator(_utc)]


class Record(BaseModel):
    """A record inside an event. Columns it does not name are left out; events stored before
    records were typed spelled them in the wire's camelCase, and are read too."""

    model_config = ConfigDict(extra="ignore", validate_by_name=True, validate_by_alias=True,
                              alias_generator=AliasGenerator(validation_alias=to_camel))


class StudioAgentRecord(Record):
    id: str
    project_id: str
    type: str
    status: str
    progress: int
    current_task: str | None = None
    tokens_used: int = 0
    started_at: Time | None = None
    completed_at: Time | None = None
    error: str | None = None
    parent_agent_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: Time


class StudioLogEntry(Record):
    id: str
    timestamp: Time
    level: str
    message: str
    progress: int | None = None
    metadata: dict[str, Any] | None = None


class StudioOutputRecord(Record):
    id: str
    project_id: str
    agent_id: str
    output_type: str
    file_path: str | None = None
    summary: str = ""
    agent_type: str = ""
    size_bytes: int | None = None  # the file's, when it was written (not a column)
    created_at: Time


class StudioCheckpointOutput(Record):
    document_type: str | None = None
    summary: str | None = None
    content: dict[str, Any] | None = None
    tokens_used: int | None = None
    generation_time_ms: int | None = None
    preview_url: str | None = None
    # the image and sound files it covers (each judged on its own: Studio.judge_assets)
    assets: list[StudioOutputRecord] = Field(default_factory=list)


class StudioCheckpointRecord(Record):
    id: str
    project_id: str
    agent_id: str
    type: str
    title: str
    description: str | None = None
    output: StudioCheckpointOutput
    status: str
    feedback: str | None = None
    resolved_at: Time | None = None
    created_at: Time
    updated_at: Time


class StudioMetrics(Record):
    project_id: str
    total_tokens_used: int
    estimated_total_tokens: int
    elapsed_time_seconds: float
    estimated_remaining_seconds: float | None = None
    estimated_end_time: Time | None = None
    completed_tasks: int
    total_tasks: int
    progress_percent: float
    current_phase: int
    phase_name: str
    generation_counts: dict[str, dict[str, Any]] = {}  # kind -> {count, unit, calls}


class CheckpointCreated(BaseEvent):
    """A Studio checkpoint waits for a person (``checkpoint``: its record)."""

    kind: Literal["checkpoint_created"] = "checkpoint_created"
    checkpoint_id: str
    checkpoint: StudioCheckpointRecord

    @model_validator(mode="before")
    @classmethod
    def _stored_before(cls, data: Any) -> Any:  # events stored with a ``payload`` dict
        if isinstance(data, dict) and "payload" in data and "checkpoint" not in data:
            data = {**data, "checkpoint": data["payload"]}
            del data["payload"]
        return data


class CheckpointResolved(BaseEvent):
    """A checkpoint was answered: a Studio checkpoint's ``resolution`` (as stored:
    approved, rejected, revision_requested), ``feedback`` and record; ``value`` is the
    answer to a run's question otherwise."""

    kind: Literal["checkpoint_resolved"] = "checkpoint_resolved"
    checkpoint_id: str
    resolution: str | None = None
    feedback: str | None = None
    checkpoint: StudioCheckpointRecord | None = None
    value: Any = None

    @model_validator(mode="before")
    @classmethod
    def _stored_before(cls, data: Any) -> Any:  # the Studio's answer stored as ``value``
        value = data.get("value") if isinstance(data, dict) else None
        if isinstance(value, dict) and "checkpoint" in value and "resolution" in value:
            data = {**data, "value": None, "resolution": value["resolution"],
                    "feedback": value.get("feedback"), "checkpoint": value["checkpoint"]}
        return data


class Metrics(BaseEvent):
    kind: Literal["metrics"] = "metrics"
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    model: str | None = None


class AgentStarted(BaseEvent):
    """A pipeline agent (Studio) began work; ``agent`` is its record."""

    kind: Literal["agent_started"] = "agent_started"
    agent: StudioAgentRecord


class AgentProgress(BaseEvent):
    kind: Literal["agent_progress"] = "agent_progress"
    agent_id: str
    progress: int
    current_task: str
    completed_tasks: int
    total_tasks: int
    tokens_used: int | None = None  # the agent's so far (None in events stored before)


class AgentLog(BaseEvent):
    """One entry of a pipeline agent's log."""

    kind: Literal["agent_log"] = "agent_log"
    agent_id: str
    entry: StudioLogEntry
    agent_type: str | None = None  # None in events stored before it was carried


class AgentCompleted(BaseEvent):
    """A pipeline agent finished; ``agent`` is its record as it ended (None in events
    stored before it was carried)."""

    kind: Literal["agent_completed"] = "agent_completed"
    agent_id: str
    duration_ms: int
    tokens_used: int
    output_summary: str
    agent: StudioAgentRecord | None = None


class OutputCreated(BaseEvent):
    """A pipeline agent stored an output (``output``: its record, without its content)."""

    kind: Literal["output_created"] = "output_created"
    output: StudioOutputRecord


class AgentFailed(BaseEvent):
    """A pipeline agent's try failed (``can_retry``: it tries again), it gave up, was
    blocked (``dependency_error``) or a person rejected its work (``rejected``); ``agent``
    is its record as it is now (None in events stored before it was carried)."""

    kind: Literal["agent_failed"] = "agent_failed"
    agent_id: str
    error_type: str
    error_message: str
    can_retry: bool
    retry_count: int
    max_retries: int
    llm_error: str | None = None  # the model's failure kind (rate_limit, ...) if it was one
    retry_after: float | None = None
    agent: StudioAgentRecord | None = None


class AgentRetried(BaseEvent):
    """A person asked a failed (or blocked) pipeline agent to try again: it is pending
    until its project's run reaches it (``agent``: its record, ``previous_status``)."""

    kind: Literal["agent_retried"] = "agent_retried"
    agent_id: str
    previous_status: str
    agent: StudioAgentRecord


class AgentTokens(BaseEvent):
    kind: Literal["agent_tokens"] = "agent_tokens"
    agent_id: str
    tokens_used: int
    tokens_total: int


class ProjectStatus(BaseEvent):
    kind: Literal["project_status"] = "project_status"
    project_id: str
    old_status: str
    new_status: str


class PhaseChanged(BaseEvent):
    kind: Literal["phase_changed"] = "phase_changed"
    project_id: str
    phase: int
    phase_name: str


class ProjectMetrics(BaseEvent):
    """A project's figures."""

    kind: Literal["project_metrics"] = "project_metrics"
    metrics: StudioMetrics


class Debug(BaseEvent):
    """What an agent decided in one step, for a debug pane (seed 000 ``debug``)."""

    kind: Literal["debug"] = "debug"
    content: dict[str, Any] = Field(default_factory=dict)


class Error(BaseEvent):
    kind: Literal["error"] = "error"
    message: str
    code: str | None = None


class RunCompleted(BaseEvent):
    kind: Literal["run_completed"] = "run_completed"
    output: dict[str, Any] = Field(default_factory=dict)


class RunFailed(BaseEvent):
    """``error``: the operator's text (with the error id the log has it under); ``code``:
    the failure's machine code; ``said``: what the user reads, by language (``{"ja", "en"}``)
    when the failure speaks both (a model's: models/errors.py), for each face to pick from."""

    kind: Literal["run_failed"] = "run_failed"
    error: str
    code: str | None = None
    said: dict[str, str] | None = None


class RunCancelled(BaseEvent):
    kind: Literal["run_cancelled"] = "run_cancelled"
    reason: str = "cancelled"


class RunInterrupted(BaseEvent):
    """The run waits for a human answer; ``Runner.resume`` continues it."""

    kind: Literal["run_interrupted"] = "run_interrupted"
    payload: dict[str, Any] = Field(default_factory=dict)


Event = Annotated[
    RunStarted | TextDelta | Text | Code | CodeResult | Image | Table | MapDefinition | MapShow
    | HighlightRoom | Arrow | ClearArrows | ClearMap | StepUpdate | ToolCall | ToolResult
    | Progress | Log | Debug | CheckpointCreated | CheckpointResolved | Metrics | Error
    | AgentStarted | AgentProgress | AgentLog | AgentCompleted | AgentFailed | AgentTokens
    | AgentRetried | OutputCreated | ProjectStatus | PhaseChanged | ProjectMetrics
    | RunCompleted | RunFailed | RunCancelled | RunInterrupted,
    Field(discriminator="kind"),
]

TERMINAL_KINDS = frozenset({"run_completed", "run_failed", "run_cancelled", "run_interrupted"})

event_adapter: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: dict[str, Any] | str | bytes) -> Event:
    """Rebuild an Event from its stored JSON form."""
    if isinstance(data, str | bytes):
        return event_adapter.validate_json(data)
    return event_adapter.validate_python(data)


def is_terminal(event: BaseEvent) -> bool:
    return event.kind in TERMINAL_KINDS
