"""Project and agent figures from what was recorded: tokens from model usage, time from
the agents' own clocks, estimates from rolling medians of finished agents of the same type
(None until there is a sample to go by)."""

from __future__ import annotations

import re
import statistics
from datetime import datetime, timedelta
from typing import Any

from shokunin.agents.studio.contracts import AgentMetrics, GenerationCount, ProjectMetrics
from shokunin.store.studio_records import StudioRecords, now

SAMPLES = 20  # the rolling window: the latest finished agents of a type
# Output types by the kind the seed project's client counts (key, unit); code counts lines.
KINDS = {"scenario_doc": ("scenarios", "本"), "code": ("code", "行"),
         "asset_image": ("images", "枚"), "asset_audio": ("audio", "件")}
DOCUMENTS = ("documents", "件")  # every other output type: a document
# The client's dashboard tiles split images and sounds further. An image or sound is classed
# by the words of its file name and summary (the task it was made for), first match wins;
# one that names none is a character (an image: sprites are what a game mostly draws) or a
# sound effect (a sound).
CLASSES = {
    "asset_image": ([("backgrounds", "枚", ("background", "bg", "stage", "背景", "ステージ",
                                          "風景", "マップ")),
                     ("ui", "点", ("ui", "icon", "button", "hud", "logo", "title", "font",
                                   "アイコン", "ボタン", "ロゴ", "タイトル", "画面")),
                     ("effects", "種", ("effect", "fx", "particle", "explosion",
                                        "エフェクト", "効果", "爆発"))],
                    ("characters", "体")),
    "asset_audio": ([("music", "曲", ("bgm", "music", "theme", "song", "音楽", "曲")),
                     ("voice", "件", ("voice", "speech", "line", "ボイス", "声", "台詞",
                                      "セリフ"))],
                    ("sfx", "個")),
}


class Estimates:
    """Median duration (s) and tokens per agent type, from one query per computation."""

    def __init__(self, by_type: dict[str, tuple[float, int]]) -> None:
        self.by_type = by_type

    @classmethod
    async def read(cls, records: StudioRecords, agent_types: set[str]) -> Estimates:
        samples: dict[str, list[dict[str, Any]]] = {}
        for row in await records.finished_samples(sorted(agent_types), SAMPLES):
            samples.setdefault(row["type"], []).append(row)
        return cls({kind: (statistics.median(r["duration_ms"] for r in rows) / 1000,
                           int(statistics.median(r["tokens_used"] for r in rows)))
                    for kind, rows in samples.items()})

    def of(self, agent_type: str) -> tuple[float, int] | None:
        return self.by_type.get(agent_type)


def elapsed_seconds(project: dict[str, Any], at: datetime | None = None) -> float:
    """Running time: what earlier runs recorded plus the current stretch, if running."""
    elapsed = float(project.get("elapsed_seconds") or 0.0)
    since = project.get("running_since")
    if since is not None:
        if since.tzinfo is None:  # SQLite returns naive datetimes (stored as UTC)
            since = since.replace(tzinfo=(at or now()).tzinfo)
        elapsed += max(0.0, ((at or now()) - since).total_seconds())
    return round(elapsed, 3)


def asset_class(row: dict[str, Any]) -> tuple[str, str] | None:
    """The dashboard tile (key, unit) an image or sound output counts under; None for
    other outputs."""
    classes = CLASSES.get(row["output_type"])
    if classes is None:
        return None
    named, fallback = classes
    text = f"{row.get('file_path') or ''} {(row.get('content') or {}).get('summary') or ''}"
    words = set(re.findall(r"[a-z]+", text.lower()))
    for key, unit, marks in named:
        if any(m in words if m.isascii() else m in text for m in marks):
            return key, unit
    return fallback


def _kinds(row: dict[str, Any]) -> list[tuple[str, str]]:
    kinds = [KINDS.get(row["output_type"], DOCUMENTS)]
    tile = asset_class(row)
    return kinds + [tile] if tile else kinds


