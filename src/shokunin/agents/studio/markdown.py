"""An agent's structured output as Markdown, for a person reading it in a preview.

A checkpoint keeps its output's structure in ``output.content`` (the seed's
``Record<string, unknown>``) and adds this rendering as ``content.text``: the seed project's
client shows ``content.text`` when there is one (and the raw JSON otherwise). Any shape
renders: the known parts of a Document, TaskBreakdown, SourceFile, AssetFile or a leader's
``outputs`` in their own form, anything else as a list of its fields.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

# Keys that are bookkeeping, not something a reviewer reads.
_SKIPPED = frozenset({"summary", "attempt", "text", "agentId"})
FileUrl = Callable[[str], str]


def output_markdown(content: dict[str, Any], file_url: FileUrl | None = None) -> str:
    """``content`` as Markdown; ``file_url`` turns an output file's path (``outputs/...``)
    into a URL, so an image shows as an image."""
    parts: list[str] = []
    if content.get("summary"):
        parts.append(str(content["summary"]))
    for key, value in content.items():
        if key in _SKIPPED:
            continue
        rendered = _part(key, value, content, file_url)
        if rendered:
            parts.append(rendered)
    return "\n\n".join(parts).strip()


def _part(key: str, value: Any, content: dict[str, Any], file_url: FileUrl | None) -> str:
    if key == "sections" and isinstance(value, list):
        return "\n\n".join(f"## {s.get('heading', '')}\n\n{s.get('body', '')}"
                           for s in value if isinstance(s, dict))
    if key == "tasks" and isinstance(value, list):
        return "## タスク\n\n" + "\n".join(
            f"- **{t.get('title', t.get('id', ''))}** ({t.get('kind', '')}): "
            f"{t.get('description', '')}" for t in value if isinstance(t, dict))
    if key == "outputs" and isinstance(value, list):
        return "\n\n".join(_one_output(o, file_url) for o in value if isinstance(o, dict))
    if key == "content" and isinstance(value, str):  # a source file
        return f"```{content.get('language', '')}\n{value}\n```"
    if key == "svg" and isinstance(value, str):  # an image: shown, not its markup
        path = content.get("filePath") or content.get("path")
        return _image(str(path), file_url) if path else "(SVG 画像)"
    if key == "path":  # in a leader's list, the title names the file already
        return "" if content.get("filePath") else f"`{value}`"
    if key in ("language", "filePath"):
        return ""
    if key == "note" and isinstance(value, str):  # the offline brain's word on its draft
        return f"> {value}"
    if key == "draft":  # the note says it; else a plain word, not Python's True
        return "" if content.get("note") or not value else "(下書き)"
    if isinstance(value, bool):
        return f"**{key}**: {'はい' if value else 'いいえ'}"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return f"**{key}**\n\n```json\n{json.dumps(value, ensure_ascii=False, indent=2)}\n```"
    return f"**{key}**: {value}"


def _one_output(output: dict[str, Any], file_url: FileUrl | None) -> str:
    title = output.get("filePath") or output.get("path") or output.get("agentId") or ""
    body = output_markdown(output, file_url)
    return f"### {title}\n\n{body}" if title else body


def _image(path: str, file_url: FileUrl | None) -> str:
    if not path.startswith("outputs/"):
        path = f"outputs/{path}"
    return f"![{path.rsplit('/', 1)[-1]}]({file_url(path)})" if file_url else f"`{path}`"
