"""The Studio's pipeline engine, measured against a bare LangGraph graph of the same shape.

Both ways run the shipped game-development pipeline (src/shokunin/data/studio/
pipeline.yaml: 11 agents, 3 code and 2 asset workers fanned out with ``Send``, 11
checkpoints) with a zero-latency scripted model that gives one structured answer fitting
every output schema, and approve each checkpoint at once:

    studio      shokunin's services in this process (no HTTP): ``Studio.create`` and
                ``start``, each checkpoint approved by ``Studio.resolve`` as soon as its
                ``checkpoint_created`` event is on the bus; records, events, metrics,
                files, the Runner and the graph's ``astream`` (durability "sync")
    langgraph   the same nodes and edges written bare: each agent asks the same model
                (``with_structured_output``), ``interrupt()`` at each checkpoint node,
                ``AsyncSqliteSaver`` on a temporary file, ``ainvoke(durability="sync")``
                resumed with ``Command(resume=...)``; no records, no events

1. One pipeline at a time: wall and CPU time per pipeline (median of --runs, after one
   warm-up), and the ratio to langgraph.
2. --projects pipelines started together on one process: wall time until all have
   completed, p50/p95 of each project's own time, and the process's RSS before and at
   its peak (VmHWM; each way runs in a fresh child process, so peaks are its own).

    python bench/studio_bench.py [--runs 5] [--projects 50]
"""

from __future__ import annotations

import argparse
import asyncio
import operator
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt
from rich.console import Console
from rich.table import Table

from shokunin.agents.studio.brains import schema_for
from shokunin.agents.studio.contracts import CreateProjectInput
from shokunin.agents.studio.pipeline import AgentSpec, Pipeline, load_pipeline
from shokunin.config import Settings
from shokunin.engine import Engine
from shokunin.models import resolve
from shokunin.models.scripted import register_script

sys.path.insert(0, str(Path(__file__).parent))
from peak_memory import hwm_mb  # noqa: E402 - beside this file

SVG = "<svg xmlns='http://www.w3.org/2000/svg'/>"
# One answer for every schema in studio/brains.py (pydantic ignores the keys it does not
# know): a Document, a TaskBreakdown (3 code and 2 asset tasks, the offline brain's mvp
# shape), a SourceFile and an AssetFile.
ANSWER = {"summary": "bench", "sections": [{"heading": "h", "body": "b"}],
          "tasks": [{"id": f"c{i}", "kind": "code", "title": "t", "description": "d"}
                    for i in range(3)]
          + [{"id": f"a{i}", "kind": "asset", "title": "t", "description": "d"}
             for i in range(2)],
          "path": "assets/x.svg", "language": "svg", "content": SVG, "svg": SVG}
CALLS = 6 + 3 + 2 + 3  # model calls per pipeline: documents, workers, phase 3
CHECKPOINTS = 11
CONCEPT = {"description": "雨の街を走るアクションゲーム", "platform": "web", "scope": "mvp"}
SCRIPT = "bench"


def _check_answer(pipeline: Pipeline) -> None:
    kinds = {a.output for a in pipeline.agents} | {
        a.workers.output for a in pipeline.agents if a.workers}
    for kind in kinds:
        schema_for(kind).model_validate(ANSWER)


def _settings(folder: Path) -> Settings:
    return Settings(data_dir=folder / "data", tools_dirs=[folder / "tool"],
                    tool_settings_file=folder / "settings.json", sandbox_pool_size=0,
                    model=f"scripted:{SCRIPT}")


# studio: shokunin's services in this process
async def _studio_pipeline(services: Engine, number: int) -> float:
    """One project from start to its run's end, every checkpoint approved; seconds."""
    studio = services.studio
    assert studio is not None
    project = await studio.create(CreateProjectInput.model_validate(
        {"name": f"bench {number}", "concept": CONCEPT}))
    project_id = project["id"]
    sub = services.runner.bus.subscribe_thread(project_id)
    start = time.perf_counter()
    approved = 0
    try:
        project = await studio.start(project_id)
        while True:
            event = await asyncio.wait_for(sub.get(), 120)
            if event.kind == "checkpoint_created":
                await studio.resolve(event.checkpoint_id, "approved", None)  # type: ignore[attr-defined]
                approved += 1
            elif event.kind == "project_status" and event.new_status in (  # type: ignore[attr-defined]
                    "completed", "failed"):
                break
    finally:
        sub.close()
    await services.runner.wait((await studio.project(project_id))["run_id"])
    elapsed = time.perf_counter() - start
    final = await studio.project(project_id)
    if final["status"] != "completed" or approved != CHECKPOINTS:
        raise RuntimeError(f"project {number} ended {final['status']} after {approved} "
                           "approvals")
    return elapsed


