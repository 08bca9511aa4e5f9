"""The Studio's errors: ``StudioNotFound`` (an unknown id, 404) and ``StudioConflict`` (a
wrong state transition, 409). Raised by the use cases (``projects.py``)."""

from __future__ import annotations

from shokunin.errors import ErrorCode, ShokuninError


class StudioError(ShokuninError):
    """Root of the Studio's errors: StudioNotFound (404), StudioConflict (409)."""
    status = 409
    code = ErrorCode.CONFLICT


class StudioNotFound(StudioError):
    status = 404
    code = ErrorCode.NOT_FOUND


class StudioConflict(StudioError):
    pass
