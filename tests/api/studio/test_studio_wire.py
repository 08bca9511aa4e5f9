"""Engine events to the Studio's socket messages, in both dialects."""

from __future__ import annotations

from shokunin import events as ev
from shokunin.agents.studio.contracts import AgentMetrics
from shokunin.api.studio.wire import agent_metrics_json, checkpoint_json, file_size, to_wire


def failed(**overrides: object) -> ev.AgentFailed:
    values = {"agent_id": "a1", "error_type": "llm_error", "error_message": "429 rate limit",
              "can_retry": True, "retry_count": 1, "max_retries": 2, "llm_error": "rate_limit",
              "retry_after": 20.0, "thread_id": "p1"}
    return ev.AgentFailed(**(values | overrides))


def test_a_models_failure_is_also_told_as_error_llm_with_its_retry_after() -> None:
    names = [name for name, _ in to_wire(failed(), "seed")]
    assert names == ["agent:failed", "error:llm"]
    _, llm = to_wire(failed(), "seed")[1]
    assert llm["errorType"] == "rate_limit" and llm["retryAfter"] == 20.0
    assert llm["timestamp"].endswith("Z")


def test_an_agent_that_gave_up_is_told_as_error_agent_with_suggestions() -> None:
    messages = dict(to_wire(failed(can_retry=False, error_type="timeout", llm_error=None,
                                   retry_after=None), "seed"))
    assert set(messages) == {"agent:failed", "error:agent"}
    agent_error = messages["error:agent"]
    assert agent_error["errorType"] == "timeout" and agent_error["suggestions"]
    assert agent_error["actions"] == [{"label": "View logs", "action": "logs:a1"}]
    assert messages["agent:failed"]["canRetry"] is False


def test_the_client_dialect_nests_the_failure_and_the_log_entry() -> None:
    [(name, payload), *_] = to_wire(failed(), "client")
    assert name == "agent:failed"
    assert payload["error"] == "429 rate limit" and payload["projectId"] == "p1"
    entry = {"id": "l1", "timestamp": "2026-01-01T00:00:00Z", "level": "warn",
             "message": "m"}
    log = ev.AgentLog(agent_id="a1", entry=entry, thread_id="p1", agent_type="concept")
    assert to_wire(log, "client") == [
        ("agent:log", {"agentId": "a1", "projectId": "p1", "entry": entry}),
        # the project's log too, as its log list holds it (GET /api/projects/{id}/logs)
        ("system_log:created", {"projectId": "p1", "log": entry | {
            "agentId": "a1", "source": "concept", "details": None}})]
    [(_, seed)] = to_wire(log, "seed")
    assert seed["level"] == "WARN" and seed["message"] == "m"


def test_events_of_other_faces_are_not_sent() -> None:
    assert to_wire(ev.TextDelta(delta="x"), "seed") == []
    assert to_wire(ev.RunCompleted(), "client") == []


def metrics(**overrides: object) -> ev.ProjectMetrics:
    values = {"project_id": "p1", "total_tokens_used": 0, "estimated_total_tokens": 0,
              "elapsed_time_seconds": 30.0, "estimated_remaining_seconds": None,
              "completed_tasks": 0, "total_tasks": 4, "progress_percent": 0.0,
              "current_phase": 1, "phase_name": "planning"}
    return ev.ProjectMetrics(metrics=ev.StudioMetrics(**(values | overrides)), thread_id="p1")


def test_the_remaining_time_is_a_number_estimated_from_progress_when_there_are_no_samples(
        ) -> None:
    [(_, early)] = to_wire(metrics(), "client")
    assert early["metrics"]["estimatedRemainingSeconds"] == 0
    assert early["metrics"]["remainingEstimated"] is False
    [(_, seed)] = to_wire(metrics(), "seed")
    assert seed["estimatedRemainingSeconds"] == 0  # the seed's event, its keys alone
    [(_, later)] = to_wire(metrics(progress_percent=25.0, completed_tasks=1), "client")
    assert later["metrics"]["estimatedRemainingSeconds"] == 90.0
    assert later["metrics"]["remainingEstimated"] is True
    [(_, sampled)] = to_wire(metrics(estimated_remaining_seconds=12.5), "client")
    assert sampled["metrics"]["estimatedRemainingSeconds"] == 12.5
    assert sampled["metrics"]["remainingEstimated"] is True


def agent_record(**overrides: object) -> dict[str, object]:
    return {"id": "a1", "project_id": "p1", "type": "concept", "status": "completed",
            "progress": 100, "metadata": {"displayName": "ゲームコンセプト"},
            "created_at": "2026-01-01T00:00:00Z"} | overrides


