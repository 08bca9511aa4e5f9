"""What the seed project's React client reads to draw its forms, diagram and labels.

    GET /api/config/project-options   the create form's platform/scope/scale buttons
    GET /api/agent-definitions        agent labels, the diagram's phases and edges
    GET /api/config/ui-settings       status, role and checkpoint labels
    GET /api/brushup/options          the brush-up dialog's per-agent choices
    GET /api/config/websocket         the reconnect policy (seed 002 section 3's defaults)

None of these is in seed 002; each is drawn from the Studio's own pipeline (its phases,
agent types, dependencies, checkpoints) and the seed's vocabulary, in the client's shapes.
Platforms and scopes are the seed's (``GameConcept``), its first value the default.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from shokunin.agents.studio.contracts import PLATFORMS, SCOPES
from shokunin.agents.studio.pipeline import AgentSpec, Pipeline
from shokunin.api.studio.rest import studio
from shokunin.api.studio.validation import StudioRoute

router = APIRouter(prefix="/api", tags=["studio"], route_class=StudioRoute)

_PLATFORMS = {"web": ("Webブラウザ", "ブラウザで遊べるゲーム"),
              "desktop": ("デスクトップ", "PCで動くゲーム"),
              "mobile": ("モバイル", "スマートフォン向けのゲーム")}
_SCOPES = {"mvp": ("MVP", "遊べる最小限の一本"), "full": ("フル版", "完成した一本のゲーム")}
_SCALES = [("small", "小規模", "個人開発", "~100時間"),
           ("medium", "中規模", "小チーム開発", "100~500時間"),
           ("large", "大規模", "フルチーム開発", "500時間以上")]
_RATINGS = [(0, "なし", "全年齢"), (1, "軽度", "12+"), (2, "中程度", "15+"),
            (3, "強め", "17+"), (4, "過激", "18+")]
_ASSET_SWITCHES = [("enableImageGeneration", "画像生成"), ("enableBGMGeneration", "BGM/効果音"),
                   ("enableVoiceSynthesis", "ボイス合成"), ("enableVideoGeneration", "動画生成")]
_PHASES = {"planning": "企画・設計", "development": "開発", "quality": "品質・リリース"}
_ROLES = {"task_split": "splitter", "integrator": "integrator", "tester": "tester",
          "reviewer": "reviewer"}
_LABELS = {
    "status": {"draft": "下書き", "running": "実行中", "paused": "一時停止", "completed": "完了",
               "failed": "エラー"},
    "agent_status": {"pending": "待機中", "running": "実行中", "completed": "完了",
                     "failed": "エラー", "blocked": "ブロック"},
    "approval": {"pending": "未承認", "approved": "承認済", "rejected": "却下"},
    "resolution": {"approved": "承認", "rejected": "却下", "revision_requested": "修正依頼"},
    "role": {"leader": "リーダー", "worker": "ワーカー", "splitter": "分割",
             "integrator": "統合", "tester": "テスト", "reviewer": "レビュー"},
    "asset_type": {"image": "画像", "audio": "音声", "video": "動画",
                   "document": "ドキュメント", "code": "コード", "other": "その他"},
    "checkpoint": {
        "concept_review": "コンセプト", "design_review": "ゲームデザイン",
        "scenario_review": "シナリオ", "character_review": "キャラクター",
        "world_review": "ワールド", "task_split_review": "タスク分割",
        "code_review": "コード", "asset_review": "アセット",
        "integration_review": "統合ビルド", "test_review": "テスト",
        "final_review": "最終レビュー", "release_decision": "リリース判断"},
}


def _pipeline(request: Request) -> Pipeline:
    return studio(request).pipeline


def _agents(pipeline: Pipeline) -> dict[str, dict[str, Any]]:
    """Every agent type of the pipeline, its workers' types too (they have rows and logs)."""
    found: dict[str, dict[str, Any]] = {}
    for spec in pipeline.agents:
        label = spec.title or spec.type
        found[spec.type] = {"label": label, "shortLabel": label, "phase": spec.phase,
                            "speechBubble": _bubble(spec), "role": _role(spec),
                            "highCost": False}
        if spec.workers:
            found[spec.workers.type] = {
                "label": f"{label}ワーカー", "shortLabel": f"{label}W", "phase": spec.phase,
                "speechBubble": f"{label}のタスクを一つ作ります", "role": "worker",
                "highCost": False}
    return found


