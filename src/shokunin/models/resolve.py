"""``resolve(spec)``: a chat model from a string such as ``openai:gpt-4.1-mini``."""

from __future__ import annotations

import importlib

from langchain_core.language_models import BaseChatModel

from shokunin.models.offline import OfflineChatModel
from shokunin.models.scripted import scripted_model

_EXTRAS = {"openai": ("langchain_openai", "openai"), "ollama": ("langchain_openai", "ollama"),
           "anthropic": ("langchain_anthropic", "anthropic")}


class ModelConfigError(ValueError):
    """The model spec cannot be resolved (unknown provider, missing extra, bad form)."""


def _require(provider: str):  # noqa: ANN202 - returns a module
    module, extra = _EXTRAS[provider]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModelConfigError(
            f"provider {provider!r} needs the {module} package: "
            f"pip install 'shokunin[{extra}]'") from exc


def resolve(
    spec: str, *, base_url: str | None = None, api_key: str | None = None,
    temperature: float = 0.0,
) -> BaseChatModel:
    """Return a LangChain chat model for ``spec``.

    ``offline`` | ``scripted:NAME`` | ``openai:MODEL`` (any OpenAI-compatible server with
    ``base_url``: vLLM, llama.cpp, LM Studio) | ``anthropic:MODEL`` | ``ollama:MODEL``
    (Ollama's OpenAI-compatible endpoint, default http://127.0.0.1:11434/v1).
    """
    spec = spec.strip()
    if spec == "offline":
        return OfflineChatModel()
    provider, _, name = spec.partition(":")
    if provider == "scripted":
        return scripted_model(name or "default")
    if not name:
        raise ModelConfigError(f"model spec {spec!r} must look like PROVIDER:MODEL")
    if provider in ("openai", "ollama"):
        module = _require(provider)
        if provider == "ollama":
            base_url = base_url or "http://127.0.0.1:11434/v1"
            api_key = api_key or "ollama"
        kwargs = {"model": name, "temperature": temperature, "stream_usage": True}
        if base_url:
            kwargs["base_url"] = base_url
        if api_key:
            kwargs["api_key"] = api_key
        return module.ChatOpenAI(**kwargs)
    if provider == "anthropic":
        module = _require(provider)
        kwargs = {"model": name, "temperature": temperature}
        if api_key:
            kwargs["api_key"] = api_key
        if base_url:
            kwargs["base_url"] = base_url
        return module.ChatAnthropic(**kwargs)
    raise ModelConfigError(
        f"unknown model provider {provider!r}; use offline, scripted, openai, anthropic or "
        "ollama")
