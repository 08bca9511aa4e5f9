"""What a failed model call tells the user: which provider, at which URL, what went wrong.

The provider clients say only "Connection error." or "Request timed out."; ``explain``
turns those into a ``ModelCallError`` naming the URL and the setting to change.
"""

from __future__ import annotations

from typing import Any

import httpx

TIMEOUT_SETTING = "SHOKUNIN_MODEL_TIMEOUT_SEC"


class ModelCallError(RuntimeError):
    """A model request failed in a way the user can act on (timeout, unreachable, cut)."""


def model_url(model: Any) -> str:
    """The base URL ``model`` sends its requests to (the provider's default if unset)."""
    url = (getattr(model, "openai_api_base", None) or getattr(model, "anthropic_api_url", None))
    if url:
        return str(url)
    llm_type = getattr(model, "_llm_type", "")
    return "https://api.anthropic.com" if "anthropic" in llm_type else "https://api.openai.com/v1"


def _timeout(model: Any) -> float | None:
    value = getattr(model, "request_timeout", None) or getattr(
        model, "default_request_timeout", None)
    return value if isinstance(value, int | float) else None


def _is(exc: BaseException, names: tuple[str, ...]) -> bool:
    """``exc`` is one of the provider SDKs' exception classes named ``names`` (checked by
    name so that neither SDK must be installed)."""
    return any(cls.__name__ in names and cls.__module__.split(".")[0] in ("openai", "anthropic")
               for cls in type(exc).__mro__)


def explain(exc: BaseException, model: Any) -> BaseException:
    """A ``ModelCallError`` for a timeout, an unreachable provider or a cut stream;
    ``exc`` itself for anything else (the provider's own message says enough)."""
    url = model_url(model)
    if _is(exc, ("APITimeoutError",)) or isinstance(exc, httpx.TimeoutException):
        limit = _timeout(model)
        within = f" within {limit:g} s" if limit else ""
        return ModelCallError(f"the model at {url} did not answer{within} (raise "
                              f"{TIMEOUT_SETTING} if it is only slow)")
    if _is(exc, ("APIConnectionError",)):
        cause = exc.__cause__ or exc.__context__
        detail = f": {cause}" if cause and str(cause) else ""
        return ModelCallError(f"cannot reach the model at {url}{detail}")
    if isinstance(exc, httpx.TransportError):
        detail = str(exc) or "the connection closed"
        return ModelCallError(f"the model at {url} broke off its answer ({detail}); try again")
    return exc
