"""``resolve(spec)``: a chat model from a string such as ``openai:gpt-4.1-mini``."""

from __future__ import annotations

import importlib
import os
from collections.abc import AsyncIterator, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel

from shokunin.errors import ShokuninError
from shokunin.models.errors import classify
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


class _Explained:
    """Mixed into a provider's chat model: whatever a call raises that is a model failure
    class (``errors.py``) leaves it as that class, so every caller, every face, reads the
    same message. Everything a call does runs through these four methods."""

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super()._generate(*args, **kwargs)  # type: ignore[misc]
        except Exception as exc:
            if (failure := classify(exc, self)) is None:
                raise  # the provider's own error, as it was
            raise failure from exc

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super()._agenerate(*args, **kwargs)  # type: ignore[misc]
        except Exception as exc:
            if (failure := classify(exc, self)) is None:
                raise  # the provider's own error, as it was
            raise failure from exc

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        try:
            yield from super()._stream(*args, **kwargs)  # type: ignore[misc]
        except Exception as exc:
            if (failure := classify(exc, self)) is None:
                raise  # the provider's own error, as it was
            raise failure from exc

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        try:
            async for chunk in super()._astream(*args, **kwargs):  # type: ignore[misc]
                yield chunk
        except Exception as exc:
            if (failure := classify(exc, self)) is None:
                raise  # the provider's own error, as it was
            raise failure from exc


@cache
def _explaining(cls: type[BaseChatModel]) -> type[BaseChatModel]:
    """``cls`` with its failures explained (one subclass per provider class)."""
    return type(cls.__name__, (_Explained, cls), {"__module__": __name__})


def resolve(
    spec: str, *, base_url: str | None = None, api_key: str | None = None,
    temperature: float = 0.0, timeout: float | None = None, max_retries: int | None = None,
) -> BaseChatModel:
    """Return a LangChain chat model for ``spec``.

    ``offline`` | ``scripted:NAME`` | ``openai:MODEL`` (any OpenAI-compatible server with
    ``base_url``: vLLM, llama.cpp, LM Studio) | ``anthropic:MODEL`` | ``ollama:MODEL``
    (Ollama's OpenAI-compatible endpoint, default http://127.0.0.1:11434/v1). Real
    providers stream their answers, give up on a request after ``timeout`` seconds, and
    retry 429 and 5xx answers (the client's own retries), and raise a failure class of
    ``models.errors`` (``ModelUnreachable`` ...) for what the user can act on. Raise
    ``ModelConfigError`` when the spec is malformed or a provider's API key is missing.
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
    if max_retries is not None:  # else the client's own (2)
        common["max_retries"] = max_retries
    if provider in ("openai", "ollama"):
        module = _require(provider)
        if provider == "ollama":
            base_url = base_url or OLLAMA_URL
        key = api_key or (LOCAL_KEY if base_url else _key(spec, None, "OPENAI_API_KEY"))
        if base_url:
            common["base_url"] = base_url
        return _explaining(module.ChatOpenAI)(api_key=key, stream_usage=True, **common)
    if provider == "anthropic":
        module = _require(provider)
        if base_url:
            common["base_url"] = base_url
        return _explaining(module.ChatAnthropic)(
            api_key=_key(spec, api_key, "ANTHROPIC_API_KEY"), **common)
    raise ModelConfigError(
        f"unknown model provider {provider!r}; use offline, scripted, openai, anthropic or "
        "ollama")


def model_from_settings(settings: Settings, *, timeout: float | None = None,
                        max_retries: int | None = None) -> BaseChatModel:
    """The chat model the settings name (``SHOKUNIN_MODEL`` and the ``MODEL_*`` settings);
    ``timeout`` and ``max_retries`` in place of the settings' and the client's own."""
    api_key = settings.model_api_key.get_secret_value() if settings.model_api_key else None
    return resolve(settings.model, base_url=settings.model_base_url, api_key=api_key,
                   timeout=timeout or settings.model_timeout_sec, max_retries=max_retries)
