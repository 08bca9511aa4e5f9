"""The loader of the host these tools were first written for (kept here, not a tool)."""

import importlib


def load(name: str):
    return importlib.import_module(f"{name}.{name}_tool")
