"""Engine events -> the Studio's Socket.IO messages, in a dialect.

``seed``: seed 002 section 1.1, flat payloads. ``client``: what the seed project's React
client (socket.io-client 4) listens for: nested payloads (``agent:started {agent, agentId,
projectId}``, ``agent:completed {agent, ...}``, ``agent:failed {agent, agentId, projectId,
error}``, ``agent:retry {agent, ...}``: each event the client names an agent in carries its
record; ``agent:log {agentId, entry}``, ``checkpoint:created {checkpoint, ...}``,
``metrics:update {projectId, metrics}``), ``project:updated`` for a status change,
``phase:changed`` for a phase change and ``asset:created`` for an image or sound an agent
made (``pending``: a person judges each one in the client's data tab). ``both`` (what a
connection gets unless it names one): each message in both forms at once. The two forms
never give one key two meanings, so a payload can carry the seed's keys and the client's
side by side; where they name an event differently, both names are sent (a Socket.IO client
ignores events it does not listen for). Both dialects get ``error:agent`` when an agent
gives up (an agent blocked before it began gets ``error:agent`` alone) and ``error:llm``
when a model failed. Work a person rejected is told by ``checkpoint:resolved``; the
client's form adds ``agent:failed`` for it (the seed's errorTypes name no rejection). Every
payload carries an ISO ``timestamp``.

Optional fields the seed spells ``field?: T`` are left out when there is no value, never
sent as ``null``; ``estimatedRemainingSeconds`` is always a number (``metrics_json``).

Engine events carry the Studio's records typed and in snake_case; the seed's camelCase is
spelled here only, by the seed's contract types (``agents/studio/contracts.py``), the same
ones the REST face answers with.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel

from shokunin import events as ev
from shokunin.agents.studio import socket_resolution
from shokunin.agents.studio.contracts import (
    Agent,
    AgentLogEntry,
    AgentMetrics,
    Checkpoint,
    ProjectMetrics,
)

Dialect = Literal["seed", "client", "both"]
DIALECTS: tuple[Dialect, ...] = ("seed", "client", "both")
Message = tuple[str, dict[str, Any]]

_SUGGESTIONS = {
    "timeout": ["Raise the agent's timeout_seconds in the pipeline", "Retry the project"],
    "llm_error": ["Check the model's settings and key (SHOKUNIN_MODEL)", "Retry later"],
    "validation_error": ["Request changes with clearer instructions", "Try another model"],
    "dependency_error": ["Resolve the failed agent it depends on"],
}


ASSET_TYPES = {"asset_image": "image", "asset_audio": "audio"}  # the client's asset kinds


def _iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def _ts(event: ev.BaseEvent) -> str:
    return _iso(event.ts)


def _camel(contract: type[BaseModel], record: BaseModel, exclude_none: bool = False
           ) -> dict[str, Any]:
    """A record as the seed spells it: its contract type's camelCase JSON."""
    return contract.model_validate(record.model_dump()).model_dump(
        mode="json", by_alias=True, exclude_none=exclude_none)


def agent_json(record: ev.StudioAgentRecord) -> dict[str, Any]:
    return _camel(Agent, record)


def checkpoint_json(record: ev.StudioCheckpointRecord) -> dict[str, Any]:
    """The seed's Checkpoint; its output's optional fields (``previewUrl`` ...) only when
    they have a value."""
    checkpoint = _camel(Checkpoint, record)
    checkpoint["output"] = {k: v for k, v in checkpoint["output"].items() if v is not None}
    return checkpoint


def log_json(record: ev.StudioLogEntry) -> dict[str, Any]:
    return _camel(AgentLogEntry, record, exclude_none=True)


def system_log_json(record: ev.StudioLogEntry, agent_id: str, source: str
                    ) -> dict[str, Any]:
    """A log entry in the project's log as the seed project's client lists it (the form of
    ``GET /api/projects/{id}/logs``): the agent it is from (``source``: its type) and its
    metadata as text (``details``)."""
    entry = log_json(record)
    metadata = entry.pop("metadata", None)
    return entry | {"agentId": agent_id, "source": source, "details": json.dumps(
        metadata, ensure_ascii=False) if metadata else None}


