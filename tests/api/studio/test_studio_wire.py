"""Engine events to the Studio's socket messages, in both dialects."""

from __future__ import annotations

from shokunin import events as ev
from shokunin.api.studio.wire import to_wire


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
    log = ev.AgentLog(agent_id="a1", entry=entry, thread_id="p1")
    assert to_wire(log, "client") == [("agent:log", {"agentId": "a1", "projectId": "p1",
                                                     "entry": entry})]
    [(_, seed)] = to_wire(log, "seed")
    assert seed["level"] == "WARN" and seed["message"] == "m"


def test_events_of_other_faces_are_not_sent() -> None:
    assert to_wire(ev.TextDelta(delta="x"), "seed") == []
    assert to_wire(ev.RunCompleted(), "client") == []
