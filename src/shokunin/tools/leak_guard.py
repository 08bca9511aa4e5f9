"""Keeping tool secrets out of the server log and the server's own stdout/stderr.

In-process tools run inside the server, so their ``logging`` calls and ``print``s land in
the server log. Two guards, each installed once per process:

* every log record is masked when it is created (``install_log_masking()``, through
  ``logging.setLogRecordFactory``): a filter
  on the root logger would not see records of child loggers, which propagate to the root's
  handlers without passing the root logger's filters, and a filter on handlers misses the
  handlers added later (uvicorn's, a test's);
* ``sys.stdout`` and ``sys.stderr`` become proxies (at the first ``captured()``): what a
  tool's thread writes inside ``captured()`` is logged line by line under
  ``shokunin.tools.output``, as a venv tool's output is; other threads' writes pass
  through, masked.

The secrets are every secret setting value the registry has seen (``remember()``), at least
``masking.MIN_MASKED_CHARS`` long; credentials in URLs and headers are redacted too. Output a
tool writes to file descriptors 1 and 2 directly (C code, ``os.write``) is not seen here.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from shokunin.redaction import redact_credentials
from shokunin.tools.masking import mask_text, maskable, ordered

output_log = logging.getLogger("shokunin.tools.output")
_local = threading.local()
_lock = threading.Lock()
_known: list[str] = []
_installed = False


def remember(secrets: Iterable[str]) -> None:
    """Add secret texts to those masked in the log and on stdout/stderr. Texts shorter than
    ``MIN_MASKED_CHARS`` are not masked, here as everywhere (``masking.maskable``)."""
    global _known
    new = {s for s in secrets if maskable(s)} - set(_known)
    if new:
        with _lock:
            _known = ordered([*_known, *new])


def install_log_masking() -> None:
    """Mask every log record of the process from now on (idempotent)."""
    global _installed
    with _lock:
        if not _installed:
            logging.setLogRecordFactory(_masking_factory(logging.getLogRecordFactory()))
            _installed = True


def _proxy_streams() -> None:
    # Again on each call: a test runner may have swapped the streams since.
    with _lock:
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if stream is not None and not isinstance(stream, _Proxy):
                setattr(sys, name, _Proxy(stream))


def mask_record(record: logging.LogRecord) -> None:
    """Mask the known secrets and any credential (``redaction``) out of a record's message,
    arguments, traceback and stack. The arguments are masked one by one and keep their
    shape (their number, a mapping's keys, numbers stay numbers), so a formatter that
    reads them (uvicorn's access log unpacks five) still works; only a known secret printed
    from a number makes the record a plain masked message. This never raises: a
    record it cannot mask is left to logging, which reports broken ones itself."""
    with contextlib.suppress(Exception):  # masking must never break logging
        _mask(record, _known)


def _clean(text: str, secrets: list[str]) -> str:
    return redact_credentials(mask_text(text, secrets) if secrets else text)


class _Masked:
    """Stands for an argument that is not text (a dict of headers, an exception): prints
    as it would, masked, for ``%s`` and ``%r`` alike."""

    def __init__(self, value: object, secrets: list[str]) -> None:
        self._str = _clean(str(value), secrets)
        self._repr = _clean(repr(value), secrets)

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return self._repr


def _clean_arg(value: object, secrets: list[str]) -> object:
    if isinstance(value, str):
        return _clean(value, secrets)
    if value is None or isinstance(value, int | float):  # %d, %f must still apply
        return value
    masked = _Masked(value, secrets)
    return value if (str(masked), repr(masked)) == (str(value), repr(value)) else masked


def _mask(record: logging.LogRecord, secrets: list[str]) -> None:
    if isinstance(record.msg, str):
        record.msg = _clean(record.msg, secrets)
    args = record.args
    if isinstance(args, tuple):
        record.args = tuple(_clean_arg(a, secrets) for a in args)
    elif isinstance(args, dict):
        record.args = {k: _clean_arg(v, secrets) for k, v in args.items()}
    if args and secrets:  # a secret that is a number, printed with %d: the line gives way
        message = record.getMessage()
        if (masked := mask_text(message, secrets)) != message:
            record.msg, record.args = redact_credentials(masked), ()
    if record.exc_info and not record.exc_text:
        text = logging.Formatter().formatException(record.exc_info)
        if (clean := _clean(text, secrets)) != text:
            # Formatters print exc_text when there is no exc_info left to format.
            record.exc_text, record.exc_info = clean, None
    if record.stack_info:
        record.stack_info = _clean(record.stack_info, secrets)


def _masking_factory(make: Any) -> Any:
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        mask_record(record)
        return record

    return factory


@contextlib.contextmanager
def captured(tool: str, secrets: list[str]) -> Iterator[None]:
    """Within: this thread's writes to stdout/stderr become log lines of ``tool``."""
    install_log_masking()
    _proxy_streams()
    sink = _Sink(tool, secrets)
    _local.sink = sink
    try:
        yield
    finally:
        _local.sink = None
        sink.close()


@contextlib.contextmanager
def uncaptured() -> Iterator[None]:
    """Within: this thread's writes go to the real streams again (the server's own code
    called back by a tool, such as a progress listener printing to a terminal)."""
    before = getattr(_local, "emitting", False)
    _local.emitting = True
    try:
        yield
    finally:
        _local.emitting = before


class _Sink:
    def __init__(self, tool: str, secrets: list[str]) -> None:
        self.tool = tool
        self.secrets = secrets
        self.partial = ""

    def write(self, text: str) -> None:
        *lines, self.partial = (self.partial + text).split("\n")
        for line in lines:
            self._log(line)

    def close(self) -> None:
        if self.partial:
            self._log(self.partial)
            self.partial = ""

    def _log(self, line: str) -> None:
        with uncaptured():  # a handler writing to sys.stderr would come back here
            output_log.info("[%s] %s", self.tool, mask_text(line.rstrip("\r"), self.secrets))


class _Proxy:
    """Stands for sys.stdout or sys.stderr; everything but ``write`` is the real stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        sink = getattr(_local, "sink", None)
        if sink is not None and not getattr(_local, "emitting", False):
            sink.write(str(text))
            return len(text)
        return self._stream.write(mask_text(text, _known) if _known else text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
