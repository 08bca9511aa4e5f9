"""A Studio request that does not fit its form is answered in Japanese: the seed project's
React client shows the ``error`` text to its user as it is.

The answer keeps the app's error form (``code: invalid_request``, ``errors`` with each
``loc``, ``msg`` and ``type`` as pydantic gives them) and adds ``field``, the first wrong
field's path (``body.concept.platform``); ``error`` names that field in Japanese and says
what to send. The Studio's routers use ``StudioRoute`` for this; other faces keep the
app-wide handler (``api/errors.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

# the fields a person fills in, by their last name in the path (the client's form labels)
LABELS = {"name": "プロジェクト名", "description": "説明", "concept": "コンセプト",
          "platform": "プラットフォーム", "scope": "スコープ", "genre": "ジャンル",
          "targetAudience": "対象ユーザー", "config": "設定", "llmProvider": "LLMプロバイダー",
          "maxTokensPerAgent": "エージェントごとの最大トークン数", "status": "状態",
          "resolution": "承認の判断", "feedback": "フィードバック",
          "selectedAgents": "対象エージェント", "agentInstructions": "エージェントへの指示",
          "approvalStatus": "承認状態", "assetIds": "アセット", "year": "年", "month": "月",
          "limit": "件数", "offset": "開始位置", "files": "ファイル", "file": "ファイル"}
SOURCES = ("body", "query", "path", "header", "cookie")


def field_path(loc: list[Any]) -> str:
    """``["body", "concept", "platform"]`` -> ``concept.platform`` (list items as ``[0]``)."""
    parts = list(loc[1:] if loc and loc[0] in SOURCES else loc)
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _what_to_send(error: dict[str, Any]) -> str:
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    if kind == "missing":
        return "がありません。入れて送ってください。"
    if kind == "extra_forbidden":
        return "は受け付けていない項目です。外して送ってください。"
    if kind in ("literal_error", "enum"):
        return f"には {ctx.get('expected', '')} のどれかを送ってください。"
    if kind in ("string_type", "string_unicode"):
        return "は文字列で送ってください。"
    if kind in ("string_too_short", "too_short"):
        return "が空です。入れて送ってください。" if ctx.get("min_length") == 1 else (
            f"は {ctx.get('min_length')} 文字(件)以上で送ってください。")
    if kind in ("string_too_long", "too_long"):
        return f"が長すぎます。{ctx.get('max_length')} 文字(件)以内で送ってください。"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "は整数で送ってください。"
    if kind in ("float_parsing", "float_type"):
        return "は数値で送ってください。"
    if kind in ("bool_parsing", "bool_type"):
        return "は true か false で送ってください。"
    if kind in ("greater_than_equal", "greater_than"):
        return f"は {ctx.get('ge', ctx.get('gt'))} {'以上' if 'ge' in ctx else 'より大きい値'}" \
            "で送ってください。"
    if kind in ("less_than_equal", "less_than"):
        return f"は {ctx.get('le', ctx.get('lt'))} {'以下' if 'le' in ctx else 'より小さい値'}" \
            "で送ってください。"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "はオブジェクト({...})で送ってください。"
    if kind == "list_type":
        return "は配列([...])で送ってください。"
    if kind == "json_invalid":
        return "が JSON として読めません。正しい JSON を送ってください。"
    if kind == "value_error":
        return f"が使えません: {ctx.get('error', error.get('msg', ''))}"
    return f"の値が正しくありません({error.get('msg', '')})。"


def japanese_message(error: dict[str, Any]) -> str:
    """One validation error, as a person reads it: the field, then what to send."""
    path = field_path(list(error.get("loc", ())))
    if not path:
        return "リクエストの本文" + _what_to_send(error)
    label = LABELS.get(path.rsplit(".", 1)[-1])
    field = f"「{label}」({path})" if label else f"「{path}」"
    return field + _what_to_send(error)


def invalid_request(exc: RequestValidationError) -> JSONResponse:
    errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
              for e in exc.errors()]
    first = exc.errors()[0] if exc.errors() else {"loc": [], "type": "", "msg": ""}
    body = {"error": japanese_message(first), "code": "invalid_request",
            "field": ".".join(str(p) for p in first.get("loc", ())), "errors": errors}
    # the error keeps the frame that raised it, and the request's body with it (errors.py)
    exc.__traceback__ = exc.__cause__ = exc.__context__ = None
    return JSONResponse(body, status_code=422)


class StudioRoute(APIRoute):
    """A route whose request-validation errors are answered in Japanese."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handle(request)
            except RequestValidationError as exc:
                return invalid_request(exc)

        return answer
