"""``list_datasets`` and ``ask_analyst``: the Analyst (seed 004) over MCP.

``ask_analyst`` starts an Analyst run on the dataset's thread, as ``POST /api/analyst/runs``
does, and answers with its report (text, tables in it, plots as images). When the Analyst
needs a clarification the run waits, as it does for the web face, and the tool's answer
says what it asks. Over stdio only, the local user's own process, ``csv_path`` names a
local table that is uploaded as a new dataset first; over HTTP no server path is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types

from shokunin import events as ev
from shokunin.agents.analyst import DatasetError, DatasetRecord, DatasetStorage
from shokunin.agents.analyst.isolated import ParseLimits
from shokunin.api.access import may_see, owner_scope
from shokunin.api.analyst.datasets import AGENT as ANALYST
from shokunin.api.analyst.runs import MAX_QUESTION_CHARS
from shokunin.mcp.server import content
from shokunin.mcp.server.faces import FaceTool, answer, failed, images, narrate
from shokunin.mcp.server.runs import Caller, follow
from shokunin.runs import new_thread_id
from shokunin.runs.deletion import delete_thread

LISTED_THREADS = 200  # newest Analyst threads whose datasets list_datasets shows

LIST_TOOL = types.Tool(
    name="list_datasets",
    title="List the Analyst's datasets",
    description="The tables uploaded to shokunin's Analyst: id, file name, rows, columns. "
                "Pass an id to ask_analyst.",
    input_schema={"type": "object", "properties": {}, "additionalProperties": False})

_QUESTION = {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS,
             "description": "What to find out, e.g. 'total revenue by region'"}
_DATASET = {"type": "string", "description": "A dataset id from list_datasets"}


def ask_tool(local: bool) -> types.Tool:
    """The ``ask_analyst`` description; only a local (stdio) caller may name a file."""
    properties: dict[str, Any] = {"dataset_id": _DATASET, "question": _QUESTION}
    schema: dict[str, Any] = {"type": "object", "properties": properties,
                              "required": ["dataset_id", "question"],
                              "additionalProperties": False}
    if local:
        properties["csv_path"] = {"type": "string", "description": (
            "Instead of dataset_id: a local CSV, TSV or .xlsx file to upload first")}
        schema["required"] = ["question"]
        schema["oneOf"] = [{"required": ["dataset_id"]}, {"required": ["csv_path"]}]
    return types.Tool(
        name="ask_analyst", title="Ask the Analyst",
        description="Ask shokunin's Analyst a question about a table: it writes and runs "
                    "pandas code in a sandbox and answers with a report (tables, plots).",
        input_schema=schema)


def _storage(caller: Caller) -> DatasetStorage:
    settings = caller.engine.settings
    return DatasetStorage(caller.engine.runner,
                          int(settings.analyst_pandas_max_mb * 1024 * 1024),
                          ParseLimits.from_settings(settings))


async def list_datasets(caller: Caller, args: dict[str, Any]) -> types.CallToolResult:
    storage = _storage(caller)
    threads = await caller.engine.store.list_threads(
        agent=ANALYST, owner=owner_scope(caller.who), limit=LISTED_THREADS)
    found = [record for thread in threads for record in await storage.for_thread(thread["id"])]
    rows = [{"id": r.id, "name": r.original_name, "rows": r.profile.rows,
             "columns": [c.name for c in r.profile.columns],
             "created_at": r.created_at.isoformat()} for r in found]
    return types.CallToolResult(content=[content.text(content.as_text(rows))],
                                structured_content={"datasets": rows})


async def ask_analyst(caller: Caller, args: dict[str, Any]) -> types.CallToolResult:
    question = args["question"].strip()
    if not question:
        return content.error("question must not be blank")
    if "csv_path" in args:
        if not caller.local:  # the schema over HTTP has no csv_path: never read server paths
            return content.error("csv_path is only accepted over stdio")
        record = await _upload(caller, Path(args["csv_path"]).expanduser())
    else:
        record = await _visible(caller, args["dataset_id"])
    if isinstance(record, types.CallToolResult):
        return record
    run_id = await caller.engine.runner.start(
        ANALYST, record.thread_id, {"dataset_id": record.id, "question": question},
        owner=caller.who)
    events = await follow(caller, run_id, narrate)
    ids = {"dataset_id": record.id, "run_id": run_id}
    end = events[-1]
    if (error := failed(end, **ids)) is not None:
        return error
    if isinstance(end, ev.RunInterrupted):
        asked = str((end.payload.get("value") or {}).get("question") or end.payload)
        said = (f"The Analyst needs a clarification before it can answer: {asked}\n"
                "Ask again with a more specific question (or answer it in shokunin's "
                f"Analyst view, run {run_id}).")
        return types.CallToolResult(content=[content.text(said)], structured_content={
            "answer": said, "clarification": asked, **ids})
    report = answer(events)
    return types.CallToolResult(content=[content.text(report), *images(events)],
                                structured_content={"answer": report, **ids})


async def _visible(caller: Caller, dataset_id: str) -> DatasetRecord | types.CallToolResult:
    record = await _storage(caller).get(dataset_id)
    if record is not None:
        thread = await caller.engine.store.thread_summary(record.thread_id)
        if thread is not None and may_see(caller.who, thread):
            return record
    return content.error(f"no dataset {dataset_id[:100]!r}; list_datasets shows the ids")


async def _upload(caller: Caller, path: Path) -> DatasetRecord | types.CallToolResult:
    limit = int(caller.engine.settings.analyst_max_upload_mb * 1024 * 1024)
    if not path.is_file():
        return content.error(f"no file {str(path)!r}")
    if path.stat().st_size > limit:
        return content.error(f"{path.name} is larger than {limit} bytes "
                             "(SHOKUNIN_ANALYST_MAX_UPLOAD_MB)")
    thread_id = new_thread_id()
    await caller.engine.store.ensure_thread(thread_id, ANALYST, title=path.name,
                                              owner=caller.who)
    try:
        with path.open("rb") as upload:
            return await _storage(caller).add(thread_id, path.name, upload)
    except DatasetError as exc:
        await delete_thread(caller.engine.runner, thread_id)  # no empty thread left
        return content.error(f"{path.name}: {exc}")


LIST_FACE = FaceTool(LIST_TOOL, ANALYST, list_datasets)


def ask_face(local: bool) -> FaceTool:
    return FaceTool(ask_tool(local), ANALYST, ask_analyst)
