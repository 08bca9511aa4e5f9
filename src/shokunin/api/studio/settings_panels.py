"""The seed project's React client's settings panels (its 設定 tab), each served from what
shokunin has, or as an honest empty state; a save is refused in Japanese, saying where the
setting lives instead (the client counts a refused save as failed and keeps what it shows).

    AI 同時実行数        GET  /api/config/concurrent-limits      no limit is set: empty
                         (its WebSocket half: GET /api/config/websocket, config.py)
    AI 使用モデル        GET  /api/projects/{id}/settings/usage-categories   SHOKUNIN_MODEL
    AI APIキー管理       GET  /api/ai-service-types               one service: the LLM
                         (with GET /api/ai-providers and /api/api-keys: client_settings.py)
    AI 詳細設定          GET  /api/projects/{id}/settings/advanced   the pipeline's timeout
                         and parallel agents; nothing for what shokunin does not have
    AI Agentプロンプト   GET  /api/projects/{id}/settings/principles  no principles
    生成結果保存先       GET  /api/projects/{id}/settings/output     the project's outputs folder
    データ管理           GET  /api/archive/stats                  the agents' log entries; no
                         traces, no retention (nothing is deleted by age)

A number shokunin does not have is ``null`` (the client's field stays empty), never a
default made up to fill it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from shokunin.agents.studio import Pipeline
from shokunin.api.errors import ApiError, json_object
from shokunin.api.studio.costs import SERVICE, _model
from shokunin.api.studio.rest import studio, visible_project
from shokunin.api.studio.validation import StudioRoute
from shokunin.auth import principal
from shokunin.runs import owner_scope

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)
USAGE = "agents"  # the one usage category: what the Studio's agents write with
SERVICE_LABELS = {SERVICE: "LLM"}

# where each setting lives instead, for a save the client sends
_WHERE = {
    "concurrency": "shokunin は AI の同時実行数を制限していません。準備のできたエージェントは"
                   "並んで動きます。",
    "websocket": "再接続の回数と間隔はクライアントの設定です(シードの既定: 5 回、1〜5 秒)。"
                 "サーバーには保存しません。",
    "model": "Studio のエージェントが使うモデルはサーバーの設定 SHOKUNIN_MODEL で決まります。"
             "変えるときはサーバーを SHOKUNIN_MODEL=<プロバイダー>:<モデル> で起動し直して"
             "ください。",
    "advanced": "これらの詳細設定は shokunin にはありません。タイムアウトと再試行の回数は"
                "パイプラインのファイル(SHOKUNIN_STUDIO_PIPELINE)の timeout_seconds と "
                "max_retries で決まります。",
    "principles": "shokunin には品質原則の設定がありません。エージェントへの指示は確認の"
                  "フィードバックか、完了後のブラッシュアップで伝えてください。",
    "output": "出力先は変えられません。プロジェクトの出力はサーバーのデータフォルダ"
              "(SHOKUNIN_DATA_DIR)の中に保存され、ZIP でまとめてダウンロードできます。",
    "keys": "APIキーはサーバーの環境変数(SHOKUNIN_MODEL_API_KEY か、プロバイダーの変数)で"
            "設定します。画面からは保存も表示もしません。",
    "retention": "shokunin はデータを期限で削除しません。不要なプロジェクトは削除するか、"
                 "初期化してください。",
}


async def _refused(request: Request, what: str) -> ApiError:
    """501 with where the setting lives; a body that is not a JSON object is still bad
    input first (400), as on every other JSON route."""
    if await request.body():
        await json_object(request, "a JSON object")
    return ApiError(501, _WHERE[what], "unavailable")


# AI 同時実行数
@router.get("/config/concurrent-limits")
async def concurrent_limits(request: Request) -> dict[str, Any]:
    studio(request)
    return {"default_max_concurrent": None, "provider_overrides": {}, "limited": False,
            "note": _WHERE["concurrency"]}


@router.put("/config/concurrent-limits")
async def set_concurrent_limits(request: Request) -> None:
    raise await _refused(request, "concurrency")


@router.put("/config/websocket")
async def set_websocket(request: Request) -> None:
    raise await _refused(request, "websocket")


# AI 使用モデル
def _usage(request: Request) -> dict[str, Any]:
    provider, model = _model(request)
    return {"id": USAGE, "label": "Studioのエージェント", "service_type": SERVICE,
            "provider": provider, "model": model, "configuredBy": "SHOKUNIN_MODEL"}


@router.get("/projects/{project_id}/settings/usage-categories")
async def usage_categories(request: Request, project_id: str) -> list[dict[str, Any]]:
    await visible_project(request, project_id)
    return [_usage(request)]


@router.put("/projects/{project_id}/settings/usage-categories/{category}")
async def set_usage_category(request: Request, project_id: str, category: str) -> None:
    await visible_project(request, project_id)
    raise await _refused(request, "model")


@router.delete("/projects/{project_id}/settings/usage-categories/{category}")
async def reset_usage_category(request: Request, project_id: str, category: str
                               ) -> dict[str, Any]:
    """Back to the default: the configured model, which it always is."""
    await visible_project(request, project_id)
    if category != USAGE:
        raise ApiError(404, f"no usage category {category[:64]!r}: only {USAGE!r}",
                       "not_found")
    return _usage(request)


# AI APIキー管理
@router.get("/ai-service-types")
async def ai_service_types(request: Request) -> dict[str, Any]:
    studio(request)
    return {"types": [SERVICE], "labels": SERVICE_LABELS}


@router.put("/api-keys/{provider}")
async def save_api_key(request: Request, provider: str) -> None:
    raise await _refused(request, "keys")


# AI 詳細設定
@router.get("/projects/{project_id}/settings/advanced")
async def advanced_settings(request: Request, project_id: str) -> dict[str, Any]:
    """What shokunin has of the client's advanced settings: agents run side by side when
    they are ready (``dagExecution``), each model call's time limit is the pipeline's
    ``timeout_seconds`` (the longest, when agents differ). No quality score, escalation,
    token budget, loop detection, temperature or context policy: empty (``null``), off
    where the client's field is a switch."""
    project = await visible_project(request, project_id)
    pipeline = Pipeline.model_validate(project["pipeline"])
    timeout = max((spec.timeout_seconds for spec in pipeline.agents), default=None)
    return {
        "qualityCheck": {"quality_threshold": None,
                         "escalation": {"enabled": False, "tier2_score_min": None,
                                        "tier2_score_max": None}},
        "toolExecution": {"max_iterations": None, "timeout_seconds": timeout,
                          "loop_detection_threshold": None},
        "dagExecution": {"enabled": True},
        "temperatureDefaults": {},
        # no token budget: nothing stops a run on a count (the client's select has no
        # "none"; "soft" is the one that stops nothing)
        "tokenBudget": {"default_limit": None, "warning_threshold_percent": None,
                        "enforcement": "soft"},
        "contextPolicy": {"auto_downgrade_threshold": None, "summary_max_length": None,
                          "leader_output_max_for_worker": None,
                          "retry_previous_output_max": None,
                          "llm_summary": {"enabled": False, "usage_category": None,
                                          "max_tokens": None, "min_content_length": None,
                                          "input_max_length": None},
                          "summary_directive": None},
        "maxRetries": {spec.type: spec.max_retries for spec in pipeline.agents},
        "note": _WHERE["advanced"],
    }


