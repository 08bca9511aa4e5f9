"""Markdown whose raw HTML and unsafe links show as text. A report quotes the table's
column names and cells, which the uploader chose: ``<img src=x onerror=...>`` in a header
would run in any viewer that renders Markdown's inline HTML (a notebook, a Git host, an
editor preview), and ``[x](javascript:...)`` in one that follows any link's scheme.

When the text holds either, every ``<`` outside code becomes ``&lt;`` and every ``[``
``\\[``, which Markdown shows as ``<`` and ``[``: no tag can open, no link or image form
(autolinks and reference definitions included). A link is unsafe unless it is relative or
http, https or mailto. Code (fenced or indented blocks, found by markdown-it, and inline
code spans) is left as written, since a renderer never reads HTML or links there and an
escape would show literally. The result is parsed again: should a span have been misread
(a backslash before a backtick), both are escaped outside code blocks, spans included.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
_SAFE_LINK = re.compile(r"^(https?:|mailto:|[^:]*$|[^:]*[/?#])", re.IGNORECASE)
_parser = MarkdownIt("commonmark", {"html": True}).enable("table")
# markdown-it's own check drops javascript: links, but a viewer need not: see all of them
_parser.validateLink = lambda url: True


def inert(text: str) -> str:
    """``text`` with raw HTML and unsafe links outside code turned into visible text."""
    tokens = _parser.parse(text)
    if not _is_live(tokens):
        return text
    lines = text.splitlines(keepends=True)
    code_lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map is not None:
            code_lines.update(range(*token.map))
    for escape in (_escape_outside_spans, _escape_all):
        out = "".join(line if number in code_lines else escape(line)
                      for number, line in enumerate(lines))
        if not _is_live(_parser.parse(out)):
            return out
    return _escape_all(text)  # not reached: no tag or link survives the second pass


def _is_live(tokens: list[Token]) -> bool:
    """Whether the tokens hold raw HTML or a link or image whose scheme is not safe."""
    return any(token.type.startswith("html_") or _unsafe_link(token)
               or _is_live(token.children or []) for token in tokens)


def _unsafe_link(token: Token) -> bool:
    if token.type not in ("link_open", "image"):
        return False
    target = str(token.attrGet("href") or token.attrGet("src") or "")
    return _SAFE_LINK.match(target) is None


def _escape_all(line: str) -> str:
    return line.replace("<", "&lt;").replace("[", "\\[")


def _escape_outside_spans(line: str) -> str:
    out, last = [], 0
    for span in _CODE_SPAN.finditer(line):
        out += [_escape_all(line[last:span.start()]), span.group()]
        last = span.end()
    out.append(_escape_all(line[last:]))
    return "".join(out)
