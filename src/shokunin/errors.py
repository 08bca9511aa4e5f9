"""Every error shokunin raises, in one tree, each class with its HTTP ``status`` and its
machine ``code`` (an ``ErrorCode``); an instance may name a more precise code.

Each transport maps a ``ShokuninError`` in one place: HTTP JSON ``{"error", "code"}``
(``api/errors.py``), the Workbench WebSocket's ``error`` message (``api/workbench/ws.py``),
SSE ``error`` events (``api/runs/sse.py``), the Studio's Socket.IO ``error:state``
(``api/studio/socket.py``) and an MCP tool error (``mcp/server/content.py``). A class
lower in the tree only says what went wrong; no face decides that again.

::

    ShokuninError                       500 internal
    ├── ApiError                        a request a face cannot use (status and code given)
    │   └── BodyTooLarge                413 too_large
    ├── BadRequest (api.tools.routes)   422 bad_request (a tool settings body)
    ├── TooManyStreams                  429 too_many_streams
    ├── RunError                        409 run_error
    │   ├── RunNotFound                 404 not_found
    │   ├── ThreadNotFound              404 not_found (or one the caller may not see)
    │   ├── UnknownAgent                409 run_error
    │   ├── InvalidThreadId             400 bad_thread_id (any thread id: a session's too)
    │   ├── InvalidRunInput             400 bad_request
    │   ├── RunStateError               409 run_error (run_live, not_waiting)
    │   └── ThreadOfAnotherFace         409 thread_belongs_to_other_face
    ├── ToolError                       400 bad_request
    │   ├── ToolNotFound                404 not_found
    │   ├── ToolUnavailable             409 tool_unavailable
    │   ├── InvalidArguments            422 invalid_args
    │   ├── SettingsInvalid             422 invalid_request
    │   ├── ToolLoadError               400 bad_request
    │   ├── VenvError                   500 internal
    │   └── WorkerDied                  500 internal
    ├── McpUnavailable                  503 unavailable
    ├── DatasetError                    400 bad_table
    │   ├── NotATable                   400 not_a_table
    │   ├── UnreadableTable             400 bad_table
    │   │   └── NotDecodable            400 bad_table
    │   ├── TooLargeExpanded            400 too_large_expanded
    │   ├── TookTooLong                 400 too_slow
    │   └── UnsafeFile                  400 unsafe_file
    ├── UnknownDataset (LookupError)    404 not_found
    ├── NotTextEncoding (ValueError)    400 bad_request
    ├── NoReport (LookupError)          409 no_report
    ├── PlaybookError (ValueError)      500 internal
    ├── CalculationFailed               422 bad_request (the offline Advisor's calculator refused)
    ├── StudioError                     409 conflict
    │   ├── StudioNotFound              404 not_found
    │   ├── StudioConflict              409 conflict
    │   └── StudioInvalid               422 invalid_request
    ├── JobFailed, GaveUp               500 internal (a Studio job that failed for good)
    ├── PipelineError (ValueError)      500 internal
    ├── CustomEventError (TypeError)    500 internal
    ├── QueryRejected (ValueError)      400 bad_request
    ├── QueryLimitExceeded (ValueError) 400 bad_request
    ├── AuthError                       400 bad_request
    │   ├── InvalidKeyName              400 bad_request
    │   ├── KeyExists                   409 conflict
    │   └── KeyNotFound                 404 not_found
    ├── MapError                        503 map_error
    ├── MapCommandError (ValueError)    400 bad_request
    ├── ModelCallError (RuntimeError)   503 unavailable (a model call failed: cut off)
    │   ├── ModelUnreachable            503 model_unreachable (refused, DNS, TLS)
    │   ├── ModelKeyRefused             503 model_key_refused (401, 403)
    │   ├── ModelUnknown                503 model_unknown (404, model_not_found)
    │   ├── ModelTimedOut               503 model_timeout
    │   └── ModelRateLimited            503 model_rate_limited (429)
    ├── ModelConfigError (ValueError)   500 internal
    ├── DeclarationError (ValueError)   500 internal
    ├── EmbedderError (ValueError)      500 internal
    ├── UnreadableDocument (ValueError) 400 bad_request
    ├── YamlTooLarge (ValueError)       400 bad_request
    ├── UnsafePath (ValueError)         404 not_found
    ├── KernelDied (RuntimeError)       500 internal
    ├── SandboxBusy (RuntimeError)      503 busy
    ├── SandboxUnavailable (RuntimeError) 503 unavailable
    ├── TemplateUnavailable (RuntimeError) 500 internal (never sent: kernels start cold)
    ├── DatabaseUnavailable             503 database_unavailable (the database does not answer)
    ├── QueueUnavailable (ConnectionError) 503 unavailable (the job queue to the workers)
    ├── FilterUnavailable (RuntimeError)  500 internal
    ├── Unconfined (RuntimeError)       503 unavailable (a parser's walls could not be built)
    └── BoundExceeded                   400 bad_request (untrusted input past a bound)
        ├── OutOfMemory                 400 bad_request
        ├── OutOfTime                   400 too_slow
        └── ResultTooLarge              400 too_large

A base in parentheses is kept beside ``ShokuninError`` because callers catch it.

Outside the tree, on purpose (``tests/test_errors.py`` holds the same list): control
signals, which are not failures and never reach a client (``runs.runner.Interrupted``: a
run waits for a human; ``tools.static.Dynamic``: read a tool's exports by running it;
``sandbox.kernel.CellStopped``: a cell stopped, its partial result goes on;
``untrusted.Cancelled``: the caller left, like ``asyncio.CancelledError``), and
``tools.worker.ExportError``, raised in a tool's own interpreter, where shokunin is not
installed.

A message is in the user's language where a class knows more than one: ``said(language)``
(``"ja"`` or ``"en"``; the model's failures, ``models/errors.py``); each face picks the
language (``user_language``) from what it knows of its user: the UI's choice (a cookie),
``Accept-Language``, a playbook, ``LANG``.

Codes kept for clients that read them; where the faces answered one case in several words
the tree chose one: a malformed thread, session or dataset thread id is always
``400 bad_thread_id`` (was also ``bad_session_id``, ``bad_thread`` on the WebSocket, and
``422`` on tool executions); an unexpected failure is always ``internal`` (the WebSocket
said ``server_error``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Every machine code on the wire, in every face's error form."""

    # the request
    BAD_REQUEST = "bad_request"
    BAD_JSON = "bad_json"
    BAD_EVENT_ID = "bad_event_id"
    BAD_THREAD_ID = "bad_thread_id"
    INVALID_REQUEST = "invalid_request"  # failed validation (422)
    INVALID_ARGS = "invalid_args"  # a tool's arguments
    TOO_DEEP = "too_deep"
    TOO_LARGE = "too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    CLIENT_GONE = "client_gone"
    # who asks
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    FORBIDDEN_HOST = "forbidden_host"
    FORBIDDEN_ORIGIN = "forbidden_origin"
    ADMIN_ONLY = "admin_only"
    TOO_MANY_REQUESTS = "too_many_requests"
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    TOO_MANY_STREAMS = "too_many_streams"
    # the thing asked about
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    RUN_ERROR = "run_error"
    RUN_LIVE = "run_live"
    NOT_WAITING = "not_waiting"
    NOT_RUNNING = "not_running"
    THREAD_OF_ANOTHER_FACE = "thread_belongs_to_other_face"
    TOOL_UNAVAILABLE = "tool_unavailable"
    NO_REPORT = "no_report"
    # a table that cannot become a dataset
    BAD_TABLE = "bad_table"
    NOT_A_TABLE = "not_a_table"
    TOO_LARGE_EXPANDED = "too_large_expanded"
    TOO_SLOW = "too_slow"
    UNSAFE_FILE = "unsafe_file"
    # in a run's stream
    RUN_FAILED = "run_failed"
    CANCELLED = "cancelled"
    CODE_ERROR = "code_error"
    CODE_REFUSED = "code_refused"
    INVALID_TOOL_CALL = "invalid_tool_call"
    MAP_ERROR = "map_error"
    # the server
    BUSY = "busy"
    UNAVAILABLE = "unavailable"
    DATABASE_UNAVAILABLE = "database_unavailable"
    MODEL_UNREACHABLE = "model_unreachable"  # the model's server: connection refused, DNS, TLS
    MODEL_KEY_REFUSED = "model_key_refused"  # 401/403 from the model's server
    MODEL_UNKNOWN = "model_unknown"  # 404: no such model there
    MODEL_TIMEOUT = "model_timeout"
    MODEL_RATE_LIMITED = "model_rate_limited"  # 429
    ADVISOR_UNAVAILABLE = "advisor_unavailable"
    STUDIO_UNAVAILABLE = "studio_unavailable"
    INTERNAL = "internal"
    ERROR = "error"  # an HTTP status no code names (a framework's own 4xx)


