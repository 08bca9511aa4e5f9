"""What body a route declares: the media types it takes and whether it is an upload.

A route's declaration is its OpenAPI one: ``openapi_extra={"requestBody": {"content":
{...}}}`` when it reads its body itself, else form/file parameters (multipart or
urlencoded), else JSON. A mounted app (Socket.IO, MCP) speaks its own protocol and
decides for itself (None).

The route is the one routing chose (``scope["route"]``), so the checks that need it run
when the endpoint first reads the body, which is after routing.
"""

from __future__ import annotations

from fastapi import params
from fastapi.routing import APIRoute
from starlette.types import Scope

JSON = "application/json"
MULTIPART = "multipart/form-data"
FORM = "application/x-www-form-urlencoded"


def accepted_media_types(scope: Scope) -> frozenset[str] | None:
    """The body media types the routed request's route takes, or None if it is not ours
    to say (not routed yet, a mounted app, a plain starlette route)."""
    route = scope.get("route")
    if not isinstance(route, APIRoute):
        return None
    content = (route.openapi_extra or {}).get("requestBody", {}).get("content")
    if content:
        return frozenset(media.lower() for media in content)
    field = route.body_field
    if field is not None and isinstance(field.field_info, params.Form):  # File is a Form
        return frozenset({MULTIPART, FORM})
    return frozenset({JSON})


def media_type(content_type: str | None) -> str:
    """``text/plain`` of ``text/plain; charset=utf-8``; "" when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_accepted(content_type: str | None, accepted: frozenset[str]) -> bool:
    media = media_type(content_type)
    if media in accepted:
        return True
    return JSON in accepted and media.startswith("application/") and media.endswith("+json")


def has_body(scope: Scope) -> bool:
    """Whether the request declares a body (a non-zero length, or chunked)."""
    for name, value in scope["headers"]:
        if name == b"transfer-encoding":
            return True
        if name == b"content-length":
            return value.strip() not in (b"0", b"")
    return False
