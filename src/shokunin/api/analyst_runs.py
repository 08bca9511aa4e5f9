"""Analyst runs: ask a question about a dataset. ``POST /api/analyst/runs`` with
``{"dataset_id", "question"}`` starts a run of the analyst agent on the dataset's thread
and answers ``{"run_id", "thread_id"}``; the run streams over ``GET /api/runs/{id}/events``
(SSE), a clarification is answered with ``POST /api/runs/{id}/resume``, and
``POST /api/runs/{id}/cancel`` stops it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from shokunin.api.access import principal
from shokunin.api.analyst_datasets import AGENT, visible_dataset
from shokunin.api.errors import ApiError, json_object

router = APIRouter(prefix="/api/analyst", tags=["analyst"])

MAX_QUESTION_CHARS = 4000


@router.post("/runs", status_code=201)
async def start_run(request: Request) -> dict[str, Any]:
    body = await json_object(request, '{"dataset_id": "...", "question": "..."}')
    dataset_id, question = body.get("dataset_id"), body.get("question")
    if not isinstance(dataset_id, str) or not dataset_id:
        raise ApiError(400, "'dataset_id' must be the id of an uploaded dataset", "bad_request")
    if not isinstance(question, str) or not question.strip():
        raise ApiError(400, "'question' must be a non-empty string", "bad_request")
    if len(question) > MAX_QUESTION_CHARS:
        raise ApiError(400, f"'question' is longer than {MAX_QUESTION_CHARS} characters",
                       "bad_request")
    record = await visible_dataset(request, dataset_id)
    runner = request.app.state.services.runner
    run_id = await runner.start(AGENT, record.thread_id,
                                {"dataset_id": record.id, "question": question.strip()},
                                owner=principal(request))
    return {"run_id": run_id, "thread_id": record.thread_id}
