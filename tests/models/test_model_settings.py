"""The model the settings name: API keys, streaming, timeout, and what its usage records."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from shokunin.config import Settings
from shokunin.models import ModelConfigError, Usage, UsageRecorder, model_from_settings


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("spec", "env"), [("openai:gpt-4.1-mini", "OPENAI_API_KEY"),
                                           ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY")])
def test_a_missing_api_key_names_the_settings_to_fill(spec: str, env: str) -> None:
    with pytest.raises(ModelConfigError) as caught:
        model_from_settings(Settings(model=spec))
    assert "SHOKUNIN_MODEL_API_KEY" in str(caught.value) and env in str(caught.value)


@pytest.mark.parametrize("spec", ["openai:qwen2.5-7b", "ollama:qwen2.5"])
def test_a_local_server_needs_no_key(spec: str) -> None:
    model = model_from_settings(Settings(model=spec,
                                         model_base_url="http://127.0.0.1:8080/v1"))
    assert model.openai_api_base == "http://127.0.0.1:8080/v1"  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"])
def test_real_providers_stream_with_the_configured_timeout(spec: str) -> None:
    model = model_from_settings(Settings(model=spec, model_api_key="sk-test",
                                         model_timeout_sec=7.5))
    assert model.streaming is True  # type: ignore[attr-defined]
    timeout = getattr(model, "request_timeout", None) or getattr(
        model, "default_request_timeout", None)
    assert timeout == 7.5


def test_the_timeout_setting_must_be_positive() -> None:
    with pytest.raises(ValueError, match="model_timeout_sec"):
        Settings(model_timeout_sec=0)


@pytest.mark.parametrize("meta", [{"model_name": "gpt-4.1-mini-2025"},
                                  {"model": "claude-sonnet-4-5"}])
def test_usage_records_the_model_that_answered(meta: dict[str, str]) -> None:
    usage = Usage()
    message = AIMessage("hi", response_metadata=meta, usage_metadata={
        "input_tokens": 3, "output_tokens": 2, "total_tokens": 5})
    UsageRecorder(usage).on_llm_end(LLMResult(generations=[[ChatGeneration(message=message)]]))
    assert usage.as_dict() == {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5,
                               "calls": 1, "model": next(iter(meta.values()))}
