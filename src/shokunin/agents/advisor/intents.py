"""What a message asks the offline Advisor to do, read from its wording (no model): a yes/no
question and the kind of verdict it wants, a calculation, a picture; and the numbers it
gives: amounts before and after ("材料費 400円→480円"), a cost item's share and rise ("材料費は
原価の4割で、2割上がった"), a selling price, or a plain expression ("450+300+150")."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

Verdict = Literal["ability", "permission", "legality", "necessity"]

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# 1,200 × 1.08, (450+300)/2: an arithmetic expression of at least two numbers
_OPERAND = r"[(（]?\s*\d[\d,.]*\s*[)）]?"
_EXPRESSION = re.compile(rf"{_OPERAND}(?:\s*[-+*/×÷＋－＊／]\s*{_OPERAND})+")
# the predicate of a yes/no question, by the verdict it asks for; the first that matches
# wins (「違法ではないですか」 is about legality, 「してもいいですか」 and 「認められますか」
# ask whether it is allowed)
_YES_NO: tuple[tuple[Verdict, re.Pattern[str]], ...] = (
    ("permission", re.compile(r"問題(は|に)?(ない|ありません|ならない|なりません)[^。？?]{0,12}$")),
    ("legality", re.compile(r"(違法|違反|問題|あた|当た|該当)[^。？?]{0,12}$")),
    ("necessity", re.compile(r"(必要|べき|いけない|ならない|なければ)[^。？?]{0,12}$")),
    ("permission", re.compile(r"(いい|よい|良い|大丈夫|構わない|構いません|かまわない|失礼|平気|"
                              r"差し支え|許され|認められ)[^。？?]{0,12}$")),
    ("ability", re.compile(r"(できる|できます|できない|出来る|出来ます|可能|もらえ|られる|られます)"
                           r"[^。？?]{0,12}$")),
)
# words that make a question one of law: 「法的に問題ない？」, 「独禁法に触れませんか」
_LEGAL = re.compile(r"法的|法律|違法|合法|適法|違反|独禁法|独占禁止法|下請法|取適法|"
                    r"優越的地位|買いたたき|買い叩き")
# 「しても問題ない」, 「送っても大丈夫」: whether the asker may do something; 「問題ない」 of
# what someone did to them (「こういう対応は問題ないんですか」) asks whether it is lawful
_OWN_ACT = re.compile(r"(ても|でも)\s*問題")
# a question that points back at what its sentences before said (「これって違法？」)
_POINTS_BACK = re.compile(r"これ|それ|あれ|この|その|こう|そう|こんな|そんな|こういう|そういう")
# a question on not doing something (「残さなくても」, 「見積書なしで」, 「協議せずに」)
_NOT_DOING = re.compile(r"なくても|なくて|ないで|なしで|なしに|無しで|せずに|ずに")
# what a question restricts: 「口頭だけで」, 「メールのみで」
_ONLY = re.compile(r"([\u3400-\u9fff\u30a0-\u30ffー]{2,})(?:だけ|のみ|しか)")
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
_CONTENT = re.compile(r"[\u3400-\u9fff\u30a0-\u30ffA-Za-z]")  # a word of substance
_WH_WORDS = re.compile(r"何|どう|どこ|どれ|どの|いつ|誰|なぜ|いくら|どんな|どちら")
_EITHER = re.compile(r"それとも|または.+か$")
_EXISTS = re.compile(r"[はが](?:あり|ある)")
# how a question ends: polite (ですか, でしょう), plain (のか, かな, だろう) or casual (いいの？,
# 可能？: the question mark, or の, says it is one)
_QUESTION_END = re.compile(r"(ですか|ますか|でしょうか|でしょう|だろう|のか|かな|か|の)$")
# a request to compute, not a name of the subject (「原価計算のやり方」 asks how, not what)
_COMPUTE = re.compile(r"(計算|算出|試算|算定)(して|したい|してほし|してくだ|でき|を|お願い)|"
                      r"compute|calculate", re.IGNORECASE)
# a question for a value: a calculation only with numbers to compute it from
# (「値上げ率は何%くらいが普通？」 asks what is usual, not to compute)
_VALUE_QUESTION = re.compile(r"いくら|何円|何[%％]|何パーセント|何割|"
                             r"(どのくらい|どれくらい|どれだけ)(上が|増え|高く|になる)")
# the rise of the user's own cost asked for (「原価がいくら上がったのか知りたい」, 「上昇額を
# 出したい」): a calculation on the user's numbers even when none are given yet; asking how
# to find a rise out (「…いくら上がったか確認する方法」) or where (「指標は？」) is not
_RISE_ASKED = re.compile(r"((いくら|どれだけ|どれくらい|どのくらい)(上が|増え|高く)|"
                         r"(上昇|増加|値上が|上が|増え|アップ|影響)(った)?(分|額|幅))"
                         r"[^。？?]{0,8}(知りたい|出したい|出して|求めたい|求めて|計算|算出|試算)")
_DIAGRAM_WORDS = re.compile(r"図|グラフ|チャート|可視化|絵で|diagram|chart|graph|picture",
                            re.IGNORECASE)
# data words first: 「原価の内訳を図で説明して」 is a chart, 「単価表の作り方を図で」 a process
_DIAGRAM_KINDS = (("line", re.compile(r"推移|折れ線|変化|トレンド")),
                  ("bar", re.compile(r"内訳|構成|比較|割合|棒グラフ|円グラフ")),
                  ("network", re.compile(r"関係図|つながり|ネットワーク")),
                  ("flowchart", re.compile(r"流れ|フロー|手順|プロセス|進め方|やり方|作り方|"
                                           r"方法|段取り|説明")))
_PROCESS_WORDS = _DIAGRAM_KINDS[-1][1]
_ARROW = r"\s*(?:→|->|⇒|=>|から)\s*"
_YEN = r"\s*(?P<unit{n}>万円|千円|円)?"
_CHANGE = re.compile(
    # 材料費, 材料費が1個, 鋼材1kgあたり: the item and the quantity its amounts are for
    rf"(?P<label>[^\d\s、。,.:：;（）()→]{{0,20}}?\d+(?:\.\d+)?[a-z個本枚台時間]{{1,3}}"
    rf"(?:あたり|当たり)?|[^\d\s、。,.:：;（）()→]{{1,20}}?)\s*(?:[:：は が]|の単価は?|単価は?)?\s*"
    rf"(?P<before>{_NUMBER}){_YEN.format(n=1)}{_ARROW}(?P<after>{_NUMBER}){_YEN.format(n=2)}")
_RATE = r"(?P<{name}>{number})\s*(?P<{name}_unit>割|%|％|パーセント)"
_SHARE = re.compile(r"(?:原価|コスト|総原価|製造原価)の\s*" +
                    _RATE.format(name="share", number=_NUMBER))
_RISE = re.compile(_RATE.format(name="rise", number=_NUMBER) +
                   r"\s*(?:も|ほど|程度|くらい|ぐらい)?\s*(?:上昇|上が|値上が|アップ|増|高く|高騰)")
_ITEM = re.compile(r"(?P<label>[^\d\s、。,.:：;（）()]{1,12}?)(?:は|が|の)\s*$")
_PRICE = re.compile(r"(?:売値|販売価格|売価|納入価格|販売単価|現在の単価|今の単価)\s*"
                    rf"(?:は|が|:|：)?\s*(?P<price>{_NUMBER})\s*(?P<unit>万円|千円|円)?")
_PARTICLES = re.compile(r"(?:は|が|の|を|も|と)$")


@dataclass(frozen=True)
class Change:
    """A cost item's amount before and after, in yen."""

    label: str
    before: Decimal
    after: Decimal


