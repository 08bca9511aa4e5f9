"""Reading user text in linear time: bounding it, finding words, cutting it into clauses.

Nothing here uses a pattern with nested or overlapping repetition: each helper walks the
text once per word it looks for, so a 100 kB message costs what its first ``MAX_CHARS``
characters cost (the grammar reads no further, and the reply says so).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache

from shokunin.agents.workbench.intents.lexicon import (
    KEYWORDS,
    SEPARATOR_CHARS,
    SEPARATORS_EN,
    SEPARATORS_JA,
    TE_ENDINGS,
    TE_FORMS,
)
from shokunin.maps import spans

MAX_CHARS = 1000  # of a request the grammar reads; a longer one is cut, and told so
_SIGNS = {"plus": "+", "minus": "-", "times": "*", "multiplied by": "*", "divided by": "/",
          "to the power of": "^"}
_NUMBER_WORD_OP = re.compile(r"(\d%?) ?(plus|minus|times|multiplied by|divided by|to the power "
                             r"of) ?(?=[\d(])", re.IGNORECASE)
_YEN = re.compile(r"(\d)(?:円|yen)")
_COUNTS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
           "eight": "8", "nine": "9", "ten": "10"}
# "the three largest rooms": a count in words, read as its digits
_COUNT_WORD = re.compile(r"(?<![a-z])(two|three|four|five|six|seven|eight|nine|ten) (?=(?:\w+ )?"
                         r"(?:largest|biggest|smallest|rooms|points|random))", re.IGNORECASE)


def bound(text: str) -> tuple[str, bool]:
    """The part of ``text`` the grammar reads, and whether it was cut. Full-width letters,
    digits and signs (２Ｆ, ルーム１, ５０％) are read as their ASCII forms (NFKC)."""
    text = text.strip()
    read = unicodedata.normalize("NFKC", text[:MAX_CHARS])[:MAX_CHARS]
    # "1530 plus 20" is arithmetic, not two requests ("plus" also joins clauses)
    read = _NUMBER_WORD_OP.sub(lambda m: f"{m.group(1)} {_SIGNS[m.group(2).lower()]} ", read)
    read = _COUNT_WORD.sub(lambda m: f"{_COUNTS[m.group(1).lower()]} ", read)
    read = _YEN.sub(r"\1", read)  # 「1200円の8%」: an amount is its number
    return read, len(text) > MAX_CHARS


def is_ja(text: str) -> bool:
    """Whether the text holds kana or kanji (the reply is then in Japanese)."""
    return any("\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" for c in text)


def has(low: str, words: tuple[str, ...] | list[str]) -> bool:
    # ``in`` first: most words are absent, and it answers that at C speed.
    return any(w in low and next(spans(low, w), None) is not None for w in words)


@lru_cache(maxsize=1024)  # a clause is read more than once per plan (cutting, then planning)
def kinds_in(text: str) -> frozenset[str]:
    """The kinds of request (``KEYWORDS``) whose words occur in ``text``."""
    low = text.lower()
    return frozenset(kind for kind, (en, ja) in KEYWORDS.items()
                     if has(low, en) or has(low, ja))


_ACTIONS = {"clear", "calc", "chart", "points", "arrow", "where", "rank", "total",
            "occupancy", "capacity", "area", "count", "list", "highlight", "place", "show"}


def clauses(text: str, names_something: Callable[[str], bool]) -> list[str]:
    """``text`` cut into clauses, one request each. A piece that asks for nothing by itself
    but names something ("and Room2", "in red") or is a few words, stays with the clause
    before it; other pieces ("and order a pizza") stand alone, so
    the reply can say they were not understood."""
    out: list[list[str]] = []  # the pieces of each clause
    asking: list[bool] = []  # whether each clause asks for something yet
    for piece in (p.strip() for p in _cut(text)):
        if not piece:
            continue
        asks = bool(kinds_in(piece) & _ACTIONS)
        short = len(piece) <= 4 if is_ja(piece) else len(piece.split()) <= 2
        if out and ((not asks and (short or names_something(piece))) or not asking[-1]):
            out[-1].append(piece)
            asking[-1] = asking[-1] or asks
        else:
            out.append([piece])
            asking.append(asks)
    glued = [_glue(parts) for parts in out]
    # 「計算して: 3 × (4 + 5)」: a bare "calculate" asks about the numbers that follow it
    for i in range(len(glued) - 2, -1, -1):
        if kinds_in(glued[i]) == {"calc"} and not any(c.isdigit() for c in glued[i]) and any(
                c.isdigit() for c in glued[i + 1]):
            glued[i:i + 2] = [_glue([glued[i], glued[i + 1]])]
    return glued


def _glue(parts: list[str]) -> str:
    out = parts[0]
    for part in parts[1:]:
        out += part if is_ja(out[-1:]) or is_ja(part[:1]) else f" {part}"
    return out


def _cut(text: str) -> Iterator[str]:
    low = text.lower()
    cuts: list[tuple[int, int]] = []  # (start, end) of each separator
    for i, c in enumerate(text):
        if c in SEPARATOR_CHARS:
            between_digits = (c == "," and 0 < i < len(text) - 1 and text[i - 1].isdigit()
                              and text[i + 1].isdigit())
            if not between_digits:
                cuts.append((i, i + 1))
        elif c == "." and (i + 1 == len(text) or text[i + 1].isspace()):
            cuts.append((i, i + 1))
    for word in (*SEPARATORS_EN, *SEPARATORS_JA):
        if word in low:
            cuts += spans(low, word)
    for form in TE_FORMS:
        if form not in low:
            continue
        for _start, end in spans(low, form):
            rest = text[end:end + 4]
            if rest and rest[0] not in SEPARATOR_CHARS and not rest.startswith(TE_ENDINGS):
                cuts.append((end, end))
    at = 0
    for start, end in sorted(cuts):
        if start < at:  # inside a separator already cut ("and then")
            continue
        yield text[at:start]
        at = end
    yield text[at:]
