"""The Analyst's streamed text is its report alone (issue 36): the code writer's tokens are
an internal call's (tagged ``nostream``), not answer text, and the router's decision is
structured output; a scripted model streams every call as a real provider does."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agents.analyst.test_graph_llm import (  # the fixture and helpers of its graph tests
    BY_REGION,
    REPORT,
    _events,
    _start,
    _wait,
    analyst,  # noqa: F401 F811 - a fixture
    run_code,
)

pytestmark = pytest.mark.kernel

ANSWER = "South has the most revenue."


def test_only_the_reports_tokens_are_text_deltas(analyst: Any) -> None:  # noqa: F811
    client = analyst([run_code("Sum revenue by region."), BY_REGION, REPORT, ANSWER])
    run_id = _start(client, "revenue by region")
    assert _wait(client, run_id, {"completed", "failed"})["status"] == "completed"
    events = _events(client, run_id)
    deltas = [e["delta"] for e in events if e["kind"] == "text_delta"]
    assert deltas and "".join(deltas) == ANSWER
