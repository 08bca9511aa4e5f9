"""Reading a bound question into a ``Query``: which columns are measures and which one groups,
the time axis and its grain, the filters, order and limit, the comparison or the test. A
question whose main ask has no column to act on gets a clarification naming real columns; one
that asks what cannot be done offline gets ``NotUnderstood`` naming that part."""

from __future__ import annotations

import re

from shokunin.agents.analyst.offline import vocabulary as vocab
from shokunin.agents.analyst.offline.binding import (
    NUMERIC,
    Bound,
    Match,
    bind,
    is_ja,
    normalize,
    numeric,
)
from shokunin.agents.analyst.offline.query import Clarify, Filter, NotUnderstood, Query
from shokunin.agents.analyst.profile import ColumnProfile, DatasetProfile

_TIME_NAMES = ("date", "month", "year", "day", "time", "timestamp", "period", "日付", "年月",
               "日時", "月", "年", "期間", "week", "週")
_DATE_TEXT = re.compile(r"^\d{4}[-/]\d{1,2}([-/]\d{1,2})?")
_GAP = re.compile(r"^[\s,.()（）:：「」\"'a-z0-9_-]{0,40}$")  # words between "by" and its column
_SUPERLATIVE = (r"一番|最も|もっとも|most|highest|lowest|largest|smallest|least|fewest|best|"
                r"worst|最大|最高|最低|最小")
_ALL = re.compile(r"(?:全|all|every|each|各)\s*$")


def time_column(profile: DatasetProfile) -> ColumnProfile | None:
    """The table's time axis: a date column, else a column named like one whose values
    read as dates (2024-01)."""
    dated = [c for c in profile.columns if c.dtype == "datetime"]
    if dated:
        return dated[0]
    for col in profile.columns:
        sample = [str(t.value) for t in col.top_values]
        if sample and all(_DATE_TEXT.match(v) for v in sample):
            return col
    return next((c for c in profile.columns if (normalize(c.name).strip() in _TIME_NAMES or set(
        re.split(r"[\s_]+", normalize(c.name).strip())) & {"date", "datetime", "timestamp"})
        and c.dtype in ("integer", "string")), None)


def _column(profile: DatasetProfile, name: str) -> ColumnProfile:
    return next(c for c in profile.columns if c.name == name)


def _say(ja: bool, en: str, japanese: str) -> str:
    return japanese if ja else en


def _groups(bound: Bound, low: str, profile: DatasetProfile) -> tuple[list[Match], bool]:
    """The column matches a marker makes groups ("by region", 「地域別」, "which country"),
    and whether one came after "which" (the answer is then a group's name)."""
    groups: list[Match] = []
    label = False
    ms = bound.matches
    for i, m in enumerate(ms):
        column = _column(profile, m.value) if m.kind == "column" else None
        if column is None or column.dtype in NUMERIC and column.distinct_count > 50:
            continue  # a measure ("top 3 products by quantity"), never a group
        after = ms[i + 1] if i + 1 < len(ms) else None
        if after is not None and after.kind == "bypost" and after.start - m.end <= 1:
            groups.append(m)
            continue
        before = [p for p in ms[:i] if p.kind in ("by", "which")]
        if not before:
            continue
        marker = before[-1]
        between = [p for p in ms if marker.end <= p.start < m.start]
        if not between and _GAP.match(low[marker.end:m.start]):
            groups.append(m)
            label = label or marker.kind == "which"
    return groups, label


