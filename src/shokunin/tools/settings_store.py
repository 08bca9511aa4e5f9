"""Tool settings: one JSON file keyed by tool name, validated on save, secrets masked.

The file is written atomically (temporary file + ``os.replace``) with mode 0600, so a crash
never leaves half a file and other users cannot read API keys. Secret values leave this
module only through ``effective()`` (the context given to the tool itself).

Stored values are checked again when read: a value that no longer fits the schema (a hand
edit, a NaN written by an older version, a schema that changed) is replaced by the field's
default and reported by ``problems()``, so one bad field never breaks a tool.

A secret never follows a URL setting to a new host: ``save()`` clears the tool's stored
secrets when a URL-like setting (a base URL, endpoint or host) changes host and the same
save does not give those secrets anew, so pointing a tool elsewhere cannot make it send
the key it was given for the old host (every writer, REST or CLI, goes through ``save()``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from shokunin.tools.errors import SettingsInvalid
from shokunin.tools.masking import MASK, ordered, secret_strings
from shokunin.tools.settings_schema import check_value

log = logging.getLogger(__name__)
TIMEOUT_KEY = "timeout_sec"
MAX_TIMEOUT_SEC = 86400.0

Schema = Mapping[str, Mapping[str, Any]]
# A setting named like this holds where the tool connects to, even as a bare host name.
_PLACE_WORDS = {"url", "uri", "endpoint", "host", "hostname", "server", "proxy"}
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def with_reserved(schema: Schema, default_timeout: float) -> dict[str, dict[str, Any]]:
    """The tool's schema plus the reserved per-tool ``timeout_sec`` setting."""
    full = {key: dict(spec) for key, spec in schema.items()}
    full.setdefault(TIMEOUT_KEY, {"type": "number", "label": "タイムアウト（秒） / Timeout (s)",
                                  "default": default_timeout, "min": 0.1,
                                  "max": MAX_TIMEOUT_SEC})
    return full


class SettingsStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, dict[str, Any]] = {}
        self._mtime: int | None = None
        self._reported: set[tuple[str, str, str]] = set()

    def stored(self, tool: str) -> dict[str, Any]:
        with self._lock:
            return dict(self._load().get(tool, {}))

    def effective(self, tool: str, schema: Schema) -> dict[str, Any]:
        """Defaults overlaid with the stored values that fit the schema, secrets in clear:
        for the tool only."""
        return self._read(tool, schema)[0]

    def problems(self, tool: str, schema: Schema) -> dict[str, str]:
        """Stored values that do not fit the schema (the default is used instead), by field."""
        return self._read(tool, schema)[1]

    def _read(self, tool: str, schema: Schema) -> tuple[dict[str, Any], dict[str, str]]:
        stored = self.stored(tool)
        values: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for key, spec in schema.items():
            values[key] = spec.get("default")
            if key not in stored:
                continue
            if (reason := check_value(spec, stored[key])) is None:
                values[key] = stored[key]
                continue
            # Never the value itself: it may be a secret.
            problems[key] = f"the stored value is invalid ({reason}); the default is used"
            if (tool, key, reason) not in self._reported:
                self._reported.add((tool, key, reason))
                log.warning("tool settings file %s: %s.%s %s", self.path, tool, key,
                            problems[key])
        return values, problems

    def secrets(self, tool: str, schema: Schema) -> list[str]:
        """Every text the tool's secret values can appear as, longest first (``masking``)."""
        values = self.effective(tool, schema)
        return ordered(text for key, spec in schema.items() if spec.get("secret")
                       for text in secret_strings(values[key]))

    def masked(self, tool: str, schema: Schema) -> dict[str, Any]:
        values = self.effective(tool, schema)
        return {key: (MASK if values[key] else "") if spec.get("secret") else values[key]
                for key, spec in schema.items()}

    def schema_view(self, tool: str, schema: Schema) -> dict[str, dict[str, Any]]:
        """The schema as shown to clients: secret fields say whether a value is stored."""
        values = self.effective(tool, schema)
        view = {key: dict(spec) for key, spec in schema.items()}
        for key, spec in view.items():
            if spec.get("secret"):
                spec["is_set"] = bool(values[key])
                if spec.get("default"):
                    spec["default"] = MASK
        return view

    def save(self, tool: str, schema: Schema, values: Any) -> list[str]:
        """Merge ``values`` into the stored ones; raises SettingsInvalid listing every bad field.

        A secret sent back as the mask keeps what is stored, so a client can round-trip the
        values it was shown. When a URL setting's host changes, every stored secret this
        save does not give anew is cleared; returns the names of the secrets cleared.
        """
        if not isinstance(values, dict):
            raise SettingsInvalid({"values": "must be an object of setting name to value"})
        errors: dict[str, str] = {}
        clean: dict[str, Any] = {}
        for key, value in values.items():
            spec = schema.get(key)
            if spec is None:
                errors[str(key)] = "unknown setting"
            elif spec.get("secret") and value == MASK:
                continue
            elif value is None:
                clean[key] = None  # back to the default
            elif reason := check_value(spec, value):
                errors[key] = reason
            else:
                clean[key] = value
        if errors:
            raise SettingsInvalid(errors)
        with self._lock:
            data = self._load()
            kept = {k: v for k, v in data.get(tool, {}).items()  # bad stored values go
                    if k not in schema or check_value(schema[k], v) is None}
            current = {**kept, **clean}
            cleared: list[str] = []
            if _moves_host(schema, kept, clean):
                cleared = sorted(k for k, spec in schema.items() if spec.get("secret")
                                 and k not in clean and kept.get(k))
                for key in cleared:
                    del current[key]
            if cleared:
                log.warning("tool %s: a URL setting now names another host; its stored "
                            "secrets %s were cleared (give them again for the new host)",
                            tool, ", ".join(cleared))
            data[tool] = {k: v for k, v in current.items() if v is not None}
            self._write(data)
        return cleared

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            mtime = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            self._data, self._mtime = {}, None
            return self._data
        if mtime != self._mtime:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if not isinstance(data, dict):
                    raise ValueError("top level is not an object")
            except ValueError as exc:
                # Keep the unreadable file for the user instead of overwriting it later.
                backup = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
                os.replace(self.path, backup)
                log.warning("tool settings file %s is unreadable (%s); moved to %s",
                            self.path, exc, backup)
                data = {}
            self._data = {k: v for k, v in data.items() if isinstance(v, dict)}
            self._mtime = mtime
        return self._data

    def _write(self, data: dict[str, dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False, indent=2)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        self._data = data
        self._mtime = self.path.stat().st_mtime_ns


def _moves_host(schema: Schema, stored: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether ``new`` changes the host of a URL-like setting (from its stored value, or
    its default when none is stored; ``None`` in ``new`` means back to the default)."""
    for key, value in new.items():
        spec = schema[key]
        if spec.get("secret") or spec["type"] not in ("string", "text", "select"):
            continue
        old = stored.get(key, spec.get("default"))
        value = spec.get("default") if value is None else value
        if not (_names_a_place(key) or _looks_like_url(old) or _looks_like_url(value)):
            continue
        if _host(old) != _host(value):
            return True
    return False


def _looks_like_url(value: Any) -> bool:
    return isinstance(value, str) and "://" in value


def _names_a_place(key: str) -> bool:
    """Whether a setting is named for where requests go, by a whole word of its name
    ("base_url", "searxngURL", "api_host"; not "database", "ghost", "security_level")."""
    return any(word.lower() in _PLACE_WORDS for word in _WORD.findall(key))


def _host(value: Any) -> tuple[str, int | None] | None:
    """The host and port a URL (or a bare ``host[:port]``) names; None when it names none."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        parts = urlsplit(text if "://" in text else f"//{text}")
        port = parts.port
    except ValueError:  # an unparsable port: compare the text itself
        return (text.lower(), None)
    if not parts.hostname:
        return (text.lower(), None)
    return (parts.hostname.lower().rstrip("."), port or _DEFAULT_PORTS.get(parts.scheme))
