"""API keys in the database: create (the token is returned once), list, revoke, look up."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.auth.errors import InvalidKeyName, KeyExists, KeyNotFound
from shokunin.auth.keys import hash_secret, new_token
from shokunin.store import schema

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")


@dataclass(frozen=True)
class ApiKey:
    """A key as listed: never its secret."""

    id: str
    name: str
    created_at: datetime
    revoked_at: datetime | None

    @property
    def principal(self) -> str:
        return f"key:{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "principal": self.principal,
                "created_at": self.created_at.isoformat(),
                "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None}


def _key(row: Any) -> ApiKey:
    def aware(value: datetime | None) -> datetime | None:  # SQLite drops the zone
        return value.replace(tzinfo=UTC) if value and value.tzinfo is None else value

    return ApiKey(row.id, row.name, aware(row.created_at), aware(row.revoked_at))


def check_key_name(name: str) -> str:
    """``name`` if it is a valid key name, else InvalidKeyName."""
    if not _NAME.fullmatch(name):
        raise InvalidKeyName(
            f"invalid key name {name!r}: use 1-64 letters, digits, '.', '_', '-' or '@', "
            "starting with a letter or digit")
    return name


class KeyStore:
    """The ``api_keys`` table. Key names are unique among keys that are not revoked."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create(self, name: str) -> tuple[ApiKey, str]:
        """A new key named ``name`` and its token, which is not stored and cannot be shown
        again."""
        check_key_name(name)
        token = new_token()
        # Hashing first keeps the slow part out of the transaction.
        secret_hash = hash_secret(token.secret)
        row = {"id": token.key_id, "name": name, "secret_hash": secret_hash,
               "created_at": datetime.now(UTC), "revoked_at": None}
        try:
            async with self.engine.begin() as conn:
                await conn.execute(schema.api_keys.insert().values(**row))
        except IntegrityError:
            raise KeyExists(f"a key named {name!r} exists: revoke it first") from None
        return ApiKey(token.key_id, name, row["created_at"], None), str(token)

    async def list_keys(self, include_revoked: bool = True) -> list[ApiKey]:
        query = select(schema.api_keys).order_by(schema.api_keys.c.created_at)
        if not include_revoked:
            query = query.where(schema.api_keys.c.revoked_at.is_(None))
        async with self.engine.connect() as conn:
            return [_key(row) for row in (await conn.execute(query)).all()]

    async def revoke(self, name: str) -> ApiKey:
        """Revoke the active key named ``name``; it stops working at the next request."""
        table = schema.api_keys
        now = datetime.now(UTC)
        async with self.engine.begin() as conn:
            row = (await conn.execute(select(table).where(
                table.c.name == name, table.c.revoked_at.is_(None)))).first()
            if row is None:
                raise KeyNotFound(f"no active key named {name!r}")
            await conn.execute(update(table).where(table.c.id == row.id).values(revoked_at=now))
        return ApiKey(row.id, row.name, _key(row).created_at, now)

    async def active(self, key_id: str) -> tuple[str, str] | None:
        """(name, secret_hash) of the key ``key_id`` unless it is absent or revoked."""
        table = schema.api_keys
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(table.c.name, table.c.secret_hash).where(
                table.c.id == key_id, table.c.revoked_at.is_(None)))).first()
        return (row.name, row.secret_hash) if row else None

    async def revoked_among(self, key_ids: Collection[str]) -> set[str]:
        """Those of ``key_ids`` that are revoked or no longer exist (one query)."""
        table = schema.api_keys
        async with self.engine.connect() as conn:
            active = set((await conn.execute(select(table.c.id).where(
                table.c.id.in_(list(key_ids)), table.c.revoked_at.is_(None)))).scalars())
        return set(key_ids) - active

    async def any_exist(self) -> bool:
        """Whether any key was ever created (revoked ones count: revoking every key must not
        turn auth off)."""
        async with self.engine.connect() as conn:
            return (await conn.execute(select(schema.api_keys.c.id).limit(1))).first() is not None