def read(question: str, profile: DatasetProfile,
         table_name: str = "") -> Query | Clarify | NotUnderstood:
    """The query ``question`` asks of a table of ``profile`` (from the file ``table_name``),
    or what to ask back, or what it cannot do."""
    ja = is_ja(question)
    bound = bind(question, profile, table_name)
    low = normalize(question)
    nums = numeric(profile)
    names = [c.name for c in profile.columns]
    kinds = {m.kind for m in bound.matches}
    first = {k: next((m.value for m in bound.matches if m.kind == k), None) for k in kinds}
    # 「注文件数」 on a table of 注文日, 注文ID: 注文 is what a row is, not a missing column
    entity = [w for w in bound.unused if any(
        normalize(c.name).startswith(w) and normalize(c.name) != w for c in profile.columns)]
    q = Query(unused=[w for w in [*bound.unused, *bound.unknown_quoted] if w not in entity])
    timecol = time_column(profile)

    group_matches, q.label = _groups(bound, low, profile)
    groups = list(dict.fromkeys(m.value for m in group_matches))
    if timecol is not None and timecol.name in groups:  # "by month" on a month column
        groups.remove(timecol.name)
        q.time = timecol.name
    usable_groups = [g for g in groups if g not in nums or _column(profile, g).distinct_count
                     <= 50]
    q.group = usable_groups[0] if usable_groups else None
    q.unused += usable_groups[1:]
    mentioned = list(dict.fromkeys(m.value for m in bound.of("column")))
    q.measures = [c for c in mentioned if c in nums and c not in groups]
    dims = [m for m in bound.of("column") if m.value not in nums and m.value not in groups]
    q.aggs = list(dict.fromkeys(m.value for m in bound.of("agg")))
    q.order = first.get("order")
    q.limit = first.get("limit")
    limit = next((m.text for m in bound.of("limit")), "")
    if q.limit and q.order is None:  # "top 3", 「ワースト3」: the order is in the limit's words
        q.order = "asc" if re.search(r"bottom|下位|ワースト|worst|lowest|smallest|least",
                                     limit) else "desc"
    q.window = first.get("window")
    q.compare = first.get("compare")
    q.test = first.get("test") or first.get("distribution")
    q.missing = "missing" in kinds
    q.overview = "overview" in kinds
    if "grain" in kinds or "rate" in kinds:
        q.grain = first.get("grain") or first["rate"]
    trend = "trend" in kinds
    superlative = any(re.search(_SUPERLATIVE, m.text) for m in bound.of("order"))
    ranked = [m for m in dims if m.value != (timecol.name if timecol else None)]
    if (q.order or "rank" in kinds) and q.group is None and not q.label and ranked:
        # 「上位3つの商品」, "top 3 products": the text column named is what is ranked
        q.group = ranked.pop(0).value
        dims = [m for m in dims if m.value != q.group]
    if q.group is not None and superlative and not q.limit:
        q.label = True  # 「一番売上が大きい商品」: the answer is the product
    if q.test in ("chi2", "crosstab"):  # two text columns: their association, or a table
        pair = list(dict.fromkeys([*([q.group] if q.group else []), *(m.value for m in ranked)]))
        q.measures, q.group = [*pair[:2], *q.measures], None
        dims = [m for m in dims if m.value not in pair[:2]]
    elif q.test == "ttest" and q.group is None and ranked and not bound.of("value"):
        q.group = ranked[0].value  # 「男女で給与に差はある？」: the two groups of 性別
        dims = [m for m in dims if m.value != q.group]
    elif q.aggs in (["count"], ["nunique"]) and not q.measures and ranked and q.group is None:
        # 「顧客は何人？」, "how many customers": the distinct values of the column named
        q.aggs, q.measures = ["nunique"], [ranked[0].value]
        dims = [m for m in dims if m.value != ranked[0].value]
    by_value: dict[str, list[object]] = {}
    for m in bound.of("value"):
        by_value.setdefault(m.value[0], []).append(m.value[1])
    for column, values in by_value.items():
        if q.test == "ttest" and len(values) == 2 and q.group in (None, column):
            q.group = column
            continue
        q.filters += [Filter(column, value) for value in dict.fromkeys(values)]
    for m in dims:  # a text column named but used for nothing: said, unless "all X"
        if m.value == q.group or _ALL.search(low[:m.start]) or (
                timecol is not None and m.value == timecol.name) or m.value in by_value:
            continue
        q.unused.append(m.value)
    cannot = list(dict.fromkeys(m.text for m in bound.of("cannot")))
    dates = bound.of("date")
    if dates and timecol is None:
        cannot.append(dates[0].text)
    elif dates:
        q.filters += [Filter(timecol.name, period=m.value) for m in dates]
        if q.compare in ("previous", "yoy") and q.grain is None:
            q.grain = "M" if any(m.value[0] in ("M", "month") for m in dates) else "Y"
    if cannot:
        return NotUnderstood(_understood(q, ja), cannot, q.unused)
    return _complete(q, ja, nums, names, timecol, trend, "rate" in kinds, profile)


def _understood(q: Query, ja: bool) -> str:
    parts = [*q.measures, *([q.group] if q.group else []), *(f.say(ja) for f in q.filters)]
    if not parts:
        return _say(ja, "no column or value of the table", "表の列や値は読み取れませんでした")
    return _say(ja, "columns and values: ", "読み取れた列と値: ") + ("、" if ja else ", ").join(
        str(p) for p in parts)


