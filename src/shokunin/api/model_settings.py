"""The Models page's API: the model settings (key masked), saving them, testing them.

``GET /api/model/settings``: ``{"schema", "values", "errors", "in_use", "environment",
"restart_needed"}`` (``agents/model_settings.py``); the API key only ever as ``********``
and ``schema.api_key.is_set``. ``PUT /api/model/settings`` with ``{"values": {...}}`` (the
key sent back as the mask keeps the stored one) answers the same with ``key_cleared``
("host" or "provider" when the stored key was dropped because the base URL moved to another
host or the provider changed; else null), or 422 ``{"errors": {field: message}}``.
``environment`` lists the model variables the process environment or ``.env`` sets (they
decide instead of the saved settings); ``restart_needed``: the saved settings differ from
the ones in use and take effect when the server restarts. ``POST /api/model/test`` with
``{"values": {...}}`` (the form, unsaved; none: what is saved) runs the check ``shokunin
models test`` runs and answers ``{"ok", "latency_ms", "code", "message", "said"}``:
``message`` in the user's language, ``said`` in both.

When auth is on, only the admin token may use them: the settings are the server's, and
hold its key. An API key gets ``403 admin_only``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from shokunin.api.errors import ApiError, json_object
from shokunin.api.language import language_of
from shokunin.auth import ADMIN, principal
from shokunin.tools import SettingsInvalid

router = APIRouter(prefix="/api/model", tags=["models"])
ADMIN_ONLY = {"ja": "モデルの設定を扱えるのは管理者（SHOKUNIN_AUTH_TOKEN）だけです。",
              "en": "Only the admin (SHOKUNIN_AUTH_TOKEN) may see or change the model "
                    "settings."}


def _admin(request: Request) -> None:
    if principal(request) not in (None, ADMIN):  # auth off, or the admin token
        raise ApiError(403, ADMIN_ONLY[language_of(request)], "admin_only")


async def _values(request: Request, required: bool) -> Any:
    raw = await request.body()
    if not raw.strip() and not required:
        return None
    body = await json_object(request, '{"values": {...}}')
    if "values" not in body and required:
        raise ApiError(422, 'expected {"values": {...}}', "invalid_request")
    return body.get("values")


@router.get("/settings")
async def get_settings(request: Request) -> dict[str, Any]:
    _admin(request)
    return request.app.state.engine.models.view()


@router.put("/settings")
async def put_settings(request: Request) -> Any:
    _admin(request)
    values = await _values(request, required=True)
    try:
        return request.app.state.engine.models.save(values)
    except SettingsInvalid as exc:
        return JSONResponse({"errors": exc.errors}, status_code=422)


@router.post("/test")
async def test_model(request: Request) -> Any:
    _admin(request)
    values = await _values(request, required=False)
    try:
        check = await request.app.state.engine.models.test(values)
    except SettingsInvalid as exc:
        return JSONResponse({"errors": exc.errors}, status_code=422)
    code = getattr(check.error, "code", None)
    return {"ok": check.ok, "model": check.spec, "url": check.url,
            "latency_ms": check.latency_ms, "code": None if code is None else str(code),
            "message": check.said(language_of(request)),
            "said": {"ja": check.said("ja"), "en": check.said("en")}}
