"""An MCP ``CallToolResult`` as the seed 003 result every shokunin caller understands.

Text blocks become the result (or the error, when the server says ``isError``), structured
content is preferred as the result when the server gives it, and images, audio and
embedded binary resources are written into the call's workspace and listed in ``files``
with their MIME type, so the UI shows them like any tool's files.

A result is bounded (``max_bytes``, ``SHOKUNIN_MCP_MAX_RESULT_MB``): text past the bound is
cut, and a file or structured content that does not fit is left out, each with a note in
the result, so one huge answer never floods the run's events, its clients or the disk.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import re
import uuid
from pathlib import Path
from typing import Any

import mcp_types as types

from shokunin.store import SafeTree

DEFAULT_MAX_BYTES = 4 * 1024 * 1024


class _Budget:
    """What is left of ``max_bytes``, and the notes on what did not fit."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = self.left = max_bytes
        self.notes: list[str] = []

    def take(self, size: int, what: str) -> bool:
        if size <= self.left:
            self.left -= size
            return True
        self.notes.append(f"[{what} of {_mib(size)} left out: an MCP result may bring at most "
                          f"{_mib(self.max_bytes)} (SHOKUNIN_MCP_MAX_RESULT_MB)]")
        return False

    def text(self, text: str) -> str:
        data = text.encode("utf-8", "surrogatepass")
        if len(data) <= self.left:
            self.left -= len(data)
            return text
        kept = data[:self.left].decode("utf-8", "ignore")
        self.left = 0
        self.notes.append(f"[text cut at {_mib(self.max_bytes)} of {_mib(len(data))}: an MCP "
                          "result may bring at most that much (SHOKUNIN_MCP_MAX_RESULT_MB)]")
        return kept


def _mib(size: int) -> str:
    return f"{size / 1048576:.1f} MiB"


def seed_result(result: types.CallToolResult, *, tool: str, workspace: Path,
                max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, Any]:
    texts: list[str] = []
    files: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    budget = _Budget(max_bytes)
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(budget.text(block.text))
        elif isinstance(block, types.ImageContent | types.AudioContent):
            if budget.take(len(block.data) * 3 // 4, f"a {block.mime_type} file"):
                files.append(_write(workspace, tool, block.data, block.mime_type))
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                texts.append(budget.text(resource.text))
            elif budget.take(len(resource.blob) * 3 // 4, f"the file {str(resource.uri)[:80]}"):
                files.append(_write(workspace, tool, resource.blob, resource.mime_type,
                                    str(resource.uri)))
        elif isinstance(block, types.ResourceLink):
            links.append({"uri": str(block.uri), "name": block.name,
                          "mime_type": block.mime_type})
    structured = result.structured_content
    if structured is not None and not budget.take(
            len(json.dumps(structured, ensure_ascii=False).encode()), "structured content"):
        structured = None
    text = "\n".join(t for t in [*texts, *budget.notes] if t)
    if result.is_error:
        return {"success": False, "result": None, "files": files,
                "error": text or "the MCP tool reported an error without a message"}
    value: Any = structured if structured is not None else text
    if links:
        value = {"result": value, "resource_links": links}
    return {"success": True, "result": value, "files": files}


def _write(workspace: Path, tool: str, data: str, mime: str | None,
           uri: str | None = None) -> dict[str, Any]:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raw = data.encode("utf-8")  # a server that sent text where base64 belongs
    stem = re.sub(r"[^\w-]", "_", Path(uri.rsplit("/", 1)[-1]).stem)[:40] if uri else ""
    extension = mimetypes.guess_extension(mime or "") or ".bin"
    name = f"{tool}-{stem or 'output'}-{uuid.uuid4().hex[:8]}{extension}"
    SafeTree(workspace).write_bytes(name, raw)  # the workspace is the kernel's too
    return {"path": str(workspace / name), "name": name,
            "type": mime or "application/octet-stream"}
