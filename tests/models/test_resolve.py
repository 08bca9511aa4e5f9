from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from shokunin.models import (
    ModelConfigError,
    OfflineChatModel,
    Usage,
    UsageRecorder,
    is_offline,
    register_script,
    resolve,
    unregister_script,
)


@pytest.fixture
def script() -> Iterator[str]:
    register_script("t", ["hello there", {"tool_calls": [{"name": "calc", "args": {"x": 1}}]}])
    yield "t"
    unregister_script("t")


def test_offline_resolves_to_marker_that_refuses_to_generate() -> None:
    model = resolve("offline")
    assert isinstance(model, OfflineChatModel) and is_offline(model)
    with pytest.raises(RuntimeError, match="OfflineBrain"):
        model.invoke("hi")


def test_scripted_replays_text_then_tool_calls_and_records_prompts(script: str) -> None:
    model = resolve(f"scripted:{script}")
    assert not is_offline(model)
    first = model.invoke([HumanMessage("one")])
    second = model.bind_tools([]).invoke([HumanMessage("two")])
    assert first.content == "hello there"
    assert second.tool_calls[0]["name"] == "calc" and second.tool_calls[0]["args"] == {"x": 1}
    assert [m[0].content for m in model.asked] == ["one", "two"]
    with pytest.raises(RuntimeError, match="ran out"):
        model.invoke("three")


def test_scripted_structured_output() -> None:
    class Decision(BaseModel):
        action: str

    register_script("s", [{"action": "report"}])
    try:
        decision = resolve("scripted:s").with_structured_output(Decision).invoke("go")
    finally:
        unregister_script("s")
    assert decision == Decision(action="report")


def test_unknown_script_and_bad_specs() -> None:
    with pytest.raises(LookupError, match="register_script"):
        resolve("scripted:nope")
    with pytest.raises(ModelConfigError, match="PROVIDER:MODEL"):
        resolve("openai")
    with pytest.raises(ModelConfigError, match="unknown model provider"):
        resolve("mystery:model")


def test_openai_compatible_server_by_base_url() -> None:
    model = resolve("openai:qwen2.5", base_url="http://127.0.0.1:9/v1", api_key="sk-test")
    assert model.model_name == "qwen2.5"
    assert str(model.openai_api_base) == "http://127.0.0.1:9/v1"


def test_ollama_defaults_to_local_openai_endpoint() -> None:
    model = resolve("ollama:qwen2.5")
    assert str(model.openai_api_base) == "http://127.0.0.1:11434/v1"


def test_anthropic_model() -> None:
    model = resolve("anthropic:claude-sonnet-4-5", api_key="sk-ant-test")
    assert model.model == "claude-sonnet-4-5"


def test_missing_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_openai", None)  # import now raises ImportError
    with pytest.raises(ModelConfigError, match=r"shokunin\[openai\]"):
        resolve("openai:gpt-4.1-mini")


def test_usage_recorder_counts_every_call(script: str) -> None:
    usage = Usage()
    model = resolve(f"scripted:{script}")
    model.invoke([HumanMessage("count these four words")], config={"callbacks": [
        UsageRecorder(usage)]})
    model.invoke([HumanMessage("two words")], config={"callbacks": [UsageRecorder(usage)]})
    assert usage.calls == 2
    assert usage.input_tokens == 6 and usage.output_tokens == 2
    assert usage.total_tokens == 8


def test_usage_from_ai_message_metadata() -> None:
    usage = Usage()
    register_script("u", [AIMessage(content="x")])
    try:
        resolve("scripted:u").invoke("a b c", config={"callbacks": [UsageRecorder(usage)]})
    finally:
        unregister_script("u")
    assert usage.as_dict() == {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4,
                               "calls": 1}



async def test_usage_recorder_hears_only_model_calls(script: str) -> None:
    """Under ainvoke every event of a sync handler costs a thread-pool hop: the recorder must
    not be sent the start and end of every node and tool of a graph."""
    heard: list[str] = []

    class Watched(UsageRecorder):
        def on_chain_start(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
            heard.append("chain_start")

        def on_chain_end(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
            heard.append("chain_end")

    usage = Usage()
    chain = RunnableLambda(lambda text: [HumanMessage(text)]) | resolve(f"scripted:{script}")
    await chain.ainvoke("four words right here", config={"callbacks": [Watched(usage)]})
    assert heard == []
    assert usage.calls == 1