def _which_numeric(ja: bool, nums: list[str], what: str) -> Clarify:
    if not nums:
        return Clarify(_say(ja, "The table has no numeric column.", "数値の列がありません。"))
    return Clarify(_say(ja, f"Which column should I {what}? Numeric columns: "
                            f"{', '.join(nums)}.",
                        f"どの列を{ {'use': '使い', 'total': '集計し', 'test': '検定し'}[what] }"
                        f"ますか？数値の列: {'、'.join(nums)}"))


def _complete(q: Query, ja: bool, nums: list[str], names: list[str],
              timecol: ColumnProfile | None, trend: bool, rate: bool,
              profile: DatasetProfile) -> Query | Clarify | NotUnderstood:
    """The query with its defaults filled in, or what is missing to run it."""
    if q.overview and not (q.aggs or q.test or q.group or q.missing):
        return q
    if q.missing:
        return q
    if q.test == "correlation":
        if len(q.measures) == 1:
            others = [n for n in nums if n != q.measures[0]]
            return Clarify(_say(ja, f"Correlate {q.measures[0]} with which column? Numeric "
                                    f"columns: {', '.join(others)}.",
                                f"{q.measures[0]} とどの列の相関を見ますか？数値の列: "
                                f"{'、'.join(others)}"))
        if not q.measures:
            if len(nums) < 2:
                return _which_numeric(ja, nums, "use")
            q.measures = nums
        return q
    if q.test in ("chi2", "crosstab"):
        if len(q.measures) < 2 or q.measures[1] in nums:
            return Clarify(_say(ja, f"Which two columns? Columns: {', '.join(names)}.",
                                f"どの2つの列にしますか？列: {'、'.join(names)}"))
        if q.test == "crosstab" and len(q.measures) == 3:
            q.aggs = q.aggs[:1] or ["sum"]
        return q
    if q.test in ("normality", "distribution", "ttest"):
        if not q.measures:
            if len(nums) != 1:
                return _which_numeric(ja, nums, "test")
            q.measures = nums
        if q.test == "ttest" and q.group is None:
            two = [c.name for c in profile.columns if c.distinct_count == 2]
            if len(two) != 1:
                return Clarify(_say(ja, "Which column splits the rows into the two groups?"
                                        f" Columns: {', '.join(names)}.",
                                    "どの列で2群に分けますか？列: " + "、".join(names)))
            q.group = two[0]
        return q
    if q.compare in ("previous", "yoy", "cumulative", "moving") or q.grain or trend:
        if timecol is None:
            return Clarify(_say(ja, f"Which column holds the dates? Columns: {', '.join(names)}.",
                                f"日付の列はどれですか？列: {'、'.join(names)}"))
        q.time = timecol.name
        if q.grain is None and timecol.dtype == "datetime" and timecol.distinct_count > 62:
            q.grain = "M"
    if q.compare == "share" and q.group is None and q.time is None:
        return Clarify(_say(ja, f"Share by which column? Columns: {', '.join(names)}.",
                            f"どの列ごとの構成比ですか？列: {'、'.join(names)}"))
    asks = (q.aggs or q.order or q.limit or q.compare or q.time or q.group or q.label)
    if not asks:
        return NotUnderstood(_understood(q, ja), [], q.unused)
    if q.aggs == ["count"] and not q.measures or q.aggs == ["nunique"]:
        return q
    if not q.measures:
        if q.unused:  # 「チャネル別のCVR」: the measure asked for is a word, not a column
            return NotUnderstood(_understood(q, ja), [], q.unused)
        if len(nums) != 1:
            return _which_numeric(ja, nums, "total")
        q.measures = nums
    additive = any(normalize(w) in vocab.ADDITIVE or any(
        part in vocab.ADDITIVE for part in re.split(r"[\s_]+", normalize(w)))
        for w in q.measures[:1])
    if not q.aggs:
        if q.order and q.group is None and q.time is None:
            if q.limit:
                q.rows = True
                return q
            q.aggs = ["min" if q.order == "asc" else "max"]
        else:
            q.aggs = ["sum" if additive else "mean"]
    if rate and q.aggs == ["mean"] and additive and not (trend or q.compare or q.group):
        q.per_period = True  # 「1日あたりの平均売上」: each day's total, then averaged
    if q.label:
        q.order = q.order or "desc"
        q.limit = q.limit or 1
    return q
