"""The typed query the offline Analyst reads a question into, and the three things it can
make of a question: a ``Task`` to run, a ``Clarify`` question to ask (naming real columns),
or ``NotUnderstood`` (what it understood, and what it cannot do offline)."""

from __future__ import annotations

from dataclasses import dataclass, field

_AGG_JA = {"sum": "合計", "mean": "平均", "median": "中央値", "min": "最小値", "max": "最大値",
           "count": "件数", "std": "標準偏差（不偏、n−1）", "var": "分散（不偏、n−1）",
           "skew": "歪度", "kurt": "尖度（正規分布で 0）",
           "nunique": "種類数"}
_AGG_EN = {"sum": "total", "mean": "mean", "median": "median", "min": "minimum",
           "max": "maximum", "count": "count", "std": "standard deviation (sample, n-1)",
           "var": "variance (sample, n-1)", "skew": "skewness",
           "kurt": "excess kurtosis (0 for a normal distribution)",
           "nunique": "number of distinct values"}
_GRAIN_JA = {"D": "日別", "W": "週別", "M": "月別", "Q": "四半期別", "Y": "年別"}
_PREVIOUS_JA = {"D": "前日比", "W": "前週比", "M": "前月比", "Q": "前期比", "Y": "前年比"}
_GRAIN_EN = {"D": "daily", "W": "weekly", "M": "monthly", "Q": "quarterly", "Y": "yearly"}
_COMPARE_JA = {"previous": "前期比（%）", "yoy": "前年比（%）", "share": "構成比（%）",
               "cumulative": "累計", "moving": "移動平均"}
_COMPARE_EN = {"previous": "change from the previous period (%)",
               "yoy": "change from the year before (%)", "share": "share of the total (%)",
               "cumulative": "cumulative total", "moving": "moving average"}


_OP_JA = {">": "より大きい", ">=": "以上", "<": "未満", "<=": "以下"}


@dataclass
class Filter:
    """Rows kept: ``column == value`` (or ``op``: contains, >, >=, <, <=, between), or a
    period of the time column."""

    column: str
    value: object = None
    period: tuple[str, list[int]] | None = None  # ("M", [2024, 9]), ("Y", [2024]), ("month", [9])
    op: str = "=="
    year: bool = False  # the condition is on the year of a date column

    def say(self, ja: bool) -> str:
        if self.period is None:
            return self._say_value(ja)
        grain, parts = self.period
        if grain == "M":
            return f"{parts[0]}年{parts[1]}月" if ja else f"{parts[0]}-{parts[1]:02d}"
        if grain == "Y":
            return f"{parts[0]}年" if ja else str(parts[0])
        return f"{parts[0]}月" if ja else f"month {parts[0]}"

    def _say_value(self, ja: bool) -> str:
        column = f"{self.column}の年" if ja and self.year else (
            f"the year of {self.column}" if self.year else self.column)
        value = self.value
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int | float) and abs(value) >= 10_000:  # 100,000; a year stays 2006
            value = f"{value:,}"
        if self.op == "==":
            return f"{column} = {value}"
        if self.op == "not in":  # total rows left out
            return "合計の行を除く" if ja else "without the total row"
        if self.op == "contains":
            return f"{column} に「{value}」を含む" if ja else f"{column} contains “{value}”"
        if self.op == "between":
            low, high = (int(v) if float(v).is_integer() else v for v in value)  # type: ignore[union-attr]
            return f"{column} が {low}〜{high}" if ja else f"{column} between {low} and {high}"
        return f"{column} が {value} {_OP_JA[self.op]}" if ja else f"{column} {self.op} {value}"


@dataclass
class Query:
    """What to compute: measures, aggregation, grouping, time grain, filters, order and
    limit, a comparison, or a test."""

    measures: list[str] = field(default_factory=list)
    aggs: list[str] = field(default_factory=list)
    group: str | None = None
    time: str | None = None
    grain: str | None = None
    filters: list[Filter] = field(default_factory=list)
    order: str | None = None  # "desc" | "asc"
    limit: int | None = None
    label: bool = False  # "which product ...": the answer is a group's name
    compare: str | None = None
    window: int | None = None
    test: str | None = None  # correlation | normality | ttest | distribution
    missing: bool = False
    overview: bool = False
    rows: bool = False  # whole rows ranked by a measure
    per_period: bool = False  # the mean of each period's total ("average daily sales")
    unused: list[str] = field(default_factory=list)

    def restate(self, ja: bool) -> str:
        """What is computed, in the user's language: the answer's first line."""
        return _restate_ja(self) if ja else _restate_en(self)


