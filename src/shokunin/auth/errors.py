"""Auth errors.

AuthError
├── InvalidKeyName   a key name outside the allowed characters
├── KeyExists        an active key already has that name
└── KeyNotFound      no active key has that name
"""

from __future__ import annotations

from shokunin.errors import ErrorCode, ShokuninError


class AuthError(ShokuninError):
    """Root of the auth errors."""
    status = 400
    code = ErrorCode.BAD_REQUEST


class InvalidKeyName(AuthError):
    pass


class KeyExists(AuthError):
    status = 409
    code = ErrorCode.CONFLICT


class KeyNotFound(AuthError):
    status = 404
    code = ErrorCode.NOT_FOUND
