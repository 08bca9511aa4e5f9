"""One report for a whole Analyst session (issue 48, point 4): every question of the thread
in order, each with its report and plots (or why it has none), as Markdown, one HTML page
and one notebook that reads each dataset once, before the first question about it."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from shokunin import events as ev
from shokunin.agents.analyst import DatasetRecord, report_files
from shokunin.agents.analyst.report_files import Answer

DOT = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
       "hKmMIQAAAABJRU5ErkJggg==")
TITLE = "sales.csv"


def _run(question: str, *events: ev.BaseEvent, status: str = "completed",
         dataset: str = "d1") -> Answer:
    started = ev.RunStarted(agent="analyst", input={"dataset_id": dataset,
                                                    "question": question})
    return Answer([started, *events], status, dataset)


FIRST = _run("店舗別の売上高合計", ev.Code(code="print(df.groupby('店舗')['売上高'].sum())"),
             ev.CodeResult(ok=True, stdout="東京 120\n"),
             ev.Table(markdown="| 店舗 | 売上高 |\n|---|---|\n| 東京 | 120 |"),
             ev.Text(text="東京本店が最も多く **120** です。"))
SECOND = _run("月別の推移\nをグラフに", ev.Code(code="df.plot()"),
              ev.CodeResult(ok=True, stdout=""), ev.Image(data_base64=DOT, format="png"),
              ev.Text(text="1月から伸びています。"))
WAITING = _run("合計を出して",
               ev.RunInterrupted(payload={"value": {"question": "どの列の合計ですか?"}}),
               status="interrupted")
FAILED = _run("<img src=x onerror=alert(1)>", ev.RunFailed(error="the kernel died"),
              status="failed", dataset="d2")
SESSION = [FIRST, SECOND, WAITING, FAILED]


def _record(dataset_id: str, name: str) -> DatasetRecord:
    return DatasetRecord.model_validate({
        "id": dataset_id, "thread_id": "t1", "original_name": name, "path": f"datasets/{name}",
        "size_bytes": 10, "format": "csv", "encoding": "cp932", "encoding_method": "cp932",
        "delimiter": ",", "header": True, "engine": "pandas", "parquet_path": None,
        "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        "profile": {"rows": 1, "column_count": 1, "columns": [], "sample_rows": [],
                    "format": "csv", "engine": "pandas"}})


def test_the_markdown_has_every_question_in_order_with_its_answer() -> None:
    text = report_files.session_markdown(TITLE, SESSION)
    assert text.startswith(
        "# sales.csv\n\n## 1. 店舗別の売上高合計\n\n東京本店が最も多く **120** です。")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## 1. 店舗別の売上高合計", "## 2. 月別の推移 をグラフに",
                        "## 3. 合計を出して", "## 4. &lt;img src=x onerror=alert(1)>"]
    figure = f"![figure 1](data:image/png;base64,{DOT})"
    assert text.index("1月から伸びています。") < text.index(figure)
    assert "*確認の質問への答えを待っています: どの列の合計ですか?*" in text
    assert "*回答できませんでした: the kernel died*" in text
    english = report_files.session_markdown(TITLE, SESSION, "en")
    assert "*Waiting for an answer to: どの列の合計ですか?*" in english


def test_the_page_is_one_self_contained_document_of_sections() -> None:
    page = report_files.session_page(TITLE, SESSION)
    assert page.count("<section>") == 4 and "<title>sales.csv</title>" in page
    assert "<h2>1. 店舗別の売上高合計</h2>" in page and "<strong>120</strong>" in page
    assert "<h2>4. &lt;img src=x onerror=alert(1)&gt;</h2>" in page and "<img src=x" not in page
    assert page.count('<img alt="figure 1"') == 1 and "<script" not in page
    assert 'lang="en"' in report_files.session_page(TITLE, SESSION, "en")


def test_the_notebook_reads_each_dataset_before_its_first_question() -> None:
    records = {"d1": _record("d1", "sales.csv"), "d2": _record("d2", "other.csv")}
    nb = json.loads(report_files.session_notebook(TITLE, SESSION, records))
    cells = [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]
    setups = [source for kind, source in cells if kind == "code" and "DATA = " in source]
    assert [s.split("DATA = ")[1].split()[0] for s in setups] == ['"sales.csv"', '"other.csv"']
    sources = [source for _kind, source in cells]
    order = [next(i for i, s in enumerate(sources) if part in s) for part in (
        "# sales.csv", "## 1. 店舗別の売上高合計", 'DATA = "sales.csv"', "groupby",
        "東京本店が", "## 2. 月別の推移", "df.plot()", "1月から", "## 3. 合計を出して",
        "## 4. ", 'DATA = "other.csv"', "回答できませんでした")]
    assert order == sorted(order)
    plot = next(c for c in nb["cells"] if "df.plot()" in "".join(c["source"]))
    assert plot["outputs"][0]["data"]["image/png"] == DOT
    assert [c["id"] for c in nb["cells"]] == [f"cell-{n}" for n in range(1, len(cells) + 1)]


def test_a_session_without_any_report_has_nothing_to_download() -> None:
    for build in report_files.SESSION_BUILDERS.values():
        with pytest.raises(report_files.NoReport):
            build(TITLE, [WAITING, FAILED], {}, "ja")
        with pytest.raises(report_files.NoReport):
            build(TITLE, [], {}, "ja")


def test_the_run_report_is_the_sessions_section_of_one_question() -> None:
    events = list(FIRST.events)
    assert report_files.markdown(events).split("\n\n", 1)[1] == (
        report_files.session_markdown(TITLE, [FIRST]).split("\n\n", 2)[2])
