"""One failure class per way a model call fails (models/errors.py): what the providers'
clients raise (openai, anthropic, their HTTP clients, LangChain's wrappers) is told apart
and said in Japanese and English, naming the setting to change. The exceptions are built
from request and response objects, as the SDKs build them: no network."""

from __future__ import annotations

import pickle
import socket
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest
from langchain_core.messages import HumanMessage
from langchain_openai.chat_models.base import OpenAIConnectionError

from shokunin.models import (
    ModelCallError,
    ModelKeyRefused,
    ModelRateLimited,
    ModelTimedOut,
    ModelUnknown,
    ModelUnreachable,
    classify,
    explain,
    resolve,
)

URL = "http://127.0.0.1:9999/v1"
SETTING = {ModelUnreachable: "SHOKUNIN_MODEL_BASE_URL", ModelKeyRefused: "SHOKUNIN_MODEL_API_KEY",
           ModelUnknown: "SHOKUNIN_MODEL", ModelTimedOut: "SHOKUNIN_MODEL_TIMEOUT_SEC",
           ModelRateLimited: "SHOKUNIN_MODEL"}


class Model:
    """What ``classify`` reads of a chat model."""

    openai_api_base = URL
    model_name = "gpt-test"
    request_timeout = 7.5


def _request(module: Any = httpx2) -> Any:
    return module.Request("POST", f"{URL}/chat/completions")


def _response(status: int, module: Any = httpx2, body: Any = None) -> Any:
    return module.Response(status, request=_request(module), json=body or {})


def _wrapped(outer: BaseException, inner: BaseException) -> BaseException:
    """``outer`` raised from ``inner``, as an SDK raises its error from the HTTP client's."""
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except BaseException as raised:
        return raised


def _status(cls: type[openai.APIStatusError], status: int, body: Any = None) -> Exception:
    return cls(f"Error code: {status}", response=_response(status, body=body), body=body)


CASES: list[tuple[str, BaseException, type[ModelCallError]]] = [
    ("openai connection refused", _wrapped(openai.APIConnectionError(request=_request()),
                                           httpx2.ConnectError("[Errno 111] refused")),
     ModelUnreachable),
    ("LangChain's wrapper of it", _wrapped(
        OpenAIConnectionError(message="Connection error.", request=_request()),
        openai.APIConnectionError(request=_request())), ModelUnreachable),
    ("httpx connect error (DNS)", httpx.ConnectError("[Errno -2] Name or service not known",
                                                     request=_request(httpx)),
     ModelUnreachable),
    ("a TLS failure", _wrapped(openai.APIConnectionError(request=_request()),
                               httpx2.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED]")),
     ModelUnreachable),
    ("openai 401", _status(openai.AuthenticationError, 401), ModelKeyRefused),
    ("openai 403", _status(openai.PermissionDeniedError, 403), ModelKeyRefused),
    ("anthropic 401", anthropic.AuthenticationError(
        "invalid x-api-key", response=_response(401), body=None), ModelKeyRefused),
    ("httpx 401 answer", httpx.HTTPStatusError("401", request=_request(httpx),
                                               response=_response(401, httpx)),
     ModelKeyRefused),
    ("openai 404", _status(openai.NotFoundError, 404), ModelUnknown),
    ("400 model_not_found", _status(openai.BadRequestError, 400, {
        "error": {"code": "model_not_found", "message": "no such model"}}), ModelUnknown),
    ("openai timeout", openai.APITimeoutError(request=_request()), ModelTimedOut),
    ("httpx read timeout", httpx.ReadTimeout("timed out", request=_request(httpx)),
     ModelTimedOut),
    ("openai 429", _status(openai.RateLimitError, 429), ModelRateLimited),
    ("anthropic 429", anthropic.RateLimitError(
        "rate_limit_error", response=_response(429), body=None), ModelRateLimited),
]


@pytest.mark.parametrize(("exc", "cls"), [(exc, cls) for _, exc, cls in CASES],
                         ids=[name for name, _, _ in CASES])
def test_each_provider_error_becomes_its_failure_class(exc: BaseException,
                                                       cls: type[ModelCallError]) -> None:
    failure = classify(exc, Model())
    assert type(failure) is cls
    explained = explain(exc, Model())
    assert type(explained) is cls and str(explained) == str(failure)
    for language in ("ja", "en"):
        text = failure.said(language)
        assert SETTING[cls] in text and URL in text, text
    assert failure.said("en") == str(failure) and failure.said("ja") != failure.said("en")
    assert failure.said("ja-JP") == failure.said("ja")


def test_the_messages_say_what_each_class_needs() -> None:
    assert "7.5" in classify(openai.APITimeoutError(request=_request()), Model()).said("ja")
    unknown = classify(_status(openai.NotFoundError, 404), Model())
    assert "gpt-test" in unknown.said("en") and "gpt-test" in unknown.said("ja")
    assert "401" in classify(_status(openai.AuthenticationError, 401), Model()).said("en")
    assert "429" in classify(_status(openai.RateLimitError, 429), Model()).said("ja")
    assert classify(_status(openai.RateLimitError, 429), Model()).code == "model_rate_limited"


@pytest.mark.parametrize("exc", [_status(openai.InternalServerError, 500),
                                 _status(openai.BadRequestError, 400, {"error": {
                                     "code": "context_length_exceeded"}}),
                                 ValueError("not JSON")], ids=["500", "400", "ValueError"])
def test_other_errors_keep_the_providers_own_words(exc: Exception) -> None:
    assert classify(exc, Model()) is None
    assert explain(exc, Model()) is exc


def test_a_cut_answer_is_a_model_call_error_of_its_own() -> None:
    cut = _wrapped(openai.APIConnectionError(request=_request()),
                   httpx2.RemoteProtocolError("peer closed connection"))
    failure = classify(cut, Model())
    assert type(failure) is ModelCallError and "broke off" in str(failure)


def test_a_failure_survives_pickling_with_its_facts() -> None:
    failure = ModelKeyRefused(URL, status=401, name="gpt-test")
    again = pickle.loads(pickle.dumps(failure))
    assert type(again) is ModelKeyRefused and again.said("ja") == failure.said("ja")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_the_resolved_model_raises_the_class_itself() -> None:
    """The boundary: a model ``resolve`` returns raises the failure class from every way
    of calling it (streamed, not streamed, structured), so no caller classifies."""
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    model = resolve("openai:gpt-test", base_url=url, api_key="sk-test", max_retries=0)
    with pytest.raises(ModelUnreachable, match=url):
        await model.ainvoke([HumanMessage("hi")])
    with pytest.raises(ModelUnreachable):
        model.invoke([HumanMessage("hi")])
    with pytest.raises(ModelUnreachable):
        await model.bind(stream=False).ainvoke([HumanMessage("hi")])
    with pytest.raises(ModelUnreachable):
        await model.with_structured_output({"title": "Answer", "type": "object", "properties": {
            "text": {"type": "string"}}}).ainvoke([HumanMessage("hi")])
