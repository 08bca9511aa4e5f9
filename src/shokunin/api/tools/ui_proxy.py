"""A tool's own web UI, served through shokunin under the tool's page.

A tool with a UI gets ``context["ui_port"]`` and starts a small web server there, in its own
child process, bound to loopback (``tools/tool_ui.py``). Its pages are reached only here::

    GET    /api/tools/{name}/ui/{execution_id}   -> 307 to the page's address (below)
    DELETE /api/tools/{name}/ui/{execution_id}   stops that UI (its process ends)
    GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS /api/tools/{name}/ui/{execution_id}/{key}/{path}

The first two are routes like any other (auth, and who may see the execution's run may use
its UI; 404 otherwise, as for an unknown one). The page's address holds the UI's secret
``key``, shown only in the execution's result: the page runs sandboxed (below), so its own
requests carry no login cookie and an ``Origin: null``, and the perimeter lets a request to
that address in by the key alone (``capability``). A wrong key is a 404.

What crosses the proxy, and why:

* to the tool: the method, the path (``..`` segments, backslashes and NUL refused with 400)
  and query, the body, and a short list of content headers. Never ``Authorization``,
  ``Cookie``, or any hop-by-hop header: the tool never sees the caller's credentials;
* back: the status, the body (at most ``MAX_RESPONSE_BYTES``) and the tool's headers
  except hop-by-hop ones, ``Set-Cookie`` (the tool's cookies would land on shokunin's
  origin), ``Clear-Site-Data``, CORS and service-worker headers. A redirect to the tool's
  own address or to an absolute path is rewritten under this prefix;
* every answer carries ``Content-Security-Policy: sandbox ...``: the page runs in an opaque
  origin, in the Tools view's frame or opened on its own, so its scripts cannot read
  shokunin's cookies, storage or token, nor call shokunin's API as the user (their
  fetch/POST requests carry ``Origin: null``, which the perimeter refuses). For the same
  reason its own fetch/XHR/module scripts are cross-origin loads: answers to ``Origin:
  null`` say ``Access-Control-Allow-Origin: null``, and a CORS preflight is answered here
  (the tool never sees it). Credentials are never allowed: the key in the address is one;
* a tool written for the origin serves its page at the root of its own port, with links
  like ``href="/api/status"``: in an HTML answer, ``href``, ``src`` and ``action`` values
  that start with one ``/`` are put under the prefix. A URL a script builds at run time is
  not rewritten: such a page should use relative URLs. WebSocket upgrades are not proxied.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from urllib.parse import quote

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.types import Scope

from shokunin.agents.tool_run import NAME as TOOL_AGENT
from shokunin.api.errors import ApiError
from shokunin.auth import principal
from shokunin.errors import ErrorCode
from shokunin.runs import visible_run
from shokunin.tools import ToolRegistry, ToolUi

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/tools", tags=["tools"])

MAX_RESPONSE_BYTES = 32 * 1024 * 1024
TIMEOUT = httpx.Timeout(30.0, connect=5.0)
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
FORWARDED_REQUEST_HEADERS = frozenset({
    "accept", "accept-language", "cache-control", "content-type", "if-match",
    "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "pragma",
    "range", "user-agent", "x-requested-with"})
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate",
                        "proxy-authorization", "te", "trailer", "trailers",
                        "transfer-encoding", "upgrade"})
DROPPED_RESPONSE_HEADERS = HOP_BY_HOP | frozenset({
    "content-length", "set-cookie", "set-cookie2", "clear-site-data",
    "service-worker-allowed", "strict-transport-security", "content-security-policy",
    "content-security-policy-report-only", "x-frame-options", "server", "date",
    "cross-origin-resource-policy", "cross-origin-opener-policy",
    "cross-origin-embedder-policy"})
SANDBOX_CSP = ("sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads; "
               "frame-ancestors 'self'")
PROXY_HEADERS = {
    "content-security-policy": SANDBOX_CSP,
    "x-frame-options": "SAMEORIGIN",
    # the sandboxed page has an opaque origin: its own scripts, styles and images are
    # cross-origin loads for it, which "same-origin" would block
    "cross-origin-resource-policy": "cross-origin",
    "cache-control": "no-store",
}


def _registry(request: Request) -> ToolRegistry:
    return request.app.state.engine.tools


async def _live_ui(request: Request, name: str, execution_id: str) -> ToolUi:
    """The execution's live UI, when the caller may see the execution's run."""
    run = await visible_run(request.app.state.engine.runner.store, principal(request),
                            execution_id)
    if run is None or run.agent != TOOL_AGENT:
        raise ApiError(404, f"no execution {execution_id[:100]!r}", ErrorCode.NOT_FOUND)
    return _registry(request).live_ui(name, execution_id)


@router.get("/{name}/ui/{execution_id}", include_in_schema=False)
async def ui_root(request: Request, name: str, execution_id: str) -> Response:
    """The page's relative links resolve under the prefix only with its final "/"."""
    ui = await _live_ui(request, name, execution_id)
    query = request.url.query
    return RedirectResponse(ui.path + (f"?{query}" if query else ""), status_code=307)


