"""The end of an offline cell: its chart and its answer, in the question's language.

The chart's words (title, axes, legend) are chosen here from the query, and drawn by the
cell's ``_chart``; ``_answer`` keeps the cell's tables and values with what was asked
(``spec``), from which the report's sentence and table are written (``answer.py``): every
number a person reads comes from running the cell, never from the plan.
"""

from __future__ import annotations

from typing import Any

from shokunin.agents.analyst import labels as words
from shokunin.agents.analyst.numbers import unit_of
from shokunin.agents.analyst.offline.query import Query

_SPEC_FIELDS = ("measures", "aggs", "group", "time", "grain", "compare", "window", "order",
                "limit", "label", "per_period", "test")
# what each computation hands to _answer: its tables, then its values (code on ``data``)
_ANSWERED = {
    "overview": "types, data.describe().T, rows=len(data), columns=data.shape[1]",
    "missing": "table", "correlation": "table", "normality": "table", "distribution": "table",
    "ttest": "table, t=t, p=p", "chi2": "table, chi2=chi2, dof=dof, p=p", "crosstab": "table",
    "rows": "table", "series": "table", "grouped": "table", "overall": "table", "count": "table",
    "lookup": "table, found=found",
}


def scope(q: Query, ja: bool, periods: bool = True) -> str:
    """The rows the question keeps, in words: 「東京本店、2024年3月」, "North, 2024-03"
    (without its periods, unless ``periods``)."""
    said = []
    for f in q.filters:
        if f.period is not None and not periods or f.op == "not in":
            continue  # a total row left out is said in the details, not in the answer
        text = f.say(ja)
        if f.period is None and text == f"{f.column} = {f.value}":
            text = str(f.value)  # 「東京本店の売上」, not 「店舗 = 東京本店 の売上」
        said.append(text)
    return ("、" if ja else ", ").join(said)


def spec(q: Query, ja: bool, kind: str) -> dict[str, Any]:
    """What was asked, for the report: the query's parts that are set, its computation
    (``kind``, ``code.path``) and the rows it keeps."""
    asked: dict[str, Any] = {"kind": kind, "ja": ja}
    asked.update({name: getattr(q, name) for name in _SPEC_FIELDS if getattr(q, name, None)})
    if q.filters:
        asked["scope"] = scope(q, ja)
        asked["scope_values"] = scope(q, ja, periods=False)
    return asked


def _unit_said(name: str, ja: bool) -> str:
    symbol = unit_of(name, None, ja).symbol
    return "" if not symbol else (f"、{symbol}" if ja else f", {symbol}")


def _value_word(q: Query, ja: bool) -> str:
    measure = q.measures[0] if q.measures else None
    agg = q.aggs[0] if q.aggs and measure else None
    said = words.measure_word(measure, agg, ja).strip()
    unit = _unit_said(measure, ja) if measure else ""
    if unit and said.endswith(("）", ")")):
        return f"{said[:-1]}{unit}{said[-1]}"
    return said


def chart(q: Query, ja: bool, kind: str) -> dict[str, Any] | None:
    """The chart of ``q``'s table, in its words: None when a table is better alone."""
    value = _value_word(q, ja)
    where = scope(q, ja)
    lead = f"{words.spaced(where, ja)}の" if ja and where else ""
    tail = f" ({where})" if where and not ja else ""
    if kind in ("normality", "distribution") and q.measures:
        measure = q.measures[0]
        return {"kind": "hist", "ja": ja, "x": measure, "y": words.word(words.STAT, "rows", ja),
                "title": f"{lead}{words.spaced(measure, ja)}の分布" if ja else
                f"Distribution of {measure}{tail}"}
    if kind == "series" and not q.per_period:
        grain = words.word(words.GRAIN_BY, q.grain, ja) if q.grain else ""
        rate = next((words.rate_word(key, q.grain, ja) for key, compare in (
            ("change_%", "previous"), ("yoy_%", "yoy"), ("share_%", "share"))
            if q.compare == compare), "")
        labels = {"value" if q.compare else q.measures[0] if q.measures else "rows": value}
        if q.compare == "cumulative":
            labels["cumulative"] = words.word(words.STAT, "cumulative", ja)
        for key, compare in (("change_%", "previous"), ("yoy_%", "yoy"), ("share_%", "share")):
            if q.compare == compare:
                labels[key] = rate
        if q.compare == "moving":
            window = q.window or {"D": 7, "W": 4, "M": 3, "Q": 4, "Y": 3}.get(q.grain or "", 3)
            labels[f"moving_avg_{window}"] = words.moving_word(window, q.grain, ja)
        if ja:
            title = f"{lead}{grain + 'の' if grain else ''}{words.spaced(value, ja)}" + (
                f"と{rate}" if rate else "")
        else:
            title = f"{grain + ' ' if grain else ''}{value}" + (f" and {rate.lower()}" if rate
                                                                 else "") + tail
        return {"kind": "line", "ja": ja, "title": title, "x": q.time or "", "y": value,
                "rate": f"{rate}（%）" if ja and rate else f"{rate} (%)" if rate else "",
                "labels": labels}
    if kind in ("grouped", "count") and q.group:
        # the table's first column: rows, the measure, or agg_measure when it has several
        first = "rows" if kind == "count" or not q.measures else (
            q.measures[0] if len(q.measures) * len(q.aggs) <= 1 else
            f"{q.aggs[0]}_{q.measures[0]}")
        title = (f"{lead}{words.spaced(q.group, ja)}別の{words.spaced(value, ja)}" if ja else
                 f"{value} by {q.group}{tail}")
        drawn = {"kind": "bar", "ja": ja, "title": title, "x": q.group, "y": value,
                 "labels": {first: value}}
        if q.compare == "share":
            share = words.word(words.STAT, "share_%", ja)
            drawn["labels"]["share_%"] = share
            drawn["rate"] = f"{share}（%）" if ja else f"{share} (%)"
        return drawn
    return None


def shown(q: Query, ja: bool, kind: str) -> str:
    """The code after the computation ``kind`` (``code.path``) of ``q``, on ``data``: its
    chart, then its answer."""
    code = ""
    drawn = chart(q, ja, kind)
    if drawn is not None:
        drawn["title"] = drawn["title"].strip()
        what = f"data[{q.measures[0]!r}]" if drawn["kind"] == "hist" else "table"
        code += f"_chart({what}, {drawn!r})\n"
    asked = spec(q, ja, kind)
    if kind == "count" and q.group is None:
        of = ", of_rows=all_rows" if q.compare == "share" else ""  # 「…の割合」
        code += f"_answer({asked!r}, rows=len(data){of})\n"
    elif kind in ("normality", "distribution") and q.aggs:
        code += f"_answer({asked!r}, table, stats_table)\n"
    elif kind in _ANSWERED:
        code += f"_answer({asked!r}, {_ANSWERED[kind]})\n"
    return code