def generation_counts(outputs: list[dict[str, Any]]) -> dict[str, GenerationCount]:
    """The project's outputs by kind: each agent's latest version counts (lines, for
    code), ``calls`` counts every version written. An image or sound counts under its
    output type's kind (``images``, ``audio``) and under its dashboard tile too
    (``characters``, ``backgrounds``, ...: see ``asset_class``)."""
    latest: dict[str, dict[str, Any]] = {}
    calls: dict[str, int] = {}
    units: dict[str, str] = {}
    for row in outputs:  # oldest first: a later version replaces an earlier one
        latest[row["agent_id"]] = row
        for kind, unit in _kinds(row):
            calls[kind] = calls.get(kind, 0) + 1
            units[kind] = unit
    counts: dict[str, int] = {}
    for row in latest.values():
        for kind, _ in _kinds(row):
            text = (row["content"] or {}).get("content") if kind == "code" else None
            counts[kind] = counts.get(kind, 0) + (
                len(text.splitlines()) if isinstance(text, str) else 1)
    return {kind: GenerationCount(count=n, unit=units[kind], calls=calls[kind])
            for kind, n in counts.items()}


async def project_metrics(records: StudioRecords, project: dict[str, Any],
                          phase_name: str, agents: list[dict[str, Any]] | None = None
                          ) -> ProjectMetrics:
    """``agents``: the project's agents if the caller holds them (else they are read)."""
    if agents is None:
        agents = await records.agents(project["id"])
    done = [a for a in agents if a["status"] == "completed"]
    open_ = [a for a in agents if a["status"] in ("pending", "running")]
    tokens = sum(int(a["tokens_used"] or 0) for a in agents)
    remaining: float | None = 0.0
    more_tokens = 0
    estimates = await Estimates.read(records, {a["type"] for a in open_})
    for agent in open_:
        estimate = estimates.of(agent["type"])
        if estimate is None:
            remaining = None
            continue
        seconds, agent_tokens = estimate
        if agent["status"] == "running":  # partly done: count what is left of it
            seconds *= max(0.0, 1 - (agent["progress"] or 0) / 100)
        if remaining is not None:
            remaining += seconds
        more_tokens += max(0, agent_tokens - int(agent["tokens_used"] or 0))
    if project["status"] in ("completed", "failed"):
        remaining = 0.0
    at = now()
    total = len(agents)
    return ProjectMetrics(
        project_id=project["id"], total_tokens_used=tokens,
        estimated_total_tokens=tokens + more_tokens,
        elapsed_time_seconds=elapsed_seconds(project, at),
        estimated_remaining_seconds=None if remaining is None else round(remaining, 3),
        estimated_end_time=None if remaining is None or project["status"] != "running"
        else at + timedelta(seconds=remaining),
        completed_tasks=len(done), total_tasks=total,
        progress_percent=round(100 * len(done) / total, 1) if total else 0.0,
        current_phase=project["current_phase"], phase_name=phase_name,
        generation_counts=generation_counts(await records.outputs(project_id=project["id"])))


async def agent_metrics(records: StudioRecords, agent: dict[str, Any],
                        children: list[dict[str, Any]] | None = None) -> AgentMetrics:
    children = children or []
    estimate = (await Estimates.read(records, {agent["type"]})).of(agent["type"])
    runtime = (agent["duration_ms"] or 0) / 1000
    if agent["status"] == "running" and agent["started_at"] is not None:
        started = agent["started_at"]
        if started.tzinfo is None:
            started = started.replace(tzinfo=now().tzinfo)
        runtime = max(runtime, (now() - started).total_seconds())
    remaining: float | None
    if agent["status"] in ("completed", "failed", "blocked"):
        remaining = 0.0
    elif estimate is None:
        remaining = None
    else:
        remaining = max(0.0, estimate[0] * (1 - (agent["progress"] or 0) / 100))
    subs = [await agent_metrics(records, child) for child in children]
    return AgentMetrics(
        agent_id=agent["id"], agent_type=agent["type"], status=agent["status"],
        progress=agent["progress"] or 0, current_task=agent["current_task"],
        tokens_used=agent["tokens_used"] or 0,
        tokens_estimated=max(agent["tokens_used"] or 0, estimate[1] if estimate else 0),
        runtime_seconds=round(runtime, 3), estimated_remaining_seconds=remaining,
        completed_tasks=sum(1 for c in children if c["status"] == "completed") if children
        else int(agent["status"] == "completed"),
        total_tasks=len(children) if children else 1,
        active_sub_agents=sum(1 for c in children if c["status"] == "running"),
        sub_agent_metrics=subs)
