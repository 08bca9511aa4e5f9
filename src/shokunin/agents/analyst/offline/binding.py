"""Binding a question's words to a table: each stretch of the question becomes a column, a
value of a column, a date, a number or an analysis word, matched whole (an English word never
inside another: "ignore" holds no "no", "atmospheric" no "at"), longest first, a quoted name a
column before anything else. What is left over and carries meaning is kept, so the answer can
name it.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from shokunin.agents.analyst.offline import vocabulary as vocab
from shokunin.agents.analyst.offline.lexicon import BILINGUAL
from shokunin.agents.analyst.profile import ColumnProfile, DatasetProfile

NUMERIC = {"integer", "float"}
_QUOTED = re.compile(r"[\"“「『'‘]([^\"”」』'’]{1,80})[\"”」』'’]")
_YEAR_MONTH = re.compile(r"(?<!\d)(\d{4})\s*(?:[-/.]|年)\s*(\d{1,2})(?:\s*月)?(?![\d])")
_YEAR = re.compile(r"(?<![\d.])((?:19|20)\d{2})(?:\s*年(?!代)|(?![\d.%年]|'?s(?![a-z])))")
_MONTH = re.compile(r"(?<![\d.])(\d{1,2})\s*月(?!\s*(?:比|間))")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december")
_MONTH_WORD = re.compile(r"(?<![a-z])(" + "|".join(
    [*_MONTH_NAMES, *(m[:3] for m in _MONTH_NAMES if m != "may")]) + r")(?![a-z])")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "twenty": 20}
_LIMIT = re.compile(r"(?:top|bottom|first|上位|下位|トップ|ベスト|ワースト)\s*(\d{1,3}|"
                    + "|".join(_NUMBER_WORDS) + r")(?![\d.])"
                    r"|(?<![\d.])(\d{1,3}|" + "|".join(_NUMBER_WORDS) + r")\s*"
                    r"(?:つ|件|位|個|社|店|品|カ国|か国|(?=\s*(?:largest|highest|biggest|"
                    r"best|lowest|smallest|worst|most|least|top)))")
_WINDOW = re.compile(r"(\d{1,3})\s*(?:-|\s)?(?:日|か月|ヶ月|カ月|ヵ月|週|期間|days?|weeks?|months?"
                     r"|periods?|points?)?\s*(?:-|\s)?(?=移動平均|moving|rolling)")
_NUM = r"[-−]?[¥$]?\d[\d,]*(?:\.\d+)?"
# a condition on a number: "more than 2", "at least 2.24", "before 2006", 「30歳以上」,
# "1.80 meters tall or more" (the words between the number and "or more" name its column)
_OPS_BEFORE = {"more than": ">", "greater than": ">", "higher than": ">", "larger than": ">",
               "bigger than": ">", "longer than": ">", "over": ">", "above": ">",
               "exceeding": ">", "exceeds": ">", "exceed": ">", "at least": ">=",
               "no less than": ">=", "less than": "<", "fewer than": "<", "lower than": "<",
               "smaller than": "<", "shorter than": "<", "under": "<", "below": "<",
               "at most": "<=", "no more than": "<=", "before": "<", "prior to": "<",
               "after": ">", "since": ">="}
_OPS_AFTER = {"or more": ">=", "or higher": ">=", "or above": ">=", "and above": ">=",
              "and over": ">=", "or greater": ">=", "or longer": ">=", "or less": "<=",
              "or fewer": "<=", "or lower": "<=", "or below": "<=", "and below": "<=",
              "and under": "<=", "or shorter": "<=", "or older": ">=", "and older": ">=",
              "or younger": "<=", "and younger": "<=", "or later": ">=", "or earlier": "<=",
              "以上": ">=", "以下": "<=",
              "未満": "<", "超": ">", "を超える": ">", "を超えた": ">", "を上回る": ">",
              "を下回る": "<", "より多い": ">", "より大きい": ">", "より高い": ">",
              "より長い": ">", "より少ない": "<", "より小さい": "<", "より低い": "<",
              "より短い": "<", "より前": "<", "以前": "<=", "より後": ">", "以降": ">="}
_JA_UNIT = r"(?:[\u30a0-\u30ff\u3400-\u9fff]{1,2}|%|％)?"
# a number's scale word: 「10万円」, "1.5 million", "20k"
_SCALES = {"万": 10_000, "千": 1_000, "億": 100_000_000, "k": 1_000, "thousand": 1_000,
           "million": 1_000_000, "billion": 1_000_000_000}
_COND_BEFORE = re.compile(r"(?<![a-z])(" + "|".join(sorted(_OPS_BEFORE, key=len, reverse=True))
                          + rf")\s+({_NUM})(?:\s*(k|thousand|million|billion)(?![a-z]))?"
                          r"(?![\d])")
_COND_AFTER = re.compile(rf"(?<![\d.,])({_NUM})((?:\s*[a-z.]+){{0,2}}|\s*{_JA_UNIT})\s*("
                         + "|".join(sorted(_OPS_AFTER, key=len, reverse=True)) + r")")
_COND_BETWEEN = re.compile(rf"between\s+({_NUM})\s+and\s+({_NUM})(?![\d])|({_NUM})\s*"
                           rf"(?:から|〜|~|-)\s*({_NUM})\s*{_JA_UNIT}\s*(?:の間|まで)")


def number(text: str) -> float:
    """A number as a question writes it: "1,234", "¥1,200", "−5"."""
    return float(text.replace(",", "").replace("−", "-").lstrip("¥$").replace("-¥", "-")
                 .replace("-$", "-"))


def _conditions(low: str) -> list[Match]:
    """Conditions on a number; a condition's value is ``(op, number, words)``, where
    ``words`` are those that sit between the number and its operator ("meters tall")."""
    found = []
    for hit in _COND_BEFORE.finditer(low):
        scale = _SCALES.get(hit.group(3) or "", 1)
        found.append(Match(hit.start(), hit.end(), "cond",
                           (_OPS_BEFORE[hit.group(1)], number(hit.group(2)) * scale, ""),
                           hit.group()))
    for hit in _COND_AFTER.finditer(low):
        words = hit.group(2).strip()
        if words.startswith("or") or words.startswith("and"):
            continue  # "2 or 3": two values, no condition
        scale = next((v for unit, v in _SCALES.items() if words.startswith(unit)), 1)
        found.append(Match(hit.start(), hit.end(), "cond",
                           (_OPS_AFTER[hit.group(3)], number(hit.group(1)) * scale,
                            words.removeprefix(next((u for u in _SCALES if words.startswith(u)),
                                                    "")).strip()), hit.group()))
    for hit in _COND_BETWEEN.finditer(low):
        low_end, high_end = (g for g in hit.groups() if g)
        found.append(Match(hit.start(), hit.end(), "cond",
                           ("between", (number(low_end), number(high_end)), ""), hit.group()))
    return found


_EN_WORD = re.compile(r"[a-z][a-z0-9_'’-]*")
_JA_RUN = re.compile(r"[\u30a1-\u30fa\u30fc\u3400-\u9fff々]+")


@dataclass(frozen=True)
class Match:
    """One stretch of the question and what it bound to."""

    start: int
    end: int
    kind: str  # column | value | date | limit | window | an analysis word's kind
    value: Any
    text: str


@dataclass
class Bound:
    """The question, bound: its matches in order, and the words that bound to nothing."""

    question: str
    matches: list[Match]
    unused: list[str] = field(default_factory=list)
    unknown_quoted: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list[Match]:
        return [m for m in self.matches if m.kind == kind]


def normalize(text: str) -> str:
    """Full-width letters and digits as ASCII, lower case (positions then match)."""
    return unicodedata.normalize("NFKC", text).lower()


@functools.lru_cache(maxsize=8192)  # more surfaces than re's own cache of 512 holds
def _boundary(surface: str) -> re.Pattern[str]:
    """``surface`` as a whole word: an ASCII edge never touches a letter or digit (an
    English plural is allowed), a Japanese edge may touch anything."""
    body = re.escape(surface)
    head = r"(?<![a-z0-9_])" if surface[:1].isascii() and surface[:1].isalnum() else ""
    tail = r"(?:s|es)?(?![a-z0-9_])" if surface[-1:].isascii() and surface[-1:].isalnum() else ""
    return re.compile(head + body + tail)


def column_surfaces(columns: list[ColumnProfile]) -> dict[str, str]:
    """Every way the question may name a column: its name (with _ as a space, or none), and
    the synonyms of a concept its name is or holds (売上高 holds 売上: sales finds it)."""
    surfaces: dict[str, str] = {}
    for col in columns:
        low = normalize(col.name).strip()
        for form in (low, low.replace("_", " "), low.replace("_", ""), low.replace(" ", "")):
            if form:
                surfaces.setdefault(form, col.name)
    for col in columns:  # review_count, num_reviews: "the number of reviews"
        words = re.split(r"[\s_]+", normalize(col.name).strip())
        thing = (words[0] if len(words) == 2 and words[1] in ("count", "counts", "数") else
                 words[1] if len(words) == 2 and words[0] in ("num", "n", "number") else None)
        if thing:
            for form in (f"number of {thing}", f"count of {thing}", f"{thing} count"):
                surfaces.setdefault(form, col.name)
    for col in columns:  # sensor_id: "by sensor" names it ("passenger" of PassengerId names
        # what a row is, as 注文 of 注文ID does: those stay words)
        stem = re.match(r"([a-z][a-z _-]+?)[\s_-]?(?:id|no|code)$", normalize(col.name).strip())
        if stem and len(stem.group(1)) > 1 and stem.group(1) not in vocab.FILLER_EN:
            surfaces.setdefault(stem.group(1).replace("_", " "), col.name)
    for group in vocab.SYNONYMS:
        exact = [c.name for c in columns if normalize(c.name).replace("_", " ") in group]
        holding = [c.name for c in columns if any(_holds(normalize(c.name), w) for w in group)]
        owners = exact if len(exact) == 1 else holding if len(set(holding)) == 1 else []
        for word in group:
            if owners and word not in surfaces:
                surfaces[word] = owners[0]
    # the lexicon names a header that is one of its words ("Gold": 金メダル), or an English
    # header that holds one as a word ("Height (m)"); never a Japanese name's inside (社員ID)
    for group in BILINGUAL:
        exact = [c.name for c in columns if normalize(c.name).strip().replace("_", " ")
                 in group]
        holding = [c.name for c in columns if c.name.isascii() and any(
            _holds(normalize(c.name), w) for w in group if w.isascii())]
        owners = exact if len(exact) == 1 else holding if len(set(holding)) == 1 else []
        for word in group:
            if owners and word not in surfaces:
                surfaces[word] = owners[0]
    return surfaces


def _holds(name: str, word: str) -> bool:
    if word.isascii():
        return word in re.split(r"[\s_()./-]+", name) or word.replace(" ", "_") in name
    return word in name


def values_of(column: ColumnProfile) -> list[Any]:
    """The values a question may name of a text column (all of them, or its most frequent)."""
    return [v for v in (column.values or [t.value for t in column.top_values]) if v is not None]


def _candidates(low: str, profile: DatasetProfile, cased: str) -> list[Match]:
    found: list[Match] = []
    # a value that is also a word of a column's name ("Hotel" of hotel_type) names the
    # column's kind of thing ("reviews per hotel") unless written as the value is
    name_words = {w for c in profile.columns for w in re.split(r"[\s_]+", normalize(c.name))}

    def add(surface: str, kind: str, value: Any, exact: str | None = None) -> None:
        for hit in _boundary(surface).finditer(low):
            if exact is None or cased[hit.start():hit.start() + len(exact)] == exact:
                found.append(Match(hit.start(), hit.end(), kind, value, hit.group()))

    for surface, name in column_surfaces(profile.columns).items():
        add(surface, "column", name)
    for column in profile.columns:  # 仕入先 written 仕入れ先, 売上高 売り上げ高 (okurigana)
        kanji = normalize(column.name).strip()
        if len(kanji) >= 2 and all("\u3400" <= ch <= "\u9fff" for ch in kanji):
            written = "[ぁ-ん]{0,2}".join(re.escape(ch) for ch in kanji)
            for hit in re.finditer(written, low):
                if hit.group() != kanji:
                    found.append(Match(hit.start(), hit.end(), "column", column.name,
                                       hit.group()))
    for column in profile.columns:  # "wind speed" names WINDSPEED, "size rank" SizeRank
        compact = re.sub(r"[\s_-]+", "", normalize(column.name))
        if len(compact) >= 6 and compact.isascii() and compact.isalnum():
            spaced = r"[\s_-]?".join(re.escape(ch) for ch in compact)
            for hit in re.finditer(rf"(?<![a-z0-9_]){spaced}(?:s|es)?(?![a-z0-9_])", low):
                found.append(Match(hit.start(), hit.end(), "column", column.name, hit.group()))
    words = vocab.terms()
    for column in profile.columns:
        if column.dtype != "string":
            continue
        for value in values_of(column):
            text = normalize(str(value)).strip()
            # a value that is also an everyday word ("no", "other") counts only when quoted
            if len(text) > 1 and not text.isdigit() and text not in words \
                    and text not in vocab.FILLER_EN:
                exact = unicodedata.normalize("NFKC", str(value)).strip()
                add(text, "value", (column.name, value),
                    exact if text in name_words and len(cased) == len(low) else None)
    for token, owner in _value_words(profile, words, name_words).items():
        add(token, "part", owner)  # "amanda": a word of the value "Amanda Holden"
    for surface, (kind, value) in words.items():
        add(surface, kind, value)
    for pattern, kind in ((_LIMIT, "limit"), (_WINDOW, "window")):
        for hit in pattern.finditer(low):
            number = next(g for g in hit.groups() if g)
            found.append(Match(hit.start(), hit.end(), kind,
                               _NUMBER_WORDS.get(number) or int(number), hit.group()))
    for pattern, grain in ((_YEAR_MONTH, "M"), (_YEAR, "Y"), (_MONTH, "month")):
        for hit in pattern.finditer(low):
            parts = [int(g) for g in hit.groups()]
            if grain == "month" and not 1 <= parts[0] <= 12:
                continue
            found.append(Match(hit.start(), hit.end(), "date", (grain, parts), hit.group()))
    for hit in _MONTH_WORD.finditer(low):
        month = [m[:3] for m in _MONTH_NAMES].index(hit.group(1)[:3]) + 1
        found.append(Match(hit.start(), hit.end(), "date", ("month", [month]), hit.group()))
    return found + _conditions(low)


def _value_words(profile: DatasetProfile, words: dict[str, Any],
                 name_words: set[str]) -> dict[str, tuple[str, str]]:
    """The words of text values ("amanda" of "Amanda Holden") that belong to one column
    only and are no analysis word, each with its column and the word."""
    owners: dict[str, set[str]] = {}
    spread: dict[str, int] = {}  # how many values hold the word
    for column in profile.columns:
        if column.dtype != "string":
            continue
        for value in values_of(column):
            for token in set(re.split(r"[^a-z0-9\u3040-\u9fff'-]+", normalize(str(value)))):
                if len(token) >= 4 and not token.isdigit() and token not in words \
                        and token not in vocab.FILLER_EN and token not in name_words:
                    owners.setdefault(token, set()).add(column.name)
                    spread[token] = spread.get(token, 0) + 1
    # a word of many values ("episode" of "Eliminated in Episode 3") is a common word, not
    # the name of a thing
    return {t: (next(iter(c)), t) for t, c in owners.items() if len(c) == 1 and spread[t] <= 2}


_PRIORITY = {"quoted": 0, "date": 1, "column": 2, "value": 3, "limit": 4, "window": 4,
             "part": 6}


def bind(question: str, profile: DatasetProfile, table_name: str = "") -> Bound:
    """``question``'s words bound to ``profile``'s columns and values and to the analysis
    words, and what bound to nothing (a word of the table's file name is no part: "the
    fares on the Titanic" of titanic.csv)."""
    low = normalize(question)
    bound = Bound(question, [])
    taken: list[tuple[int, int]] = []
    names = {normalize(c.name): c.name for c in profile.columns}
    for hit in _QUOTED.finditer(low):  # a quoted name is a column first, then a value
        inner = hit.group(1).strip()
        column = names.get(inner)
        value = next(((c.name, v) for c in profile.columns if c.dtype == "string"
                      for v in values_of(c) if normalize(str(v)) == inner), None)
        named_column = re.match(r"\s*(?:column|列)", low[hit.end():]) is not None
        if column is not None:
            bound.matches.append(Match(*hit.span(), "column", column, hit.group()))
        elif named_column:  # "the "JAMES LOGAN" column": no such column, whatever its values
            bound.unknown_quoted.append(inner)
            taken.append(hit.span())
            continue
        elif value is not None:
            bound.matches.append(Match(*hit.span(), "value", value, hit.group()))
        else:
            continue  # unquoted, its words are bound one by one below
        taken.append(hit.span())
    cased = unicodedata.normalize("NFKC", question)
    candidates = sorted(_candidates(low, profile, cased), key=lambda m: (
        -(m.end - m.start), _PRIORITY.get(m.kind, 5), m.start))
    for match in candidates:
        if all(match.end <= s or match.start >= e for s, e in taken):
            taken.append((match.start, match.end))
            bound.matches.append(match)
    bound.matches.sort(key=lambda m: m.start)
    _aggregating(bound, low)
    _described(bound, low, taken)
    named = set(re.split(r"[^a-z0-9\u3040-\u9fff]+", normalize(table_name)))
    if enumerated := re.match(r"\s*\d{1,2}[.)]\s", low):  # "2. Is there ...": a list's number
        taken.append(enumerated.span())
    bound.unused = [w for w in _unused(low, taken) if w not in named]
    for hit in _QUOTED.finditer(low):
        if not any(s <= hit.start(1) < e for s, e in taken):
            bound.unknown_quoted.append(hit.group(1).strip())
    return bound


def _aggregating(bound: Bound, low: str) -> None:
    """"the total number of bronze medals" on a table with a Total column: a column named
    like an aggregation, right before another column or "number of", is the aggregation."""
    words = vocab.terms()
    for i, m in enumerate(bound.matches):
        term = words.get(m.text)
        after = bound.matches[i + 1] if i + 1 < len(bound.matches) else None
        if m.kind == "column" and term is not None and term[0] == "agg" and after is not None \
                and after.kind in ("column", "agg") and not low[m.end:after.start].strip():
            bound.matches[i] = Match(m.start, m.end, term[0], term[1], m.text)


def _described(bound: Bound, low: str, taken: list[tuple[int, int]]) -> None:
    _describing(bound, low, taken)
    _bracketed(bound, low, taken)


def _describing(bound: Bound, low: str, taken: list[tuple[int, int]]) -> None:
    """"the "compound" sentiment score column": words between a column and the word column
    describe it."""
    for m in bound.matches:
        if m.kind != "column":
            continue
        if hit := re.match(r"-[a-z]+(?![a-z0-9_])", low[m.end:]):  # "X-coordinate"
            taken.append((m.end, m.end + hit.end()))
        if hit := re.match(r"[\s\"”']*([a-z][a-z0-9 _-]{0,40}?)\s+(?:column|variable|field)s?\b",
                           low[m.end:]):
            start = m.end + hit.start(1)
            if all(p.end <= start or p.start >= m.end + hit.end(1) for p in bound.matches):
                taken.append((start, m.end + hit.end(1)))


def _bracketed(bound: Bound, low: str, taken: list[tuple[int, int]]) -> None:
    """"ticket class (Pclass)": the words before a column in brackets describe it; a column
    they happen to name (Ticket) is not meant, and they are not left over."""
    for m in [m for m in bound.matches if m.kind == "column"]:
        if not (re.search(r"\(\s*$", low[:m.start]) and re.match(r"\s*\)", low[m.end:])):
            continue
        opening = low.rindex("(", 0, m.start)
        start = opening
        while start > 0 and re.match(r"[a-z0-9_ \u3040-\u9fff-]", low[start - 1]):
            if any(p.kind != "column" and p.start <= start - 1 < p.end for p in bound.matches):
                break
            start -= 1
        bound.matches = [p for p in bound.matches if not (
            p.kind == "column" and start <= p.start and p.end <= opening)]
        taken.append((start, opening))


def _unused(low: str, taken: list[tuple[int, int]]) -> list[str]:
    """The words outside every match that carry meaning (not filler, not kana particles)."""
    mask = list(low)
    for start, end in taken:
        mask[start:end] = " " * (end - start)
    rest = "".join(mask)
    words = [w.strip("'’-") for w in _EN_WORD.findall(rest)]
    unused = [w for w in words if w and w not in vocab.FILLER_EN
              and w.removesuffix("s") not in vocab.FILLER_EN and len(w) > 1]
    unused += [w for w in _JA_RUN.findall(rest) if w not in vocab.FILLER_JA]
    # a number or a name with symbols no match took ("the 1990's", "u&i") is a part too
    unused += [w for w in _ODD_TOKEN.findall(rest) if w not in unused]
    return list(dict.fromkeys(unused))


_ODD_TOKEN = re.compile(r"(?<![\w&])(?:[a-z0-9]+[&+][a-z0-9&+]+|\d[\d,.]*(?:'?s)?)(?![\w&])"
                        r"|(?<!\S)[#@&*]+(?!\S)")


def closest_columns(word: str, profile: DatasetProfile, n: int = 3) -> list[str]:
    """Real columns whose names are a near spelling of ``word`` ("regoin": region)."""
    lowered = {normalize(c.name): c.name for c in profile.columns}
    near = difflib.get_close_matches(normalize(word), list(lowered), n=n, cutoff=0.8)
    return [lowered[x] for x in near]


def is_ja(text: str) -> bool:
    """Whether the text holds kana or kanji (the answer is then in Japanese)."""
    return any("\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" for c in text)


def numeric(profile: DatasetProfile) -> list[str]:
    return [c.name for c in profile.columns if c.dtype in NUMERIC]