# langgraph: the same graph, bare
def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    return {**left, **right}


class PeerState(TypedDict, total=False):
    outcome: Annotated[dict[str, str], _merge]
    outputs: Annotated[dict[str, Any], _merge]
    tasks: list[dict[str, Any]]
    stopped: Annotated[bool, operator.or_]


async def _ask(model: Any, output_type: str, agent_type: str, inputs: dict[str, Any],
               task: dict[str, Any] | None = None) -> dict[str, Any]:
    structured = model.with_structured_output(schema_for(output_type), include_raw=True)
    brief = [f"{kind}: {content.get('summary', '')}" for kind, content in inputs.items()]
    if task:
        brief.append(f"Your task: {task}")
    answer = await structured.ainvoke([SystemMessage(f"You are the {agent_type} agent."),
                                       HumanMessage("\n".join(brief) or "start")])
    return answer["parsed"].model_dump()


def _approved(spec: AgentSpec) -> None:
    answer = interrupt({"checkpointType": spec.checkpoint, "agent": spec.type})
    if answer.get("resolution") != "approved":
        raise RuntimeError(f"{spec.type} was not approved: {answer}")


def _peer_graph(pipeline: Pipeline, model: Any, checkpointer: Any) -> Any:
    graph = StateGraph(PeerState)
    ends: dict[str, str] = {}

    def upstream(spec: AgentSpec, state: PeerState) -> dict[str, Any]:
        outputs = state.get("outputs", {})
        return {d: outputs[d] for d in spec.depends_on if d in outputs}

    def agent(spec: AgentSpec) -> Any:
        async def node(state: PeerState) -> dict[str, Any]:
            content = await _ask(model, spec.output, spec.type, upstream(spec, state))
            _approved(spec)
            update: dict[str, Any] = {"outcome": {spec.type: "completed"},
                                      "outputs": {spec.type: content}}
            if spec.output == "task_breakdown":
                update["tasks"] = content["tasks"]
            return update
        return node

    def worker(spec: AgentSpec) -> Any:
        async def node(payload: dict[str, Any]) -> dict[str, Any]:
            assert spec.workers is not None
            task = payload["task"]
            content = await _ask(model, spec.workers.output, spec.workers.type,
                                 payload["inputs"], task)
            key = f"{spec.workers.type}/{task['id']}"
            return {"outcome": {key: "completed"}, "outputs": {key: content}}
        return node

    def review(spec: AgentSpec) -> Any:
        async def node(state: PeerState) -> dict[str, Any]:
            _approved(spec)
            return {"outcome": {spec.type: "completed"},
                    "outputs": {spec.type: {"summary": "workers' outputs"}}}
        return node

    def fan_out(spec: AgentSpec, after: str) -> Any:
        def route(state: PeerState) -> list[Send] | str:
            assert spec.workers is not None
            tasks = [t for t in state.get("tasks", []) if t["kind"] == spec.workers.tasks]
            inputs = upstream(spec, state)
            return [Send(spec.workers.type, {"task": t, "inputs": inputs})
                    for t in tasks] or after
        return route

    for spec in pipeline.agents:
        if spec.workers:
            after = f"{spec.type}_review"
            graph.add_node(spec.type, lambda state: {})
            graph.add_node(spec.workers.type, worker(spec))
            graph.add_node(after, review(spec))
            graph.add_conditional_edges(spec.type, fan_out(spec, after),
                                        [spec.workers.type, after])
            graph.add_edge(spec.workers.type, after)
            ends[spec.type] = after
        else:
            graph.add_node(spec.type, agent(spec))
            ends[spec.type] = spec.type
        deps = [ends[d] for d in spec.depends_on]
        graph.add_edge(deps if len(deps) > 1 else (deps[0] if deps else START), spec.type)
    return graph.compile(checkpointer=checkpointer)