def remaining_estimate(seconds: float | None, progress: float, elapsed: float
                       ) -> tuple[float, bool]:
    """The remaining time as a number and whether it is an estimate: ``seconds`` when the
    figures had one (from finished agents of the same types), else one from the progress so
    far (percent) and the time it took; (0, False) when neither can be made yet."""
    if seconds is not None:
        return seconds, True
    if progress <= 0:
        return 0.0, False
    return round(elapsed * (100 - progress) / progress, 3), True


def metrics_json(record: ev.StudioMetrics) -> dict[str, Any]:
    """The seed's ProjectMetrics. ``estimatedRemainingSeconds`` is a number
    (``remaining_estimate``); ``remainingEstimated`` is false when it could not be
    estimated yet (the number is then 0)."""
    metrics = _camel(ProjectMetrics, record)
    metrics["estimatedRemainingSeconds"], metrics["remainingEstimated"] = remaining_estimate(
        metrics["estimatedRemainingSeconds"], metrics["progressPercent"],
        metrics["elapsedTimeSeconds"])
    return metrics


def agent_metrics_json(figures: AgentMetrics) -> dict[str, Any]:
    """The seed's AgentMetrics, its sub-agents' too, with the remaining time a number as in
    ``metrics_json`` (from the agent's progress and running time when no agent of its type
    finished yet)."""
    metrics = figures.model_dump(mode="json", by_alias=True, exclude={"sub_agent_metrics"})
    metrics["estimatedRemainingSeconds"], metrics["remainingEstimated"] = remaining_estimate(
        metrics["estimatedRemainingSeconds"], metrics["progress"], metrics["runtimeSeconds"])
    metrics["subAgentMetrics"] = [agent_metrics_json(s) for s in figures.sub_agent_metrics]
    return metrics


def file_size(size_bytes: int | None) -> str:
    """A file's size as the client reads it (``"12.3 KB"``); ``""`` when it is not known."""
    if size_bytes is None:
        return ""
    size = float(size_bytes)
    for unit in ("B", "KB", "MB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def asset_json(record: ev.StudioOutputRecord, approval_status: str = "pending"
               ) -> dict[str, Any]:
    """An output file as the seed project's client lists an asset, in the form of ``GET
    /api/projects/{id}/assets``: its kind (``image`` for ``asset_image``; the seed's type in
    ``outputType``), where it is served, and whether a person approved it yet. ``size`` is the
    file's as written (``""`` for an output told before sizes were recorded)."""
    path = record.file_path or ""
    url = f"/api/projects/{record.project_id}/files/{quote(path)}" if path else None
    kind = ASSET_TYPES.get(record.output_type, "other")
    return {"id": record.id, "agentId": record.agent_id,
            "name": path.rsplit("/", 1)[-1] or record.output_type, "type": kind,
            "outputType": record.output_type, "filePath": path or None,
            "agent": record.agent_type, "size": file_size(record.size_bytes), "url": url,
            "thumbnail": url if kind == "image" else None, "duration": None,
            "content": record.summary or None, "approvalStatus": approval_status,
            "createdAt": _iso(record.created_at)}


def to_wire(event: ev.BaseEvent, dialect: Dialect) -> list[Message]:
    """The messages one event becomes (none for events the Studio does not show)."""
    handler = _HANDLERS.get(event.kind)
    if handler is None:
        return []
    if dialect != "both":
        return handler(event, dialect, _ts(event))
    return merged(handler(event, "seed", _ts(event)), handler(event, "client", _ts(event)))


def merged(seed: list[Message], client: list[Message]) -> list[Message]:
    """Both forms of the same messages: a message both forms send once, as one payload
    (the seed's keys first, the client's added); any other, as it is."""
    seed_names = [name for name, _ in seed]
    client_names = [name for name, _ in client]
    out = list(seed)
    for name, payload in client:
        if seed_names.count(name) == 1 and client_names.count(name) == 1:
            i = seed_names.index(name)
            out[i] = (name, out[i][1] | {k: v for k, v in payload.items()
                                         if k not in out[i][1]})
        else:
            out.append((name, payload))
    return out


def _started(e: ev.AgentStarted, d: Dialect, ts: str) -> list[Message]:
    agent = agent_json(e.agent)
    if d == "client":
        return [("agent:started", {"agent": agent, "agentId": agent["id"],
                                   "projectId": agent["projectId"], "timestamp": ts})]
    return [("agent:started", {"agentId": agent["id"], "agentType": agent["type"],
                               "projectId": agent["projectId"], "timestamp": ts})]


