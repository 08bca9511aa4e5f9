"""What a client may read of a failure: a message and an error id, never a traceback or a
server path. The full detail goes to the server log under the same id."""

from __future__ import annotations

import logging
import re
import uuid

from shokunin import events as ev
from shokunin.errors import ShokuninError
from shokunin.models import ModelCallError
from shokunin.store import unreachable

# An absolute path of two or more parts, not inside a URL ("https://host/a/b").
_PATH = re.compile(r"(?<![\w.:/~-])/(?:[\w.@+~-]+/)+([\w.@+~-]*)")


def new_error_id() -> str:
    return uuid.uuid4().hex[:12]


def redact_paths(text: str) -> str:
    """``/srv/data/map/map.json`` -> ``…/map.json``: the name stays, the layout does not."""
    return _PATH.sub(lambda m: "…/" + m.group(1), text)


def public_message(exc: BaseException, log: logging.Logger, what: str) -> str:
    """Log ``exc`` with its traceback under a new error id; return the message a client may
    see: the exception's own text, paths redacted, and the id to quote to an operator."""
    error_id = new_error_id()
    if isinstance(exc, ModelCallError):  # a setting or the model's server: no bug to trace
        log.warning("%s: %s (error %s)", what, exc, error_id,
                    exc_info=exc if log.isEnabledFor(logging.DEBUG) else None)
    else:
        log.error("%s (error %s)", what, error_id, exc_info=exc)
    if unreachable(exc):  # the driver's text names hosts and ports, and says nothing useful
        return f"the database did not answer; try again in a moment (error {error_id})"
    text = redact_paths(str(exc).strip()) or type(exc).__name__
    return f"{text} (error {error_id})"


def run_failed(exc: BaseException, log: logging.Logger, what: str) -> ev.RunFailed:
    """The ``run_failed`` event of a run ``exc`` ended: its public message, its code, and
    what the user reads in each language when the failure speaks more than one."""
    message = public_message(exc, log, what)
    if not isinstance(exc, ShokuninError):
        return ev.RunFailed(error=message)
    said = {"ja": exc.said("ja"), "en": exc.said("en")}
    return ev.RunFailed(error=message, code=exc.code,
                        said=said if said["ja"] != said["en"] else None)
