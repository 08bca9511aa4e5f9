"""Thread ids: validated here, once, for every face; a workspace path is derived only from
a valid id, so no id can name a folder outside the workspaces root."""

from __future__ import annotations

import re
import uuid

from shokunin.runs.errors import InvalidThreadId

THREAD_ID_RULE = "1 to 128 characters: letters, digits, '-', '_' or '.', not starting with '.'"
_THREAD_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


def new_thread_id() -> str:
    return uuid.uuid4().hex


def check_thread_id(value: object) -> str:
    """Return ``value`` if it is a valid thread id; raise ``InvalidThreadId`` otherwise."""
    if not isinstance(value, str) or not _THREAD_ID.fullmatch(value):
        raise InvalidThreadId(f"bad thread id {value!r}: {THREAD_ID_RULE}")
    return value
