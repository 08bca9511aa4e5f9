"""The Advisor's knowledge search and chat stream, measured.

1. Ingest and query at 1k, 10k and 50k chunks (Markdown files generated from the shipped
   knowledge base, sentences shuffled and numbered so no two chunks are alike), beside the
   index a user would otherwise build: SQLite FTS5 with its ``trigram`` tokenizer on the
   raw text. Queries are the labelled questions (bench/advisor_questions.yaml); the peer
   is asked the same words as trigrams, and cannot match two-character words at all
   (its "found" column).
2. Time to the first SSE byte and to ``done`` of ``POST /api/chat`` on a real server
   (uvicorn in this process) with a zero-latency scripted model, and with the offline
   brain, beside a bare FastAPI route that streams the same scripted model's tokens.

    python bench/advisor_bench.py [--chunks 1000 10000 50000] [--chats 50]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import socket
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
import yaml
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from langchain_core.messages import HumanMessage
from rich.console import Console
from rich.table import Table

from shokunin.agents.advisor import StepDetection
from shokunin.api import create_app
from shokunin.config import Settings
from shokunin.knowledge import KnowledgeIndex, read_sections
from shokunin.models import resolve
from shokunin.models.scripted import register_script

HERE = Path(__file__).parent
SECTIONS_PER_FILE = 20
QUESTIONS = [q["question"] for q in yaml.safe_load(
    (HERE / "advisor_questions.yaml").read_text(encoding="utf-8"))]
ANSWER = "原価は材料費と労務費と経費の合計です。" * 20


def _corpus(folder: Path, chunks: int, source: Path) -> None:
    sentences = [s for path in sorted(source.glob("*.md"))
                 for section in read_sections(path)
                 for s in re.split(r"(?<=。)", section.text) if len(s.strip()) > 10]
    rng = random.Random(7)
    for f in range(chunks // SECTIONS_PER_FILE):
        parts = [f"# 資料 {f}"]
        for s in range(SECTIONS_PER_FILE):
            body = "".join(rng.sample(sentences, 4)) + f" 管理番号 {f}-{s}。"
            parts.append(f"## 項目 {s}\n{body[:700]}")
        (folder / f"doc_{f:05d}.md").write_text("\n\n".join(parts), encoding="utf-8")


def _trigram_query(question: str) -> str | None:
    grams = {question[i:i + 3] for i in range(len(question) - 2)
             if not re.search(r"[\s\"、。？！?!,.]", question[i:i + 3])}
    return " OR ".join(f'"{g}"' for g in sorted(grams)) or None


def _ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000 if len(values) > 1 else \
        values[0] * 1000


def search_rows(sizes: list[int], source: Path) -> list[tuple[str, ...]]:
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "docs"
            folder.mkdir()
            _corpus(folder, size, source)
            index = KnowledgeIndex(Path(tmp) / "kb.sqlite")
            start = time.perf_counter()
            index.ingest(folder)
            ingest = time.perf_counter() - start
            chunks = index.counts()[1]
            ours, found = [], 0
            for question in QUESTIONS * 3:
                start = time.perf_counter()
                hits = index.search(question, 5)
                ours.append(time.perf_counter() - start)
                found += bool(hits)
            index.close()
            peer = sqlite3.connect(Path(tmp) / "peer.sqlite")
            peer.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram')")
            texts = [s.text for p in sorted(folder.glob("*.md")) for s in read_sections(p)]
            start = time.perf_counter()
            with peer:
                peer.executemany("INSERT INTO t VALUES (?)", [(t,) for t in texts])
            peer_ingest = time.perf_counter() - start
            theirs, peer_found = [], 0
            for question in QUESTIONS * 3:
                query = _trigram_query(question)
                start = time.perf_counter()
                hits = peer.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank "
                                    "LIMIT 5", (query,)).fetchall() if query else []
                theirs.append(time.perf_counter() - start)
                peer_found += bool(hits)
            peer.close()
            n = len(QUESTIONS) * 3
            rows.append((f"{chunks:,}", f"{ingest:.2f} s", f"{_ms(ours, 50):.1f}",
                         f"{_ms(ours, 95):.1f}", f"{found}/{n}", f"{peer_ingest:.2f} s",
                         f"{_ms(theirs, 50):.1f}", f"{_ms(theirs, 95):.1f}",
                         f"{peer_found}/{n}"))
    return rows


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Server(threading.Thread):
    def __init__(self, app: object) -> None:
        super().__init__(daemon=True)
        self.port = _free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="error"))

    def run(self) -> None:
        self.server.run()

    def __enter__(self) -> str:
        self.start()
        while not self.server.started:
            time.sleep(0.02)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.join(10)


def _peer_app() -> FastAPI:
    app = FastAPI()

    @app.post("/api/chat")
    async def chat() -> StreamingResponse:
        model = resolve("scripted:peer")

        async def tokens():  # noqa: ANN202
            text = ""
            async for chunk in model.astream([HumanMessage("原価計算")]):
                text += str(chunk.content)
                yield f'data: {{"type": "content", "data": "{text}"}}\n\n'
            yield 'data: {"type": "done"}\n\n'
        return StreamingResponse(tokens(), media_type="text/event-stream")
    return app


def _chats(url: str, count: int, session: bool) -> tuple[list[float], list[float]]:
    first, total = [], []
    with httpx.Client(base_url=url, timeout=60) as client:
        sid = client.post("/api/session", json={}).json()["session_id"] if session else ""
        for _ in range(count):
            start = time.perf_counter()
            seen = None
            with client.stream("POST", "/api/chat", json={
                    "message": "材料費と労務費から原価を計算したい", "session_id": sid}) as stream:
                for line in stream.iter_lines():
                    if seen is None and line.startswith("data: "):
                        seen = time.perf_counter() - start
                    if '"type": "done"' in line:
                        break
            first.append(seen or 0.0)
            total.append(time.perf_counter() - start)
    return first, total


def chat_rows(count: int) -> list[tuple[str, ...]]:
    detection = StepDetection(step="STEP_0_CHECK_3", confidence="high", reasoning="原価")
    register_script("bench", [detection, ANSWER] * (count + 1))
    register_script("peer", [ANSWER] * (count + 1))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, model in (("shokunin, scripted model", "scripted:bench"),
                             ("shokunin, offline brain", "offline")):
            settings = Settings(data_dir=Path(tmp) / label[-6:], tools_dirs=[], model=model,
                                sandbox_pool_size=0)
            with _Server(create_app(settings)) as url:
                first, total = _chats(url, count, session=True)
            rows.append((label, f"{_ms(first, 50):.1f}", f"{_ms(first, 95):.1f}",
                         f"{_ms(total, 50):.1f}"))
        with _Server(_peer_app()) as url:
            first, total = _chats(url, count, session=False)
        rows.append(("bare FastAPI + the scripted model's astream", f"{_ms(first, 50):.1f}",
                     f"{_ms(first, 95):.1f}", f"{_ms(total, 50):.1f}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--chats", type=int, default=50)
    args = parser.parse_args()
    console = Console(width=180)
    search = Table(title="Knowledge search: shokunin (CJK bigrams, BM25) beside FTS5 trigram")
    for column in ("chunks", "ingest", "query p50 ms", "p95 ms", "found", "peer insert",
                   "peer p50 ms", "peer p95 ms", "peer found"):
        search.add_column(column, justify="right")
    for row in search_rows(args.chunks, Settings().knowledge_dir):
        search.add_row(*row)
    console.print(search)
    chat = Table(title=f"POST /api/chat, {args.chats} answers one after another")
    for column in ("server", "first byte p50 ms", "p95 ms", "done p50 ms"):
        chat.add_column(column, justify="right")
    for row in chat_rows(args.chats):
        chat.add_row(*row)
    console.print(chat)


if __name__ == "__main__":
    asyncio.run(asyncio.sleep(0))  # an event loop policy is set before uvicorn's threads
    main()
