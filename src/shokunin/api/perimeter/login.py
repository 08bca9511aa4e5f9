"""The login page: a browser trades a token for an HttpOnly, SameSite=Strict cookie.

``GET /login`` shows a form, ``POST /login`` (urlencoded, from that form) checks the token
and sets the cookie, ``POST /logout`` clears it. The token travels only in the POST body,
never in a URL. Wrong tokens are rate-limited per client address, counted with those sent
to any other route (``login_limit``): past the limit ``POST /login`` answers 429 with
``Retry-After``.
"""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from shokunin.api.perimeter.auth import COOKIE, encode_cookie
from shokunin.api.perimeter.declared_body import FORM
from shokunin.api.perimeter.login_limit import LoginLimiter, limiter_of
from shokunin.auth import Authenticator

router = APIRouter(tags=["auth"])

WEB_DIR = Path(__file__).resolve().parent.parent.parent / "web"
COOKIE_MAX_AGE = 30 * 24 * 3600
_FORM_BODY = {"requestBody": {"content": {FORM: {"schema": {
    "type": "object", "properties": {"token": {"type": "string"}}, "required": ["token"]}}}}}


def _page(message: str = "", status: int = 200) -> HTMLResponse:
    text = (WEB_DIR / "login.html").read_text(encoding="utf-8")
    notice = f'<p class="login-error" role="alert">{html.escape(message)}</p>' if message else ""
    return HTMLResponse(text.replace("<!--message-->", notice), status_code=status,
                        headers={"Cache-Control": "no-store"})


def _authenticator(request: Request) -> Authenticator:
    return request.app.state.authenticator


def _limiter(request: Request) -> LoginLimiter:
    """The app's one limiter, shared with the auth middleware."""
    return limiter_of(request.app.state)


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request) -> Response:
    if not await _authenticator(request).enabled():
        return RedirectResponse(request.scope.get("root_path", "") + "/", status_code=303)
    return _page()


@router.get("/login.css", include_in_schema=False)
async def login_css() -> FileResponse:
    return FileResponse(WEB_DIR / "css" / "login.css", media_type="text/css; charset=utf-8")


@router.post("/login", openapi_extra=_FORM_BODY, response_class=HTMLResponse)
async def login(request: Request) -> Response:
    limiter = _limiter(request)
    client = request.client.host if request.client else "unknown"
    if (wait := limiter.retry_after(client)) is not None:
        page = _page(f"試行が多すぎます。{wait} 秒後にもう一度どうぞ / Too many wrong tokens: "
                     f"try again in {wait} s.", status=429)
        page.headers["Retry-After"] = str(wait)
        return page
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    token = (form.get("token") or [""])[0].strip()
    principal = await _authenticator(request).principal(token) if token else None
    if principal is None:
        limiter.failed(client, token)
        return _page("トークンが正しくありません / The token is not valid.", status=401)
    response = RedirectResponse(request.scope.get("root_path", "") + "/", status_code=303)
    response.set_cookie(COOKIE, encode_cookie(token), max_age=COOKIE_MAX_AGE, path="/",
                        httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    response = RedirectResponse(request.scope.get("root_path", "") + "/login", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
