"""What a failed model call tells the user: one message per failure class, in Japanese and
English, naming the setting to change (and, for a server it cannot reach, the URL).

::

    ModelCallError        the answer was cut off (and the base of the classes below)
    ├── ModelUnreachable  connection refused, unknown host, TLS: SHOKUNIN_MODEL_BASE_URL
    ├── ModelKeyRefused   401 / 403: SHOKUNIN_MODEL_API_KEY
    ├── ModelUnknown      404, model_not_found: SHOKUNIN_MODEL
    ├── ModelTimedOut     no answer in time: SHOKUNIN_MODEL_TIMEOUT_SEC
    └── ModelRateLimited  429: wait, or the provider's limits

The provider clients (openai, anthropic, their HTTP client httpx, LangChain's wrappers of
them) say only "Connection error." or "Error code: 401"; ``explain`` turns what they raise
into one of these, once, at the boundary: the chat models ``resolve`` returns call it on
every failure (``resolve.py``), so no agent, brain or face classifies a provider's error.
"""

from __future__ import annotations

from typing import Any, ClassVar

from shokunin.errors import ErrorCode, ShokuninError, user_language

MODEL_SETTING = "SHOKUNIN_MODEL"
BASE_URL_SETTING = "SHOKUNIN_MODEL_BASE_URL"
KEY_SETTING = "SHOKUNIN_MODEL_API_KEY"
TIMEOUT_SETTING = "SHOKUNIN_MODEL_TIMEOUT_SEC"


class ModelCallError(ShokuninError, RuntimeError):
    """A model request failed in a way the user can act on. ``str()`` is the English
    message (logs, operators); ``said(language)`` the user's; ``url`` where it went."""

    status = 503
    code = ErrorCode.UNAVAILABLE
    en: ClassVar[str] = ("The model at {url} broke off its answer (the connection closed "
                         "early). Send it again.")
    ja: ClassVar[str] = ("モデル {url} の回答が途中で切れました（接続が途中で閉じられました）。"
                         "もう一度送信してください。")

    def __init__(self, url: str, **facts: Any) -> None:
        self.url = url
        self.facts = {"url": url, **facts}
        super().__init__(self.en.format(**self.facts))

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (a worker's failure): the same facts
        return _rebuild, (type(self), self.facts)

    def said(self, language: str) -> str:
        if user_language(language) == "ja":
            return self.ja.format(**self.facts)
        return self.message

    def translations(self) -> dict[str, str]:
        """The message in every language: ``{"ja": ..., "en": ...}``."""
        return {"ja": self.said("ja"), "en": self.said("en")}


class ModelUnreachable(ModelCallError):
    code = ErrorCode.MODEL_UNREACHABLE
    en = ("Cannot reach the model at {url} (connection refused, unknown host or TLS failure). "
          f"Start the model's server, or correct its URL: {BASE_URL_SETTING} (the Models "
          "page's base URL).")
    ja = ("モデルのサーバー {url} に接続できません（接続拒否・ホスト名不明・TLS エラー）。"
          f"サーバーを起動するか、URL を直してください: {BASE_URL_SETTING}"
          "（モデル画面のベース URL）。")


class ModelKeyRefused(ModelCallError):
    code = ErrorCode.MODEL_KEY_REFUSED
    en = (f"The model at {{url}} refused the API key ({{status}}). Set a valid key: "
          f"{KEY_SETTING} (the Models page's API key).")
    ja = (f"モデル {{url}} が API キーを拒否しました（{{status}}）。正しいキーを設定してください: "
          f"{KEY_SETTING}（モデル画面の API キー）。")


class ModelUnknown(ModelCallError):
    code = ErrorCode.MODEL_UNKNOWN
    en = (f"The model \"{{name}}\" does not exist at {{url}} (404). Set {MODEL_SETTING} to a "
          f"model that server has (the Models page's model name), or check the path of "
          f"{BASE_URL_SETTING} (often /v1).")
    ja = (f"モデル「{{name}}」は {{url}} にありません（404）。{MODEL_SETTING} をそのサーバーにある"
          f"モデル名にするか（モデル画面のモデル名）、{BASE_URL_SETTING} のパス（多くは /v1）を"
          "確認してください。")


class ModelTimedOut(ModelCallError):
    code = ErrorCode.MODEL_TIMEOUT
    en = (f"The model at {{url}} did not answer within {{limit}} s. If it is only slow, "
          f"raise {TIMEOUT_SETTING}; otherwise check the model's server.")
    ja = (f"モデル {{url}} が {{limit}} 秒以内に応答しませんでした。遅いだけなら "
          f"{TIMEOUT_SETTING} を増やし、そうでなければモデルのサーバーを確認してください。")


class ModelRateLimited(ModelCallError):
    code = ErrorCode.MODEL_RATE_LIMITED
    en = (f"The model at {{url}} refused more requests for now (429: rate limit or quota). "
          f"Wait a minute and try again, or raise the provider's limits or use another "
          f"model ({MODEL_SETTING}).")
    ja = (f"モデル {{url}} が要求の受け付けを一時的に止めています（429: 回数・利用量の上限）。"
          f"少し待ってから再試行するか、プロバイダーの上限を上げるか、別のモデル"
          f"（{MODEL_SETTING}）を使ってください。")


def _rebuild(cls: type[ModelCallError], facts: dict[str, Any]) -> ModelCallError:
    return cls(**facts)


def model_url(model: Any) -> str:
    """The base URL ``model`` sends its requests to (the provider's default if unset)."""
    url = (getattr(model, "openai_api_base", None) or getattr(model, "anthropic_api_url", None))
    if url:
        return str(url)
    llm_type = getattr(model, "_llm_type", "")
    return "https://api.anthropic.com" if "anthropic" in llm_type else "https://api.openai.com/v1"


def model_name(model: Any) -> str:
    """The model's name at its provider (``gpt-4.1-mini``)."""
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or "?")