async def _peer_pipeline(graph: Any, number: int) -> float:
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    start = time.perf_counter()
    value: Any = {"outcome": {}, "outputs": {}, "tasks": []}
    approved = 0
    while True:
        result = await graph.ainvoke(value, config, durability="sync")
        interrupts = result.get("__interrupt__") or []
        if not interrupts:
            break
        approved += len(interrupts)
        value = Command(resume={i.id: {"resolution": "approved"} for i in interrupts})
    elapsed = time.perf_counter() - start
    if approved != CHECKPOINTS or len(result["outcome"]) != CHECKPOINTS + 5:
        raise RuntimeError(f"peer pipeline {number}: {approved} approvals, "
                           f"{len(result['outcome'])} outcomes")
    return elapsed


# the two ways, behind one interface: a coroutine factory per pipeline
async def _with_way(way: str, folder: Path, body: Any) -> Any:
    register_script(SCRIPT, [ANSWER] * 20_000)
    if way == "studio":
        services = await Engine.open(_settings(folder))
        try:
            return await body(lambda n: _studio_pipeline(services, n))
        finally:
            await services.close()
    async with AsyncSqliteSaver.from_conn_string(str(folder / "peer.db")) as saver:
        await saver.conn.execute("PRAGMA journal_mode=WAL")
        await saver.conn.execute("PRAGMA synchronous=NORMAL")
        graph = _peer_graph(load_pipeline(), resolve(f"scripted:{SCRIPT}"), saver)
        return await body(lambda n: _peer_pipeline(graph, n))


async def _sequential(one: Any, runs: int) -> dict[str, float]:
    await one(-1)  # warm-up: first graph compile, first queries
    walls, cpus = [], []
    for number in range(runs):
        cpu = time.process_time()
        walls.append(await one(number))
        cpus.append(time.process_time() - cpu)
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus)}


def sequential(way: str, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(_with_way(way, Path(tmp), lambda one: _sequential(one, runs)))


async def _together(one: Any, projects: int) -> dict[str, Any]:
    await one(-1)
    rss = rss_mb()
    start = time.perf_counter()
    cpu = time.process_time()
    times = sorted(await asyncio.gather(*(one(n) for n in range(projects))))
    return {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu,
            "p50": statistics.median(times),
            "p95": statistics.quantiles(times, n=100)[94] if len(times) > 1 else times[0],
            "rss_before": rss, "rss_peak": hwm_mb()}


def together(way: str, projects: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(_with_way(way, Path(tmp), lambda one: _together(one, projects)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="pipelines one after another")
    parser.add_argument("--projects", type=int, default=50, help="pipelines at once")
    args = parser.parse_args()
    _check_answer(load_pipeline())
    ways = ["langgraph", "studio"]
    console = Console(width=120)

    one = {way: sequential(way, args.runs) for way in ways}
    table = Table(title=f"one pipeline ({CALLS} model calls, {CHECKPOINTS} checkpoints "
                        f"approved), median of {args.runs}")
    for column in ("way", "wall ms", "CPU ms", "wall / langgraph"):
        table.add_column(column, justify="right")
    for way in ways:
        table.add_row(way, f"{one[way]['wall'] * 1e3:.0f}", f"{one[way]['cpu'] * 1e3:.0f}",
                      f"{one[way]['wall'] / one['langgraph']['wall']:.1f}x")
    console.print(table)

    many = {}
    for way in ways:  # a fresh process each, so VmHWM is this way's own
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            many[way] = pool.submit(together, way, args.projects).result()
    table = Table(title=f"{args.projects} pipelines at once in one process (in-process "
                        "services, no HTTP)")
    for column in ("way", "all done s", "CPU s", "p50 s", "p95 s", "RSS before MB",
                   "peak RSS MB", "all done / langgraph"):
        table.add_column(column, justify="right")
    for way in ways:
        m = many[way]
        table.add_row(way, f"{m['wall']:.1f}", f"{m['cpu']:.1f}", f"{m['p50']:.1f}",
                      f"{m['p95']:.1f}", f"{m['rss_before']:.0f}", f"{m['rss_peak']:.0f}",
                      f"{m['wall'] / many['langgraph']['wall']:.1f}x")
    console.print(table)


if __name__ == "__main__":
    main()
