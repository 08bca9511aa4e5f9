"""An agent's detail tabs in the seed project's React client, from what the Studio records.

``sequence``: who the agent worked with, in the client's SequenceData form: its inputs (the
upstream agents' outputs, or the leader's task for a worker), each call to the model (one
per output it wrote: its time and tokens), the workers it handed tasks to, and the
checkpoints a person answered. The Studio records a call's total tokens, not the
input/output split: ``totalTokens`` has ``input``/``output`` 0 and the figure in ``total``.

``prompt``: what ``LLMBrain`` sends for the agent's latest version (``brains.prompt_parts``),
rebuilt from the records (the upstream outputs as they are now). With the offline brain
nothing is sent to a model: the first component says so, and the rest is what a model
would be sent.
"""

from __future__ import annotations

from typing import Any

from shokunin.agents.studio.brains import Job, prompt_parts
from shokunin.agents.studio.pipeline import AgentSpec, Pipeline
from shokunin.store.studio_records import StudioRecords

OFFLINE_NOTE = ("オフラインの頭脳で動いています: モデルを使わず、決まった手順でコンセプトから"
                "下書きを書くため、モデルにプロンプトは送っていません。以下は SHOKUNIN_MODEL "
                "を設定したときにこのエージェントが送るプロンプトです。")
_PART_LABELS = {"project": "プロジェクト", "concept": "コンセプト", "task": "担当タスク",
                "feedback": "レビューの指摘", "files": "出力ファイル"}


def spec_of(pipeline: Pipeline, agent: dict[str, Any]) -> tuple[AgentSpec | None, bool]:
    """The agent's pipeline entry (a worker's: its leader's) and whether it is a worker."""
    spec = pipeline.by_type.get(agent["type"])
    if spec is not None:
        return spec, False
    leader = next((s for s in pipeline.agents if s.workers and s.workers.type == agent["type"]),
                  None)
    return leader, leader is not None


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _title(row: dict[str, Any]) -> str:
    return str((row["metadata"] or {}).get("displayName") or row["type"])


async def sequence(records: StudioRecords, pipeline: Pipeline, agent: dict[str, Any],
                   model: str, offline: bool) -> dict[str, Any]:
    project_agents = await records.agents(agent["project_id"])
    by_id = {a["id"]: a for a in project_agents}
    spec, is_worker = spec_of(pipeline, agent)
    me = agent["id"]
    participants = [{"id": me, "label": _title(agent), "type": "worker" if is_worker else
                     ("leader" if spec and spec.workers else "agent"), "role": agent["type"]}]
    messages: list[dict[str, Any]] = []

    def message(kind: str, from_: str, to: str, label: str, at: Any = None, **more: Any
                ) -> None:
        messages.append({
            "id": f"{me}:{len(messages)}", "from": from_, "to": to, "type": kind,
            "label": label, "timestamp": _iso(at), "tokens": None, "durationMs": None,
            "sourceId": None, "sourceType": None, "pairId": None, "model": None,
            "cost": None, "callIndex": None} | more)

    # what it was given
    if is_worker and agent["parent_agent_id"] in by_id:
        leader = by_id[agent["parent_agent_id"]]
        participants.append({"id": leader["id"], "label": _title(leader), "type": "leader",
                             "role": leader["type"]})
        message("delegation", leader["id"], me, f"タスク: {_title(agent)}",
                agent["started_at"], sourceId=leader["id"], sourceType="agent")
    elif spec is not None:
        deps = [a for a in project_agents if a["type"] in spec.depends_on]
        for dep in deps:
            participants.append({"id": dep["id"], "label": _title(dep), "type": "agent",
                                 "role": dep["type"]})
            message("input", dep["id"], me, f"{pipeline.by_type[dep['type']].output} を受け取る",
                    dep["completed_at"], sourceId=dep["id"], sourceType="agent")
        if not deps:
            participants.append({"id": "project", "label": "プロジェクト", "type": "external",
                                 "role": "concept"})
            message("input", "project", me, "コンセプトを受け取る", agent["started_at"])
    # its calls to the model, one per output
    outputs = await records.outputs(agent_id=me)
    total_tokens = sum(int(o["tokens_used"] or 0) for o in outputs)
    if outputs:
        participants.append({"id": "model", "label": "オフラインの頭脳 (モデルなし)"
                             if offline else model, "type": "api", "role": model})
    for index, row in enumerate(outputs):
        attempt = int((row["content"] or {}).get("attempt", 0))
        pair = f"{row['id']}"
        call = {"pairId": pair, "model": model, "callIndex": index,
                "cost": 0 if offline else None}
        message("request", me, "model", f"{row['output_type']} の作成を依頼"
                + (f" (修正 {attempt} 回目)" if attempt else ""), row["created_at"], **call)
        summary = str((row["content"] or {}).get("summary", ""))[:80]
        message("response", "model", me, f"{summary} ({int(row['tokens_used'] or 0):,} トークン)",
                row["created_at"], durationMs=row["generation_time_ms"], **call)
    # its workers
    workers = [a for a in project_agents if a["parent_agent_id"] == me]
    for worker in workers:
        participants.append({"id": worker["id"], "label": _title(worker), "type": "worker",
                             "role": worker["type"]})
        message("delegation", me, worker["id"], f"タスク: {_title(worker)}",
                worker["started_at"], sourceId=worker["id"], sourceType="agent")
        if worker["status"] in ("completed", "failed", "blocked"):
            message("result" if worker["status"] == "completed" else "error", worker["id"], me,
                    {"completed": "完了", "failed": "失敗", "blocked": "中止"}[worker["status"]],
                    worker["completed_at"], sourceId=worker["id"], sourceType="agent")
    # the person who approves it
    own = [c for c in await records.checkpoints(agent["project_id"]) if c["agent_id"] == me]
    if own:
        participants.append({"id": "reviewer", "label": "承認者", "type": "external",
                             "role": "human"})
    for checkpoint in own:
        message("output", me, "reviewer", f"確認依頼: {checkpoint['title']}",
                checkpoint["created_at"], pairId=checkpoint["id"])
        if checkpoint["status"] != "pending":
            said = {"approved": "承認", "rejected": "却下",
                    "revision_requested": "修正依頼"}.get(checkpoint["status"],
                                                         checkpoint["status"])
            feedback = checkpoint["feedback"] or ""
            message("response", "reviewer", me, f"{said}: {feedback}" if feedback else said,
                    checkpoint["resolved_at"], pairId=checkpoint["id"])
    messages.sort(key=lambda m: m["timestamp"] or "")
    return {"agentId": me, "agentType": agent["type"], "participants": participants,
            "messages": messages, "status": agent["status"],
            "totalDurationMs": agent["duration_ms"],
            "totalTokens": {"input": 0, "output": 0, "total": total_tokens}}


