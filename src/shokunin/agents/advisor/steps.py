"""Which step of the playbook a question belongs to, and what the conversation's step
becomes. A step is a focus, not a constraint (seed 001): a general question keeps it, a
question of another step changes it only on high confidence (else the answer proposes the
change and the user may accept), and an unclear first question gets a question back."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Set
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from shokunin.agents.advisor.playbook import UNKNOWN, Playbook
from shokunin.knowledge import Chunk, KnowledgeIndex

Confidence = Literal["high", "medium", "low"]
HIGH_MARGIN = 0.4  # the best step's score is at least this share above the second's
MEDIUM_MARGIN = 0.2
TOP_CHUNKS = 30
TOP_KNOWLEDGE = 8
MIN_SHARED_TERMS = 2  # one shared word (相談, 方法) is too little to name a step
KEYWORD_WEIGHT = 0.2  # for each of a step's key words found whole in the question
_KANJI_PAIR = re.compile(r"[\u3400-\u9fff]{2}")
_WORDS = re.compile(r"[\u30a0-\u30ffー]{2,}|[a-z0-9][a-z0-9_.-]+|[\u3400-\u9fff]+")
_ACCEPT = re.compile(r"^\s*(はい|お願いします|おねがいします|切り替え|切替|変更して|そうして|"
                     r"それで|yes|ok|okay|sure)", re.IGNORECASE)


class StepDetection(BaseModel):
    """The seed's ``{"step", "confidence", "reasoning"}``."""

    step: str
    confidence: Confidence
    reasoning: str


