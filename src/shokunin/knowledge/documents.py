"""Documents as sections of text under their headings: Markdown and plain text, HTML
(scripts and styles dropped) and PDF (one section per page, via pypdf)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from charset_normalizer import from_bytes

from shokunin.errors import ErrorCode, ShokuninError

SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


class UnreadableDocument(ShokuninError, ValueError):
    """A file that cannot be read as a document; the message says why."""
    status = 400
    code = ErrorCode.BAD_REQUEST


@dataclass(frozen=True)
class Section:
    heading: str  # the path of headings above the text, "Title > Heading"
    text: str


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        best = from_bytes(data).best()
        if best is None:
            raise UnreadableDocument("the text is in no encoding that could be detected") from None
        return str(best)


def _markdown(text: str, title: str) -> list[Section]:
    sections: list[Section] = []
    path: list[str] = []
    lines: list[str] = []

    def close() -> None:
        body = "\n".join(lines).strip()
        if body:
            sections.append(Section(" > ".join(path) or title, body))
        lines.clear()

    for line in text.splitlines():
        match = _MD_HEADING.match(line)
        if match:
            close()
            level = len(match.group(1))
            path[level - 1:] = [match.group(2)]
        else:
            lines.append(line)
    close()
    return sections


class _HtmlText(HTMLParser):
    """Text of an HTML page with its headings turned into Markdown headings."""

    _SKIP = {"script", "style", "noscript", "template", "svg"}
    _BLOCK = {"p", "div", "li", "tr", "br", "section", "article", "table", "ul", "ol", "dd",
              "dt", "blockquote", "pre"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self.skipping += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.parts.append("\n" + "#" * int(tag[1]) + " ")
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif re.fullmatch(r"h[1-6]", tag) or tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(re.sub(r"[ \t\r\n]+", " ", data))


def _pdf(path: Path, title: str) -> list[Section]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, OSError, ValueError) as exc:
        raise UnreadableDocument(f"not a readable PDF: {exc}") from None
    return [Section(f"{title} > p.{i}", text.strip())
            for i, text in enumerate(pages, start=1) if text.strip()]


def read_sections(path: Path) -> list[Section]:
    """The sections of the document at ``path``. Raises ``UnreadableDocument``."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UnreadableDocument(f"{suffix or 'no suffix'} is not one of {', '.join(SUFFIXES)}")
    title = path.stem
    if suffix == ".pdf":
        return _pdf(path, title)
    text = _decode(path.read_bytes())
    if suffix in (".html", ".htm"):
        parser = _HtmlText()
        parser.feed(text)
        parser.close()
        text = "".join(parser.parts)
    return _markdown(text, title)
