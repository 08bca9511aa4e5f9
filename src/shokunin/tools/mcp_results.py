"""An MCP ``CallToolResult`` as the seed 003 result every shokunin caller understands.

Text blocks become the result (or the error, when the server says ``isError``), structured
content is preferred as the result when the server gives it, and images, audio and
embedded binary resources are written into the call's workspace and listed in ``files``
with their MIME type, so the UI shows them like any tool's files.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
import uuid
from pathlib import Path
from typing import Any

import mcp_types as types


def seed_result(result: types.CallToolResult, *, tool: str, workspace: Path) -> dict[str, Any]:
    texts: list[str] = []
    files: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
        elif isinstance(block, types.ImageContent | types.AudioContent):
            files.append(_write(workspace, tool, block.data, block.mime_type))
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                texts.append(resource.text)
            else:
                files.append(_write(workspace, tool, resource.blob, resource.mime_type,
                                    str(resource.uri)))
        elif isinstance(block, types.ResourceLink):
            links.append({"uri": str(block.uri), "name": block.name,
                          "mime_type": block.mime_type})
    text = "\n".join(texts)
    if result.is_error:
        return {"success": False, "result": None, "files": files,
                "error": text or "the MCP tool reported an error without a message"}
    value: Any = result.structured_content if result.structured_content is not None else text
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
    path = workspace / f"{tool}-{stem or 'output'}-{uuid.uuid4().hex[:8]}{extension}"
    workspace.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return {"path": str(path), "name": path.name, "type": mime or "application/octet-stream"}