@router.put("/projects/{project_id}/settings/advanced")
async def set_advanced_settings(request: Request, project_id: str) -> None:
    await visible_project(request, project_id)
    raise await _refused(request, "advanced")


# AI Agentプロンプト
@router.get("/projects/{project_id}/settings/principles")
async def project_principles(request: Request, project_id: str) -> dict[str, Any]:
    await visible_project(request, project_id)
    return {"defaults": {}, "overrides": {}, "enabledPrinciples": []}


@router.put("/projects/{project_id}/settings/principles")
async def set_project_principles(request: Request, project_id: str) -> None:
    await visible_project(request, project_id)
    raise await _refused(request, "principles")


# 生成結果保存先
@router.get("/projects/{project_id}/settings/output")
async def output_settings(request: Request, project_id: str) -> dict[str, Any]:
    """Where the project's agents write: its ``outputs`` folder on the server, and the
    ZIP of every output."""
    await visible_project(request, project_id)
    folder = studio(request).runner.workspace(project_id) / "outputs"
    return {"default_dir": str(folder), "zipUrl": f"/api/projects/{project_id}/outputs.zip",
            "editable": False}


@router.put("/projects/{project_id}/settings/output")
async def set_output_settings(request: Request, project_id: str) -> None:
    await visible_project(request, project_id)
    raise await _refused(request, "output")


# データ管理
@router.get("/archive/stats")
async def archive_stats(request: Request) -> dict[str, Any]:
    """The agents' log entries of the projects the caller may see. shokunin keeps no
    traces or separate system log, and deletes nothing by age: no retention, nothing older
    than one."""
    count = await studio(request).records.log_count(owner_scope(principal(request)))
    none = {"traces": 0, "agent_logs": 0, "system_logs": 0}
    return {"total": none | {"agent_logs": count}, "older_than_retention": none,
            "retention_days": None, "cutoff_date": None, "retention": False}


@router.post("/archive/cleanup")
async def archive_cleanup(request: Request) -> None:
    raise await _refused(request, "retention")


@router.put("/archive/retention")
async def archive_retention(request: Request) -> None:
    raise await _refused(request, "retention")