@router.delete("/{name}/ui/{execution_id}")
async def stop_ui(request: Request, name: str, execution_id: str) -> Response:
    """Stop the execution's UI: its server and process end."""
    await _live_ui(request, name, execution_id)
    _registry(request).stop_ui(name, execution_id)
    return JSONResponse({"stopped": True, "execution_id": execution_id})


PAGE = re.compile(r"/api/tools/(?P<name>[^/]+)/ui/(?P<execution_id>[^/]+)/(?P<key>[^/]+)"
                  r"(?:/|$)")


def capability(scope: Scope) -> bool:
    """Whether the request is for a live tool UI's page with its right key: the perimeter
    lets it in without a login (the key is the credential) and with the sandboxed page's
    ``Origin: null``."""
    match = PAGE.match(scope.get("path", "")[len(scope.get("root_path", "")):])
    engine = getattr(scope["app"].state, "engine", None) if "app" in scope else None
    return (match is not None and engine is not None
            and engine.tools.ui_by_key(**match.groupdict()) is not None)


def _page(request: Request, name: str, execution_id: str, key: str) -> ToolUi:
    ui = _registry(request).ui_by_key(name, execution_id, key)
    if ui is None:
        raise ApiError(404, f"no live UI of tool {name[:100]!r} at this address; run the tool "
                       "again", ErrorCode.NOT_FOUND)
    return ui


@router.get("/{name}/ui/{execution_id}/{key}", include_in_schema=False)
async def page_root(request: Request, name: str, execution_id: str, key: str) -> Response:
    ui = _page(request, name, execution_id, key)
    query = request.url.query
    return RedirectResponse(ui.path + (f"?{query}" if query else ""), status_code=307)


# A tool's own pages, not shokunin's API: not in the OpenAPI schema (one operation for
# seven methods would also repeat its operation id).
@router.api_route("/{name}/ui/{execution_id}/{key}/{path:path}", methods=METHODS,
                  include_in_schema=False)
async def proxy(request: Request, name: str, execution_id: str, key: str,
                path: str) -> Response:
    ui = _page(request, name, execution_id, key)
    target = _target(ui, path, request.url.query)
    if request.method == "OPTIONS" and "access-control-request-method" in request.headers:
        return _preflight(request)
    headers = {k: v for k, v in request.headers.items() if k in FORWARDED_REQUEST_HEADERS}
    headers["x-forwarded-prefix"] = ui.path.rstrip("/")
    headers["accept-encoding"] = "identity"  # the size cap counts what the browser gets
    body = await request.body()
    client = httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False, trust_env=False)
    try:
        upstream = await client.send(
            client.build_request(request.method, target, headers=headers, content=body),
            stream=True)
    except httpx.TimeoutException:
        await client.aclose()
        raise ApiError(504, f"the UI of tool {name!r} did not answer in time",
                       ErrorCode.TOO_SLOW) from None
    except httpx.HTTPError as exc:
        await client.aclose()
        log.info("tool UI %s (port %s) unreachable: %r", name, ui.port, exc)
        raise ApiError(404, f"the UI of tool {name!r} has stopped; run the tool again",
                       ErrorCode.NOT_FOUND) from None
    declared = upstream.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        await upstream.aclose()
        await client.aclose()
        raise ApiError(502, f"the UI of tool {name!r} answered more than "
                       f"{MAX_RESPONSE_BYTES} bytes", ErrorCode.TOO_LARGE)
    headers = _response_headers(upstream, ui)
    if request.headers.get("origin") == "null":  # the sandboxed page's own fetch
        headers.append(("access-control-allow-origin", "null"))
    if upstream.headers.get("content-type", "").startswith("text/html"):
        # read whole to rewrite it, within the same cap as a streamed body
        page = b"".join([chunk async for chunk in _body(upstream, client, name)])
        response: Response = Response(_rooted(page, ui), status_code=upstream.status_code)
    else:
        response = StreamingResponse(_body(upstream, client, name),
                                     status_code=upstream.status_code)
    response.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                            for k, v in headers] + [
        (k, v) for k, v in response.raw_headers if k == b"content-length"]
    return response


