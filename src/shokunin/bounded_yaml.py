"""YAML from a file someone else may have written (a pipeline, a playbook), read with bounds
on size, nesting depth, node count and text, so that a hostile file gets a clear error instead of
a RecursionError or a billion-laughs expansion that stops the server.

The check walks the file's event stream first: the parser is a state machine, not a
recursion, and libyaml's (used when PyYAML has it) also refuses nesting past 1,000 itself;
PyYAML's composer and constructor recurse once per level, so the pure loader overflows
Python's stack near 1,000 levels. An alias counts as the whole node it repeats (its nodes,
its depth and the characters of its scalars), which is how a few lines expand into billions
of nodes, or a 500 KB title aliased 90,000 times into 45 GB of text. Within these bounds the
loader cannot explode, so it runs in this process; no child is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from shokunin.errors import ErrorCode, ShokuninError

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 100_000  # after expanding aliases
MAX_TEXT = 4 * 1024 * 1024  # characters of scalars after expanding aliases
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlTooLarge(ShokuninError, ValueError):
    """A YAML document past one of the bounds; the message says which."""
    status = 400
    code = ErrorCode.BAD_REQUEST


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
    """Raise ``YamlTooLarge`` when the document nests deeper than ``MAX_DEPTH``, or has more
    than ``MAX_NODES`` nodes or ``MAX_TEXT`` characters of scalars once its aliases are
    expanded."""
    nodes, chars, depth = 0, 0, 0
    open_nodes: list[_Open] = []
    sizes: dict[str, tuple[int, int, int]] = {}  # anchor -> (nodes, chars, depth below it)
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            size, length, below = sizes.get(event.anchor or "", (1, 0, 0))
            nodes += size
            chars += length
            _deeper(open_nodes, depth + below)
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            chars += len(event.value)
            if event.anchor:
                sizes[event.anchor] = (1, len(event.value), 0)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            nodes += 1
            depth += 1
            open_nodes.append(_Open(event.anchor, nodes - 1, chars, depth))
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            node = open_nodes.pop()
            if node.anchor:
                sizes[node.anchor] = (nodes - node.nodes_before, chars - node.chars_before,
                                      node.deepest - depth + 1)
            depth -= 1
            _deeper(open_nodes, node.deepest)
        else:
            continue
        if nodes > MAX_NODES:
            raise YamlTooLarge(f"the document has more than {MAX_NODES} nodes once its "
                               "aliases are expanded")
        if chars > MAX_TEXT:
            raise YamlTooLarge(f"the document holds more than {MAX_TEXT // (1024 * 1024)} MiB "
                               "of text once its aliases are expanded")
        if open_nodes and open_nodes[-1].deepest > MAX_DEPTH:
            raise YamlTooLarge(f"the document nests deeper than {MAX_DEPTH} levels")


@dataclass
class _Open:
    """A collection being read: its anchor, the counts before it, the deepest level in it."""

    anchor: str | None
    nodes_before: int
    chars_before: int
    deepest: int


def _deeper(open_nodes: list[_Open], depth: int) -> None:
    """Record that the innermost open node reaches ``depth``."""
    if open_nodes and depth > open_nodes[-1].deepest:
        open_nodes[-1].deepest = depth
