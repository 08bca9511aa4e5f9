"""A direct answer to a yes/no question, taken from the knowledge base: the sentence of the
found chunks that shares the most of the question's words and states a verdict of the kind
asked (can / may / is it a problem / must), read as a yes or a no. The user's words for the
base's notions (値上げ for 価格転嫁, 取引先 for 発注者) are read as the base's. No such
sentence, no verdict: the answer says so instead of guessing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from shokunin.agents.advisor.intents import Verdict
from shokunin.knowledge import terms

# (yes, no) wordings of each verdict; "no" is tried first (できません holds でき)
_WORDING: dict[Verdict, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "ability": (re.compile(r"できます|できる|可能です|可能な|認められ|求めることが"),
                re.compile(r"できません|できない|不可能|認められません|認められない")),
    "permission": (re.compile(r"問題ありません|差し支え|構いません|かまいません|できます|"
                              r"可能です|有効です|認められ"),
                   re.compile(r"避け|控え|べきではありません|好ましくありません|失礼にあたり")),
    "legality": (re.compile(r"問題となる|問題になる|問題となり|問題になり|違反|禁止|該当し|"
                            r"あたり得|当たり得|濫用|規制されて"),
                 re.compile(r"問題ありません|問題は生じない|違反しません|あたりません|当たりません")),
    "necessity": (re.compile(r"必要です|必要があり|べきです|しましょう|欠かせ|重要です|求められ"),
                  re.compile(r"不要|必要ありません|必要はありません|必要はない")),
}
# the user's words for what the knowledge base names otherwise, each turned into the base's
# word: 「値上げを取引先にお願いしても」 then shares the terms of 「発注者に取引価格の引上げ
# （価格転嫁）を求めることができます」
_BASE_WORDS = (
    ("価格転嫁", re.compile(r"値上げ|上乗せ|引き?上げ")),
    ("発注者", re.compile(r"取引先|得意先|客先|納入先|発注元")),
    ("求め", re.compile(r"お願い|依頼|頼")),
)
_CONDITION = re.compile(r"条件|場合|ためには|には|前提|根拠|書面|協議")
_MARKUP = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s*|\*\*")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+")
MAX_ITEMS = 5  # of the list a sentence introduces (「次の条件を…」)
MIN_SHARED = 2  # index terms (bigrams) a sentence must share with the question
MIN_COVERED = 0.5  # and the share of the question's terms it must hold: its whole topic,
# not one word of it (「見積書に再協議の文言を入れることは」 is not answered by a sentence on
# 見積書 alone)


@dataclass(frozen=True)
class Found:
    """A sentence of the knowledge base with the chunk it comes from."""

    text: str
    source: str
    heading: str
    chunk: int  # the found chunk it is in, by rank
    items: tuple[str, ...] = ()  # the list that follows a sentence introducing it


@dataclass(frozen=True)
class DirectAnswer:
    yes: bool
    because: Found
    conditions: list[Found]


def in_base_words(text: str) -> str:
    """``text`` with the user's words for the knowledge base's notions in the base's words."""
    for word, synonyms in _BASE_WORDS:
        text = synonyms.sub(word, text)
    return text


def _sentences(hits: list[dict[str, Any]]) -> list[tuple[Found, set[str]]]:
    out = []
    for rank, hit in enumerate(hits):
        lines = str(hit["text"]).splitlines()
        for i, raw in enumerate(lines):
            line = _MARKUP.sub("", raw).strip()
            if not line or line.startswith(("#", "|")):
                continue
            for sentence in re.findall(r"[^。]+。?", line):
                sentence = sentence.strip()
                if len(sentence) < 8:
                    continue
                items: list[str] = []
                if "次の" in sentence and not _BULLET.match(raw):
                    for after in lines[i + 1:]:
                        if not after.strip():
                            continue
                        if not _BULLET.match(after) or len(items) == MAX_ITEMS:
                            break
                        items.append(_MARKUP.sub("", after).replace("**", "").strip())
                found = Found(sentence, str(hit["source"]), str(hit.get("heading", "")),
                              rank, tuple(items))
                out.append((found, set(terms(in_base_words(sentence)))))
    return out


def direct_answer(topic_text: str, verdict: Verdict, hits: list[dict[str, Any]]
                  ) -> DirectAnswer | None:
    """The verdict the found chunks give on what a yes/no question asks it of (its words
    before the predicate, ``Intent.topic``), or None when none states one."""
    topic = set(terms(in_base_words(topic_text)))
    yes_words, no_words = _WORDING[verdict]
    best: tuple[int, int, Found, bool] | None = None
    sentences = _sentences(hits)
    for rank, (found, words) in enumerate(sentences):
        shared = len(topic & words)
        if shared < max(MIN_SHARED, MIN_COVERED * len(topic)):
            continue
        if no_words.search(found.text):
            yes = False
        elif yes_words.search(found.text):
            yes = True
        else:
            continue
        if best is None or (shared, -rank) > (best[0], best[1]):
            best = (shared, -rank, found, yes)
    if best is None:
        return None
    because = best[2]
    conditions: list[Found] = []
    for found, words in sentences:
        listed = any(found.text in c.items for c in conditions)  # quoted with its list
        if (found != because and not listed and len(topic & words) >= MIN_SHARED
                and _CONDITION.search(found.text) and len(conditions) < 2):
            conditions.append(found)
    return DirectAnswer(yes=best[3], because=because, conditions=conditions)


def restate(question: str, verdict: Verdict, yes: bool) -> str:
    """「はい、価格転嫁はできます。」: the question turned into its answer where its form allows."""
    stem = re.sub(r"[?？。\s]+$", "", question.strip())
    stem = re.split(r"[。\n]", stem)[-1]
    if verdict == "legality":
        return ("はい、問題となる可能性があります。" if yes
                else "いいえ、ナレッジベースの記述では問題にならないとされています。")
    # casual speech (値上げ交渉ってしてもいいんですか) is not echoed back
    if (yes and re.search(r"(ます|です)か$", stem) and len(stem) <= 40
            and not re.search(r"って|んです", stem)):
        return f"はい、{stem[:-1]}。"
    return "はい。" if yes else "いいえ。"
