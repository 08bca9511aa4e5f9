"""Each sub-package's public API is its ``__all__``: every name there must exist."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = ["shokunin.store", "shokunin.runs", "shokunin.models", "shokunin.api", "shokunin.auth",
            "shokunin.tools", "shokunin.sandbox", "shokunin.cli", "shokunin.agents.analyst",
            "shokunin.mcp"]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_names_resolve(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} must declare __all__"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"
    assert sorted(exported) == sorted(set(exported)), f"{name}.__all__ has duplicates"
