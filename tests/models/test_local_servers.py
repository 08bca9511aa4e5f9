"""The spellings of the providers' README table, against the fake server over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import HumanMessage

from shokunin.config import Settings
from shokunin.models import model_from_settings
from tests.fake_openai import API_KEY, FakeOpenAI, Reply


@pytest.fixture  # one per test: the client caches its HTTP pool per URL and event loop
def keyless() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=None) as server:
        yield server


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("spec", ["openai:qwen2.5-7b", "ollama:qwen2.5"])
async def test_local_openai_compatible_servers_need_only_the_url(
        keyless: FakeOpenAI, spec: str) -> None:
    keyless.script(Reply("hello from a local model"))
    model = model_from_settings(Settings(model=spec, model_base_url=keyless.base_url))
    chunks = [chunk async for chunk in model.astream([HumanMessage("hi")])]
    assert "".join(str(c.content) for c in chunks) == "hello from a local model"
    assert keyless.requests[-1]["model"] == spec.partition(":")[2]
    assert keyless.requests[-1]["stream"] is True


@pytest.mark.parametrize(("spec", "url"), [("openai:gpt-4.1-mini", "base_url"),
                                           ("anthropic:claude-sonnet-4-5", "anthropic_url")])
async def test_hosted_providers_with_their_key(spec: str, url: str) -> None:
    with FakeOpenAI() as fake:
        fake.script(Reply("hosted answer"))
        model = model_from_settings(Settings(model=spec, model_base_url=getattr(fake, url),
                                             model_api_key=API_KEY))
        reply = await model.ainvoke([HumanMessage("hi")])
    assert reply.content == "hosted answer" or reply.text == "hosted answer"
    assert reply.usage_metadata and reply.usage_metadata["input_tokens"] == 11
