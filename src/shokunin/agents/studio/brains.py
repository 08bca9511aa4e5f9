"""The Studio's brains: what an agent of the pipeline writes for its job.

``LLMBrain`` asks a chat model for the output as structured data (pydantic schemas below).
``OfflineBrain`` writes deterministic drafts from the GameConcept, marked as drafts, so a
pipeline runs end to end with no model; it says plainly that a model would write them.

A failed job raises ``JobFailed`` with the seed's errorType (timeout, llm_error,
validation_error); the pipeline decides whether to retry.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from shokunin.agents.studio.revision import revise
from shokunin.errors import ShokuninError
from shokunin.models import ModelCallError, ModelRateLimited, ask_structured

LANGUAGE = "ja"  # what the Studio writes for its user (progress, drafts, failures)
DRAFT_NOTE = ("オフライン下書き: モデル未設定のため、コンセプトから決まった手順で書いた草案です。"
              "SHOKUNIN_MODEL を設定するとモデルが書きます。")


class JobFailed(ShokuninError):
    def __init__(self, error_type: str, message: str, retry_after: float | None = None,
                 llm_error: str | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.retry_after = retry_after
        self.llm_error = llm_error  # seed LLMErrorEvent.errorType, for llm_error


# What a model is asked to write, per output kind.
class Section(BaseModel):
    heading: str
    body: str


class Document(BaseModel):
    """A design document: concept, design, scenario, characters, world, results."""

    summary: str = Field(description="two sentences at most")
    sections: list[Section] = Field(min_length=1)


class Task(BaseModel):
    id: str = Field(pattern=r"^[a-z0-9_-]{1,40}$")
    kind: Literal["code", "asset"]
    title: str
    description: str


class TaskBreakdown(BaseModel):
    summary: str
    tasks: list[Task] = Field(min_length=1, max_length=30)


class SourceFile(BaseModel):
    summary: str
    path: str = Field(pattern=r"^[A-Za-z0-9_./-]{1,120}$")
    language: str
    content: str


class AssetFile(BaseModel):
    summary: str
    path: str = Field(pattern=r"^[A-Za-z0-9_./-]{1,120}\.svg$")
    svg: str = Field(description="a complete SVG document")


SCHEMAS: dict[str, type[BaseModel]] = {
    "task_breakdown": TaskBreakdown, "code": SourceFile, "asset_image": AssetFile}


def schema_for(output_type: str) -> type[BaseModel]:
    return SCHEMAS.get(output_type, Document)


@dataclass
class Job:
    agent_type: str
    output_type: str
    title: str
    project_name: str
    concept: dict[str, Any]
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)  # upstream type -> content
    feedback: str | None = None
    task: dict[str, Any] | None = None  # a worker's task from the breakdown
    attempt: int = 0
    timeout_seconds: float = 300.0


@dataclass
class Produced:
    summary: str
    content: dict[str, Any]
    tokens: int = 0
    files: dict[str, str] = field(default_factory=dict)  # relative path -> text


class Brain(Protocol):
    name: str

    async def produce(self, job: Job) -> Produced: ...


def _files(output_type: str, data: BaseModel) -> dict[str, str]:
    if isinstance(data, SourceFile):
        return {data.path: data.content}
    if isinstance(data, AssetFile):
        return {data.path: data.svg}
    return {}


class LLMBrain:
    name = "llm"

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    async def produce(self, job: Job) -> Produced:
        schema = schema_for(job.output_type)
        prompt = [SystemMessage(_system(job)), HumanMessage(_brief(job))]
        try:
            async with asyncio.timeout(job.timeout_seconds):
                answer = await ask_structured(self.model, schema, prompt)
        except TimeoutError:
            raise JobFailed("timeout", f"no answer from the model in {job.timeout_seconds:g} s"
                            ) from None
        except ModelCallError as exc:  # a failure class: its sentence says what to change
            kind, retry_after = _llm_kind(exc)
            raise JobFailed("llm_error", exc.said(LANGUAGE)[:500], retry_after,
                            llm_error=kind) from None
        except Exception as exc:  # noqa: BLE001 - the provider's own error types
            kind, retry_after = _llm_kind(exc)
            raise JobFailed("llm_error", f"{type(exc).__name__}: {exc}"[:500], retry_after,
                            llm_error=kind) from None
        tokens = int(answer.usage.get("total_tokens") or 0)
        data = answer.parsed
        if data is None:
            raise JobFailed("validation_error", f"the model's output does not fit "
                            f"{schema.__name__}: {_why_not(schema, answer.text)}"[:500],
                            llm_error="invalid_response")
        return Produced(summary=data.summary, content=data.model_dump(), tokens=tokens,  # type: ignore[attr-defined]
                        files=_files(job.output_type, data))


def _why_not(schema: type[BaseModel], text: str) -> str:
    try:
        schema.model_validate_json(text)
    except ValidationError as exc:
        return _first_error(exc)
    return f"not one JSON object: {text[:200]!r}"


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


def _llm_kind(exc: Exception) -> tuple[str, float | None]:
    # a failure class's own text, and the provider's behind it (its Retry-After)
    text = f"{type(exc).__name__} {exc} {exc.__cause__ or ''}".lower()
    if isinstance(exc, ModelRateLimited) or "rate" in text and "limit" in text or "429" in text:
        retry = re.search(r"retry[- _]after\D{0,5}(\d+(?:\.\d+)?)", text)
        return "rate_limit", float(retry.group(1)) if retry else None
    if "context length" in text or "token" in text and "limit" in text:
        return "token_limit", None
    return "api_error", None


def _system(job: Job) -> str:
    return (f"You are the {job.agent_type} agent of a game studio pipeline. Write the "
            f"{job.output_type} for the project as the structured output asked for, in the "
            "language of the concept. Be concrete and consistent with the inputs.")


def prompt_parts(job: Job) -> tuple[str, list[tuple[str, str]]]:
    """What ``LLMBrain`` sends for ``job``: the system prompt, and the user prompt's parts
    (what each is, its text) in order, joined by blank lines."""
    parts = [("project", f"Project: {job.project_name}"),
             ("concept", f"Concept: {json.dumps(job.concept, ensure_ascii=False)}")]
    for kind, content in job.inputs.items():
        parts.append((kind, f"{kind}: {json.dumps(content, ensure_ascii=False)[:4000]}"))
    if job.task:
        parts.append(("task", f"Your task: {json.dumps(job.task, ensure_ascii=False)}"))
    if job.feedback:
        parts.append(("feedback", "The reviewer asked for changes to your previous version: "
                      f"{job.feedback}"))
    return _system(job), parts


def _brief(job: Job) -> str:
    return "\n\n".join(text for _, text in prompt_parts(job)[1])


class OfflineBrain:
    """Deterministic drafts from the concept: the same concept gives the same drafts."""

    name = "offline"

    async def produce(self, job: Job) -> Produced:
        await asyncio.sleep(0)  # a job is a step of the graph even when it costs nothing
        writer = getattr(self, f"_{job.output_type}", None)
        data = writer(job) if writer else self._document(job)
        if job.feedback:
            # the summary says what the revision changed in the draft, not what was asked
            data, revision = revise(data, job.feedback)
            data.summary = f"{data.summary}({revision.summary(job.attempt, job.feedback)})"
            if isinstance(data, Document):
                data.sections.append(Section(heading="レビューへの対応",
                                             body=revision.section(job.feedback)))
        content = data.model_dump() | {"draft": True, "note": DRAFT_NOTE}
        return Produced(summary=f"[下書き] {data.summary}", content=content,
                        files=_files(job.output_type, data))

    def _document(self, job: Job) -> Document:
        c = job.concept
        genre = c.get("genre") or "ジャンル未指定"
        audience = c.get("targetAudience") or c.get("target_audience") or "対象未指定"
        platform, scope = c.get("platform", "web"), c.get("scope", "mvp")
        desc = str(c.get("description", "")).strip()
        basis = [Section(heading="コンセプト", body=desc),
                 Section(heading="前提", body=f"プラットフォーム: {platform} / 規模: {scope} / "
                         f"ジャンル: {genre} / 対象: {audience}")]
        upstream = [Section(heading=f"入力: {kind}",
                            body=str(content.get("summary", ""))[:400])
                    for kind, content in job.inputs.items() if content.get("summary")]
        focus = _FOCUS.get(job.output_type, "まとめ")
        return Document(summary=f"「{job.project_name}」の{job.title or job.agent_type}: "
                                f"{focus}({genre}、{platform}、{scope})",
                        sections=basis + upstream + [Section(
                            heading=focus, body=_outline(job.output_type, c))])

    def _task_breakdown(self, job: Job) -> TaskBreakdown:
        scope = job.concept.get("scope", "mvp")
        code = [("core_loop", "ゲームループ", "入力・更新・描画の基本ループ"),
                ("player", "プレイヤー操作", "移動と当たり判定"),
                ("ui", "画面とスコア", "タイトル・スコア・ゲームオーバー表示")]
        asset = [("player_sprite", "プレイヤー画像", "主人公のスプライト"),
                 ("background", "背景", "ステージの背景")]
        if scope == "full":
            code.append(("save", "セーブ", "進行状況の保存と読み込み"))
            asset.append(("enemy_sprite", "敵画像", "敵キャラクターのスプライト"))
        tasks = [Task(id=i, kind="code", title=t, description=d) for i, t, d in code]
        tasks += [Task(id=i, kind="asset", title=t, description=d) for i, t, d in asset]
        return TaskBreakdown(summary=f"コード {len(code)} 件、アセット {len(asset)} 件に分割",
                             tasks=tasks)

    def _code(self, job: Job) -> SourceFile:
        task = job.task or {"id": "main", "title": job.title, "description": ""}
        ext = {"web": "js", "desktop": "py", "mobile": "js"}.get(
            job.concept.get("platform", "web"), "js")
        path = f"src/{task['id']}.{ext}"
        comment = "//" if ext == "js" else "#"
        body = (f"{comment} {task['title']}: {task['description']}\n"
                f"{comment} {DRAFT_NOTE}\n")
        body += (f"export function {task['id']}(state) {{\n  return state;\n}}\n" if ext == "js"
                 else f"def {task['id']}(state):\n    return state\n")
        return SourceFile(summary=f"{task['title']} の骨組み ({path})", path=path,
                          language={"js": "javascript", "py": "python"}[ext], content=body)

    def _asset_image(self, job: Job) -> AssetFile:
        task = job.task or {"id": "asset", "title": job.title}
        hue = int(hashlib.sha256(task["id"].encode()).hexdigest()[:2], 16) * 360 // 256
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" '
               f'viewBox="0 0 128 128"><title>{_xml(task["title"])} (draft)</title>'
               f'<rect width="128" height="128" fill="hsl({hue},60%,55%)"/>'
               f'<text x="64" y="70" font-size="14" text-anchor="middle" fill="#fff">'
               f'{_xml(task["title"])}</text></svg>\n')
        return AssetFile(summary=f"{task['title']} の仮画像", path=f"assets/{task['id']}.svg",
                         svg=svg)


    def _build_result(self, job: Job) -> Document:
        files = job.inputs.get("files", {})
        code = sorted(p for p in files if not p.endswith(".svg"))
        assets = sorted(p for p in files if p.endswith(".svg"))
        return Document(summary=f"コード {len(code)} 件とアセット {len(assets)} 件を一つの"
                                "ビルドにまとめた", sections=[
            Section(heading="コード", body="\n".join(code) or "なし"),
            Section(heading="アセット", body="\n".join(assets) or "なし")])

    def _test_result(self, job: Job) -> Document:
        """Real checks on the files: Python compiles, SVG is well-formed XML, nothing empty."""
        failures, checked = [], 0
        for path, text in sorted(job.inputs.get("files", {}).items()):
            checked += 1
            problem = _check_file(path, text)
            if problem:
                failures.append(f"{path}: {problem}")
        verdict = "すべて合格" if not failures else f"{len(failures)} 件が不合格"
        return Document(summary=f"{checked} ファイルを検査: {verdict}", sections=[
            Section(heading="検査した内容", body="空でないこと、Python は構文、SVG は XML として"
                    "正しいこと、JavaScript は括弧の対応"),
            Section(heading="不合格", body="\n".join(failures) or "なし")])

    def _review_result(self, job: Job) -> Document:
        tests = job.inputs.get("test_result", {})
        return Document(summary=f"最終レビュー: {tests.get('summary', 'テスト結果なし')}",
                        sections=[Section(heading="判断材料", body="\n".join(
                            f"{kind}: {content.get('summary', '')}"
                            for kind, content in job.inputs.items() if kind != "files"))])


def _check_file(path: str, text: str) -> str | None:
    if not text.strip():
        return "空のファイル"
    if path.endswith(".py"):
        try:
            compile(text, path, "exec")
        except SyntaxError as exc:
            return f"構文エラー ({exc.lineno} 行目)"
    elif path.endswith(".svg"):
        import xml.etree.ElementTree as ET

        try:
            ET.fromstring(text)
        except ET.ParseError as exc:
            return f"XML として読めない ({exc})"
    elif path.endswith(".js"):
        depth = 0
        for char in re.sub(r"//[^\n]*|\"(?:\\.|[^\"])*\"|'(?:\\.|[^'])*'", "", text):
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth < 0:
                break
        if depth:
            return "括弧 { } の対応が取れていない"
    return None


_FOCUS = {
    "concept_doc": "コンセプト整理", "design_doc": "ゲームデザイン", "scenario_doc": "シナリオ",
    "character_specs": "キャラクター設定", "world_design": "世界観", "build_result": "統合結果",
    "test_result": "テスト結果", "review_result": "最終レビュー",
}


def _outline(output_type: str, concept: dict[str, Any]) -> str:
    # the concept's own full stop is not doubled by the sentence's (配達する。。)
    desc = str(concept.get("description", ""))[:120].strip().rstrip("。．.!！")
    return {
        "concept_doc": f"中心となる体験: {desc}。最初の版では核となる遊びを一つに絞る。",
        "design_doc": "コアループ: 操作 → 目標 → 報酬。難易度は段階的に上げる。",
        "scenario_doc": "導入・展開・山場・結末の四幕。各幕で一つの目標を示す。",
        "character_specs": "主人公 1 名、支援役 1 名、敵 2 種。役割と能力を一行ずつ決める。",
        "world_design": "舞台は三つの区域。各区域に固有の見た目と障害を置く。",
    }.get(output_type, "上流の成果物を確認し、要点をまとめた。")


def _xml(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
