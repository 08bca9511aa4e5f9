"""The later Advisor client's 価格転嫁検討ツール form: ``POST /api/cost-analysis``.

    POST /api/cost-analysis  {"before_sales", "before_cost", "before_expenses",
                              "current_sales", "current_cost", "current_expenses"} (yen)
        -> {"success": true, "result": {...}, "message": "分析が完了しました", "run_id"}
        |  {"success": false, "result": null, "message": <what to enter, in Japanese>, "run_id"}

The analysis is the builtin ``cost_impact`` tool, run through the tool agent
(agents/tool_run.py) as ``/api/tools/cost_impact/execute`` runs it: a stored run, behind the
perimeter and auth like every route. Figures the analysis cannot use (a negative amount, a
sales of 0) are the tool's failure, answered as the origin answers a failed analysis:
``success: false`` and a message the client shows as it is. A body that is not the form (not
JSON, a field missing, not a number, a field it does not have) is a 400 in the API's error
form, ``{"error", "code": "bad_request"}``, as the Advisor's other routes answer a bad body.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from shokunin.agents import tool_run
from shokunin.api.errors import ApiError, json_object
from shokunin.auth import principal
from shokunin.errors import ErrorCode
from shokunin.runs import follow_to_end
from shokunin.tools import InvalidArguments

router = APIRouter(prefix="/api", tags=["advisor"])

TOOL = "cost_impact"
FIELDS = ("before_sales", "before_cost", "before_expenses", "current_sales", "current_cost",
          "current_expenses")
EXPECTED = "{" + ", ".join(f'"{field}": 円' for field in FIELDS) + "}"
DONE = "分析が完了しました"


@router.post("/cost-analysis")
async def cost_analysis(request: Request) -> dict[str, Any]:
    body = await json_object(request, EXPECTED)
    engine = request.app.state.engine
    try:
        run_id = await tool_run.start(engine.runner, engine.tools, principal(request), TOOL, body)
    except InvalidArguments as exc:
        raise ApiError(400, f"価格転嫁検討ツールには6つの金額を数値で送ってください: {EXPECTED}"
                       f"（{exc}）", ErrorCode.BAD_REQUEST) from None
    outcome = tool_run.Outcome(run_id)
    for event in await follow_to_end(engine.runner, run_id):
        if (said := outcome.see(event)) is not None:
            if said.success:
                return {"success": True, "result": said.result, "message": DONE,
                        "run_id": run_id}
            return {"success": False, "result": None, "message": said.error, "run_id": run_id}
    raise ApiError(500, f"tool run {run_id} ended without a result", ErrorCode.INTERNAL)
