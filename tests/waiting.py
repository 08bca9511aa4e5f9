"""Waiting in a test for a condition, with a bound, instead of for a fixed time.

``wait_until`` polls from synchronous code (a test driving server processes), ``eventually``
from a coroutine (its condition may be a coroutine function). Both return the condition's
first true value, and fail the test saying what was awaited once the bound has passed.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], timeout: float = 10.0, *,
               what: str = "the condition", interval: float = 0.02) -> T:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        time.sleep(interval)
    return value


async def eventually(condition: Callable[[], T | Awaitable[T]], timeout: float = 10.0, *,
                     what: str = "the condition", interval: float = 0.01) -> T:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if loop.time() >= deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        await asyncio.sleep(interval)
