from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shokunin.store import Store
from tests.backends import database_url, postgres_available

BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=pytest.mark.skipif(
        not postgres_available(), reason="PostgreSQL not reachable on 127.0.0.1:5432")),
]


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    store = await Store.open(db_url)
    yield store
    await store.close()
