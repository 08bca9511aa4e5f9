"""``resolve(spec)``: a chat model from a string such as ``openai:gpt-4.1-mini``."""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel

from shokunin.errors import ShokuninError
from shokunin.models.offline import OfflineChatModel
from shokunin.models.scripted import scripted_model

if TYPE_CHECKING:
    from shokunin.config import Settings

_EXTRAS = {"openai": ("langchain_openai", "openai"), "ollama": ("langchain_openai", "ollama"),
           "anthropic": ("langchain_anthropic", "anthropic")}
OLLAMA_URL = "http://127.0.0.1:11434/v1"
# A local OpenAI-compatible server (vLLM, llama.cpp, LM Studio) takes any key, but the
# client refuses to start without one.
LOCAL_KEY = "not-needed"


class ModelConfigError(ShokuninError, ValueError):
    """The model spec cannot be resolved (unknown provider, missing extra, bad form, no key)."""


def _require(provider: str):  # noqa: ANN202 - returns a module
    module, extra = _EXTRAS[provider]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModelConfigError(
            f"provider {provider!r} needs the {module} package: "
            f"pip install 'shokunin[{extra}]'") from exc


def _key(spec: str, given: str | None, env: str) -> str:
    key = given or os.environ.get(env)
    if not key:
        raise ModelConfigError(f"model {spec} needs an API key: set SHOKUNIN_MODEL_API_KEY "
                               f"(or {env})")
    return key


def resolve(
    spec: str, *, base_url: str | None = None, api_key: str | None = None,
    temperature: float = 0.0, timeout: float | None = None,
) -> BaseChatModel:
    """Return a LangChain chat model for ``spec``.

    ``offline`` | ``scripted:NAME`` | ``openai:MODEL`` (any OpenAI-compatible server with
    ``base_url``: vLLM, llama.cpp, LM Studio) | ``anthropic:MODEL`` | ``ollama:MODEL``
    (Ollama's OpenAI-compatible endpoint, default http://127.0.0.1:11434/v1). Real
    providers stream their answers, give up on a request after ``timeout`` seconds, and
    retry 429 and 5xx answers (the client's own retries). Raise ``ModelConfigError`` when the
    spec is malformed or a provider's API key is missing.
    """
    spec = spec.strip()
    if spec == "offline":
        return OfflineChatModel()
    provider, _, name = spec.partition(":")
    if provider == "scripted":
        return scripted_model(name or "default")
    if not name:
        raise ModelConfigError(f"model spec {spec!r} must look like PROVIDER:MODEL")
    common: dict[str, Any] = {"model": name, "temperature": temperature, "streaming": True}
    if timeout is not None:
        common["timeout"] = timeout
    if provider in ("openai", "ollama"):
        module = _require(provider)
        if provider == "ollama":
            base_url = base_url or OLLAMA_URL
        key = api_key or (LOCAL_KEY if base_url else _key(spec, None, "OPENAI_API_KEY"))
        if base_url:
            common["base_url"] = base_url
        return module.ChatOpenAI(api_key=key, stream_usage=True, **common)
    if provider == "anthropic":
        module = _require(provider)
        if base_url:
            common["base_url"] = base_url
        return module.ChatAnthropic(api_key=_key(spec, api_key, "ANTHROPIC_API_KEY"), **common)
    raise ModelConfigError(
        f"unknown model provider {provider!r}; use offline, scripted, openai, anthropic or "
        "ollama")


def model_from_settings(settings: Settings) -> BaseChatModel:
    """The chat model the settings name (``SHOKUNIN_MODEL`` and the ``MODEL_*`` settings)."""
    api_key = settings.model_api_key.get_secret_value() if settings.model_api_key else None
    return resolve(settings.model, base_url=settings.model_base_url, api_key=api_key,
                   timeout=settings.model_timeout_sec)