def _role(spec: AgentSpec) -> str:
    return _ROLES.get(spec.type, "leader")


def _bubble(spec: AgentSpec) -> str:
    return f"{spec.title or spec.type}を作ります" + ("(承認が必要です)" if spec.checkpoint else "")


def _ui_phases(pipeline: Pipeline) -> list[dict[str, Any]]:
    return [{"id": phase.name, "label": _PHASES.get(phase.name, phase.name),
             "agents": [a.type for a in pipeline.agents if a.phase == phase.number]}
            for phase in sorted(pipeline.phases, key=lambda p: p.number)]


@router.get("/config/project-options")
async def project_options(request: Request) -> dict[str, Any]:
    studio(request)  # 503 with the reason when the Studio is off
    return {
        "platforms": [{"value": v, "label": _PLATFORMS[v][0], "description": _PLATFORMS[v][1]}
                      for v in PLATFORMS],
        "scopes": [{"value": v, "label": _SCOPES[v][0], "description": _SCOPES[v][1]}
                   for v in SCOPES],
        "projectTemplates": [],
        "scaleOptions": [{"value": v, "label": label, "description": d, "estimatedHours": h}
                         for v, label, d, h in _SCALES],
        "assetServiceOptions": [{"key": key, "label": label, "service": "-"}
                                for key, label in _ASSET_SWITCHES],
        "violenceRatingOptions": [{"level": n, "label": label, "age": age, "description": ""}
                                  for n, label, age in _RATINGS],
        "sexualRatingOptions": [{"level": n, "label": label, "age": age, "description": ""}
                                for n, label, age in _RATINGS],
        "projectDefaults": {
            "assetGeneration": {key: False for key, _ in _ASSET_SWITCHES},
            "contentPermissions": {"violenceLevel": 0, "sexualLevel": 0}},
        "defaults": {"platform": PLATFORMS[0], "scope": SCOPES[0], "projectTemplate": ""},
    }


@router.get("/agent-definitions")
async def agent_definitions(request: Request) -> dict[str, Any]:
    pipeline = _pipeline(request)
    return {"agents": _agents(pipeline), "uiPhases": _ui_phases(pipeline),
            # the pipeline runs every agent whatever the asset switches say: none hidden
            "agentAssetMapping": {},
            "workflowDependencies": {a.type: list(a.depends_on) for a in pipeline.agents}}


@router.get("/config/ui-settings")
async def ui_settings(request: Request) -> dict[str, Any]:
    pipeline = _pipeline(request)
    agents = _agents(pipeline)
    return {
        "uiPhases": _ui_phases(pipeline),
        "agentServiceMap": {kind: "llm" for kind in agents},
        "serviceLabels": {"llm": "LLM"},
        "statusLabels": _LABELS["status"],
        "agentStatusLabels": _LABELS["agent_status"],
        "approvalStatusLabels": _LABELS["approval"],
        "assetTypeLabels": _LABELS["asset_type"],
        "resolutionLabels": _LABELS["resolution"],
        "roleLabels": _LABELS["role"],
        "checkpointTypeLabels": _LABELS["checkpoint"],
        "agentRoles": {kind: a["role"] for kind, a in agents.items()},
        "agents": {kind: {k: a[k] for k in ("label", "shortLabel", "phase", "role",
                                             "highCost")} for kind, a in agents.items()},
    }


@router.get("/brushup/options")
async def brushup_options(request: Request) -> dict[str, Any]:
    """No preset choices per agent: a brush-up takes the user's own instructions."""
    return {"agents": {spec.type: {"options": []} for spec in _pipeline(request).agents}}


@router.get("/config/websocket")
async def websocket_config() -> dict[str, Any]:
    """Seed 002 section 3 (接続情報): 5 attempts, 1000 ms first delay, 5000 ms at most,
    10000 ms connection timeout."""
    return {"maxReconnectAttempts": 5, "reconnectDelay": 1000, "reconnectDelayMax": 5000,
            "timeout": 10000}
