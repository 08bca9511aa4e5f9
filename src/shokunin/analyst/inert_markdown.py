"""Markdown whose raw HTML shows as text. A report quotes the table's column names and
cells, which the uploader chose: ``<img src=x onerror=...>`` in a header would run in any
viewer that renders Markdown's inline HTML (a notebook, a Git host, an editor preview).

Every ``<`` outside code becomes ``&lt;``, which Markdown shows as ``<``: no tag can open.
Code (fenced or indented blocks, found by markdown-it, and inline code spans) is left as
written, since a renderer never reads HTML there and an entity would show literally. The
result is parsed again with HTML on: should a span have been misread (a backslash before a
backtick), every ``<`` outside code blocks is escaped, spans included.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
_parser = MarkdownIt("commonmark", {"html": True}).enable("table")


def inert(text: str) -> str:
    """``text`` with raw HTML outside code turned into visible text."""
    tokens = _parser.parse(text)
    if not _has_html(tokens):
        return text
    lines = text.splitlines(keepends=True)
    code_lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map is not None:
            code_lines.update(range(*token.map))
    for escape in (_escape_outside_spans, _escape_all):
        out = "".join(line if number in code_lines else escape(line)
                      for number, line in enumerate(lines))
        if not _has_html(_parser.parse(out)):
            return out
    return text.replace("<", "&lt;")  # not reached: no tag survives the second pass


def _has_html(tokens: list[Token]) -> bool:
    return any(token.type.startswith("html_") or _has_html(token.children or [])
               for token in tokens)


def _escape_all(line: str) -> str:
    return line.replace("<", "&lt;")


def _escape_outside_spans(line: str) -> str:
    out, last = [], 0
    for span in _CODE_SPAN.finditer(line):
        out += [line[last:span.start()].replace("<", "&lt;"), span.group()]
        last = span.end()
    out.append(line[last:].replace("<", "&lt;"))
    return "".join(out)
