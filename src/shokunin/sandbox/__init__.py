"""PLACEHOLDER (sandbox helper replaces): seed 004 exec_python."""
from __future__ import annotations


class Sandbox:
    def __init__(self, settings) -> None:  # noqa: ANN001
        self.settings = settings

    async def start(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None
