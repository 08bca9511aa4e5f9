"""The MCP servers a user lists, read from the JSON file desktop MCP clients use.

``{"mcpServers": {"name": {"command": ..., "args": [...], "env": {...}, "cwd": ...}}}`` for
a server started as a child process over stdio, ``{"url": ..., "headers": {...}}`` for one
reached over streamable HTTP. A server whose entry is wrong is kept with its reason, so it
is listed as unavailable and the others still load; env values and header values are
secrets and are never shown back (``public()``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")


class StdioServer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: Path | None = None

    def public(self) -> dict[str, Any]:
        return {"transport": "stdio", "command": self.command, "args": self.args,
                "env": sorted(self.env)}


class HttpServer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["http", "streamable-http", "streamableHttp"] = "http"
    url: str
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # The URL itself is not quoted back: its userinfo or query may hold a token.
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https"):
            raise ValueError(f"an http(s) URL is needed, not one of scheme "
                             f"{parts.scheme[:20]!r}")
        if not parts.hostname:
            raise ValueError("the URL has no host")
        return value

    def public(self) -> dict[str, Any]:
        parts = urlsplit(self.url)
        # A token may ride in the userinfo or the query: neither is shown back.
        host = parts.netloc.rpartition("@")[2]
        query = urlencode([(key, "***") for key, _ in parse_qsl(parts.query)])
        return {"transport": "http", "url": urlunsplit((parts.scheme, host, parts.path, query, "")),
                "headers": sorted(self.headers)}


class ConfiguredServer(BaseModel):
    """One entry of the file: its spec, or why it cannot be used."""

    name: str
    spec: StdioServer | HttpServer | None = None
    problem: str | None = None

    def public(self) -> dict[str, Any]:
        return {"name": self.name, **(self.spec.public() if self.spec else {})}


def read_servers(path: Path | None) -> tuple[list[ConfiguredServer], str | None]:
    """The servers of the file, and the reason the whole file is unusable (else None).

    A missing file is simply no servers.
    """
    if path is None or not path.is_file():
        return [], None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return [], f"{path}: not a readable JSON file ({exc})"
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return [], f'{path}: expected {{"mcpServers": {{"name": {{...}}}}}}'
    return [_entry(name, raw) for name, raw in entries.items()], None


def _entry(name: str, raw: Any) -> ConfiguredServer:
    if not SERVER_NAME.match(name):
        return ConfiguredServer(name=name[:40], problem=(
            "a server name is 1 to 32 letters, digits, '_' or '-' (it prefixes its tools' "
            "names)"))
    if not isinstance(raw, dict) or ("command" in raw) == ("url" in raw):
        return ConfiguredServer(name=name, problem=(
            'an entry is an object with "command" (a server over stdio) or "url" (over HTTP)'))
    if raw.get("disabled") is True:
        return ConfiguredServer(name=name, problem="disabled in the configuration")
    raw = {key: value for key, value in raw.items() if key != "disabled"}
    model: type[StdioServer | HttpServer] = HttpServer if "url" in raw else StdioServer
    try:
        return ConfiguredServer(name=name, spec=model.model_validate(raw))
    except ValidationError as exc:
        first = exc.errors(include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "entry"
        return ConfiguredServer(name=name, problem=f"{where}: {first['msg']}")
