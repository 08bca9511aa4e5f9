"""Each package's public API is its ``__all__`` (in the manner of httpx's
test_exported_members.py): every name there exists, and every public name the package's
``__init__`` defines or imports is there, so nothing is public by accident."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import shokunin

SKIPPED = ("shokunin.data", "shokunin.web", "shokunin.tools.builtin")  # files, not code


def packages() -> list[str]:
    found = ["shokunin"]
    for info in pkgutil.walk_packages(shokunin.__path__, "shokunin."):
        if info.ispkg and not info.name.startswith(SKIPPED):
            found.append(info.name)
    return sorted(found)


def test_every_package_of_the_map_is_checked() -> None:
    names = packages()
    for expected in ("shokunin.agents.studio", "shokunin.api.perimeter", "shokunin.mcp.client",
                     "shokunin.mcp.server", "shokunin.runs", "shokunin.store"):
        assert expected in names


@pytest.mark.parametrize("name", packages())
def test_all_is_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} must declare __all__"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"
    assert len(exported) == len(set(exported)), f"{name}.__all__ has duplicates"
    public = sorted(n for n, v in vars(module).items()
                    if not n.startswith("_") and not isinstance(v, types.ModuleType)
                    and n != "annotations") + [n for n in ("__version__",) if n in exported]
    assert sorted(exported) == public, f"{name}: public names not in __all__ (or the reverse)"
