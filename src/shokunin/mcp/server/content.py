"""What a run gives back, as MCP content: text, images and files (embedded resources).

A tool's ``files`` are read from the paths the registry already checked (inside the tool's
folder or its run's workspace) and sent inline, base64: an MCP client, local or remote,
never needs to reach the server's disk.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
from pathlib import Path
from typing import Any
from urllib.parse import quote

import mcp_types as types

from shokunin.errors import ShokuninError
from shokunin.store import read_resolved

MAX_FILE_BYTES = 8 * 1024 * 1024  # per file sent inline; larger ones are named, not sent


def text(value: str) -> types.TextContent:
    return types.TextContent(type="text", text=value)


def as_text(value: Any) -> str:
    """A tool's ``result`` as the text a model reads: a string as it is, else JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def error(message: str, **structured: Any) -> types.CallToolResult:
    """A failed call: ``is_error`` with the reason, which a model can read and act on."""
    return types.CallToolResult(content=[text(message)], is_error=True,
                                structured_content={"error": message, **structured})


def failure(exc: ShokuninError, **structured: Any) -> types.CallToolResult:
    """A ``ShokuninError`` as an MCP tool error: the message a model reads and, in the
    structured content, the same ``{"error", "code"}`` as every other face."""
    return error(exc.message, code=str(exc.code), **structured)


def image(data_base64: str, format: str = "png") -> types.ImageContent:
    return types.ImageContent(type="image", data=data_base64,
                              mime_type=f"image/{'svg+xml' if format == 'svg' else format}")


def file_blocks(files: list[dict[str, Any]], run_id: str) -> list[types.ContentBlock]:
    """A tool result's ``files``: images as image content, anything else as an embedded
    resource (text or blob); a file too large or gone is named in a text block."""
    return [_file_block(entry, run_id) for entry in files]


def _file_block(entry: dict[str, Any], run_id: str) -> types.ContentBlock:
    name = str(entry.get("name") or Path(entry["path"]).name)
    mime = entry.get("type") or mimetypes.guess_type(name)[0] or "application/octet-stream"
    try:
        data, mime = _read(entry["path"], mime)
    except (OSError, ValueError) as exc:
        return text(f"[file {name}: {exc}]")
    if mime.startswith("image/") and mime != "image/svg+xml":  # SVG is text: a resource
        return types.ImageContent(type="image", data=base64.b64encode(data).decode("ascii"),
                                  mime_type=mime)
    uri = f"shokunin://runs/{run_id}/files/{quote(name)}"
    if mime.startswith("text/") or mime in ("application/json", "image/svg+xml"):
        try:
            return types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
                uri=uri, mime_type=mime, text=data.decode("utf-8")))
        except UnicodeDecodeError:
            pass  # not the text it claims to be: sent as bytes
    return types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
        uri=uri, mime_type=mime, blob=base64.b64encode(data).decode("ascii")))


def _read(path: str, mime: str) -> tuple[bytes, str]:
    """The file's bytes and media type; a ``data:`` URL carries both itself."""
    if path.startswith("data:"):
        header, _, payload = path[5:].partition(",")
        kind = header.split(";")[0] or mime
        try:
            data = (base64.b64decode(payload, validate=True) if header.endswith(";base64")
                    else payload.encode())
        except binascii.Error:
            raise ValueError("malformed data: URL") from None
        return data, kind
    # The registry checked the path, resolved; a workspace is the kernel's to change since,
    # so no component may have become a link (UnsafePath is a ValueError)
    return read_resolved(path, MAX_FILE_BYTES), mime
