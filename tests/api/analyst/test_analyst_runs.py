"""Analyst runs over HTTP on a real server and sandbox: a question about an uploaded CSV is
answered from code run in the thread's kernel; a vague one waits for the user and the
answer resumes it, also on a restarted server; bad requests get the API's errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest

from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"


def _upload(server: LiveServer, name: str) -> dict[str, Any]:
    with open(SAMPLES / name, "rb") as f:
        answer = httpx.post(f"{server.url}/api/analyst/datasets", files={"file": (name, f)},
                            timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()


def _ask(server: LiveServer, dataset: str, question: str) -> str:
    answer = httpx.post(f"{server.url}/api/analyst/runs",
                        json={"dataset_id": dataset, "question": question})
    assert answer.status_code == 201, answer.text
    return answer.json()["run_id"]


def _events(server: LiveServer, run_id: str, after: int = 0) -> list[dict[str, Any]]:
    """The run's events after ``after``, up to its end or its wait for an answer."""
    events = []
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events",
                      params={"after": after}, timeout=120) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    return [e for e in events if "kind" in e]


def test_a_question_is_answered_from_code_run_in_the_sandbox(live_server: LiveServer) -> None:
    dataset = _upload(live_server, "sales_en.csv")
    events = _events(live_server, _ask(live_server, dataset["id"], "total revenue by region"))
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_completed"
    assert "code" in kinds and "code_result" in kinds and "table" in kinds
    code = next(e["code"] for e in events if e["kind"] == "code")
    assert code.startswith("data = df\n")  # the analysis, not the loading around it
    frame = pd.read_csv(SAMPLES / "sales_en.csv")
    table = next(e["markdown"] for e in events if e["kind"] == "table")
    report = next(e["text"] for e in events if e["kind"] == "text")
    for region, total in frame.groupby("region")["revenue"].sum().items():
        assert f"| {region} | {total:,.0f} |" in table  # the cell's table, formatted
        assert f"| {region} | {total:,.0f} |" in report  # the report's: its words, once
        assert report.count(f"| {region} |") == 1
    assert report.startswith("By region, South has the highest total of revenue: 119,027.")


def test_a_cp932_table_with_rare_kanji_is_analysed_as_written(live_server: LiveServer) -> None:
    dataset = _upload(live_server, "sales_ja_cp932.csv")
    events = _events(live_server, _ask(live_server, dataset["id"], "仕入先ごとの数量の平均、上位3"))
    table = next(e["markdown"] for e in events if e["kind"] == "table")
    assert "㈱髙橋飲料" in table and "①文具商会" in table


def test_a_vague_question_waits_for_the_user_and_the_answer_resumes_it(
        fresh_server: LiveServer) -> None:
    dataset = _upload(fresh_server, "sales_ja_cp932.csv")
    run_id = _ask(fresh_server, dataset["id"], "合計を出して")
    waiting = _events(fresh_server, run_id)
    assert waiting[-1]["kind"] == "run_interrupted"
    assert "売上高" in waiting[-1]["payload"]["value"]["question"]
    fresh_server.restart()  # the wait outlives the server
    answer = httpx.post(f"{fresh_server.url}/api/runs/{run_id}/resume", json={"value": "売上高"})
    assert answer.status_code == 202, answer.text
    events = _events(fresh_server, run_id, after=waiting[-1]["seq"])
    assert events[-1]["kind"] == "run_completed"
    total = pd.read_csv(SAMPLES / "sales_ja_cp932.csv", encoding="cp932")["売上高"].sum()
    result = next(e for e in events if e["kind"] == "code_result")
    assert re.search(rf"売上高\s+{total}\b", result["stdout"]), result["stdout"]


def test_bad_requests_get_the_apis_errors(live_server: LiveServer) -> None:
    url = f"{live_server.url}/api/analyst/runs"
    unknown = httpx.post(url, json={"dataset_id": "nope", "question": "overview"})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")
    dataset = _upload(live_server, "survey_ja.csv")["id"]
    for body in ({"dataset_id": dataset}, {"dataset_id": dataset, "question": "  "},
                 {"question": "overview"}, {"dataset_id": dataset, "question": 3}):
        answer = httpx.post(url, json=body)
        assert (answer.status_code, answer.json()["code"]) == (400, "bad_request"), body
    broken = httpx.post(url, content=b"{not json", headers={"content-type": "application/json"})
    assert (broken.status_code, broken.json()["code"]) == (400, "bad_json")


