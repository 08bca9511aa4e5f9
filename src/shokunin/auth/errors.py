"""Auth errors.

AuthError
├── InvalidKeyName   a key name outside the allowed characters
├── KeyExists        an active key already has that name
└── KeyNotFound      no active key has that name
"""

from __future__ import annotations


class AuthError(Exception):
    """Root of the auth errors."""


class InvalidKeyName(AuthError):
    pass


class KeyExists(AuthError):
    pass


class KeyNotFound(AuthError):
    pass