def _progress(e: ev.AgentProgress, d: Dialect, ts: str) -> list[Message]:
    payload = {"agentId": e.agent_id, "progress": e.progress, "currentTask": e.current_task,
               "completedTasks": e.completed_tasks, "totalTasks": e.total_tasks,
               "timestamp": ts}
    if d == "client":
        payload["projectId"] = e.thread_id
        if e.tokens_used is not None:  # the client shows what it gets: no 0 for unknown
            payload["tokensUsed"] = e.tokens_used
    return [("agent:progress", payload)]


def _log(e: ev.AgentLog, d: Dialect, ts: str) -> list[Message]:
    entry = log_json(e.entry)
    if d == "client":  # the agent's log, and the project's (its sidebar and Logs tab)
        return [("agent:log", {"agentId": e.agent_id, "projectId": e.thread_id,
                               "entry": entry}),
                ("system_log:created", {"projectId": e.thread_id, "log": system_log_json(
                    e.entry, e.agent_id, e.agent_type or "System")})]
    level = {"warn": "WARN"}.get(entry["level"], entry["level"].upper())
    payload = {"agentId": e.agent_id, "level": level, "message": entry["message"],
               "timestamp": entry.get("timestamp", ts)}
    if entry.get("metadata") is not None:
        payload["metadata"] = entry["metadata"]
    return [("agent:log", payload)]


def _completed(e: ev.AgentCompleted, d: Dialect, ts: str) -> list[Message]:
    payload = {"agentId": e.agent_id, "duration": e.duration_ms, "tokensUsed": e.tokens_used,
               "outputSummary": e.output_summary, "timestamp": ts}
    if d == "client":  # it names the agent from the record (metadata.displayName)
        payload["projectId"] = e.thread_id
        if e.agent is not None:
            payload = {"agent": agent_json(e.agent)} | payload
    return [("agent:completed", payload)]


def _output(e: ev.OutputCreated, d: Dialect, ts: str) -> list[Message]:
    """The seed has no event for an output; the client lists images and sounds it made."""
    if d != "client" or not e.output.output_type.startswith("asset_"):
        return []
    return [("asset:created", {"projectId": e.output.project_id,
                               "asset": asset_json(e.output), "timestamp": ts})]


def _named(e: ev.AgentFailed | ev.AgentRetried) -> dict[str, Any]:
    """What the client names an agent by in its toasts and finds it by: its record."""
    return {"agent": agent_json(e.agent)} if e.agent is not None else {}


def _failed(e: ev.AgentFailed, d: Dialect, ts: str) -> list[Message]:
    """An agent's failure, named by its record. Work a person rejected is told by
    ``checkpoint:resolved`` (the seed's errorTypes name no rejection): the client's form
    adds ``agent:failed``, which its agent list shows. An agent blocked before it began
    (it depended on what failed) did not fail: ``error:agent`` alone says why it will not
    run; the client, which has no blocked status, goes on showing it waiting."""
    out: list[Message] = []
    rejected = e.error_type == "rejected"
    never_ran = (e.error_type == "dependency_error" and e.agent is not None
                 and e.agent.started_at is None)
    if d == "client" and not never_ran:
        out.append(("agent:failed", _named(e) | {
            "agentId": e.agent_id, "projectId": e.thread_id, "error": e.error_message,
            "errorType": e.error_type, "canRetry": e.can_retry, "timestamp": ts}))
        if e.can_retry and e.agent is not None:  # it tries again: still at work
            out.append(("agent:running", {"agent": agent_json(e.agent),
                                          "agentId": e.agent_id, "projectId": e.thread_id,
                                          "timestamp": ts}))
    elif d != "client" and not rejected and not never_ran:
        out.append(("agent:failed", {
            "agentId": e.agent_id, "errorType": e.error_type, "errorMessage": e.error_message,
            "canRetry": e.can_retry, "retryCount": e.retry_count, "maxRetries": e.max_retries,
            "timestamp": ts}))
    if e.llm_error:
        llm: dict[str, Any] = {"errorType": e.llm_error, "errorMessage": e.error_message,
                               "timestamp": ts}
        if e.retry_after is not None:
            llm["retryAfter"] = e.retry_after
        out.append(("error:llm", llm))
    if not e.can_retry and not rejected:
        actions = [{"label": "View logs", "action": f"logs:{e.agent_id}"}]
        out.append(("error:agent", {
            "agentId": e.agent_id, "errorType": e.error_type, "errorMessage": e.error_message,
            "suggestions": _SUGGESTIONS.get(e.error_type, []), "actions": actions,
            "timestamp": ts}))
    return out


