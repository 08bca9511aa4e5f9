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
    column_surfaces,
    is_ja,
    normalize,
    numeric,
    values_of,
)
from shokunin.agents.analyst.offline.query import Clarify, Filter, NotUnderstood, Query
from shokunin.agents.analyst.profile import ColumnProfile, DatasetProfile

_TIME_NAMES = ("date", "month", "year", "day", "time", "timestamp", "period", "日付", "年月",
               "日時", "月", "年", "期間", "week", "週")
_DATE_TEXT = re.compile(r"^\d{4}[-/]\d{1,2}([-/]\d{1,2})?")
_GAP = re.compile(r"^[\s,.()（）:：「」\"'a-z0-9_-]{0,40}$")  # words between "by" and its column
_SUPERLATIVE = (r"一番|最も|もっとも|most|highest|lowest|largest|smallest|least|fewest|best|"
                r"worst|最大|最高|最低|最小")
_OFTEN = re.compile(r"^(?:most|least|fewest|most often|一番多い|最も多い|多い|一番少ない|"
                    r"最も少ない|少ない)$")
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
    entity = [w for w in bound.unused if not w.isascii() and any(  # "stor" is a typo
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
    conditions, consumed = _conditions(bound, profile, timecol)
    if isinstance(conditions, Clarify):
        return conditions
    q.filters += conditions
    mentioned = list(dict.fromkeys(m.value for m in bound.of("column") if m not in consumed))
    q.measures = [c for c in mentioned if c in nums and c not in groups]
    dims = [m for m in bound.of("column") if m.value not in nums and m.value not in groups
            and m not in consumed]
    q.aggs = list(dict.fromkeys(m.value for m in bound.of("agg")))
    q.order = first.get("order")
    q.limit = first.get("limit")
    limit = next((m.text for m in bound.of("limit")), "")
    if q.order and not q.limit and re.search(r"(?<![a-z])(?:top|best|worst|bottom)\s+[a-z]*"
                                             r"[^s\s](?![a-z])", low):
        q.limit = 1  # "the top player": one
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
    valued = {m.value[0] for m in bound.of("value")}  # columns a value of which is named
    noun = _row_noun(bound, low)
    asks_which = bool(bound.of("which"))
    named = [m.value[0] for m in [*bound.of("value"), *bound.of("part")]
             if _column(profile, m.value[0]).dtype == "string"]
    if (noun is not None or asks_which) and q.group is None and q.order and q.measures and (
            label := _among(named) or _row_label(profile)) is not None:
        # "which skier had the least points": the skier is a row, named by its label column;
        # "who had more votes, A or B?": the column A and B are values of
        q.group, q.label = label, True
        q.limit = q.limit or 1
        q.unused = [w for w in q.unused if w != noun]
    q.unused = [w for w in q.unused if not _describes(w, bound, low, nums)]
    ranked = [m for m in dims if m.value != (timecol.name if timecol else None)]
    if (q.order or "rank" in kinds) and q.group is None and not q.label and ranked:
        # 「上位3つの商品」, "top 3 products": the text column named is what is ranked
        q.group = ranked.pop(0).value
        dims = [m for m in dims if m.value != q.group]
    if q.group is not None and superlative and not q.limit:
        q.label = True  # 「一番売上が大きい商品」: the answer is the product
    superlative = superlative or (bool(re.search(r"一番|最も|もっとも", low)) and bool(q.order))
    time_named = timecol is not None and any(m.value == timecol.name for m in bound.of("column"))
    period_word = next((w for w in q.unused if any(
        re.fullmatch(words, w) for _, words in _GRAIN_WORDS)), None)  # "which month" on dates
    if period_word is not None and timecol is not None and superlative and q.group is None:
        q.unused.remove(period_word)
        q.grain = next(g for g, words in _GRAIN_WORDS if re.fullmatch(words, period_word))
        time_named = True
    if q.group is None and timecol is not None and (q.label and q.time or superlative and (
            time_named or q.time)):
        # 「一番売上が多い月は？」, "which month had the highest revenue": a period is the answer
        _period_asked(q, timecol, low)
    if q.test in ("chi2", "crosstab"):  # two text columns: their association, or a table
        pair = list(dict.fromkeys([*([q.group] if q.group else []), *(m.value for m in ranked)]))
        q.measures, q.group = [*pair[:2], *q.measures], None
        dims = [m for m in dims if m.value not in pair[:2]]
    elif q.test == "ttest" and q.group is None and ranked and not bound.of("value"):
        q.group = ranked[0].value  # 「男女で給与に差はある？」: the two groups of 性別
        dims = [m for m in dims if m.value != q.group]
    elif q.aggs in (["count"], ["nunique"]) and not q.measures and q.group is None and not (
            bound.of("part") or bound.of("cond") or bound.of("value")) and (
            counted := [m for m in ranked if m.value not in valued]):
        # 「顧客は何人？」, "how many customers": the distinct values of the column named (a
        # column a value names is a filter: 「PositionがMFなのは何件？」 counts rows)
        q.aggs, q.measures = ["nunique"], [counted[0].value]
        dims = [m for m in dims if m.value != counted[0].value]
    elif q.aggs == ["count"] and not q.measures and q.group is None and ranked:
        # "how many drivers completed 80 laps": the rows kept are the drivers counted
        dims = [m for m in dims if m.value != ranked[0].value]
    by_value: dict[str, list[object]] = {}
    for m in bound.of("value"):
        by_value.setdefault(m.value[0], []).append(m.value[1])
    for column, values in by_value.items():
        if q.test == "ttest" and len(values) == 2 and q.group in (None, column):
            q.group = column  # 「男性と女性で」: those two groups, whatever else the column holds
            q.filters += [Filter(column, value) for value in values]
            continue
        q.filters += [Filter(column, value) for value in dict.fromkeys(values)]
    q.filters += _parts(bound, low)
    q.filters += _without_totals(profile)
    for m in dims:  # a text column named but used for nothing: said, unless "all X"
        if m.value == q.group or _ALL.search(low[:m.start]) or (
                timecol is not None and m.value == timecol.name) or m.value in by_value:
            continue
        if not q.measures and q.group is None and q.filters and m.value == _row_label(profile):
            continue  # 「30歳以上の選手の割合」: the players are the rows the filters keep
        q.unused.append(m.value)
    one_row = any(_column(profile, c).distinct_count >= profile.rows for c in valued)
    if noun is not None and q.aggs == ["count"] and not q.measures and q.group is None \
            and not one_row:
        q.unused = [w for w in q.unused if w != noun]  # "how many drivers ...": rows counted
    cannot = list(dict.fromkeys(m.text for m in bound.of("cannot")))
    if one_row and q.aggs in (["count"], ["nunique"]) and q.group is None and not (
            q.aggs == ["count"] and q.measures):  # "how many goals did Brazil score": a sum
        # a value of a column of unique values is one row: counting its rows says nothing
        cannot.append(_say(ja, "counting within one row", "1行の中の数え上げ"))
    if re.search(r"(?<![a-z])between(?![a-z])", low) and q.test is None and not any(
            m.value[0] == "between" for m in bound.of("cond")):  # "years between A and B"
        cannot.append("between")
    cannot += _unjoined(bound, low)
    dates = bound.of("date")
    if dates and timecol is None:
        cannot.append(dates[0].text)
    elif dates:
        q.filters += [Filter(timecol.name, period=m.value) for m in dates]
        if q.compare in ("previous", "yoy") and q.grain is None:
            q.grain = "M" if any(m.value[0] in ("M", "month") for m in dates) else "Y"
    if cannot:
        return NotUnderstood(_understood(q, ja), cannot, q.unused)
    often = any(re.search(_OFTEN, m.text) for m in bound.of("order"))
    return _complete(q, ja, nums, names, timecol, trend, "rate" in kinds, profile, often)


_ASKS_ROWS = re.compile(r"(?:(?:how many|number of|count of|which|what)(?:\s+(?:total|"
                        r"different|of the|of))?\s+([a-z][a-z'-]+))|([\u30a0-\u30ff"
                        r"\u3400-\u9fff]+)(?:は|が|の)?(?:何件|何人|何個|何社|何回|いくつ|何チーム|"
                        r"何か国|何カ国|どれ|誰)")


_JOINED = re.compile(r"^\s*(?:,|or|and|、|と|や|か|または|および|,\s*or|,\s*and)\s*(?:the\s+)?$")


def _unjoined(bound: Bound, low: str) -> list[str]:
    """Two values of one column that the question does not join ("4th round winners": both
    in one column, yet one row holds one): which it means is not clear."""
    values = bound.of("value")
    return [f"{a.text} {b.text}" for a, b in zip(values, values[1:], strict=False)
            if a.value[0] == b.value[0] and not _JOINED.match(low[a.end:b.start])]


# a unit of time counted ("how many years between ...") is no row
_NOT_ROWS = {"years", "year", "days", "day", "months", "month", "weeks", "week", "hours",
             "minutes", "seconds", "points", "goals", "votes", "people"}


_TOTAL_ROWS = {"total", "totals", "grand total", "sum", "all", "合計", "総計", "計", "小計",
               "全体", "総数"}


def _without_totals(profile: DatasetProfile) -> list[Filter]:
    """A total row in the table ("Total", 「合計」) is no row of data: counted or summed with
    the rest, it doubles the answer."""
    return [Filter(c.name, [v for v in values_of(c) if normalize(str(v)).strip() in _TOTAL_ROWS],
                   op="not in") for c in profile.columns if c.dtype == "string"
            and any(normalize(str(v)).strip() in _TOTAL_ROWS for v in values_of(c))]


def _parts(bound: Bound, low: str) -> list[Filter]:
    """Words of values as filters: the rows whose value holds them ("amanda", "ryan
    briscoe": adjacent words of one column are one phrase)."""
    filters: list[Filter] = []
    last: Match | None = None
    for m in bound.of("part"):
        column, word = m.value
        if last is not None and last.value[0] == column and not low[last.end:m.start].strip():
            phrase = low[last.start:m.end]
            filters[-1] = Filter(column, phrase, op="contains")
        else:
            filters.append(Filter(column, word, op="contains"))
        last = m
    return filters


def _among(columns: list[str]) -> str | None:
    """The column two or more named values belong to ("A or B"): the answer is one of them."""
    return columns[0] if len(columns) >= 2 and len(set(columns)) == 1 else None


def _describes(word: str, bound: Bound, low: str, nums: list[str]) -> bool:
    """Whether ``word`` follows a numeric column as its unit ("gold medals", "bronze
    medals": the medals the column counts)."""
    for m in bound.of("column"):
        if m.value in nums and re.match(rf"\s+{re.escape(word)}(?![a-z])", low[m.end:]):
            return True
    return False


def _row_noun(bound: Bound, low: str) -> str | None:
    """The word that names what the question asks about when it is no column: "which
    **skier**", "how many **drivers**", 「**選手**は何人」 (what a row is)."""
    for hit in _ASKS_ROWS.finditer(low):
        word = hit.group(1) or hit.group(2)
        if word in bound.unused and word not in _NOT_ROWS:
            return word
    return None


_NAME_LIKE = ("name", "player", "team", "nation", "country", "athlete", "driver", "club",
              "title", "名前", "氏名", "名称", "選手", "チーム", "国")


def _row_label(profile: DatasetProfile) -> str | None:
    """The column that names the rows: a text column of (nearly) unique values, a name-like
    one first."""
    labels = [c for c in profile.columns if c.dtype == "string"
              and c.distinct_count >= 0.8 * (profile.rows - c.null_count) > 0]
    named = [c for c in labels if any(w in normalize(c.name) for w in _NAME_LIKE)]
    best = named or labels
    return best[0].name if best else None


_GRAIN_WORDS = (("M", r"月|months?"), ("Y", r"年|years?"), ("W", r"週|weeks?"),
                ("D", r"日|days?|dates?"), ("Q", r"四半期|quarters?"))


def _written_grain(column: ColumnProfile) -> str | None:
    """The period a column of periods is written in: 2024-01 is a month, 2024 a year."""
    sample = [str(t.value) for t in column.top_values]
    for grain, pattern in (("M", r"\d{4}[-/.]\d{1,2}|\d{4}年\d{1,2}月"), ("Y", r"\d{4}年?"),
                           ("D", r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}.*")):
        if sample and all(re.fullmatch(pattern, v.strip()) for v in sample):
            return grain
    return None


def _period_asked(q: Query, timecol: ColumnProfile, low: str) -> None:
    """The period with the most (least): a column of periods (2024-01, 2024) is grouped as it
    is; dates are grouped by the period the question names (month when it names none)."""
    q.order = q.order or "desc"
    if timecol.dtype != "datetime":
        q.group, q.time, q.label = timecol.name, None, True
        return
    q.time, q.label, q.limit = timecol.name, False, q.limit or 1
    q.grain = q.grain or next((g for g, words in _GRAIN_WORDS if re.search(words, low)), "M")


_YEARLY_OPS = ("before", "after", "since", "prior to", "より前", "以前", "より後", "以降")


def _conditions(bound: Bound, profile: DatasetProfile, timecol: ColumnProfile | None
                ) -> tuple[list[Filter] | Clarify, set[Match]]:
    """The question's conditions on numbers as filters, each on its column: the numeric
    column named next to it ("more than 2 points", 「年齢が30歳以上」), or the one its words
    name ("1.80 meters tall or more"), or for a year ("before 2006") the time axis; and the
    column mentions they used up."""
    ja = is_ja(bound.question)
    nums = numeric(profile)
    filters: list[Filter] = []
    consumed: set[Match] = set()
    columns = [m for m in bound.of("column") if m.value in nums]
    surfaces = column_surfaces(profile.columns)
    for cond in bound.of("cond"):
        op, value, words = cond.value
        near = [m for m in columns if m not in consumed and (
            0 <= cond.start - m.end <= 12 or 0 <= m.start - cond.end <= 12
            or cond.start <= m.start < cond.end)]
        named = [c for c in nums if words and any(
            _holds_word(words, form) for form in _forms(c))] or [
            c for form, c in surfaces.items() if c in nums and words and _holds_word(words, form)]
        yearly = (any(cond.text.startswith(w) or cond.text.endswith(w) for w in _YEARLY_OPS)
                  and op != "between" and 1000 <= float(value) <= 2200)
        if near:
            match = min(near, key=lambda m: min(abs(cond.start - m.end), abs(m.start - cond.end)))
            consumed.add(match)
            column = match.value
        elif named:
            column = named[0]
        elif yearly and (year := _year_column(profile, timecol)) is not None:
            column = year.name
        else:
            names = nums or [c.name for c in profile.columns]
            kind = _say(ja, "Numeric columns" if nums else "Columns", "数値の列" if nums else "列")
            return Clarify(_say(ja, f"Which column should be “{cond.text}”? {kind}: "
                                    f"{', '.join(names)}.",
                                f"「{cond.text}」はどの列の条件ですか？{kind}: "
                                f"{'、'.join(names)}")), consumed
        dated = _column(profile, column).dtype not in NUMERIC
        filters.append(Filter(column, value, op=op, year=dated))
    return filters, consumed


def _forms(column: str) -> list[str]:
    low = normalize(column).strip()
    return [low, *[w for w in re.split(r"[\s_()./-]+", low) if len(w) > 2]]


def _holds_word(words: str, form: str) -> bool:
    return re.search(rf"(?<![a-z]){re.escape(form)}", words) is not None


def _year_column(profile: DatasetProfile, timecol: ColumnProfile | None) -> ColumnProfile | None:
    """The column a year is a value of: the time axis, or a numeric year/season column."""
    if timecol is not None:
        return timecol
    return next((c for c in profile.columns if c.dtype in NUMERIC and normalize(c.name).strip()
                 in ("year", "season", "年", "年度")), None)


_ID_NAMES = ("id", "no", "no.", "#", "number", "rank", "year", "season", "番号", "順位", "年",
             "年度", "番")


def _identifier(profile: DatasetProfile, name: str) -> bool:
    """Whether a numeric column names rows rather than measures them: an id, a rank, a year
    (1, 2, 3 ... each once, or named so)."""
    column = _column(profile, name)
    if normalize(name).strip() in _ID_NAMES or column.dtype != "integer":
        return normalize(name).strip() in _ID_NAMES
    count = profile.rows - column.null_count
    lo, hi = column.min, column.max
    if isinstance(lo, int | float) and isinstance(hi, int | float):
        if lo >= 1800 and hi <= 2100:
            return True  # years
        return column.distinct_count == count and hi - lo + 1 == count
    return False


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
              profile: DatasetProfile, often: bool) -> Query | Clarify | NotUnderstood:
    """The query with its defaults filled in, or what is missing to run it (``often``: the
    question asks which is most or least frequent, "the most" with no column to measure)."""
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
        if q.grain is None and q.compare == "yoy":  # a year back: the lag needs the period
            q.grain = _written_grain(timecol)
    if q.compare == "share" and q.group is None and q.time is None and not q.measures and any(
            f.op not in ("not in",) for f in q.filters):
        q.aggs = ["count"]  # 「満足度が4以上の社員の割合」: the share of the rows kept
        return q
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
        if q.label and q.group and not q.aggs and not q.order and q.filters:
            return q  # "A and B were from which club?": the club of those rows
        if q.label and q.group and not q.aggs and often:
            if _column(profile, q.group).distinct_count >= profile.rows:
                # each value once: no most frequent; what was asked is in a column unnamed
                return _which_numeric(ja, nums, "use")
            # "which club competed the most": the club with the most rows
            q.aggs, q.order, q.limit = ["count"], q.order or "desc", q.limit or 1
            return q
        if len(nums) != 1 or _identifier(profile, nums[0]) or q.order:
            # a ranking names what it ranks by: the one numeric column is no guess to make
            return _which_numeric(ja, nums, "total")
        q.measures = nums
    if q.aggs == ["count"] and len(q.measures) == 1 and not _identifier(profile, q.measures[0]):
        q.aggs = ["sum"]  # "how many goals did Brazil score": the goals, not the rows
    additive = any(normalize(w) in vocab.ADDITIVE or any(
        part in vocab.ADDITIVE for part in re.split(r"[\s_]+", normalize(w)))
        for w in q.measures[:1])
    if not q.aggs and q.label and q.group and \
            _column(profile, q.group).distinct_count >= profile.rows:
        q.aggs = ["sum"]  # one row a group ("which nation had the most gold"): its own value
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
