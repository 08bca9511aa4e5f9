"""Search terms for text with no word spaces: runs of kanji and katakana become overlapping
character bigrams (原価計算 -> 原価 価計 計算), so two-character words such as 原価 or 転嫁
match, which FTS5's trigram tokenizer cannot. Hiragana (particles, endings: の, を教えて)
separates runs and is not indexed. Other text becomes lowercased words. With the optional
``ja`` extra, SudachiPy's words are added."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache

# katakana, CJK ideographs (with extension A and compatibility), 々 and ー
_CJK = r"\u3005\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HIRAGANA = r"\u3041-\u3096\u309d-\u309f"
_RUNS = re.compile(rf"[{_CJK}]+|[^\W{_CJK}{_HIRAGANA}_]+")
_IS_CJK = re.compile(rf"[{_CJK}]")


def _bigrams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


@cache
def _sudachi() -> Callable[[str], list[str]] | None:
    """Word splitting from SudachiPy, when it is installed (the ``ja`` extra)."""
    try:
        from sudachipy import Dictionary, SplitMode
    except ImportError:
        return None
    dictionary = Dictionary()
    tokenizer = dictionary.tokenizer() if hasattr(dictionary, "tokenizer") else \
        dictionary.create()

    def words(text: str) -> list[str]:
        return [m.normalized_form() for m in tokenizer.tokenize(text, SplitMode.C)
                if len(m.surface()) > 2 and _IS_CJK.search(m.surface())]
    return words


def terms(text: str) -> list[str]:
    """The index terms of ``text``, in order, repeats kept (they count in BM25)."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for run in _RUNS.findall(text):
        out.extend(_bigrams(run) if _IS_CJK.match(run) else [run])
    words = _sudachi()
    if words is not None:
        out.extend(words(text))  # longer words: an exact compound ranks above its bigrams
    return out
