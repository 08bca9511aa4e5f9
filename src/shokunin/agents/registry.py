"""PLACEHOLDER (workbench helper extends): the agents a server offers."""
from __future__ import annotations

from typing import Any


def build_agents(services: dict[str, Any]) -> list:
    return []
