"""PLACEHOLDER (tools helper replaces): seed 003 tool system."""
from __future__ import annotations


class ToolRegistry:
    @classmethod
    def from_settings(cls, settings):  # noqa: ANN001, ANN206
        return cls()

    async def close(self) -> None:
        return None
