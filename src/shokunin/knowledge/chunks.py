"""Sections cut into chunks of at most ``size`` characters, at paragraph and sentence ends
where possible, each keeping its section's heading."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shokunin.knowledge.documents import Section

CHUNK_CHARS = 800
_SENTENCE_END = re.compile(r"(?<=[。．！？!?])|(?<=\. )")


@dataclass(frozen=True)
class Chunk:
    source: str  # the file, relative to the folder ingested
    heading: str
    text: str


def _pieces(text: str, size: int) -> list[str]:
    """Paragraphs, then sentences, then fixed slices: each at most ``size`` characters."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        if len(paragraph) <= size:
            out.append(paragraph)
            continue
        for sentence in _SENTENCE_END.split(paragraph):
            out.extend(sentence[i:i + size] for i in range(0, len(sentence), size))
    return [p for p in out if p]


def chunk_sections(source: str, sections: list[Section],
                   size: int = CHUNK_CHARS) -> list[Chunk]:
    """The chunks of one document, in order."""
    chunks: list[Chunk] = []
    for section in sections:
        current = ""
        for piece in _pieces(section.text, size):
            if current and len(current) + len(piece) + 2 > size:
                chunks.append(Chunk(source, section.heading, current))
                current = ""
            current = f"{current}\n\n{piece}" if current else piece
        if current:
            chunks.append(Chunk(source, section.heading, current))
    return chunks
