"""An Analyst session over HTTP (issue 48, point 4): the thread's datasets for a face that
reopens it, and one report of every question in order as Markdown, HTML and a notebook."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx

from tests.live_server import LiveServer

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"


def _upload(server: LiveServer, name: str, thread_id: str | None = None) -> dict[str, Any]:
    with open(SAMPLES / name, "rb") as f:
        answer = httpx.post(f"{server.url}/api/analyst/datasets", files={"file": (name, f)},
                            data={"thread_id": thread_id} if thread_id else None, timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()


def _ask(server: LiveServer, dataset: str, question: str) -> str:
    answer = httpx.post(f"{server.url}/api/analyst/runs",
                        json={"dataset_id": dataset, "question": question})
    assert answer.status_code == 201, answer.text
    run_id = answer.json()["run_id"]
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events", timeout=120) as stream:
        for _line in stream.iter_lines():  # to its end (or its wait for an answer)
            pass
    return run_id


def test_a_session_lists_its_datasets_and_downloads_one_report_of_every_question(
        live_server: LiveServer) -> None:
    first = _upload(live_server, "sales_en.csv")
    thread = first["thread_id"]
    second = _upload(live_server, "survey_ja.csv", thread)
    base = f"{live_server.url}/api/analyst/threads/{thread}"
    listed = httpx.get(f"{base}/datasets").json()["datasets"]
    assert [d["id"] for d in listed] == [first["id"], second["id"]]
    assert listed[0]["profile"]["rows"] == first["profile"]["rows"]

    _ask(live_server, first["id"], "total revenue by region")
    _ask(live_server, first["id"], "distribution of unit_price")
    _ask(live_server, second["id"], "overview")
    md = httpx.get(f"{base}/report.md")
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    headings = [line for line in md.text.splitlines() if line.startswith("#")
                and not line.startswith("###")]
    assert headings[:2] == ["# sales_en.csv", "## 1. total revenue by region"]
    assert "## 2. distribution of unit_price" in headings and "## 3. overview" in headings
    assert "data:image/png;base64," in md.text
    disposition = md.headers["content-disposition"]
    assert "attachment" in disposition and thread not in disposition
    assert unquote(disposition.split("UTF-8''")[1]) == "sales_en-report.md"
    page = httpx.get(f"{base}/report.html")
    assert page.text.count("<section>") == 3 and "<script" not in page.text
    notebook = httpx.get(f"{base}/report.ipynb").json()
    setups = ["".join(c["source"]) for c in notebook["cells"]
              if c["cell_type"] == "code" and "DATA = " in "".join(c["source"])]
    assert ['DATA = "sales_en.csv"' in s for s in setups] == [True, False]
    assert 'DATA = "survey_ja.csv"' in setups[1]  # read again where the questions move to it
    assert httpx.get(f"{base}/report.md", params={"lang": "en"}).status_code == 200
    assert httpx.get(f"{base}/report.md", params={"lang": "fr"}).json()["code"] == "bad_request"
    assert httpx.get(f"{base}/report.pdf").status_code == 404


def test_a_session_without_a_report_or_of_another_face_has_nothing_to_download(
        live_server: LiveServer) -> None:
    dataset = _upload(live_server, "sales_en.csv")
    base = f"{live_server.url}/api/analyst/threads/{dataset['thread_id']}"
    answer = httpx.get(f"{base}/report.html")
    assert (answer.status_code, answer.json()["code"]) == (409, "no_report")
    _ask(live_server, dataset["id"], "total revenue by regoin")  # waits: which column?
    assert httpx.get(f"{base}/report.md").json()["code"] == "no_report"
    unknown = httpx.get(f"{live_server.url}/api/analyst/threads/nosuchthread/datasets")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")
    bad = httpx.get(f"{live_server.url}/api/analyst/threads/a%20b/report.md")
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_thread_id")
    advisor = httpx.post(f"{live_server.url}/api/session", json={"user_info": {}}).json()
    for path in ("datasets", "report.md"):  # another face's thread is no Analyst session
        other = httpx.get(f"{live_server.url}/api/analyst/threads/{advisor['session_id']}/{path}")
        assert (other.status_code, other.json()["code"]) == (404, "not_found")