def _timeout(model: Any) -> float | None:
    value = getattr(model, "request_timeout", None) or getattr(
        model, "default_request_timeout", None)
    return value if isinstance(value, int | float) else None


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception behind it (``__cause__``, ``__context__``): the SDKs
    wrap their HTTP client's errors (httpx) once or twice, and LangChain wraps the SDK's."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in found):
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _status(exc: BaseException) -> int | None:
    """The HTTP status of a provider's error answer (an SDK's ``status_code``, httpx's
    ``response.status_code``); None for an error with no answer."""
    for value in (getattr(exc, "status_code", None),
                  getattr(getattr(exc, "response", None), "status_code", None)):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


# Told apart by class name, with no SDK imported: openai's and anthropic's share them, and
# httpx's are behind both.
_TIMEOUTS = {"APITimeoutError", "TimeoutException", "TimeoutError", "ModelTimeoutError"}
_CUT = {"RemoteProtocolError", "ReadError", "WriteError"}
_UNREACHABLE = {"ConnectError", "APIConnectionError", "ModelConnectionError",
                "UnsupportedProtocol", "InvalidURL", "SSLError", "gaierror",
                "ConnectionRefusedError"}
_BY_STATUS: dict[int, type[ModelCallError]] = {
    401: ModelKeyRefused, 403: ModelKeyRefused, 404: ModelUnknown, 429: ModelRateLimited}


def classify(exc: BaseException, model: Any) -> ModelCallError | None:
    """The failure class of ``exc`` raised by a call of ``model``, None if it is none of
    them (a 400, a 500 after the client's retries: the provider's own message says more)."""
    if isinstance(exc, ModelCallError):
        return exc
    url = model_url(model)
    chain = _chain(exc)
    names = set().union(*(_names(e) for e in chain))
    for error in chain:  # an answer's status says most: a 401 is never "unreachable"
        status = _status(error)
        if status in _BY_STATUS:
            return _BY_STATUS[status](url, status=status, name=model_name(model))
        if status is not None and _mentions(error, "model_not_found"):
            return ModelUnknown(url, status=status, name=model_name(model))
    if names & _TIMEOUTS:
        limit = _timeout(model)
        return ModelTimedOut(url, limit=f"{limit:g}" if limit else "?")
    if names & _CUT:  # it answered, then the connection broke before the answer's end
        return ModelCallError(url)
    if names & _UNREACHABLE:
        return ModelUnreachable(url)
    return None


def _mentions(exc: BaseException, code: str) -> bool:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        body = body.get("error", body)
    return (isinstance(body, dict) and body.get("code") == code) or code in str(exc)


def explain(exc: BaseException, model: Any) -> BaseException:
    """The ``ModelCallError`` of ``exc``'s failure class; ``exc`` itself for anything else."""
    return classify(exc, model) or exc
