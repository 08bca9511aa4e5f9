"""YAML from a file someone else may have written (a pipeline, a playbook), read with bounds
on size, nesting depth and node count, so that a hostile file gets a clear error instead of
a RecursionError or a billion-laughs expansion that stops the server.

The check walks the file's event stream first: the parser is a state machine, not a
recursion, and libyaml's (used when PyYAML has it) also refuses nesting past 1,000 itself;
PyYAML's composer and constructor recurse once per level, so the pure loader overflows
Python's stack near 1,000 levels. An alias counts as the whole node it repeats (and as its
depth), which is how a few lines expand into billions of nodes. Within these bounds the
loader cannot explode, so it runs in this process; no child is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 100_000  # after expanding aliases
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlTooLarge(ValueError):
    """A YAML document past one of the bounds; the message says which."""


def read(path: Path) -> Any:
    """The YAML document at ``path``. Raises OSError, UnicodeDecodeError, yaml.YAMLError
    for a broken file and ``YamlTooLarge`` past the bounds."""
    with path.open("rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise YamlTooLarge(f"the file is larger than {MAX_BYTES // 1024} KiB")
    return loads(data.decode("utf-8"))


def loads(text: str) -> Any:
    """The YAML document in ``text`` (see ``read``)."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise YamlTooLarge(f"the document is larger than {MAX_BYTES // 1024} KiB")
    check(text)
    return yaml.load(text, Loader=_Loader)  # a safe loader: plain data only


def check(text: str) -> None:
    """Raise ``YamlTooLarge`` when the document nests deeper than ``MAX_DEPTH`` or has more
    than ``MAX_NODES`` nodes once its aliases are expanded."""
    nodes, depth = 0, 0
    open_nodes: list[tuple[str | None, int, int]] = []  # (anchor, nodes before, max depth)
    sizes: dict[str, tuple[int, int]] = {}  # anchor -> (nodes, depth below it)
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            size, below = sizes.get(event.anchor or "", (1, 0))
            nodes += size
            _deeper(open_nodes, depth + below)
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            if event.anchor:
                sizes[event.anchor] = (1, 0)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            nodes += 1
            depth += 1
            open_nodes.append((event.anchor, nodes - 1, depth))
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, before, deepest = open_nodes.pop()
            if anchor:
                sizes[anchor] = (nodes - before, deepest - depth + 1)
            depth -= 1
            _deeper(open_nodes, deepest)
        else:
            continue
        if nodes > MAX_NODES:
            raise YamlTooLarge(f"the document has more than {MAX_NODES} nodes once its "
                               "aliases are expanded")
        if open_nodes and open_nodes[-1][2] > MAX_DEPTH:
            raise YamlTooLarge(f"the document nests deeper than {MAX_DEPTH} levels")


def _deeper(open_nodes: list[tuple[str | None, int, int]], depth: int) -> None:
    """Record that the innermost open node reaches ``depth``."""
    if open_nodes and depth > open_nodes[-1][2]:
        anchor, before, _ = open_nodes[-1]
        open_nodes[-1] = (anchor, before, depth)
