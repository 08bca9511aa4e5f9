"""Turning whatever a tool returned into the one result shape every caller gets.

``{"success", "result", "error", "files", "aborted", "execution_id"}``: a raise, a timeout,
a malformed value or a file outside the allowed folders all become ``success: false`` with
a reason, and every secret of the tool is masked out of the whole result. A relative
``files[].path`` is resolved under the tool folder; a ``data:`` URL is left as it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shokunin.tools.masking import mask_deep

ABORTED_MESSAGE = "中断されました"


def failure(error: str, execution_id: str, *, aborted: bool = False) -> dict[str, Any]:
    return {"success": False, "result": None, "error": error, "files": [], "aborted": aborted,
            "execution_id": execution_id}


def finish(raw: Any, *, execution_id: str, allowed: list[Path], secrets: list[str]
           ) -> dict[str, Any]:
    """Validate a tool's return value and build the result (masked)."""
    return mask_deep(_check(raw, execution_id, allowed), secrets)


def _check(raw: Any, execution_id: str, allowed: list[Path]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return failure(f"malformed result: execute() returned {type(raw).__name__}, expected a "
                       'dict with "success"', execution_id)
    if not isinstance(raw.get("success"), bool):
        return failure('malformed result: "success" must be true or false', execution_id)
    try:
        json.dumps(raw, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return failure(f"malformed result: not JSON-serialisable ({exc})", execution_id)
    files = raw.get("files") or []
    if not isinstance(files, list):
        return failure('malformed result: "files" must be a list', execution_id)
    checked = []
    for item in files:
        entry = {"path": item} if isinstance(item, str) else item
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            return failure('malformed result: each of "files" needs a "path" string',
                           execution_id)
        if entry["path"].startswith("data:"):  # the file itself, inline: nothing to check
            checked.append({"name": "data", **entry})
            continue
        path = (allowed[0] / entry["path"]).resolve()  # relative paths: in the tool folder
        if not any(path.is_relative_to(root) for root in allowed):
            return failure(f"file {entry['path']} is outside the tool folder and the "
                           "workspace; tools may only return files they own", execution_id)
        checked.append({"name": path.name, **entry, "path": str(path)})
    error = raw.get("error")
    if error is None and not raw["success"]:
        error = "the tool reported failure without a message"
    return {"success": raw["success"], "result": raw.get("result"),
            "error": None if error is None else str(error), "files": checked,
            "aborted": bool(raw.get("aborted", False)), "execution_id": execution_id}

