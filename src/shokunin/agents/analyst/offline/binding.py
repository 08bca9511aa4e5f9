"""Binding a question's words to a table: each stretch of the question becomes a column, a
value of a column, a date, a number or an analysis word, matched whole (an English word never
inside another: "ignore" holds no "no", "atmospheric" no "at"), longest first, a quoted name a
column before anything else. What is left over and carries meaning is kept, so the answer can
name it.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from shokunin.agents.analyst.offline import vocabulary as vocab
from shokunin.agents.analyst.profile import ColumnProfile, DatasetProfile

NUMERIC = {"integer", "float"}
_QUOTED = re.compile(r"[\"“「『'‘]([^\"”」』'’]{1,80})[\"”」』'’]")
_YEAR_MONTH = re.compile(r"(?<!\d)(\d{4})\s*(?:[-/.]|年)\s*(\d{1,2})(?:\s*月)?(?![\d])")
_YEAR = re.compile(r"(?<![\d.])((?:19|20)\d{2})(?:\s*年(?!代)|(?![\d.%年]))")
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


def _boundary(surface: str) -> str:
    """A regex for ``surface`` as a whole word: an ASCII edge never touches a letter or digit
    (an English plural is allowed), a Japanese edge may touch anything."""
    body = re.escape(surface)
    head = r"(?<![a-z0-9_])" if surface[:1].isascii() and surface[:1].isalnum() else ""
    tail = r"(?:s|es)?(?![a-z0-9_])" if surface[-1:].isascii() and surface[-1:].isalnum() else ""
    return head + body + tail


def _column_surfaces(columns: list[ColumnProfile]) -> dict[str, str]:
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
    for group in vocab.SYNONYMS:
        exact = [c.name for c in columns if normalize(c.name).replace("_", " ") in group]
        holding = [c.name for c in columns if any(_holds(normalize(c.name), w) for w in group)]
        owners = exact if len(exact) == 1 else holding if len(set(holding)) == 1 else []
        for word in group:
            if owners and word not in surfaces:
                surfaces[word] = owners[0]
    return surfaces


def _holds(name: str, word: str) -> bool:
    if word.isascii():
        return word in re.split(r"[\s_()./-]+", name) or word.replace(" ", "_") in name
    return word in name


def _values(column: ColumnProfile) -> list[Any]:
    return [v for v in (column.values or [t.value for t in column.top_values]) if v is not None]


def _candidates(low: str, profile: DatasetProfile, cased: str) -> list[Match]:
    found: list[Match] = []
    # a value that is also a word of a column's name ("Hotel" of hotel_type) names the
    # column's kind of thing ("reviews per hotel") unless written as the value is
    name_words = {w for c in profile.columns for w in re.split(r"[\s_]+", normalize(c.name))}

    def add(surface: str, kind: str, value: Any, exact: str | None = None) -> None:
        for hit in re.finditer(_boundary(surface), low):
            if exact is None or cased[hit.start():hit.start() + len(exact)] == exact:
                found.append(Match(hit.start(), hit.end(), kind, value, hit.group()))

    for surface, name in _column_surfaces(profile.columns).items():
        add(surface, "column", name)
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
        for value in _values(column):
            text = normalize(str(value)).strip()
            # a value that is also an everyday word ("no", "other") counts only when quoted
            if len(text) > 1 and not text.isdigit() and text not in words \
                    and text not in vocab.FILLER_EN:
                exact = unicodedata.normalize("NFKC", str(value)).strip()
                add(text, "value", (column.name, value),
                    exact if text in name_words and len(cased) == len(low) else None)
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
        number = [m[:3] for m in _MONTH_NAMES].index(hit.group(1)[:3]) + 1
        found.append(Match(hit.start(), hit.end(), "date", ("month", [number]), hit.group()))
    return found


_PRIORITY = {"quoted": 0, "date": 1, "column": 2, "value": 3, "limit": 4, "window": 4}


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
                      for v in _values(c) if normalize(str(v)) == inner), None)
        if column is not None:
            bound.matches.append(Match(*hit.span(), "column", column, hit.group()))
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
    _described(bound, low, taken)
    named = set(re.split(r"[^a-z0-9\u3040-\u9fff]+", normalize(table_name)))
    bound.unused = [w for w in _unused(low, taken) if w not in named]
    for hit in _QUOTED.finditer(low):
        if not any(s <= hit.start(1) < e for s, e in taken):
            bound.unknown_quoted.append(hit.group(1).strip())
    return bound


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
    return list(dict.fromkeys(unused))


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