@dataclass(frozen=True)
class Rise:
    """A cost item's share of the cost and its rise, both in percent."""

    label: str
    share: Decimal
    rise: Decimal


@dataclass(frozen=True)
class YesNo:
    """A yes/no question, read from the sentence that asks it."""

    kind: Verdict  # the kind of verdict it asks for
    sentence: str  # the sentence that asks it, without its question mark
    asked: str  # that sentence up to the predicate: what it asks the verdict of (「価格転嫁は」)
    context: str = ""  # the sentences before it, a line each (「原材料費が上がって困っています。」)
    refers: bool = False  # the case it asks of is in its context (「…と言われました。これって…」)
    negated: bool = False  # it asks of not doing something (「見積書なしで」, 「残さなくても」)
    only: tuple[str, ...] = ()  # what it restricts (「口頭だけで」: 口頭)

    @property
    def case(self) -> str:
        """The text of what it asks of: its own words, and the sentence before it when it
        points back there."""
        before = self.context.splitlines()
        return f"{before[-1] if self.refers and before else ''}{self.asked}"


@dataclass(frozen=True)
class Intent:
    """What the message asks for, and the numbers it gives."""

    question: YesNo | None = None  # the yes/no question it asks
    calculation: bool = False  # it asks to compute something
    diagram: str | None = None  # the kind of picture it asks for
    changes: list[Change] = field(default_factory=list)
    rises: list[Rise] = field(default_factory=list)
    price: Decimal | None = None
    expression: str | None = None
    rest: str = ""  # the message without the numbers it gives and their labels

    @property
    def verdict(self) -> Verdict | None:
        """The kind of verdict its yes/no question asks for, if it asks one."""
        return self.question.kind if self.question else None

    @property
    def numbers(self) -> bool:
        """Whether it gives numbers the Advisor can compute with."""
        return bool(self.changes or self.rises or self.expression)


