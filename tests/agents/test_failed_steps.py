"""A reply reads the outcome of the steps it reports (issue 48.2): a chart whose cell failed
is not announced as drawn, and the reply says what failed and what to do."""

from __future__ import annotations

from typing import Any

import pytest

from shokunin import events as ev
from shokunin.agents.outcomes import cell_failure
from shokunin.sandbox import ExecPythonInput, ExecResult
from tests.agents.conftest import MakeRunner, ask

DIED = ("kernel died (out of memory or killed); a fresh kernel replaced it, variables are "
        "lost")


class FailingSandbox:
    """A sandbox whose every cell ends as ``result`` does, told to the run as the real one
    tells it (the code, then its result)."""

    def __init__(self, result: ExecResult) -> None:
        self.result = result
        self.cells: list[str] = []

    async def run_in(self, ctx: Any, inp: ExecPythonInput, step: str | None = None,
                     shown: str | None = None) -> ExecResult:
        self.cells.append(inp.code)
        await ctx.emit(ev.Code(code=inp.code, language="python", step=step))
        r = self.result
        await ctx.emit(ev.CodeResult(ok=r.ok, stdout=r.stdout, stderr=r.stderr,
                                     error_type=r.error_type, error_message=r.error_message,
                                     step=step))
        return r


def _texts(events: list[ev.BaseEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, ev.Text)]


async def test_a_chart_whose_kernel_died_is_not_announced_as_drawn(
        make_runner: MakeRunner) -> None:
    runner = await make_runner()
    sandbox = FailingSandbox(ExecResult(ok=False, error_type="KernelDied", error_message=DIED))
    runner.services.sandbox = sandbox  # type: ignore[assignment]
    events = await ask(runner, "1Fの部屋の面積をグラフにして")
    assert len(sandbox.cells) == 1  # the chart's cell was sent, and it failed
    [reply] = _texts(events)
    assert "作成しました" not in reply
    assert reply.startswith("グラフを作成できませんでした（1Fの部屋の面積）。")
    assert "もう一度送ってください" in reply  # what to do
    assert "KernelDied" not in reply  # a class name is not words for a person
    [result] = [e for e in events if isinstance(e, ev.ToolResult)]
    assert result.success is False  # the step is recorded as failed, for every face

    events = await ask(runner, "plot room areas on 2F", thread="t2")
    [reply] = _texts(events)
    assert reply.startswith("Could not draw the chart (Room areas on 2F). The Python process "
                            "stopped")
    assert "Drew a chart" not in reply


async def test_a_refused_cell_says_why_in_the_users_language(make_runner: MakeRunner) -> None:
    runner = await make_runner()
    runner.services.sandbox = FailingSandbox(ExecResult(  # type: ignore[assignment]
        ok=False, error_type="SandboxUnavailable",
        error_message="no user namespaces on this host"))
    [reply] = _texts(await ask(runner, "ラウンジの人数をグラフに"))
    assert reply == ("グラフを作成できませんでした（Loungeの時間ごとの人数）。"
                     + cell_failure("SandboxUnavailable", "", True))
    assert "管理者に連絡してください" in reply


@pytest.mark.parametrize(("error_type", "message", "said"), [
    ("Timeout", "execution exceeded 60.0 s and was stopped", "処理を分けて"),
    ("SandboxBusy", "no kernel free", "少し待って"),
    ("PolicyViolation", "line 1: import of 'socket' is not allowed", "import of 'socket'"),
    ("KeyError", "'area'", "（KeyError: 'area'）"),
    ("MemoryError", "", "SHOKUNIN_SANDBOX_MEMORY_MB"),
    ("KernelDied", "died; no fresh kernel could start: boom", "管理者に連絡"),
])
def test_each_kind_of_failure_says_what_to_do(error_type: str, message: str,
                                              said: str) -> None:
    ja = cell_failure(error_type, message, True)
    assert said in ja
    assert error_type not in ja or error_type in ("KeyError", "MemoryError")
    en = cell_failure(error_type, message, False)
    assert en and not any("\u3040" <= c <= "\u9fff" for c in en)


async def test_the_analysts_failed_cell_is_told_in_the_questions_language() -> None:
    from shokunin.agents.analyst.brains import OfflineBrain
    from shokunin.agents.analyst.contracts import Cell
    from shokunin.agents.analyst.graph import _tells
    from tests.agents.analyst.test_large_tables import _record

    died = ExecResult(ok=False, error_type="KernelDied", error_message=DIED)
    cell = Cell(instruction="地域別の売上の合計", code="...", result=died)
    report = await OfflineBrain().summarize("地域別の売上の合計は？",
                                            _record("sales_en.csv", False), [cell])
    assert report.startswith("分析は失敗しました（地域別の売上の合計）。Python の実行環境が")
    assert "もう一度送ってください" in report and "KernelDied" not in report
    assert _tells(report, died)  # so the graph adds no English note of its own to it