def _retried(e: ev.AgentRetried, d: Dialect, ts: str) -> list[Message]:
    """The seed has no event for it (its agent starts again later); the client sets the
    agent pending (``agent:retry``)."""
    if d != "client":
        return []
    return [("agent:retry", _named(e) | {"agentId": e.agent_id, "projectId": e.thread_id,
                                         "previousStatus": e.previous_status,
                                         "timestamp": ts})]


def _tokens(e: ev.AgentTokens, d: Dialect, ts: str) -> list[Message]:
    return [("metrics:tokens", {"agentId": e.agent_id, "tokensUsed": e.tokens_used,
                                "tokensTotal": e.tokens_total, "timestamp": ts})]


def _checkpoint_created(e: ev.CheckpointCreated, d: Dialect, ts: str) -> list[Message]:
    cp = checkpoint_json(e.checkpoint)
    flat = {"checkpointId": cp["id"], "projectId": cp["projectId"], "agentId": cp["agentId"],
            "checkpointType": cp["type"], "title": cp["title"],
            "outputPreview": (cp.get("output") or {}).get("summary") or "", "timestamp": ts}
    return [("checkpoint:created", ({"checkpoint": cp} if d == "client" else {}) | flat)]


def _checkpoint_resolved(e: ev.CheckpointResolved, d: Dialect, ts: str) -> list[Message]:
    if e.resolution is None:  # the answer to another agent's question: not the Studio's
        return []
    flat: dict[str, Any] = {"checkpointId": e.checkpoint_id,
                            "resolution": socket_resolution(e.resolution), "timestamp": ts}
    if e.feedback is not None:
        flat["feedback"] = e.feedback
    if d == "client":  # its agent, by which the client names it in its activity feed
        checkpoint = checkpoint_json(e.checkpoint) if e.checkpoint is not None else None
        named = {"agentId": checkpoint["agentId"]} if checkpoint is not None else {}
        return [("checkpoint:resolved", {"checkpoint": checkpoint,
                                         "projectId": e.thread_id} | named | flat)]
    return [("checkpoint:resolved", flat)]


def _status(e: ev.ProjectStatus, d: Dialect, ts: str) -> list[Message]:
    if d == "client":
        return [("project:updated", {"projectId": e.project_id,
                                     "updates": {"status": e.new_status, "updatedAt": ts}})]
    return [("project:status_changed", {"projectId": e.project_id, "oldStatus": e.old_status,
                                        "newStatus": e.new_status, "timestamp": ts})]


def _phase(e: ev.PhaseChanged, d: Dialect, ts: str) -> list[Message]:
    if d == "client":
        return [("phase:changed", {"projectId": e.project_id, "phase": e.phase,
                                   "phaseName": e.phase_name})]
    return [("project:phase_changed", {"projectId": e.project_id, "phase": e.phase,
                                       "phaseName": e.phase_name, "timestamp": ts})]


def _metrics(e: ev.ProjectMetrics, d: Dialect, ts: str) -> list[Message]:
    m = metrics_json(e.metrics)
    if d == "client":
        return [("metrics:update", {"projectId": m["projectId"], "metrics": m})]
    return [("metrics:update", {
        "projectId": m["projectId"], "totalTokens": m["totalTokensUsed"],
        "estimatedTotalTokens": m["estimatedTotalTokens"],
        "elapsedSeconds": m["elapsedTimeSeconds"],
        "estimatedRemainingSeconds": m["estimatedRemainingSeconds"],
        "completedTasks": m["completedTasks"], "totalTasks": m["totalTasks"],
        "timestamp": ts})]


_HANDLERS: dict[str, Any] = {
    "agent_started": _started, "agent_progress": _progress, "agent_log": _log,
    "agent_completed": _completed, "agent_failed": _failed, "agent_tokens": _tokens,
    "agent_retried": _retried,
    "output_created": _output,
    "checkpoint_created": _checkpoint_created, "checkpoint_resolved": _checkpoint_resolved,
    "project_status": _status, "phase_changed": _phase, "project_metrics": _metrics,
}
