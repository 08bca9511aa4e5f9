"""An Excel sheet as Japanese offices write it (a title, a date line, a blank row, then the
header; amounts as text with ¥ and separators; codes with leading zeros) is answered from
the real sandbox kernel, which reads the table as the profile did (issue 49)."""

from __future__ import annotations

import io
import json
from typing import Any

import httpx
import openpyxl

from tests.live_server import LiveServer

ROWS = [["2024年度 売上一覧"], ["作成日: 2024/4/1"], [],
        ["店舗コード", "店舗", "売上", "達成率"],
        ["00101", "東京", "¥1,200", "12.5%"], ["00102", "大阪", "¥980", "101%"],
        ["00101", "東京", "¥2,345", "87.5%"], ["00103", "福岡", "¥500", "50%"]]


def _workbook() -> bytes:
    book = openpyxl.Workbook()
    for row in ROWS:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _events(server: LiveServer, run_id: str) -> list[dict[str, Any]]:
    events = []
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events", timeout=120) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    return [e for e in events if "kind" in e]


def test_a_titled_sheet_of_text_amounts_is_answered_by_the_kernel(
        live_server: LiveServer) -> None:
    answer = httpx.post(f"{live_server.url}/api/analyst/datasets",
                        files={"file": ("売上一覧.xlsx", _workbook())}, timeout=60)
    assert answer.status_code == 201, answer.text
    dataset = answer.json()
    profile = dataset["profile"]
    assert profile["header_row"] == 4
    columns = {c["name"]: c for c in profile["columns"]}
    assert (columns["売上"]["dtype"], columns["売上"]["unit"]) == ("integer", "¥")
    assert (columns["店舗コード"]["dtype"], columns["店舗コード"]["read_as"]) == ("string", "text")
    run = httpx.post(f"{live_server.url}/api/analyst/runs",
                     json={"dataset_id": dataset["id"], "question": "店舗コード別の売上の合計"})
    assert run.status_code == 201, run.text
    events = _events(live_server, run.json()["run_id"])
    results = [e for e in events if e["kind"] == "code_result"]
    assert results and all(r["ok"] for r in results), [r["stderr"][-500:] for r in results]
    shown = "".join(e.get("markdown", "") for e in events if e["kind"] == "table")
    shown += "".join(r["stdout"] for r in results)
    for code, total in (("00101", 1200 + 2345), ("00102", 980), ("00103", 500)):
        assert code in shown and (f"{total:,}" in shown or str(total) in shown), shown
