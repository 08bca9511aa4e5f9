"""What the seed project's React client reads for its model settings and cost views, drawn
from what shokunin knows, never from a price table it does not have.

    GET /api/config/ai-services   the model the Studio's agents write with (SHOKUNIN_MODEL)
    GET /api/config/pricing       its price: known only for a model that runs here (offline,
                                  scripted: 0); any other has no price (``pricing: {}``,
                                  ``priced: false``)
    GET /api/config/global-cost-settings   no budget (shokunin sets none); a PUT is refused
                                  in Japanese, saying so
    GET /api/cost/history | summary | daily | prediction | budget-status
                                  the token usage the Studio recorded: each output an agent
                                  wrote is one model call (its tokens, its time)

One service, ``llm``: the Studio makes no images or sounds through a paid service. The
Studio records a call's total tokens, not its input/output split, so ``input_tokens`` and
``output_tokens`` are 0 (the client shows ``-``) and the total is in ``total_tokens``; a
cost is a number only when the price is known (``cost_known``), else 0 with
``cost_known: false``. shokunin sets no budget: ``monthly_limit`` is 0 and no warning is
raised. Every figure is of the projects the caller may see (``owner_scope``).
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Query, Request

from shokunin.api.errors import ApiError
from shokunin.api.studio.rest import studio
from shokunin.api.studio.validation import StudioRoute
from shokunin.auth import principal
from shokunin.runs import owner_scope

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)

SERVICE = "llm"
LOCAL = {"offline": "オフライン(モデルなし)", "scripted": "台本モデル(テスト用)"}
CURRENCY = "USD"


def _model(request: Request) -> tuple[str, str]:
    """(provider, model) of ``SHOKUNIN_MODEL``: ``openai:gpt-4.1-mini`` -> both parts,
    ``offline`` -> ``offline`` twice."""
    spec = request.app.state.engine.settings.model
    provider, _, model = spec.partition(":")
    return provider, model or provider


def _price_known(provider: str) -> bool:
    """A model that runs in this process costs nothing; no other price is known here."""
    return provider in LOCAL


@router.get("/config/ai-services")
async def ai_services(request: Request) -> dict[str, Any]:
    studio(request)  # 503 with the reason when the Studio is off
    provider, model = _model(request)
    label = LOCAL.get(provider, provider)
    models = [{"id": model, "label": model, "recommended": True}]
    default = {"provider": provider, "model": model}
    return {
        "serviceTypes": [SERVICE],
        "usageCategories": [{"id": "agents", "label": "Studioのエージェント",
                             "service_type": SERVICE, "default": default}],
        "services": {SERVICE: {"label": "LLM", "default": default, "providers": [
            {"id": provider, "label": label, "models": models, "defaultModel": model}]}},
        "providers": {provider: {"label": label, "serviceTypes": [SERVICE], "models": models,
                                 "defaultModel": model}},
        # beyond the client's form: where it is set, and whether it is the offline brain
        "configuredBy": "SHOKUNIN_MODEL", "offline": provider == "offline",
    }


@router.get("/config/pricing")
async def pricing(request: Request) -> dict[str, Any]:
    studio(request)
    provider, model = _model(request)
    known = _price_known(provider)
    return {"currency": CURRENCY,
            "units": {SERVICE: {"input": "1Mトークンあたり", "output": "1Mトークンあたり"}},
            "models": {model: {"provider": provider,
                               "pricing": {"input": 0, "output": 0} if known else {},
                               "priced": known}},
            "priced": known,
            "note": None if known else "このモデルの価格は shokunin にはわかりません。"
                                       "料金はプロバイダーの請求でご確認ください。"}


class _Usage:
    """The caller's recorded model calls, and what they cost when the price is known."""

    def __init__(self, request: Request, calls: list[dict[str, Any]]) -> None:
        self.provider, self.model = _model(request)
        self.known = _price_known(self.provider)
        self.calls = calls

    @classmethod
    async def read(cls, request: Request, project_id: str | None = None) -> _Usage:
        records = studio(request).records
        calls = await records.model_calls(owner_scope(principal(request)),
                                          project_id=project_id)
        return cls(request, calls)

    def of_month(self, year: int, month: int) -> list[dict[str, Any]]:
        return [c for c in self.calls if (_utc(c["created_at"]).year,
                                          _utc(c["created_at"]).month) == (year, month)]

    def item(self, call: dict[str, Any]) -> dict[str, Any]:
        return {"id": call["id"], "project_id": call["project_id"],
                "agent_id": call["agent_id"], "agent_type": call["agent_type"],
                "service_type": SERVICE, "provider_id": None, "model_id": None,
                "input_tokens": 0, "output_tokens": 0, "unit_count": 1, "cost_usd": 0,
                "recorded_at": _utc(call["created_at"]).isoformat().replace("+00:00", "Z"),
                "metadata": {"total_tokens": int(call["tokens_used"] or 0),
                             "output_type": call["output_type"],
                             "generation_time_ms": call["generation_time_ms"]},
                "total_tokens": int(call["tokens_used"] or 0), "cost_known": self.known}


