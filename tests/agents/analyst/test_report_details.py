"""A report file puts the answer first and how it was computed after it, closed (issue 49):
each decision in words (never ``run_code``), the code and what it printed, in one
disclosure, in the question's language."""

from __future__ import annotations

import re

from shokunin import events as ev
from shokunin.agents.analyst import report_files

REPORT = "売上高の合計は 12,071,030 円です。"


def _run(question: str, report: str) -> list[ev.BaseEvent]:
    base = {"run_id": "r", "thread_id": "t", "seq": 0}
    return [
        ev.RunStarted(**base, agent="analyst", input={"question": question}),
        ev.Debug(**base, content={"node": "reason", "decision": {
            "action": "run_code", "analysis_instruction": "売上高 の合計。"}}),
        ev.Code(**base, code="data = df\ntable = data[['売上高']].agg(['sum']).T\n",
                language="python", step="Cell 1"),
        ev.CodeResult(**base, ok=True, stdout="           sum\n売上高  12071030\n"),
        ev.Debug(**base, content={"node": "reason", "decision": {"action": "report"}}),
        ev.Text(**base, text=report),
    ]


def _outside_code(markdown: str) -> str:
    return re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)


def test_the_markdown_report_answers_first_and_keeps_the_work_in_a_closed_disclosure() -> None:
    written = report_files.markdown(_run("売上高の合計は？", REPORT))
    head, details = written.split("<details>")
    assert head == f"# 売上高の合計は？\n\n{REPORT}\n\n"
    assert details.startswith("\n<summary>計算の詳細</summary>")
    assert "- **判断**: コードを書いて計算します（売上高 の合計。）" in details
    assert "- **判断**: 結果から回答をまとめます" in details
    assert "```python\ndata = df\n" in details and "売上高  12071030" in details
    assert not re.search(r"run_code|\bdf\b|\bsum\b", _outside_code(written))


def test_the_page_keeps_the_work_closed_and_escaped_in_english_for_an_english_question() -> None:
    events = _run("total of <b>sales</b>?", "The total of sales is 12,071,030.")
    page = report_files.page(events)
    body = page.split("<body>", 1)[1]
    assert body.index("The total of sales is 12,071,030.") < body.index("<details>")
    assert "<details><summary>How this was computed</summary>" in body
    assert "<details open" not in body and "<b>sales" not in body  # closed, and inert
    assert "compute it with code (売上高 の合計。)" in body and "run_code" not in body
    assert '<html lang="en">' in page