class ShokuninError(Exception):
    """The root: ``status`` (HTTP) and ``code`` say what a face answers; the message is
    what the user reads, and says what to do."""

    status: int = 500
    code: ErrorCode = ErrorCode.INTERNAL

    def __init__(self, *args: Any, code: ErrorCode | str | None = None,
                 status: int | None = None) -> None:
        super().__init__(*args)
        if code is not None:
            self.code = ErrorCode(code)
        if status is not None:
            self.status = status

    @property
    def message(self) -> str:
        """What the user reads."""
        return str(self)

    def said(self, language: str) -> str:
        """What the user reads in ``language`` (``ja``, ``en``, ``ja-JP`` ...): the
        message, unless the class has it in more than one language."""
        return self.message


LANGUAGES = ("ja", "en")


def user_language(*hints: str | None, default: str = "en") -> str:
    """``"ja"`` or ``"en"``: the first of them named by the first hint that names one.
    A hint is what a face knows of its user's language, most telling first: the UI's own
    choice, an ``Accept-Language`` header (``"en-US,en;q=0.9,ja;q=0.8"``: in its order),
    a locale (``LANG=ja_JP.UTF-8``)."""
    for hint in hints:
        for part in (hint or "").replace(":", ",").split(","):
            tag = part.split(";")[0].strip().lower()
            for language in LANGUAGES:
                if tag == language or tag.startswith((f"{language}-", f"{language}_")):
                    return language
    return default


def locale_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the user a process runs for (the CLI, MCP over stdio): its locale
    (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, in gettext's order), else English."""
    env = os.environ if environ is None else environ
    return user_language(*(env.get(name) for name in (
        "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")))


__all__ = ["LANGUAGES", "ErrorCode", "ShokuninError", "locale_language", "user_language"]
