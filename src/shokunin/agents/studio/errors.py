"""The Studio's errors: ``StudioNotFound`` (an unknown id, 404), ``StudioConflict`` (a
wrong state transition, 409) and ``StudioInvalid`` (a request naming what the project does
not have, 422). Raised by the use cases (``projects.py``)."""

from __future__ import annotations

from shokunin.errors import ErrorCode, ShokuninError


class StudioError(ShokuninError):
    """Root of the Studio's errors: StudioNotFound (404), StudioConflict (409),
    StudioInvalid (422)."""
    status = 409
    code = ErrorCode.CONFLICT


class StudioNotFound(StudioError):
    status = 404
    code = ErrorCode.NOT_FOUND


class StudioConflict(StudioError):
    pass


class StudioInvalid(StudioError):
    status = 422
    code = ErrorCode.INVALID_REQUEST