def _utc(at: datetime) -> datetime:
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at  # SQLite gives naive UTC


def _month(year: int | None, month: int | None) -> tuple[int, int]:
    today = datetime.now(UTC)
    return year or today.year, month or today.month


def _tokens(calls: list[dict[str, Any]]) -> int:
    return sum(int(c["tokens_used"] or 0) for c in calls)


@router.get("/cost/history")
async def cost_history(request: Request, project_id: str | None = None,
                       year: int | None = Query(None, ge=1970, le=9999),
                       month: int | None = Query(None, ge=1, le=12),
                       limit: int = Query(50, ge=1, le=500), offset: int = Query(0, ge=0)
                       ) -> dict[str, Any]:
    """Newest first, as the client's table pages through them."""
    usage = await _Usage.read(request, project_id)
    calls = usage.of_month(*_month(year, month)) if year or month else usage.calls
    calls = calls[::-1]
    return {"items": [usage.item(c) for c in calls[offset:offset + limit]],
            "total": len(calls), "limit": limit, "offset": offset}


@router.get("/cost/summary")
async def cost_summary(request: Request, year: int | None = Query(None, ge=1970, le=9999),
                       month: int | None = Query(None, ge=1, le=12)) -> dict[str, Any]:
    year, month = _month(year, month)
    usage = await _Usage.read(request)
    calls = usage.of_month(year, month)
    by_project: dict[str, dict[str, int]] = {}
    for call in calls:
        by_project.setdefault(call["project_id"], {"call_count": 0})["call_count"] += 1
    return {"year": year, "month": month, "total_cost": 0, "cost_known": usage.known,
            "total_tokens": _tokens(calls),
            "by_service": {SERVICE: {"input_tokens": 0, "output_tokens": 0,
                                     "total_tokens": _tokens(calls),
                                     "call_count": len(calls)}} if calls else {},
            "by_project": by_project}


@router.get("/cost/daily")
async def cost_daily(request: Request, project_id: str | None = None,
                     year: int | None = Query(None, ge=1970, le=9999),
                     month: int | None = Query(None, ge=1, le=12)) -> dict[str, Any]:
    year, month = _month(year, month)
    usage = await _Usage.read(request, project_id)
    days: dict[str, list[dict[str, Any]]] = {}
    for call in usage.of_month(year, month):
        days.setdefault(_utc(call["created_at"]).date().isoformat(), []).append(call)
    return {"year": year, "month": month, "cost_known": usage.known,
            "daily": [{"date": day, "cost": 0, "input_tokens": 0, "output_tokens": 0,
                       "total_tokens": _tokens(calls), "call_count": len(calls)}
                      for day, calls in sorted(days.items())],
            "by_service": [{"date": day, "service_type": SERVICE, "cost": 0}
                           for day in sorted(days)],
            "service_types": [SERVICE] if days else []}


@router.get("/cost/prediction")
async def cost_prediction(request: Request) -> dict[str, Any]:
    """This month's spending so far and where it leads: 0 while no price is known, and no
    budget to reach (shokunin sets none)."""
    usage = await _Usage.read(request)
    today = datetime.now(UTC).date()
    days = calendar.monthrange(today.year, today.month)[1]
    return {"current_usage": 0, "daily_average": 0, "projected_total": 0,
            "monthly_limit": 0, "projected_percent": 0, "will_exceed_budget": False,
            "remaining_days": days - today.day, "elapsed_days": today.day,
            "days_in_month": days, "days_until_limit": 0, "cost_known": usage.known,
            "calls_this_month": len(usage.of_month(today.year, today.month))}


@router.get("/cost/budget-status")
async def budget_status(request: Request) -> dict[str, Any]:
    """No budget is set in shokunin: nothing is over or near it."""
    usage = await _Usage.read(request)
    return {"current_usage": 0, "monthly_limit": 0, "remaining": 0, "usage_percent": 0,
            "alert_threshold": 0, "is_over_budget": False, "is_warning": False,
            "stop_on_budget_exceeded": False, "global_enabled": False,
            "cost_known": usage.known, "budget_set": False}



@router.get("/config/global-cost-settings")
async def global_cost_settings(request: Request) -> dict[str, Any]:
    """No budget: the client's form shows it off and at 0 instead of its own defaults."""
    studio(request)
    return {"global_enabled": False, "global_monthly_limit": 0, "alert_threshold": 0,
            "stop_on_budget_exceeded": False, "services": {}, "updated_at": None,
            "budget_set": False}


@router.put("/config/global-cost-settings")
async def set_global_cost_settings(request: Request, settings: dict[str, Any]) -> None:
    """The client's settings are read (a body that is not JSON is the usual 4xx), then
    refused: there is no budget to set."""
    studio(request)
    del settings
    raise ApiError(501, "shokunin には予算を設定する機能がありません。使用量は「コスト」と"
                   "「コスト履歴・レポート」で確認し、上限はモデルのプロバイダー側で設定して"
                   "ください。", "unavailable")
