"""Turn a cell's iopub messages into an ExecResult: text within its limit, plots, tables, JSON.

Text is cut while it is collected, so a cell that prints a lot costs the server no more
than ``max_output_chars`` (the kernel side caps it too, see kernel_startup.py).
"""

from __future__ import annotations

import re
from typing import Any

from shokunin.sandbox.contracts import ExecResult

MAX_ARTIFACTS = 20
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Frames of the machinery around the user's cell, not of the user's code.
_INTERNAL_FRAME = re.compile(r"site-packages/(IPython|ipykernel|jupyter_client|zmq|tornado)/")


def truncation_marker(limit: int) -> str:
    return f"\n[... output truncated: more than {limit} characters ...]\n"


def clean_traceback(lines: list[str]) -> str:
    """Plain-text traceback of the user's code: no colours, no kernel internals."""
    text = _ANSI.sub("", "\n".join(lines)).strip("\n")
    body, _, last = text.rpartition("\n")
    blocks = re.split(r"\n+(?=  File |  Cell In\[)", body)
    kept = [b.rstrip("\n") for b in blocks if not _INTERNAL_FRAME.search(b.split("\n", 1)[0])]
    return "\n".join([*kept, last]) + "\n"


class OutputCollector:
    """Accumulates the outputs of one execution, bounded in size."""

    def __init__(self, max_output_chars: int) -> None:
        self.limit = max_output_chars
        self.streams: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.used = 0
        self.truncated = False
        self.plots: list[str] = []
        self.tables: list[tuple[str, str]] = []
        self.json: list[Any] = []
        self.error: tuple[str, str, str] | None = None

    def add_text(self, name: str, text: str) -> None:
        room = self.limit - self.used
        if len(text) > room:
            text, self.truncated = text[:max(room, 0)], True
        self.used += len(text)
        if text:
            self.streams.setdefault(name, []).append(text)

    def handle(self, msg: dict[str, Any]) -> None:
        kind, content = msg["header"]["msg_type"], msg["content"]
        if kind == "stream":
            self.add_text(content.get("name", "stdout"), content.get("text", ""))
        elif kind in ("display_data", "execute_result"):
            self._add_rich(content.get("data", {}))
        elif kind == "error":
            self.error = (content.get("ename", "Error"), content.get("evalue", ""),
                          clean_traceback(content.get("traceback", [])))

    def _add_rich(self, data: dict[str, Any]) -> None:
        if "image/png" in data and len(self.plots) < MAX_ARTIFACTS:
            self.plots.append(data["image/png"].strip())
        elif "text/markdown" in data and len(self.tables) < MAX_ARTIFACTS:
            self.tables.append((data["text/markdown"], data.get("text/html", "")))
        elif "application/json" in data and len(self.json) < MAX_ARTIFACTS:
            self.json.append(data["application/json"])
        elif "text/plain" in data:
            self.add_text("stdout", data["text/plain"] + "\n")

    def result(self) -> ExecResult:
        stdout = "".join(self.streams["stdout"])
        stderr = "".join(self.streams["stderr"])
        if self.truncated:
            stdout += truncation_marker(self.limit)
        error_type = error_message = None
        if self.error:
            error_type, error_message, trace = self.error
            stderr += trace
        return ExecResult(
            ok=self.error is None, stdout=stdout, stderr=stderr, plot_png_base64=self.plots,
            table_markdown=[md for md, _ in self.tables],
            table_html=[html for _, html in self.tables], json=self.json,
            error_type=error_type, error_message=error_message)
