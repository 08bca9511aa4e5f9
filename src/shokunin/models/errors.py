"""What a failed model call tells the user: which provider, at which URL, what went wrong.

The provider clients say only "Connection error." or "Request timed out."; ``explain``
turns those into a ``ModelCallError`` naming the URL and the setting to change.
"""

from __future__ import annotations

from typing import Any

from shokunin.errors import ErrorCode, ShokuninError

TIMEOUT_SETTING = "SHOKUNIN_MODEL_TIMEOUT_SEC"


class ModelCallError(ShokuninError, RuntimeError):
    """A model request failed in a way the user can act on (timeout, unreachable, cut)."""
    status = 503
    code = ErrorCode.UNAVAILABLE


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


def _chain(exc: BaseException) -> list[str]:
    """The class names of ``exc`` and of every exception behind it (``__cause__``,
    ``__context__``): the SDKs wrap their HTTP client's errors (httpx or httpx2) once or
    twice, so errors are told apart by name, with neither SDK imported."""
    names: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        names += [cls.__name__ for cls in type(current).__mro__]
        current = current.__cause__ or current.__context__
    return names


_TIMEOUTS = {"APITimeoutError", "TimeoutException", "TimeoutError"}
_CUT = {"RemoteProtocolError", "ReadError"}
_UNREACHABLE = {"ConnectError", "APIConnectionError"}


def explain(exc: BaseException, model: Any) -> BaseException:
    """A ``ModelCallError`` for a timeout, an unreachable provider or a cut stream;
    ``exc`` itself for anything else (the provider's own message says enough)."""
    url = model_url(model)
    names = set(_chain(exc))
    if names & _TIMEOUTS:
        limit = _timeout(model)
        within = f" within {limit:g} s" if limit else ""
        return ModelCallError(f"the model at {url} did not answer{within} (raise "
                              f"{TIMEOUT_SETTING} if it is only slow)")
    if names & _CUT:  # it answered, then the connection broke before the answer's end
        return ModelCallError(f"the model at {url} broke off its answer (the connection "
                              "closed early); try again")
    if names & _UNREACHABLE:
        return ModelCallError(f"cannot reach the model at {url} (connection refused or "
                              "no route: is the server running and the URL right?)")
    return exc