async def prompt(records: StudioRecords, pipeline: Pipeline, project: dict[str, Any],
                 agent: dict[str, Any], offline: bool) -> dict[str, Any]:
    spec, is_worker = spec_of(pipeline, agent)
    own = [c for c in await records.checkpoints(project["id"]) if c["agent_id"] == agent["id"]]
    revised = [c for c in own if c["status"] == "revision_requested"]
    brushed = (((project["state"] or {}).get("brushup") or {}).get("agents") or {}).get(
        agent["type"]) or {}
    feedback = (revised[-1]["feedback"] if revised else None) or brushed.get("feedback")
    inputs: dict[str, Any] = {}
    if spec is not None:
        latest: dict[str, Any] = {}
        for row in await records.outputs(project_id=project["id"]):
            latest[row["agent_id"]] = row
        for dep in await records.agents(project["id"]):
            if dep["type"] in spec.depends_on and dep["id"] in latest:
                inputs[pipeline.by_type[dep["type"]].output] = latest[dep["id"]]["content"] or {}
    task = (agent["metadata"] or {}).get("task") if is_worker else None
    output = (spec.workers.output if spec and spec.workers and is_worker
              else spec.output if spec else "")
    job = Job(agent_type=agent["type"], output_type=output, title=_title(agent),
              project_name=project["name"], concept=project["concept"] or {},
              inputs=inputs, feedback=feedback if not is_worker else None, task=task,
              attempt=len(revised))
    system, parts = prompt_parts(job)
    components = [{"label": "システムプロンプト", "content": system,
                   "source": "shokunin.agents.studio.brains", "order": 1}]
    if offline:
        components.insert(0, {"label": "オフラインの頭脳", "content": OFFLINE_NOTE,
                              "source": None, "order": 0})
    user = [{"label": _PART_LABELS.get(kind, f"入力: {kind}"), "content": text,
             "source": "records", "order": i} for i, (kind, text) in enumerate(parts)]
    if spec is not None and spec.phase == 3:
        user.append({"label": _PART_LABELS["files"], "content": "プロジェクトの出力ファイルの"
                     "本文 (実行時に読み込むため、ここには載せません)", "source": None,
                     "order": len(user)})
    return {"agentId": agent["id"], "agentType": agent["type"],
            "systemPrompt": (OFFLINE_NOTE + "\n\n" if offline else "") + system,
            "systemComponents": components,
            "userPrompt": "\n\n".join(text for _, text in parts),
            "userComponents": user, "principles": [], "basePromptFile": None,
            "hasQualityFeedback": bool(feedback)}