class StepClassifier:
    """Offline detection, through two indexes searched with BM25 over bigrams:

    - the playbook's: each step's title and key words, description, and each example
      question, one chunk apiece (enough chunks for document frequencies to mean
      something); a step scores the sum of its chunks among the best hits;
    - the knowledge base's (when given): a step scores the hits in the files its playbook
      entry names (``knowledge``), which hold far more of the step's vocabulary.

    Each score is scaled to the best step's, the two are averaged, each key word of a step
    found whole in the question adds to its score (bigrams match inside words, a key word
    like 注文請書 or 一律 is the author's own signal), and the confidence is the margin
    between the best step and the second. A request that needs a tool (a
    calculation) is about one of the steps that recommend it, when any of them scores.
    The playbook's own subject (the words of its title, 価格転嫁) names no step."""

    def __init__(self, playbook: Playbook, knowledge: KnowledgeIndex | None = None) -> None:
        self.playbook = playbook
        self.knowledge = knowledge
        self.steps_of = {f: [s.id for s in playbook.steps if f in s.knowledge]
                         for step in playbook.steps for f in step.knowledge}
        self.subject = set(_words(playbook.title))
        texts = [_folded(" ".join([s.title, *s.keywords, s.description, *s.examples]))
                 for s in playbook.steps]
        self.own_text = dict(zip([s.id for s in playbook.steps], texts, strict=True))
        self.keywords = {s.id: [_folded(k) for k in s.keywords if len(k) >= 2]
                         for s in playbook.steps}
        self.index = KnowledgeIndex(":memory:")
        # no heading: repeated in every chunk of a step, the title's words would count in
        # as many chunks as the step has, and BM25 would give them no weight
        self.index.add_chunks(
            Chunk(source=s.id, heading="", text=text)
            for s in playbook.steps
            for text in [" ".join([s.title, *s.keywords]), s.description, *s.examples])

    def _scores(self, question: str) -> tuple[dict[str, float], dict[str, str]]:
        own: dict[str, float] = {}
        matched: dict[str, str] = {}
        for hit in self.index.search(question, limit=TOP_CHUNKS):
            own[hit.source] = own.get(hit.source, 0.0) + hit.score
            matched[hit.source] = matched.get(hit.source, "") + " " + hit.text
        kb: dict[str, float] = {}
        if self.knowledge is not None and self.steps_of:
            for hit in self.knowledge.search(question, limit=TOP_KNOWLEDGE):
                for step in self.steps_of.get(hit.source, []):
                    kb[step] = kb.get(step, 0.0) + hit.score
                    matched[step] = matched.get(step, "") + " " + hit.text
        parts = [part for part in (own, kb) if part]
        combined: dict[str, float] = {}
        for part in parts:
            top = max(part.values())
            for step, score in part.items():
                combined[step] = combined.get(step, 0.0) + score / top / len(parts)
        folded = _folded(question)
        for step, keywords in self.keywords.items():
            found = [k for k in keywords if k in folded]
            if found:
                combined[step] = combined.get(step, 0.0) + KEYWORD_WEIGHT * len(found)
                matched[step] = matched.get(step, "") + " " + " ".join(found)
        return combined, matched

    def detect(self, question: str, needs: Set[str] = frozenset()) -> StepDetection:
        """The step of ``question``; with ``needs``, among the steps recommending those tools."""
        scores, matched = self._scores(question)
        able = {s.id for s in self.playbook.steps if needs and needs <= set(s.tools)}
        if able & set(scores):
            scores = {step: score for step, score in scores.items() if step in able}
        ranked = sorted(scores.items(), key=lambda item: -item[1])
        if not ranked or ranked[0][1] <= 0:
            return StepDetection(step=UNKNOWN, confidence="low", reasoning=(
                "質問にどのステップの説明・例とも共通する語がありません。"))
        (best, top), runner_up = ranked[0], (ranked[1] if len(ranked) > 1 else None)
        margin = (top - (runner_up[1] if runner_up else 0.0)) / top
        confidence: Confidence = ("high" if margin >= HIGH_MARGIN else
                                  "medium" if margin >= MEDIUM_MARGIN else "low")
        shared = self._shared(question, _folded(
            f"{self.playbook.title_of(best)} {self.own_text.get(best, '')} "
            f"{matched.get(best, '')}"))
        shared += [k for k in self.keywords.get(best, [])  # 申し入れ: a key word, found whole
                   if k in _folded(question) and k not in shared]
        if len(shared) < MIN_SHARED_TERMS:
            return StepDetection(step=UNKNOWN, confidence="low", reasoning=(
                f"どのステップとも共通する語が少なすぎます（{'、'.join(shared) or 'なし'}）。"
                f"最も近いのは {best}（{self.playbook.title_of(best)}）です。"))
        shared = shared[:6]
        second = (f"次点は {runner_up[0]}（{self.playbook.title_of(runner_up[0])}、"
                  f"{runner_up[1]:.2f}）" if runner_up else "他のステップには一致なし")
        words = f"「{'」「'.join(shared)}」が" if shared else "ナレッジベースの該当箇所が"
        return StepDetection(step=best, confidence=confidence, reasoning=(
            f"{words} {best}（{self.playbook.title_of(best)}）に一致"
            f"（スコア {top:.2f}、{second}）。"))


    def about_subject(self, question: str) -> bool:
        """Whether the question names the playbook's own subject (価格転嫁)."""
        return bool(self.subject_in(question))

    def subject_in(self, question: str) -> str:
        """The words of the playbook's own subject the question holds, as a search query."""
        return " ".join(w for w in dict.fromkeys(_words(question)) if w in self.subject)

    def _shared(self, question: str, text: str) -> list[str]:
        """The question's words found in ``text``: whole katakana and Latin words (リスト is
        not found inside チェックリスト's bigram スト alone), pairs of kanji; never the
        playbook's subject, hiragana or a single character."""
        return [w for w in dict.fromkeys(_words(question)) if w not in self.subject
                and w in text]


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _words(text: str) -> list[str]:
    """Katakana and Latin words whole, kanji runs as overlapping pairs."""
    out = []
    for word in _WORDS.findall(_folded(text)):
        if _KANJI_PAIR.match(word):
            out += [word[i:i + 2] for i in range(len(word) - 1)]
        elif not re.match(r"[\u3400-\u9fff]", word):
            out.append(word)
    return out


@dataclass(frozen=True)
class Settled:
    step: str | None  # the conversation's step after this question
    changed: bool
    proposal: str | None  # a step the answer proposes to move to
    ask: bool  # the question is too unclear: ask back


def accepts(message: str) -> bool:
    """Whether a short reply accepts a proposed step change."""
    return len(message.strip()) <= 20 and bool(_ACCEPT.match(message))


def settle(current: str | None, detection: StepDetection, proposed: str | None,
           message: str) -> Settled:
    """The step after ``message``, given the detection and a pending proposal."""
    if proposed is not None and accepts(message):
        return Settled(proposed, proposed != current, None, False)
    if detection.step == UNKNOWN:
        return Settled(current, False, None, current is None)
    if detection.step == current:
        return Settled(current, False, None, False)
    if detection.confidence == "high" or (current is None and detection.confidence == "medium"):
        return Settled(detection.step, True, None, False)
    if current is None:  # a low-confidence guess is no focus to start from
        return Settled(None, False, detection.step, True)
    return Settled(current, False, detection.step, False)