def test_both_forms_at_once_carry_every_key_of_each_and_both_event_names() -> None:
    samples: list[ev.BaseEvent] = [
        failed(),
        ev.AgentStarted(agent=agent_record(status="running"), thread_id="p1"),
        ev.AgentProgress(agent_id="a1", progress=10, current_task="t", completed_tasks=0,
                         total_tasks=1, tokens_used=7, thread_id="p1"),
        ev.AgentCompleted(agent_id="a1", duration_ms=5, tokens_used=7, output_summary="s",
                          agent=agent_record(), thread_id="p1"),
        ev.ProjectStatus(project_id="p1", old_status="draft", new_status="running"),
        ev.PhaseChanged(project_id="p1", phase=2, phase_name="development"),
        metrics(progress_percent=50.0),
    ]
    for event in samples:
        both = dict(to_wire(event, "both"))
        for dialect in ("seed", "client"):
            for name, payload in to_wire(event, dialect):  # type: ignore[arg-type]
                assert name in both, (event.kind, name)
                assert set(payload) <= set(both[name]), (event.kind, dialect, name)
                assert all(both[name][k] == v for k, v in payload.items()
                           if k != "timestamp" or dialect == "seed")
    names = [name for name, _ in to_wire(samples[4], "both")]
    assert names == ["project:status_changed", "project:updated"]


def test_the_client_form_names_the_agent_that_completed_and_its_tokens() -> None:
    done = ev.AgentCompleted(agent_id="a1", duration_ms=5, tokens_used=7, output_summary="s",
                             agent=agent_record(), thread_id="p1")
    [(_, payload)] = to_wire(done, "client")
    assert payload["agent"]["metadata"]["displayName"] == "ゲームコンセプト"
    [(_, seed)] = to_wire(done, "seed")
    assert "agent" not in seed  # the seed's AgentCompletedEvent as it is
    progress = ev.AgentProgress(agent_id="a1", progress=10, current_task="t",
                                completed_tasks=0, total_tasks=1, tokens_used=7)
    assert to_wire(progress, "client")[0][1]["tokensUsed"] == 7
    assert "tokensUsed" not in to_wire(progress, "seed")[0][1]


def test_an_image_an_agent_made_is_an_asset_of_the_client_with_its_approval() -> None:
    output = ev.OutputCreated(output={
        "id": "o1", "project_id": "p1", "agent_id": "a1", "output_type": "asset_image",
        "file_path": "outputs/assets/hero.svg", "summary": "主人公", "agent_type": "asset_worker",
        "created_at": "2026-01-01T00:00:00Z"}, thread_id="p1")
    [(name, payload)] = to_wire(output, "client")
    asset = payload["asset"]
    assert name == "asset:created" and asset["type"] == "image"
    assert asset["approvalStatus"] == "pending" and asset["agent"] == "asset_worker"
    assert asset["url"] == "/api/projects/p1/files/outputs/assets/hero.svg"
    assert to_wire(output, "seed") == []  # the seed has no such event
    document = ev.OutputCreated(output={
        "id": "o2", "project_id": "p1", "agent_id": "a1", "output_type": "concept_doc",
        "created_at": "2026-01-01T00:00:00Z"}, thread_id="p1")
    assert to_wire(document, "client") == []


def test_a_checkpoints_output_leaves_out_what_it_does_not_have() -> None:
    record = ev.StudioCheckpointRecord.model_validate({
        "id": "c1", "project_id": "p1", "agent_id": "a1", "type": "concept_review",
        "title": "t", "output": {"summary": "s", "content": {"text": "# t"}},
        "status": "pending", "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z"})
    cp = checkpoint_json(record)
    assert cp["output"] == {"summary": "s", "content": {"text": "# t"}}
    assert cp["description"] is None and cp["resolvedAt"] is None  # the seed's `T | null`


def test_an_agents_remaining_time_is_a_number_estimated_from_its_progress() -> None:
    def figures(progress: int, remaining: float | None, subs: list[AgentMetrics]
                ) -> AgentMetrics:
        return AgentMetrics(
            agent_id="a1", agent_type="code_leader", status="running", progress=progress,
            current_task=None, tokens_used=0, tokens_estimated=0, runtime_seconds=30.0,
            estimated_remaining_seconds=remaining, completed_tasks=0, total_tasks=1,
            active_sub_agents=0, sub_agent_metrics=subs)

    metrics = agent_metrics_json(figures(25, None, [figures(0, None, []), figures(50, 4, [])]))
    # 25% in 30 s: 90 s to go, by the same estimate as the project's
    assert (metrics["estimatedRemainingSeconds"], metrics["remainingEstimated"]) == (90, True)
    waiting, sampled = metrics["subAgentMetrics"]
    assert (waiting["estimatedRemainingSeconds"], waiting["remainingEstimated"]) == (0, False)
    assert sampled["estimatedRemainingSeconds"] == 4  # the samples' own estimate stays


def test_an_asset_on_the_socket_carries_its_files_size_as_the_listing_does() -> None:
    output = ev.OutputCreated(output={
        "id": "o1", "project_id": "p1", "agent_id": "a1", "output_type": "asset_image",
        "file_path": "outputs/assets/hero.svg", "agent_type": "asset_worker",
        "size_bytes": 2560, "created_at": "2026-01-01T00:00:00Z"}, thread_id="p1")
    [(_, payload)] = to_wire(output, "client")
    assert payload["asset"]["size"] == "2.5 KB"
    assert file_size(300) == "300 B" and file_size(None) == ""
