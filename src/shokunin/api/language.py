"""The user's language ("ja" or "en") as an HTTP face knows it: the UI's own choice (the
``shokunin_lang`` cookie its language switch sets), else the browser's ``Accept-Language``,
else English. Faces whose wire carries one sentence use it to pick what an error
``said(language)``."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from shokunin.errors import user_language

COOKIE = "shokunin_lang"


def language_of(connection: HTTPConnection) -> str:
    """The language of the user on ``connection`` (a request or a WebSocket)."""
    return user_language(connection.cookies.get(COOKIE),
                         connection.headers.get("accept-language"))
