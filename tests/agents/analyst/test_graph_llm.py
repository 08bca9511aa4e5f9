"""The Analyst graph with a scripted model, in a real server process and sandbox: every
route (run_code, report, ask_clarification), the fix loop (a cell that raises, then one
that works), the cap on attempts with an honest report, and cancel mid-run."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shokunin.agents.analyst.contracts import ReasonDecision
from shokunin.api import create_app
from shokunin.config import Settings
from shokunin.models import register_script, unregister_script
from tests.waiting import wait_until

pytestmark = pytest.mark.kernel

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"
SCRIPT = "analyst-llm"
BY_REGION = ("result = df.groupby('region')['revenue'].sum()\n"
             "TABLE_MARKDOWN.append(_md(result))\nprint(result.to_dict())")


def run_code(instruction: str) -> ReasonDecision:
    return ReasonDecision(action="run_code", analysis_instruction=instruction)


REPORT = ReasonDecision(action="report")


@pytest.fixture
def analyst(tmp_path: Path) -> Iterator[Callable[[list[Any]], TestClient]]:
    """A server on a model that replays ``script`` (registered before the model is made)."""
    with ExitStack() as stack:
        def make(script: list[Any]) -> TestClient:
            register_script(SCRIPT, script)
            settings = Settings(data_dir=tmp_path / "data", model=f"scripted:{SCRIPT}",
                                tools_dirs=[], analyst_max_attempts=2)
            return stack.enter_context(TestClient(create_app(settings)))

        yield make
    unregister_script(SCRIPT)


def _start(client: TestClient, question: str) -> str:
    with open(SAMPLES / "sales_en.csv", "rb") as f:
        dataset = client.post("/api/analyst/datasets", files={"file": ("sales.csv", f)}).json()
    answer = client.post("/api/analyst/runs",
                         json={"dataset_id": dataset["id"], "question": question})
    assert answer.status_code == 201, answer.text
    return answer.json()["run_id"]


def _wait(client: TestClient, run_id: str, until: set[str]) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while (run := client.get(f"/api/runs/{run_id}").json())["status"] not in until:
        assert time.monotonic() < deadline, run
        time.sleep(0.1)
    return run


def _events(client: TestClient, run_id: str) -> list[dict[str, Any]]:
    body = client.get(f"/api/runs/{run_id}/events").text
    return [json.loads(line[6:]) for line in body.splitlines()
            if line.startswith("data: ") and '"kind"' in line]


def test_a_failing_cell_is_fixed_and_the_report_is_the_models(analyst: Any) -> None:
    client = analyst([
        run_code("Sum revenue by region."),
        "df.groupby('regoin')['revenue'].sum()",  # a typo: KeyError
        run_code("Sum revenue by region; the column is 'region', not 'regoin'."),
        BY_REGION,
        REPORT,
        "South has the most revenue.",
    ])
    run_id = _start(client, "revenue by region")
    assert _wait(client, run_id, {"completed", "failed"})["status"] == "completed"
    events = _events(client, run_id)
    results = [e for e in events if e["kind"] == "code_result"]
    assert [r["ok"] for r in results] == [False, True]
    assert results[0]["error_type"] == "KeyError"
    assert "'South': 119027.0" in results[1]["stdout"]
    decisions = [e["content"]["decision"]["action"] for e in events if e["kind"] == "debug"]
    assert decisions == ["run_code", "run_code", "report"]
    # the model's answer first, then the cell's table once, its numbers formatted (issue 49)
    [report] = [e["text"] for e in events if e["kind"] == "text"]
    answer, table = report.split("\n\n")
    assert answer == "South has the most revenue."
    assert "| South | 119,027 |" in table and report.count("| South |") == 1


def test_after_the_last_attempt_the_report_says_what_failed(analyst: Any) -> None:
    client = analyst([
        run_code("Sum revenue by region."), "df['nope']",
        run_code("Try again."), "df['still_nope']",
        "Here are your results!",  # no model decision after the cap: only the report
    ])
    run_id = _start(client, "revenue by region")
    assert _wait(client, run_id, {"completed", "failed"})["status"] == "completed"
    events = _events(client, run_id)
    assert [e["ok"] for e in events if e["kind"] == "code_result"] == [False, False]
    report = next(e["text"] for e in events if e["kind"] == "text")
    # said in the question's language, in the words every agent gives that failure
    assert "The last of 2 cells failed: The code stopped with an error (KeyError:" in report


def test_a_clarification_waits_and_the_answer_leads_to_code(analyst: Any) -> None:
    ask = ReasonDecision(action="ask_clarification", clarification_question="Which measure?")
    client = analyst([
        ask,
        ask,  # resumed, the node runs again from its start and decides again
        run_code("Sum revenue by region."), BY_REGION, REPORT, "Done: revenue by region.",
    ])
    run_id = _start(client, "totals please")
    run = _wait(client, run_id, {"interrupted", "failed"})
    assert run["status"] == "interrupted"
    waiting = _events(client, run_id)
    assert waiting[-1]["payload"]["value"] == {"question": "Which measure?"}
    assert client.post(f"/api/runs/{run_id}/resume", json={"value": "revenue"}).status_code == 202
    assert _wait(client, run_id, {"completed", "failed"})["status"] == "completed"
    assert [e["ok"] for e in _events(client, run_id) if e["kind"] == "code_result"] == [True]


def test_a_run_is_cancelled_mid_cell(analyst: Any) -> None:
    client = analyst([run_code("Wait."), "import time\ntime.sleep(60)"])
    run_id = _start(client, "slow")
    wait_until(lambda: any(e["kind"] == "code" for e in _events_so_far(client, run_id)), 60,
               interval=0.1, what="the run's first cell")
    started = time.monotonic()
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 202
    assert _wait(client, run_id, {"cancelled", "completed", "failed"})["status"] == "cancelled"
    assert time.monotonic() - started < 30


def _events_so_far(client: TestClient, run_id: str) -> list[dict[str, Any]]:
    runner = client.app.state.engine.runner  # type: ignore[attr-defined]
    ctx = runner._contexts.get(run_id)
    return [e.model_dump() for e in ctx.history] if ctx else []


def test_a_second_clarification_waits_again_before_any_code(analyst: Any) -> None:
    first = ReasonDecision(action="ask_clarification", clarification_question="Which measure?")
    second = ReasonDecision(action="ask_clarification", clarification_question="Which year?")
    client = analyst([
        first,
        first, second,  # resumed once: the first question is answered, the second waits
        first, second, run_code("Sum revenue by region."),  # resumed twice: both answered
        BY_REGION, REPORT, "Done.",
    ])
    run_id = _start(client, "totals please")
    asked = []
    for answer in ("revenue", "2024"):
        _wait(client, run_id, {"interrupted"})
        asked.append(_events(client, run_id)[-1]["payload"]["value"]["question"])
        assert client.post(f"/api/runs/{run_id}/resume", json={"value": answer}
                           ).status_code == 202
    assert asked == ["Which measure?", "Which year?"]
    assert _wait(client, run_id, {"completed", "failed"})["status"] == "completed"
    assert [e["ok"] for e in _events(client, run_id) if e["kind"] == "code_result"] == [True]
