"""An upload's work stops when its client leaves (issue 34, review finding 2: waiting parse
children are cancelled, not run for no one)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.requests import Request

from shokunin.api.errors import ApiError
from shokunin.api.perimeter.client_gone import unless_client_leaves


def _request(leaves_after: float | None) -> Request:
    async def receive() -> dict[str, Any]:
        if leaves_after is None:
            await asyncio.Event().wait()  # never
        await asyncio.sleep(leaves_after or 0)
        return {"type": "http.disconnect"}
    return Request({"type": "http", "method": "POST", "path": "/", "headers": []}, receive)


async def _work(seconds: float, stopped: list[str]) -> str:
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        stopped.append("cancelled")
        raise
    return "done"


def test_the_work_is_cancelled_when_the_client_leaves() -> None:
    stopped: list[str] = []

    async def main() -> None:
        with pytest.raises(ApiError) as refused:
            await asyncio.wait_for(
                unless_client_leaves(_request(0.05), _work(30, stopped)), 5)
        assert refused.value.code == "client_gone"
    asyncio.run(main())
    assert stopped == ["cancelled"]


def test_the_answer_comes_back_while_the_client_stays() -> None:
    stopped: list[str] = []
    result = asyncio.run(unless_client_leaves(_request(None), _work(0.05, stopped)))
    assert (result, stopped) == ("done", [])