def _restate_ja(q: Query) -> str:
    where = "、".join(dict.fromkeys(f.say(True) for f in q.filters))
    scope = f"{where} の" if where else ""
    measures = "・".join(q.measures)
    if q.overview:
        text = "概要: 行数と列数、列の型、欠損値、基本統計量"
    elif q.missing:
        text = f"{measures or '各列'} の欠損値の数と割合"
    elif q.test == "correlation":
        text = f"{'、'.join(q.measures)} の相関係数（Pearson）と p 値"
    elif q.test == "normality":
        text = f"{measures} の正規性の検定（Shapiro-Wilk、有意水準 5%）"
    elif q.test == "ttest":
        text = f"{q.group} の2群の {measures} の平均の差の検定（Welch の t 検定、有意水準 5%）"
    elif q.test == "distribution":
        text = f"{measures} の分布（基本統計量とヒストグラム）"
    elif q.test == "chi2":
        text = f"{' と '.join(q.measures)} の関連（クロス集計とカイ二乗検定、有意水準 5%）"
    elif q.test == "crosstab":
        what = (f"{q.measures[2]} の{_AGG_JA[q.aggs[0]]}" if len(q.measures) == 3 else "件数")
        text = f"{q.measures[0]} × {q.measures[1]} のクロス集計（{what}）"
    elif q.rows:
        text = f"{measures} が{'小さい' if q.order == 'asc' else '大きい'}上位 {q.limit} 行"
    elif q.label and q.group and not (q.measures or q.aggs or q.order):
        text = f"その行の {q.group}"
    else:
        aggs = "・".join(_AGG_JA[a] for a in q.aggs)
        if q.per_period:
            aggs = f"合計の{_GRAIN_JA[q.grain or 'D'].removesuffix('別')}平均"
        what = f"{measures} の{aggs}" if measures else ("行数" if q.aggs == ["count"] else aggs)
        if q.aggs == ["count"] and not measures and q.compare == "share" and not q.group:
            return f"{where} の行数と、全体に占める割合（%）。"
        by = [_GRAIN_JA[q.grain] if q.grain else (f"{q.time} ごと" if q.time else ""),
              f"{q.group} 別" if q.group else ""]
        by_text = "・".join(b for b in by if b)
        text = f"{by_text}の {what}" if by_text else what
        if q.compare:
            window = f"（{q.window} 期間）" if q.compare == "moving" else ""
            said = _COMPARE_JA[q.compare]
            if q.compare == "previous" and q.grain:  # 月別なら前月比
                said = f"{_PREVIOUS_JA[q.grain]}（%）"
            text += f"と{said}{window}"
        if q.label:
            text += f"が{'最も小さい' if q.order == 'asc' else '最も大きい'} {q.group}"
            if q.limit and q.limit > 1:
                text += f"（{'下' if q.order == 'asc' else '上'}位 {q.limit}）"
        elif q.limit:
            text += f"（{'下' if q.order == 'asc' else '上'}位 {q.limit}）"
    if q.test in ("normality", "distribution") and q.aggs:
        text += "、" + "・".join(_AGG_JA[a] for a in q.aggs)
    return f"{scope}{text}。"


def _restate_en(q: Query) -> str:
    where = ", ".join(dict.fromkeys(f.say(False) for f in q.filters))
    scope = f" (rows where {where})" if where else ""
    measures = " and ".join(q.measures)
    if q.overview:
        text = "Overview: shape, column types, missing values and describe()"
    elif q.missing:
        text = f"Missing values (count and share) of {measures or 'each column'}"
    elif q.test == "correlation":
        text = f"The Pearson correlation of {', '.join(q.measures)}, with its p-value"
    elif q.test == "normality":
        text = f"A normality test of {measures} (Shapiro-Wilk, 5% level)"
    elif q.test == "ttest":
        text = f"Welch's t-test of the mean {measures} between two {q.group} groups (5% level)"
    elif q.test == "distribution":
        text = f"The distribution of {measures} (describe and a histogram)"
    elif q.test == "chi2":
        text = f"The association of {' and '.join(q.measures)} (crosstab, chi-squared, 5% level)"
    elif q.test == "crosstab":
        what = (f"the {_AGG_EN[q.aggs[0]]} of {q.measures[2]}" if len(q.measures) == 3
                else "row counts")
        text = f"A crosstab of {what}: {q.measures[0]} by {q.measures[1]}"
    elif q.rows:
        text = f"The {q.limit} rows with the {'smallest' if q.order == 'asc' else 'largest'} " \
               f"{measures}"
    elif q.label and q.group and not (q.measures or q.aggs or q.order):
        text = f"The {q.group} of those rows"
    else:
        aggs = " and ".join(_AGG_EN[a] for a in q.aggs)
        if q.per_period:
            aggs = f"mean {_GRAIN_EN[q.grain or 'D']} total"
        if q.aggs == ["count"] and not measures and q.compare == "share" and not q.group:
            return f"The number of rows where {where}, and their share of all rows (%)."
        text = (f"The {aggs} of {measures}" if measures else
                "The number of rows" if q.aggs == ["count"] else f"The {aggs}")
        if q.grain:
            text = f"The {_GRAIN_EN[q.grain]} {aggs} of {measures}" if measures else text
        elif q.time:
            text += f" per {q.time}"
        if q.group:
            text += f" by {q.group}"
        if q.compare:
            window = f" over {q.window} periods" if q.compare == "moving" else ""
            text += f", with the {_COMPARE_EN[q.compare]}{window}"
        if q.label:
            text += f": the {q.group} with the {'lowest' if q.order == 'asc' else 'highest'}"
            if q.limit and q.limit > 1:
                text += f" ({'bottom' if q.order == 'asc' else 'top'} {q.limit})"
        elif q.limit:
            text += f" ({'bottom' if q.order == 'asc' else 'top'} {q.limit})"
    if q.test in ("normality", "distribution") and q.aggs:
        text += ", with its " + " and ".join(_AGG_EN[a] for a in q.aggs)
    return f"{text}{scope}."


@dataclass
class Task:
    """What to compute, in words (``instruction``) and as code on ``df``; ``columns`` are
    the ones the code reads (None: it reads the whole table)."""

    instruction: str
    code: str
    columns: list[str] | None = None


@dataclass
class Clarify:
    """A question back to the user; it names real columns (or values) as the choices."""

    question: str


@dataclass
class NotUnderstood:
    """What the planner made of the question, and the parts it cannot do offline."""

    understood: str
    cannot: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
