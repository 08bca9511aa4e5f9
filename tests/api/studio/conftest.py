"""What the Studio's socket tests share: an HTTP client of the live server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tests.live_server import LiveServer


@pytest.fixture
async def http(live_server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as client:
        yield client
