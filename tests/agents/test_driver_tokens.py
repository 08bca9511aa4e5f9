"""Which model calls' tokens become answer text (TextDelta): a graph's answering call does;
an internal call does not, whatever agent makes it: structured output (a step detector's or
a router's JSON, issue 36) or a call tagged ``nostream`` (LangGraph's TAG_NOSTREAM). A real
OpenAI client streams from tests/fake_openai.py, as a configured provider would."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langchain_core.messages import HumanMessage
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel

from shokunin import events as ev
from shokunin.agents import drive
from shokunin.models import resolve
from shokunin.runs import MemoryBus, RunContext, Runner, answer_of
from shokunin.store import Store
from tests.fake_openai import API_KEY, FakeOpenAI, Reply

DETECTED = {"step": "STEP_0_CHECK_3", "confidence": "high", "reasoning": "原価計算の質問です"}
CODE = "df.groupby('region').sum()"
ANSWER = "原価は材料費と労務費と経費の合計です。 まず材料費から見直しましょう。"


class Detection(BaseModel):
    step: str
    confidence: str
    reasoning: str


class State(TypedDict, total=False):
    step: str
    answer: str


class Agent:
    name = "tokens"

    def __init__(self, graph: CompiledStateGraph) -> None:
        self.graph = graph

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        return await drive(self.graph, ctx, {})


def graph(fake: FakeOpenAI) -> CompiledStateGraph:
    model = resolve("openai:fake-gpt", base_url=fake.base_url, api_key=API_KEY)

    async def detect(state: State) -> State:
        found = await model.with_structured_output(Detection).ainvoke("原価計算のやり方")
        assert isinstance(found, Detection)
        return {"step": found.step}

    async def internal(state: State) -> State:  # a code writer's call, say
        await model.with_config(tags=[TAG_NOSTREAM]).ainvoke([HumanMessage("code please")])
        return {}

    async def answer(state: State) -> State:
        reply = await model.ainvoke([HumanMessage("原価計算のやり方")])
        return {"answer": reply.text}

    built = StateGraph(State)
    for name, node in (("detect", detect), ("internal", internal), ("answer", answer)):
        built.add_node(name, node)
    built.add_edge(START, "detect")
    built.add_edge("detect", "internal")
    built.add_edge("internal", "answer")
    built.add_edge("answer", END)
    return built.compile()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
async def runner(tmp_path: Path) -> AsyncIterator[Runner]:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, MemoryBus(), tmp_path / "ws")
    yield runner
    await runner.shutdown()
    await store.close()


# langchain-openai dumps a streamed structured answer with a serializer that warns about
# its own parsed field (a provider library's noise, not ours)
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
async def test_only_the_answering_calls_tokens_are_text_deltas(
        fake: FakeOpenAI, runner: Runner) -> None:
    fake.script(Reply(json.dumps(DETECTED, ensure_ascii=False)), Reply(CODE), Reply(ANSWER))
    runner.register(Agent(graph(fake)))
    run_id = await runner.start("tokens", "t1", {})
    events = [e async for e in runner.stream(run_id)]
    assert events[-1].kind == "run_completed", events[-1]
    assert events[-1].output["step"] == "STEP_0_CHECK_3"  # type: ignore[attr-defined]
    deltas = [e.delta for e in events if isinstance(e, ev.TextDelta)]
    assert len(deltas) > 1 and "".join(deltas) == ANSWER  # streamed, and only the answer
    assert answer_of(events) == ANSWER
    assert len(fake.requests) == 3 and all(r.get("stream") for r in fake.requests)
