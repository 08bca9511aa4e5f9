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
from shokunin.agents.analyst import MAX_QUESTION_CHARS, DatasetError, UnknownDataset
from shokunin.agents.analyst import NAME as ANALYST
from shokunin.mcp.server import content
from shokunin.mcp.server.faces import FaceTool, failed, images, narrate
from shokunin.mcp.server.runs import Caller, follow
from shokunin.runs import answer_of

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


async def list_datasets(caller: Caller, args: dict[str, Any]) -> types.CallToolResult:
    found = await caller.engine.datasets.listed(caller.who, LISTED_THREADS)
    rows = [{"id": r.id, "name": r.original_name, "rows": r.profile.rows,
             "columns": [c.name for c in r.profile.columns],
             "created_at": r.created_at.isoformat()} for r in found]
    return types.CallToolResult(content=[content.text(content.as_text(rows))],
                                structured_content={"datasets": rows})


async def ask_analyst(caller: Caller, args: dict[str, Any]) -> types.CallToolResult:
    question = args["question"].strip()
    if not question:
        return content.error("question must not be blank")
    if "csv_path" in args and not caller.local:  # over HTTP: never read server paths
        return content.error("csv_path is only accepted over stdio")
    datasets = caller.engine.datasets
    try:
        if "csv_path" in args:
            path = Path(args["csv_path"]).expanduser()
            dataset_id = (await datasets.upload_file(caller.who, path)).id
        else:
            dataset_id = args["dataset_id"]
        record, run_id = await datasets.ask(caller.who, dataset_id, question)
    except UnknownDataset as exc:
        return content.error(f"{exc}; list_datasets shows the ids", code=str(exc.code))
    except DatasetError as exc:
        return content.error(f"{args['csv_path']}: {exc}", code=str(exc.code))
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
    report = answer_of(events)
    return types.CallToolResult(content=[content.text(report), *images(events)],
                                structured_content={"answer": report, **ids})


LIST_FACE = FaceTool(LIST_TOOL, ANALYST, list_datasets)


def ask_face(local: bool) -> FaceTool:
    return FaceTool(ask_tool(local), ANALYST, ask_analyst)