def test_the_report_downloads_as_markdown_html_and_a_notebook(live_server: LiveServer) -> None:
    dataset = _upload(live_server, "sales_en.csv")
    run_id = _ask(live_server, dataset["id"], "distribution of unit_price")
    events = _events(live_server, run_id)
    assert events[-1]["kind"] == "run_completed"
    base = f"{live_server.url}/api/analyst/runs/{run_id}/report"
    md = httpx.get(f"{base}.md")
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert md.text.startswith("# distribution of unit_price")
    assert "data:image/png;base64," in md.text
    page = httpx.get(f"{base}.html")
    assert "attachment" in page.headers["content-disposition"]
    assert "<img" in page.text and "<script" not in page.text and "http" not in page.text.split(
        "<body>")[1]
    notebook = httpx.get(f"{base}.ipynb").json()
    setup, code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    # what each cell ran first, reading the upload from beside the notebook (issue 37)
    assert 'DATA = "sales_en.csv"' in setup and "pd.read_csv(DATA, " in setup
    assert "unit_price" in code and "read_csv" not in code
    assert any("image/png" in o.get("data", {})
               for o in notebook["cells"][2]["outputs"])
    assert httpx.get(f"{base}.pdf").status_code == 404


def test_a_run_without_a_report_has_nothing_to_download(fresh_server: LiveServer) -> None:
    dataset = _upload(fresh_server, "sales_en.csv")
    run_id = _ask(fresh_server, dataset["id"], "total revenue by regoin")  # asks which column
    assert _events(fresh_server, run_id)[-1]["kind"] == "run_interrupted"
    answer = httpx.get(f"{fresh_server.url}/api/analyst/runs/{run_id}/report.html")
    assert (answer.status_code, answer.json()["code"]) == (409, "no_report")


def test_a_table_too_large_for_pandas_is_read_by_the_kernel_from_its_parquet_copy(
        tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_ANALYST_PANDAS_MAX_MB": "0.01"})
    server.start()
    try:
        dataset = _upload(server, "sales_ja_cp932.csv")
        events = _events(server, _ask(server, dataset["id"], "仕入先ごとの数量の合計"))
        # the same kernel then needs the whole table: it reads it again
        overview = _events(server, _ask(server, dataset["id"], "概要を教えて"))
    finally:
        server.stop()
    assert (dataset["engine"], dataset["encoding"]) == ("duckdb", "cp932")
    assert dataset["parquet_path"] == f"datasets/{dataset['id']}/data.parquet"
    code = next(e["code"] for e in events if e["kind"] == "code")
    assert code.startswith('df = _read_table(["数量", "仕入先"])\n')  # only those columns
    table = next(e["markdown"] for e in events if e["kind"] == "table")
    frame = pd.read_csv(SAMPLES / "sales_ja_cp932.csv", encoding="cp932")
    for supplier, total in frame.groupby("仕入先")["数量"].sum().items():
        assert f"| {supplier} | {total:,} |" in table  # formatted (issue 49)
    shown = "".join(e["markdown"] for e in overview if e["kind"] == "table")
    assert all(f"| {column} |" in shown for column in frame.columns)


def test_a_japanese_chart_is_drawn_in_the_kernel_with_a_japanese_font(
        live_server: LiveServer) -> None:
    """The chart's Japanese words are drawn, not tofu (issue 49): the kernel has a Japanese
    font for the cell's ``_chart``, and the answer leads with its sentence."""
    dataset = _upload(live_server, "sales_ja_cp932.csv")
    events = _events(live_server, _ask(live_server, dataset["id"], "月別の売上と前月比を見せて"))
    result = next(e for e in events if e["kind"] == "code_result")
    assert result["ok"], result
    assert "missing from font" not in result["stderr"]  # matplotlib's tofu warning
    images = [e for e in events if e["kind"] == "image"]
    assert len(images) == 1 and images[0]["format"] == "png"
    report = next(e["text"] for e in events if e["kind"] == "text")
    assert report.startswith("月別の売上高の合計は、最新の 2024年12月 が 1,354,660 円"
                             "（前月比 +50.7%）")
