"""The Analyst's offline brain: reads a question (Japanese or English) against the dataset's
columns and writes the pandas code that answers it, so every number comes from running it.

Understood: an overview (shape, types, missing values, describe), an aggregate (sum, mean,
count, median, min, max) of a numeric column, by a named column or overall, the top N rows
or groups, a correlation, a distribution. A column is found by its name in the question
(either language, longest first) or by closeness (difflib) to a word the question uses as
one; a name that matches none is asked about with the closest column, and a question too
vague to act on ("合計を出して" over several numeric columns) is asked about too.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from shokunin.agents.analyst.profile import DatasetProfile

NUMERIC = {"integer", "float"}
_AGGREGATES = {  # pandas name: (English words, Japanese words)
    "sum": (("sum", "total"), ("合計", "総額", "総計", "合算")),
    "mean": (("average", "mean"), ("平均",)),
    "median": (("median",), ("中央値",)),
    "min": (("minimum", "lowest", "smallest", "min"), ("最小", "最低")),
    "max": (("maximum", "highest", "largest", "max"), ("最大", "最高")),
    "count": (("count", "how many", "number of"), ("件数", "何件", "数を", "個数", "何行")),
}
_OVERVIEW = (("overview", "summary", "summarize", "summarise", "describe", "profile",
              "statistics"), ("概要", "要約", "基本統計", "統計量", "全体像", "まとめ"))
_CORRELATION = (("correlation", "correlate", "relationship"), ("相関", "関係"))
_CROSSTAB = (("crosstab", "cross tab", "cross-tab", "pivot", "cross tabulation"),
             ("クロス集計", "クロス表", "ピボット", "クロス"))
_DISTRIBUTION = (("distribution", "histogram", "spread"), ("分布", "ヒストグラム", "ばらつき"))
_TREND = (("trend", "over time", "by month", "monthly", "per month", "by date", "daily"),
          ("推移", "トレンド", "月別", "月ごと", "時系列", "日別", "毎月"))
_TIME_NAMES = {"month", "date", "year", "day", "年月", "日付", "月", "年"}
_TIME_WORDS = _TIME_NAMES | {"months", "dates", "years", "days", "time", "日", "週", "week"}
_TOP = re.compile(r"(?:top|first|best|largest|biggest|上位|トップ|ベスト) ?(\d{1,3})"
                  r"|(\d{1,3}) ?(?:largest|biggest|highest|best)")
_BY_EN = re.compile(r"(?:by|per|for each|each|across) (?:the )?([\w]+(?: [\w]+)?)")
_BY_JA = re.compile(r"([^\s、。,.「」]{1,20}?)(?:別|ごと|毎|単位)")


@dataclass
class Clarify:
    question: str


_JA_FUNC = {"sum": "合計", "mean": "平均", "median": "中央値", "min": "最小値", "max": "最大値",
            "count": "件数"}


def _say(ja: bool, en: str, japanese: str) -> str:
    return japanese if ja else en


def is_ja(text: str) -> bool:
    """Whether the text holds kana or kanji (the answer is then in Japanese)."""
    return any("\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" for c in text)


@dataclass
class Task:
    """What to compute, in words (``instruction``) and as code on ``df``; ``columns`` are
    the ones the code reads (None: it reads the whole table)."""

    instruction: str
    code: str
    columns: list[str] | None = None


@dataclass
class NotUnderstood:
    understood: str  # what it did make of the question, for an honest answer


def _has(low: str, words: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    return any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", low) for w in words[0]) or any(
        w in low for w in words[1])


def _mentioned(question: str, names: list[str]) -> list[str]:
    """Columns named in the question, in the order named, each stretch read once."""
    low = question.lower()
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, str]] = []
    for name in sorted(names, key=len, reverse=True):
        for hit in re.finditer(re.escape(name.lower()), low):
            if all(hit.end() <= s or hit.start() >= e for s, e in taken):
                taken.append(hit.span())
                found.append((hit.start(), name))
    return [name for _at, name in sorted(found)]


def _closest(word: str, names: list[str]) -> str | None:
    lowered = {n.lower(): n for n in names}
    hit = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[hit[0]] if hit else None


def _group_word(question: str) -> str | None:
    """The word the question groups by ("by region", 「地域別」), whatever it names."""
    if m := _BY_JA.search(question):  # 「売上高の月別」: the word right before 別
        return re.split(r"[のをはがで]", m.group(1))[-1] or None
    if m := _BY_EN.search(question.lower()):
        return m.group(1)
    return None


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


_DATE_VALUE = re.compile(r"(?<![\d-])(\d{4}-\d{2}(?:-\d{2})?|\d{4}年\d{1,2}月)(?![\d-])")
_QUOTED = re.compile(r"[\"“「『']([^\"”」』']{1,60})[\"”」』']")


def _filters(question: str, profile: DatasetProfile) -> list[tuple[str | None, str]]:
    """The values the question narrows the table to, with their column when the profile
    knows it (a frequent value of a text column), else None (found in the data)."""
    found: list[tuple[str | None, str]] = []
    for hit in _DATE_VALUE.finditer(question):
        text = hit.group(1)
        if "年" in text:  # 2024年3月 -> 2024-03
            year, month = re.findall(r"\d+", text)
            text = f"{year}-{int(month):02d}"
        found.append((None, text))
    found += [(None, q) for q in _QUOTED.findall(question)]
    low = question.lower()
    for column in profile.columns:
        if column.dtype != "string":
            continue
        for top in column.top_values:
            value = str(top.value)
            if len(value) > 1 and value.lower() in low and all(v != value for _c, v in found):
                found.append((column.name, value))
    return found


def _narrowed(filters: list[tuple[str | None, str]], task: Task, ja: bool) -> Task:
    """``task`` on the rows the filters keep, saying so in its instruction."""
    if not filters:
        return task
    lines = ["_whole = df  # the filters narrow this cell's df only"]
    for column, value in filters:
        if column is not None:
            lines.append(f"df = df[df[{_literal(column)}].astype(str) == {_literal(value)}]")
        else:  # the first text column holding the value (a date prefix like 2024-03 too)
            lines += [f"_hit = next((c for c in df.columns if df[c].astype(str)"
                      f".str.startswith({_literal(value)}).any()), None)",
                      f"if _hit is None:\n    raise LookupError('no column holds the value ' "
                      f"+ {_literal(repr(value))})",
                      f"df = df[df[_hit].astype(str).str.startswith({_literal(value)})]"]
    lines.append("print(f'{len(df)} rows kept')")
    kept = ", ".join(f"{c} = {v}" if c else v for c, v in filters)
    body = "\n".join("    " + line for line in task.code.splitlines())
    where = f"（{kept} の行）" if ja else f" (rows where {kept})."
    named = [c for c, _ in filters]
    columns = (None if task.columns is None or None in named
               else list(dict.fromkeys([*task.columns, *named])))
    return Task(task.instruction.rstrip(".。") + where,
                "\n".join(lines) + f"\ntry:\n{body}\nfinally:\n    df = _whole", columns)


def plan(question: str, profile: DatasetProfile) -> Task | Clarify | NotUnderstood:
    """The task that answers ``question`` on a table of ``profile``, or what to ask."""
    ja = is_ja(question)
    task = _plan(question, profile, ja)
    return _narrowed(_filters(question, profile), task, ja) if isinstance(task, Task) else task


def _plan(question: str, profile: DatasetProfile, ja: bool) -> Task | Clarify | NotUnderstood:
    names = [c.name for c in profile.columns]
    numeric = [c.name for c in profile.columns if c.dtype in NUMERIC]
    dates = [c.name for c in profile.columns if c.dtype == "datetime"]
    low = question.lower()
    named = _mentioned(question, names)
    group = None
    word = _group_word(question)
    if word is not None and any(n.lower() in word.lower() for n in numeric):
        # "top 3 stores by total revenue": "by" names the measure; the groups are the
        # column named before it ("stores": the store column)
        group = next((n for n in names if n not in numeric and re.search(
            rf"(?<![a-z]){re.escape(n.lower())}s?(?![a-z])", low)), None)
        word = None
    if word is not None:
        group = next((n for n in named if n.lower() in word.lower()), None) or next(
            (n for n in names if word.lower() in n.lower()), None)  # 「月別」: the 年月 column
        # a group word that names no column is asked about, never dropped ("by month"
        # in a trend is the time column, found below)
        if group is None and not (_has(low, _TREND) and word.lower() in _TIME_WORDS):
            close = _closest(word, names)
            return Clarify(
                f"「{word}」という列はありません。"
                + (f"「{close}」のことですか？" if close else "")
                + f"列: {'、'.join(names)}" if is_ja(question) else
                f"There is no column “{word}”." + (f" Did you mean “{close}”?" if close else "")
                + f" Columns: {', '.join(names)}.")
    values = [n for n in named if n in numeric and n != group]
    funcs = [f for f, words in _AGGREGATES.items() if _has(low, words)]
    top = _TOP.search(low)
    if _has(low, _CROSSTAB):
        labels = [n for n in named if n not in numeric]
        if len(labels) < 2:
            return Clarify(_say(ja, "Which two columns should the crosstab have? Columns: "
                                f"{', '.join(names)}.",
                                f"クロス集計の縦と横はどの列にしますか？列: {'、'.join(names)}"))
        return _crosstab(labels[0], labels[1], values[0] if values else None,
                         funcs[0] if funcs else "sum", ja)
    if _has(low, _CORRELATION):
        return _correlation(values if len(values) >= 2 else numeric, ja)
    if _has(low, _DISTRIBUTION) and (values or len(numeric) == 1):
        return _distribution((values or numeric)[0], ja)
    trend = _has(low, _TREND)
    if trend and group is None:  # over the table's time column
        group = dates[0] if dates else next((n for n in names if n.lower() in _TIME_NAMES), None)
    if funcs == ["count"] and not values:  # rows: in all, or per group
        return _count(group, ja)
    if funcs or top or group:
        if not values:
            if len(numeric) != 1:
                ja = is_ja(question)
                what = (funcs[0] if funcs else "rank") if not ja else (
                    "どの列で集計" if funcs else "どの列で順位付け")
                return Clarify(
                    f"{what}しますか？数値の列: {'、'.join(numeric)}" if ja and numeric else
                    f"Which column should I {what}? Numeric columns: {', '.join(numeric)}."
                    if numeric else ("数値の列がありません。" if ja else
                                     "The table has no numeric column."))
            values = numeric
        n = int(top.group(1) or top.group(2)) if top else None
        if trend and group is not None:
            return _trend(funcs[0] if funcs else "sum", values[0], group, ja)
        return _aggregate(funcs or (["sum"] if group else []), values[0], group, n, ja)
    if _has(low, _OVERVIEW) or not low.strip():
        return _overview(ja)
    understood = f"columns named: {', '.join(named)}" if named else "no column named"
    return NotUnderstood(understood + (f"; dates in {', '.join(dates)}" if dates else ""))


def _overview(ja: bool) -> Task:
    code = ("print(f'{len(df)} rows x {df.shape[1]} columns')\n"
            "types = pd.DataFrame({'dtype': df.dtypes.astype(str), "
            "'missing': df.isna().sum(), 'missing_share': df.isna().mean().round(3)})\n"
            "TABLE_MARKDOWN.append(_md(types))\n"
            "TABLE_MARKDOWN.append(_md(df.describe().T.round(3)))\n"
            "JSON_OUT.append({'rows': len(df), 'columns': int(df.shape[1])})")
    return Task(_say(ja, "Overview: shape, column types, missing values and describe().",
                     "概要: 行数と列数、列の型、欠損値、基本統計量。"), code)


def _aggregate(funcs: list[str], value: str, group: str | None, top: int | None,
               ja: bool) -> Task:
    col = _literal(value)
    if group is None and top is not None:  # the top rows by the value
        code = (f"result = df.sort_values({col}, ascending=False).head({top})\n"
                "TABLE_MARKDOWN.append(_md(result))\n"
                f"print(result[{col}].tolist())")
        return Task(_say(ja, f"The {top} rows with the largest {value}.",
                         f"{value} が大きい上位 {top} 行。"), code)  # whole rows are shown
    func = funcs[0] if funcs else "sum"
    if group is None:
        code = (f"value = df[{col}].{func}()\n"
                f"print({_literal(f'{func} of {value}:')}, value)\n"
                f"JSON_OUT.append({{'{func}': value.item() if hasattr(value, 'item') else value}})")
        return Task(_say(ja, f"The {func} of {value}.", f"{value} の{_JA_FUNC[func]}。"),
                    code, [value])
    by = _literal(group)
    code = (f"result = df.groupby({by})[{col}].agg({_literal(funcs or [func])})\n"
            f"result = result.sort_values({_literal((funcs or [func])[0])}, ascending=False)\n"
            + (f"result = result.head({top})\n" if top else "")
            + "TABLE_MARKDOWN.append(_md(result.round(3)))\n"
            "print(result.round(3).to_string())\n"
            "JSON_OUT.append({str(k): {f: (v.item() if hasattr(v, 'item') else v) "
            "for f, v in row.items()} for k, row in result.iterrows()})")
    what = " and ".join(funcs or [func])
    what_ja = "・".join(_JA_FUNC[f] for f in funcs or [func])
    return Task(_say(ja, f"The {what} of {value} by {group}" + (f", top {top}" if top else "")
                     + ".", f"{group} 別の {value} の{what_ja}"
                     + (f"（上位 {top}）" if top else "") + "。"),
                code, [value, group])


def _correlation(columns: list[str], ja: bool) -> Task:
    code = (f"result = df[{_literal(columns)}].corr().round(3)\n"
            "TABLE_MARKDOWN.append(_md(result))\n"
            "print(result.to_string())")
    return Task(_say(ja, f"Correlations between {', '.join(columns)}.",
                     f"{'、'.join(columns)} の相関。"), code, columns)


def _distribution(column: str, ja: bool) -> Task:
    col = _literal(column)
    code = (f"print(df[{col}].describe().round(3).to_string())\n"
            "import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots(figsize=(6, 3.5))\n"
            f"df[{col}].plot.hist(ax=ax, bins=20)\n"
            f"ax.set_xlabel({col})\n"
            "plt.show()")
    return Task(_say(ja, f"The distribution of {column} (describe and a histogram).",
                     f"{column} の分布（基本統計量とヒストグラム）。"), code, [column])


def _trend(func: str, value: str, over: str, ja: bool) -> Task:
    col, by = _literal(value), _literal(over)
    code = (f"result = df.groupby({by})[{col}].agg({_literal(func)}).sort_index()\n"
            "change = result.pct_change().mul(100).round(1)\n"
            f"table = pd.DataFrame({{{_literal(func)}: result.round(3), 'change_%': change}})\n"
            "TABLE_MARKDOWN.append(_md(table))\n"
            "print(table.to_string())\n"
            "import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots(figsize=(7, 3.5))\n"
            "result.plot(ax=ax, marker='o')\n"
            f"ax.set_ylabel({_literal(f'{func} of {value}')})\n"
            "plt.show()")
    return Task(_say(ja, f"The {func} of {value} over {over}, with the change from one to "
                     "the next (%), as a table and a line chart.",
                     f"{over} ごとの {value} の{_JA_FUNC[func]}の推移と前期比（%）、表と折れ線"
                     "グラフ。"), code, [value, over])


def _count(group: str | None, ja: bool) -> Task:
    if group is None:
        code = "print(f'{len(df)} rows')\nJSON_OUT.append({'rows': len(df)})"
        return Task(_say(ja, "The number of rows.", "行数。"), code)
    by = _literal(group)
    code = (f"result = df.groupby({by}).size().sort_values(ascending=False).rename('rows')\n"
            "TABLE_MARKDOWN.append(_md(result))\n"
            "print(result.to_string())")
    return Task(_say(ja, f"The number of rows per {group}.", f"{group} ごとの行数。"), code,
                [group])


def _crosstab(rows: str, columns: str, value: str | None, func: str, ja: bool) -> Task:
    a, b = _literal(rows), _literal(columns)
    measure = (f", values=df[{_literal(value)}], aggfunc={_literal(func)}" if value else "")
    code = (f"result = pd.crosstab(df[{a}], df[{b}]{measure})\n"
            "TABLE_MARKDOWN.append(_md(result.round(3)))\n"
            "print(result.round(3).to_string())")
    what = (f"the {func} of {value}" if value else "row counts")
    what_ja = (f"{value} の{_JA_FUNC[func]}" if value else "件数")
    return Task(_say(ja, f"A crosstab of {what}: {rows} by {columns}.",
                     f"{rows} × {columns} のクロス集計（{what_ja}）。"),
                code, [rows, columns, *([value] if value else [])])
