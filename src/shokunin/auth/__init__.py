"""Auth: the admin token, API keys (stored hashed) and the principal a request runs as."""

from shokunin.auth.authenticator import ADMIN, Authenticator
from shokunin.auth.errors import AuthError, InvalidKeyName, KeyExists, KeyNotFound
from shokunin.auth.key_store import ApiKey, KeyStore, check_key_name
from shokunin.auth.keys import hash_secret, parse_token, verify_secret
from shokunin.auth.principal import principal

__all__ = ["ADMIN", "ApiKey", "AuthError", "Authenticator", "InvalidKeyName", "KeyExists",
           "KeyNotFound", "KeyStore", "check_key_name", "hash_secret", "parse_token",
           "principal", "verify_secret"]
