"""How a one-shot command (``analyze``, ``models test``) logs: one line per warning or
error, no traceback, unless ``shokunin --debug`` (or ``SHOKUNIN_DEBUG=1``) asks for
everything. ``serve`` and ``worker`` configure their own logs (a server's log keeps its
tracebacks)."""

from __future__ import annotations

import logging
import os

DEBUG_ENV = "SHOKUNIN_DEBUG"


def debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class _OneLine(logging.Formatter):
    """A record as one line: its traceback is left out, and said to be there."""

    def format(self, record: logging.LogRecord) -> str:
        if not (record.exc_info or record.exc_text or record.stack_info):
            return super().format(record)
        bare = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                      "stack_info": None})
        return f"{super().format(bare)} (shokunin --debug shows the traceback)"


def command_logs() -> None:
    """Send the process's log to stderr: everything with tracebacks when debugging, else
    warnings and errors, one line each."""
    root = logging.getLogger()
    handler = logging.StreamHandler()
    if debugging():  # shokunin's own debug lines; the libraries' from INFO
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root.setLevel(logging.INFO)
        logging.getLogger("shokunin").setLevel(logging.DEBUG)
    else:
        handler.setFormatter(_OneLine("%(levelname)s %(name)s: %(message)s"))
        root.setLevel(logging.WARNING)
    root.addHandler(handler)
