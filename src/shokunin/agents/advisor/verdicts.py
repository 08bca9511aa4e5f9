"""A yes or a no to a yes/no question, taken from the knowledge base by one rule, for every
answer that says はい or いいえ:

1. the sentence speaks to the question's case (``relevance``): it holds the question's most
   specific word and most of its words by weight; sharing the subject's words (価格転嫁) is
   no answer to a question about a case of it (「来期から発注を減らすと言われた」); and
   it names every word of the case, the common ones too: a sentence on 原価上昇分 settles
   nothing of 「労務費の上昇分も価格転嫁できますか」;
2. it states a verdict of the kind asked (can / may / is it unlawful / must), read as a yes
   or a no; 「口頭だけでなく書面で」 says no to 「口頭だけで大丈夫？」;
3. no other sentence that speaks to the case states the opposite: then the answer quotes
   both and gives no verdict;
4. a question on not doing something (「見積書なしで」) gets no verdict from a sentence on
   doing it: the sentences that speak to it are quoted instead.

No such sentence, no verdict: the answer says what the sentences that speak to the case
say, and that none settles it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from shokunin.agents.advisor.intents import Verdict, YesNo
from shokunin.agents.advisor.relevance import Focus, in_base_words

# (yes, no) wordings of each verdict; "no" is tried first (できません holds でき)
_WORDING: dict[Verdict, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "ability": (re.compile(r"できます|できる|可能です|可能な|認められ|求めることが"),
                re.compile(r"できません|できない|不可能|認められません|認められない")),
    "permission": (re.compile(r"問題ありません|差し支え|構いません|かまいません|できます|"
                              r"可能です|有効です|認められ"),
                   re.compile(r"避け|控え|べきではありません|好ましくありません|失礼にあたり|"
                              r"できません|認められません")),
    "legality": (re.compile(r"問題となる|問題になる|問題となり|問題になり|違反|禁止|該当し|"
                            r"あたり得|当たり得|濫用|規制されて"),
                 re.compile(r"問題ありません|問題は生じない|違反しません|あたりません|当たりません")),
    "necessity": (re.compile(r"必要です|必要があり|べきです|しましょう|欠かせ|重要です|求められ"),
                  re.compile(r"不要|必要ありません|必要はありません|必要はない")),
}
_CONDITION = re.compile(r"条件|場合|ためには|には|前提|根拠|書面|協議")
_MARKUP = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s*|\*\*")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+")
MAX_ITEMS = 5  # of the list a sentence introduces (「次の条件を…」)
MAX_CONDITIONS = 2
STATES = 0.6  # the weighted share of the question's words a sentence holds to answer it
CONDITION_SHARE = 0.5  # to be quoted as a condition of the answer


@dataclass(frozen=True)
class Found:
    """A sentence of the knowledge base with the chunk it comes from."""

    text: str
    source: str
    heading: str
    chunk: int  # the found chunk it is in, by rank
    items: tuple[str, ...] = ()  # the list that follows a sentence introducing it


@dataclass(frozen=True)
class Judgement:
    """What the found chunks say to a yes/no question."""

    yes: bool | None  # the verdict; None when no sentence states one for the case
    because: Found | None  # the sentence the verdict rests on
    conditions: list[Found]  # of the verdict: conditions, ways to go about it
    spoken: list[Found]  # the sentences that speak to the case, best first
    disputed: bool = False  # sentences that speak to the case state both verdicts


def _sentences(hits: list[dict[str, Any]]) -> list[tuple[Found, str]]:
    """Each sentence of the hits, with its text in the knowledge base's words. A sentence
    answers by what it says itself: its section's heading (「据え置きと言われたら」) does not
    make it speak to a question."""
    out = []
    for rank, hit in enumerate(hits):
        heading = str(hit.get("heading", ""))
        lines = str(hit["text"]).splitlines()
        for i, raw in enumerate(lines):
            line = _MARKUP.sub("", raw.lstrip("> ")).strip()
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
                out.append((Found(sentence, str(hit["source"]), heading, rank, tuple(items)),
                            in_base_words(sentence)))
    return out


def stance(question: YesNo, sentence: str) -> bool | None:
    """The yes (True) or no (False) ``sentence`` states of the kind ``question`` asks, or
    None. 「口頭だけでなく書面で」 is a no to a question restricted to 口頭 (「口頭だけで」)."""
    if question.kind != "legality":
        for word in question.only:
            if re.search(rf"{re.escape(word)}(?:だけ|のみ)?(?:で|では)?(?:なく|ない)", sentence):
                return False
    yes_words, no_words = _WORDING[question.kind]
    if no_words.search(sentence):
        return False
    if yes_words.search(sentence):
        return True
    return None


def judge(question: YesNo, focus: Focus, hits: list[dict[str, Any]]) -> Judgement:
    """What the found chunks say to ``question``, whose case ``focus`` weighs."""
    sentences = _sentences(hits)
    spoken = sorted(((focus.share(own), -found.chunk, found)
                     for found, own in sentences if focus.spoken_to(own, STATES)),
                    key=lambda s: s[:2], reverse=True)
    # a verdict rests only on a sentence that names the whole case: speaking to most of it
    # by weight is enough to be quoted, not to settle it
    own_text = {id(found): own for found, own in sentences}
    stated = [(found, said) for *_, found in spoken
              if focus.names_all(own_text[id(found)])
              and (said := stance(question, found.text)) is not None]
    sides = {said for _, said in stated}
    if not stated or len(sides) > 1 or (question.negated and question.kind != "legality"):
        return Judgement(None, None, [], [s[-1] for s in spoken], disputed=len(sides) > 1)
    because, yes = stated[0]
    conditions: list[Found] = []
    for found, own in sentences:
        listed = any(found.text in c.items for c in conditions)  # quoted with its list
        if (found != because and not listed and len(conditions) < MAX_CONDITIONS
                and _CONDITION.search(found.text) and focus.spoken_to(own, CONDITION_SHARE)):
            conditions.append(found)
    return Judgement(yes, because, conditions, [s[-1] for s in spoken])


def restate(question: YesNo, yes: bool) -> str:
    """「はい、価格転嫁はできます。」: the question turned into its answer where its form allows."""
    if question.kind == "legality":
        return ("はい、問題となる可能性があります。" if yes
                else "いいえ、ナレッジベースの記述では問題にならないとされています。")
    stem = question.sentence
    # casual speech (値上げ交渉ってしてもいいんですか) is not echoed back
    if (yes and re.search(r"(ます|です)か$", stem) and len(stem) <= 40
            and not re.search(r"って|んです", stem)):
        return f"はい、{stem[:-1]}。"
    return "はい。" if yes else "いいえ。"