def _preflight(request: Request) -> Response:
    """The sandboxed page asks before a fetch with a body type or header of its own."""
    asked = request.headers.get("access-control-request-headers", "")
    allowed = ", ".join(h.strip() for h in asked.split(",")
                        if h.strip().lower() in FORWARDED_REQUEST_HEADERS)
    headers = {"access-control-allow-origin": "null" if request.headers.get("origin") == "null"
               else "", "access-control-allow-methods": ", ".join(METHODS),
               "access-control-max-age": "600", **PROXY_HEADERS}
    if allowed:
        headers["access-control-allow-headers"] = allowed
    return Response(status_code=204, headers={k: v for k, v in headers.items() if v})


# href="/x", src='/x', action=/x: one leading slash (not a scheme-relative "//host")
ROOTED = re.compile(rb"""(\s(?:href|src|action)\s*=\s*["']?)/(?![/\\])""", re.IGNORECASE)


def _rooted(page: bytes, ui: ToolUi) -> bytes:
    """The page's root-absolute URLs under the prefix (its server thinks it is the root)."""
    prefix = ui.path.encode("latin-1")
    return ROOTED.sub(lambda m: m.group(1) + prefix, page)


def _target(ui: ToolUi, path: str, query: str) -> httpx.URL:
    segments = path.split("/")
    if any(s in (".", "..") for s in segments) or "\\" in path or "\0" in path:
        raise ApiError(400, "a tool UI path may not hold '.', '..', backslashes or NUL",
                       ErrorCode.BAD_REQUEST)
    raw = "/" + quote(path, safe="/:@!$&'()*+,;=-._~")
    if query:
        raw += "?" + query
    return httpx.URL(scheme="http", host="127.0.0.1", port=ui.port, raw_path=raw.encode())


def _response_headers(upstream: httpx.Response, ui: ToolUi) -> list[tuple[str, str]]:
    headers = [(k, v) for k, v in upstream.headers.multi_items()
               if k.lower() not in DROPPED_RESPONSE_HEADERS and not k.lower().startswith(
                   "access-control-") and k.lower() not in PROXY_HEADERS]
    headers = [(k, _location(v, ui) if k.lower() == "location" else v) for k, v in headers]
    return headers + list(PROXY_HEADERS.items())


def _location(value: str, ui: ToolUi) -> str:
    """A redirect to the tool's own server, or to a root-absolute path, stays under the
    prefix; any other target is left as the tool wrote it."""
    for own in (f"http://127.0.0.1:{ui.port}/", f"http://localhost:{ui.port}/"):
        if value.startswith(own):
            return ui.path + value[len(own):]
    if value.startswith("/") and not value.startswith("//"):
        return ui.path + value[1:]
    return value


async def _body(upstream: httpx.Response, client: httpx.AsyncClient,
                name: str) -> AsyncIterator[bytes]:
    sent = 0
    try:
        async for chunk in upstream.aiter_raw():
            sent += len(chunk)
            if sent > MAX_RESPONSE_BYTES:  # the status went out already: cut the body short
                log.warning("tool UI %s: response cut at %d bytes", name, MAX_RESPONSE_BYTES)
                return
            yield chunk
    finally:
        await upstream.aclose()
        await client.aclose()