def _decimal(number: str, unit: str | None = None) -> Decimal:
    value = Decimal(number.replace(",", ""))
    return value * {"万円": 10000, "千円": 1000, "割": 10}.get(unit or "", 1)


def _label(raw: str) -> str:
    label = _PARTICLES.sub("", raw.strip(" 、,:：-・*")).strip()
    label = re.sub(r"(?:が|は|の)(?=\d)", " ", label)  # 材料費が1個 -> 材料費 1個
    return re.sub(r"^(?:また|そして|それと|あと|うち|当社|弊社|前回|今回)[、,]?", "", label) or raw


def yes_no(message: str) -> YesNo | None:
    """The yes/no question of ``message``: its last question, read past what comes before
    it (「原材料費が上がって困っています。」) and after it (「よろしくお願いします。」). A
    question with a question word (何, どう) asks for more than a yes or a no: None."""
    text = unicodedata.normalize("NFKC", message).strip()
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    for i in range(len(sentences) - 1, -1, -1):
        sentence = sentences[i]
        marked = sentence.endswith("?")  # NFKC folds ？ into ?
        body = sentence.rstrip("?! 。")
        if not body or not (marked or _QUESTION_END.search(body)):
            continue  # not a question: a sentence around it
        if _WH_WORDS.search(body) or _EITHER.search(body):
            return None  # it asks for more than a yes or a no, or which of two
        kind, found = next(((kind, m) for kind, words in _YES_NO
                             if (m := words.search(body))), ("ability", None))
        if found is None:
            return None
        asked, predicate = body[:found.start()], body[found.start():]
        if _EXISTS.search(predicate) and not predicate.startswith("問題"):
            return None  # 「相談できるところはありますか」 asks where, not whether
        if kind == "permission" and (_LEGAL.search(body) or (
                predicate.startswith("問題") and not _OWN_ACT.search(body))):
            kind = "legality"
        context = "\n".join(sentences[:i])
        own = _LEGAL.sub("", _POINTS_BACK.sub("", asked))
        return YesNo(kind=kind, sentence=body, asked=asked, context=context,
                     refers=bool(context) and (bool(_POINTS_BACK.search(asked))
                                               or not _CONTENT.search(own)),
                     negated=bool(_NOT_DOING.search(asked)),
                     only=tuple(m.group(1) for m in _ONLY.finditer(asked)))
    return None


def diagram_kind(message: str) -> str | None:
    """The picture a message asks for (bar unless it names another kind), or None."""
    if not _DIAGRAM_WORDS.search(message):
        return None
    return next((kind for kind, words in _DIAGRAM_KINDS if words.search(message)), "bar")


def without_process_words(text: str) -> str:
    """``text`` without the words that ask for a process (流れ, 手順): in a request for a
    picture they name its kind, not its subject."""
    return _PROCESS_WORDS.sub("", text)


def read_intent(message: str) -> Intent:
    """What ``message`` asks for, and the numbers in it."""
    text = unicodedata.normalize("NFKC", message)
    spans: list[tuple[int, int]] = []
    changes = []
    for m in _CHANGE.finditer(text):
        spans.append(m.span())
        changes.append(Change(
            _label(m.group("label")), _decimal(m.group("before"), m.group("unit1")),
            _decimal(m.group("after"), m.group("unit2") or m.group("unit1"))))
    rises = []
    shares = list(_SHARE.finditer(text))
    for share, following in zip(shares, [*shares[1:], None], strict=False):
        # the item is named just before its share, its rise comes before the next share
        before = re.split(r"[、。,\n;]", text[:share.start()])[-1]
        item = _ITEM.search(before)
        rise = _RISE.search(text, share.end(), following.start() if following else len(text))
        if item and rise:
            spans.append((share.start() - len(item.group(0)), rise.end()))
            rises.append(Rise(_label(item.group("label")),
                              _decimal(share.group("share"), share.group("share_unit")),
                              _decimal(rise.group("rise"), rise.group("rise_unit"))))
    price = _PRICE.search(text)
    if price:
        spans.append(price.span())
    expression = _EXPRESSION.search(text) if not (changes or rises) else None
    if expression:
        spans.append(expression.span())
    rest = "".join(c for i, c in enumerate(text) if not any(a <= i < b for a, b in spans))
    return Intent(
        question=yes_no(message),
        calculation=bool(_COMPUTE.search(text) or _RISE_ASKED.search(text) or (
            _VALUE_QUESTION.search(text) and (changes or rises or expression))),
        diagram=diagram_kind(message), changes=changes, rises=rises,
        price=_decimal(price.group("price"), price.group("unit")) if price else None,
        expression=expression.group(0) if expression else None, rest=rest)
