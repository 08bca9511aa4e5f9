"""Whether a passage of the knowledge base speaks to a question: it must hold the question's
words, each weighted by how specific it is in the knowledge base (BM25's idf: 価格, held by
most chunks, says little; 口頭 or 来期 says what the question is about). Sharing the
subject's words (価格転嫁) is no answer to a question about a case of it.

A word is a run of kanji, of katakana or of letters (取引価格, メール, 据 of 据え置く); a
passage holds it when the word is in its text, and a long compound in part when some of its
character pairs are (材料費高騰 in 材料費の高騰). The user's words for the knowledge base's
notions are read as the base's first (値上げ for 価格転嫁, 取引先 for 発注者, うちみたいな
小さい会社 for 受注者)."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from shokunin.knowledge import KnowledgeIndex

# the user's words for what the knowledge base names otherwise, each turned into the base's
# word: 「値上げを取引先にお願いしても」 then shares the words of 「発注者に取引価格の引上げ
# （価格転嫁）を求めることができます」
_BASE_WORDS = (
    ("価格転嫁", re.compile(r"値上げ|上乗せ|引き?上げ|価格改定")),
    ("受注者", re.compile(r"(?:うち|当社|弊社|自社|わが社|我が社)(?:の会社)?(?:みたいな|のような|の"
                          r"ような)?(?:小さ[いな]|中小の?|零細の?)?(?:会社|企業|工場|町工場)?|"
                          r"(?:小さ[いな]|中小の?|零細の?|小規模の?)(?:会社|企業|工場|町工場)|"
                          r"町工場|中小企業")),
    ("発注者", re.compile(r"取引先|得意先|客先|納入先|発注元")),
    ("取引価格", re.compile(r"販売価格|販売単価|納入価格|納品価格|売値|売価|"
                           r"(?<![\u3400-\u9fff])単価(?![\u3400-\u9fff])")),
    ("上昇分", re.compile(r"(?:値?上が|増え|上昇し)った分|上がり分")),
    ("上昇", re.compile(r"上が(?=[っらりるれろ])|値上が(?=[っらりるれろ])")),
    # 値上げ交渉 is asking for a rise (価格転嫁を求める), read after 値上げ became 価格転嫁
    ("求め", re.compile(r"お願い|依頼(?![\u3400-\u9fff])|頼(?=[んみまめ])|(?<=価格転嫁 )交渉")),
)
# what makes a question one of law names its kind, not its case
_LEGAL_WORDS = re.compile(r"法的|法律上?|違法|合法|適法|独禁法|独占禁止法上?")
_KANJI = r"[\u3005\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_WORD = re.compile(rf"{_KANJI}+|[\u30a1-\u30fa\u30fc]+|[a-z][a-z0-9]+")
# one kanji that is a verb or noun of every sentence (言われた, 思う, 今の, 何の) names no
# case of a question
_LIGHT = frozenset("言思聞見行来出入今何方時事物者所中")
SINGLE = 0.5  # the weight of one kanji alone, against a word's
PART = 3  # a word this long or longer is held in part by the share of its pairs found


# a document's list of its own sources answers no question
_SOURCES_SECTION = re.compile(r"(?:^|> )(?:出典|参考文献|参考資料|sources|references)$",
                              re.IGNORECASE)


def sources_section(heading: str) -> bool:
    """Whether a chunk under ``heading`` is a document's list of its sources."""
    return _SOURCES_SECTION.search(heading.strip()) is not None


def in_base_words(text: str) -> str:
    """``text`` with the user's words for the knowledge base's notions in the base's words,
    each a word of its own (「値上げ交渉」 is 価格転嫁 and 交渉, not 嫁交)."""
    text = unicodedata.normalize("NFKC", text).lower()
    for word, synonyms in _BASE_WORDS:
        text = synonyms.sub(f" {word} ", text)
    return text


def _pairs(word: str) -> set[str]:
    return {word[i:i + 2] for i in range(len(word) - 1)}


def holds(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word``; one kanji only as a word of its own (据 in 据え置く,
    not 切 in 適切)."""
    if len(word) > 1:
        return word in text
    return re.search(rf"(?<!{_KANJI}){re.escape(word)}(?!{_KANJI})", text) is not None


@dataclass(frozen=True)
class Focus:
    """What a text must hold to speak to a question: its words, each with its weight."""

    weights: dict[str, float]

    @property
    def key(self) -> str | None:
        """The question's most specific word."""
        return max(self.weights, key=self.weights.__getitem__) if self.weights else None

    def share(self, text: str) -> float:
        """The weighted share of the question's words that ``text`` (as ``in_base_words``
        gives it) holds."""
        total = sum(self.weights.values())
        if not total:
            return 0.0
        held = 0.0
        for word, weight in self.weights.items():
            if holds(text, word):
                held += weight
            elif len(word) >= PART:
                held += weight * sum(p in text for p in _pairs(word)) / (len(word) - 1)
        return held / total

    def names_all(self, text: str) -> bool:
        """Whether ``text`` names every word of the question: whole, or a long compound by
        at least half its character pairs (材料費高騰 in 材料費の高騰, not 価格転嫁 in 価格).
        Weights say which word a passage is about, not which may be left out: 労務費, held
        by a whole document of the base, weighs less than 上昇分, yet a sentence without it
        says nothing of 「労務費の上昇分」."""
        return all(holds(text, word) or (
            len(word) >= PART and 2 * sum(p in text for p in _pairs(word)) >= len(word) - 1)
            for word in self.weights)

    def spoken_to(self, text: str, enough: float) -> bool:
        """Whether a text speaks to the question: it holds the question's most specific word
        and at least ``enough`` of all of them, by weight."""
        return (self.key is not None and holds(text, self.key)
                and self.share(text) >= enough)


class Specificity:
    """How specific each word is in a knowledge base."""

    def __init__(self, index: KnowledgeIndex) -> None:
        self.index = index

    def focus(self, text: str) -> Focus:
        """The focus of a question's ``text``."""
        own = set(_WORD.findall(in_base_words(_LEGAL_WORDS.sub(" ", text)))) - _LIGHT
        found, total = self.index.frequencies(own)
        # BM25's idf: a word no chunk holds weighs most (nothing speaks to it); one kanji
        # alone, mostly a verb's stem (送 of メールで送る), half as much: the noun it goes
        # with says more of the case
        return Focus({w: (1 if len(w) > 1 else SINGLE) * math.log(
            1 + (total - found.get(w, 0) + 0.5) / (found.get(w, 0) + 0.5))
            for w in own if w in found})
