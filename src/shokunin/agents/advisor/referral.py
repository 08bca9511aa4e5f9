"""Where the knowledge base sends people with what it cannot settle (「この対応は違法ですか」):
its own sentences and list items that name a place to consult (相談), as it words them,
with their source. The Advisor names no contact of its own."""

from __future__ import annotations

import re

from shokunin.agents.advisor.relevance import in_base_words, sources_section
from shokunin.agents.advisor.verdicts import Found
from shokunin.knowledge import KnowledgeIndex

QUERY = "相談窓口 相談できる公的窓口 窓口に相談"
CHUNKS = 5
_CONSULT = re.compile(r"相談")
_PLACE = re.compile(r"窓口|委員会|かけこみ寺|支援拠点|中小企業庁|弁護士")
_WORD = re.compile(r"[\u3400-\u9fff]{2,}|[\u30a1-\u30fa\u30fc]{2,}")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+")
# what a question of law is about, for choosing among the places: the one that takes
# questions of the law first
LAW = "独占禁止法 下請法 取適法 違反 申告 取引上の悩み"


class Referral:
    """The knowledge base's places to consult, read from its index once."""

    def __init__(self, index: KnowledgeIndex) -> None:
        self.places: list[Found] = []
        seen: set[str] = set()
        for rank, hit in enumerate(index.search(QUERY, CHUNKS)):
            if sources_section(hit.heading):
                continue
            for line in hit.text.splitlines():
                text = line.strip().lstrip("> ").strip()
                if not (_CONSULT.search(text) and _PLACE.search(text)) or text in seen:
                    continue
                seen.add(text)
                # a list item is quoted as it is; a paragraph only by its sentence on it
                said = (_ITEM.sub("", text) if _ITEM.match(text) else
                        next(s for s in re.findall(r"[^。]+。?", text) if _CONSULT.search(s)))
                self.places.append(Found(said.strip(), hit.source, hit.heading, rank))

    def for_question(self, question: str, limit: int = 2) -> list[Found]:
        """The places best suited to a question of law, most suited first: those that name
        the law's words (独占禁止法, 違反), then the question's."""
        law = set(_WORD.findall(LAW))
        asked = set(_WORD.findall(in_base_words(question))) - law

        def named(found: Found, wanted: set[str]) -> int:
            return sum(w in in_base_words(found.text) for w in wanted)

        ranked = sorted(enumerate(self.places), key=lambda p: (
            -named(p[1], law), -named(p[1], asked), p[0]))
        return [found for _, found in ranked[:limit]]
