"""What a person does first with a fresh server (first_run.sh): one Analyst question about the
shipped sample table, one Workbench plot of the sample building; each cell must run in the
sandbox (a kernel that cannot start, a success claimed after a failure, fail the check).
Run with the new install's own Python (httpx and websockets are shokunin's dependencies)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import httpx
import websockets

SAMPLE = Path(__file__).resolve().parents[1] / "src/shokunin/data/analyst/sales_en.csv"
TIMEOUT_SEC = 300


def analyst(url: str) -> list[str]:
    """Problems with an Analyst question, none when its cell ran and it answered."""
    with SAMPLE.open("rb") as f:
        upload = httpx.post(f"{url}/api/analyst/datasets", files={"file": (SAMPLE.name, f)},
                            timeout=TIMEOUT_SEC)
    if upload.status_code != 201:
        return [f"Analyst upload: {upload.status_code} {upload.text[:300]}"]
    run = httpx.post(f"{url}/api/analyst/runs", timeout=30, json={
        "dataset_id": upload.json()["id"], "question": "total revenue by region"})
    if run.status_code != 201:
        return [f"Analyst question: {run.status_code} {run.text[:300]}"]
    events = []
    with httpx.stream("GET", f"{url}/api/runs/{run.json()['run_id']}/events",
                      timeout=TIMEOUT_SEC) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    events = [e for e in events if "kind" in e]  # the stream's own end marker has none
    results = [e for e in events if e.get("kind") == "code_result"]
    problems = [f"Analyst cell failed: {e.get('error_type')}: {e.get('error_message')}"
                for e in results if not e.get("ok")]
    if not any(e.get("ok") for e in results):
        problems.append("Analyst: no cell ran")
    if not events or events[-1].get("kind") != "run_completed":
        problems.append(f"Analyst run ended with {events[-1:]}")
    return problems


async def workbench(url: str) -> list[str]:
    """Problems with a Workbench plot, none when its cell drew an image."""
    seen: list[dict] = []
    async with websockets.connect(url.replace("http", "ws", 1) + "/ws",
                                  open_timeout=30, max_size=None) as ws:
        await ws.send(json.dumps({"message": "2階の部屋の面積をグラフにして"}))
        async with asyncio.timeout(TIMEOUT_SEC):
            while True:
                message = json.loads(await ws.recv())
                seen.append(message)
                if message.get("type") == "debug" and message.get("done"):  # the run ended
                    break
    problems = [f"Workbench error: {m.get('content')}" for m in seen
                if m.get("type") == "error"]
    if not any(m.get("type") == "image" for m in seen):
        problems.append("Workbench: the plot drew no image")
    return problems


def main(url: str) -> int:
    problems = analyst(url) + asyncio.run(workbench(url))
    for problem in problems:
        print(f"first run: {problem}", file=sys.stderr)
    if not problems:
        print("first run: an Analyst question and a Workbench plot ran in the sandbox")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
