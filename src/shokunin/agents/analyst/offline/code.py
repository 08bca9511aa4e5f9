"""A ``Query`` as the pandas code that answers it, run in the thread's kernel (``df`` is the
table; ``_md``, ``TABLE_MARKDOWN`` and ``JSON_OUT`` are the cell's conventions), so every
number in the answer comes from running it."""

from __future__ import annotations

import json
import re

from shokunin.agents.analyst.offline.query import Filter, Query, Task
from shokunin.agents.analyst.offline.shown import shown

_PERIODS_PER_YEAR = {"D": 365, "W": 52, "M": 12, "Q": 4, "Y": 1}
_WINDOW = {"D": 7, "W": 4, "M": 3, "Q": 4, "Y": 3}
_SHOW_TABLE = "TABLE_MARKDOWN.append(_md(table.round(4)))\nprint(table.round(4).to_string())\n"


def _lit(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def task(query: Query, ja: bool) -> Task:
    """The code for ``query`` and the sentence that states what it computes."""
    q = query
    body = _body(q, ja)
    rows, periods = _filters(q)
    # the cell works on ``data``: a filter never narrows the kernel's df for later cells
    if q.compare == "share" and path(q) == "count" and q.group is None:
        rows = "all_rows = len(df)\n" + rows  # the share of the rows the filters keep
    code = "data = df\n" + re.sub(r"\bdf\b", "data", rows + body + periods)
    code += shown(q, ja, path(q))  # its chart and its answer, in the question's words
    used = [*q.measures, *([q.group] if q.group else []), *([q.time] if q.time else []),
            *(f.column for f in q.filters)]
    columns = None if q.overview or q.rows or (q.missing and not q.measures) or (
        q.aggs == ["count"] and not used) else list(dict.fromkeys(used))
    return Task(q.restate(ja), code, columns)


def _period_mask(q: Query, frame: str, on_index: bool) -> str:
    """A boolean mask of the periods the question names (2024年9月, 2024, 9月)."""
    masks = []
    for f in q.filters:
        if f.period is None:
            continue
        grain, parts = f.period
        when = (f"pd.DatetimeIndex(_when(pd.Series({frame}.index.astype(str))))"
                if on_index else f"_when({frame}[{_lit(f.column)}]).dt")
        if grain == "M":
            masks.append(f"(({when}.year == {parts[0]}) & ({when}.month == {parts[1]}))")
        elif grain == "Y":
            masks.append(f"({when}.year == {parts[0]})")
        else:
            masks.append(f"({when}.month == {parts[0]})")
    return " | ".join(masks)


def _over_time(q: Query) -> bool:
    return q.time is not None and q.compare in ("previous", "yoy", "cumulative", "moving")


def _filters(q: Query) -> tuple[str, str]:
    """Code that narrows ``df`` to the filtered rows (before), and code that keeps only the
    named periods of a series over time (after)."""
    lines: list[str] = []
    by_column: dict[str, list[object]] = {}
    for f in q.filters:
        if f.period is None and f.op == "==":
            by_column.setdefault(f.column, []).append(f.value)
    for column, values in by_column.items():
        kept = _lit([str(v) for v in values])
        lines.append(f"df = df[df[{_lit(column)}].astype(str).isin({kept})]")
    held: dict[str, list[str]] = {}  # words of one column's values: any of them (A or B)
    for f in q.filters:
        if f.op == "contains":
            held.setdefault(f.column, []).append(re.escape(str(f.value)))
    lines += [f"df = df[df[{_lit(column)}].astype(str).str.contains({_lit(_any_word(words))}, "
              "case=False, na=False)]" for column, words in held.items()]
    lines += [f"df = df[~df[{_lit(f.column)}].astype(str).isin({_lit(f.value)})]"
              for f in q.filters if f.op == "not in"]
    lines += [_condition(f) for f in q.filters
              if f.period is None and f.op not in ("==", "contains", "not in")]
    periods = [f for f in q.filters if f.period is not None]
    after = ""
    if periods and not _over_time(q):
        lines.append(f"df = df[{_period_mask(q, 'df', on_index=False)}]")
    elif periods:
        after = (f"table = table[{_period_mask(q, 'table', on_index=True)}]\n"
                 "print('shown:')\n" + _SHOW_TABLE)
    if lines:
        lines.append("print(f'{len(df)} rows kept')")
    return "".join(line + "\n" for line in lines), after


def _any_word(words: list[str]) -> str:
    """A pattern for any of ``words`` as whole words ("rossi" is not in "Capirossi")."""
    return r"(?<!\w)(?:" + "|".join(words) + r")(?!\w)"


def _condition(f: Filter) -> str:
    """Code that keeps the rows meeting a condition other than equality."""
    column = f"df[{_lit(f.column)}]"
    values = (f"_when({column}).dt.year" if f.year else
              f"pd.to_numeric({column}, errors='coerce')")
    if f.op == "between":
        low, high = f.value  # type: ignore[misc]
        return f"df = df[{values}.between({low!r}, {high!r})]"
    return f"df = df[{values} {f.op} {f.value!r}]"


def path(q: Query) -> str:
    """Which computation answers ``q``."""
    if q.overview and not q.missing:
        return "overview"
    if q.missing:
        return "missing"
    if q.test is not None:
        return q.test
    if q.rows:
        return "rows"
    if q.time is not None:
        return "series"
    if q.aggs in (["count"], ["nunique"]) and (q.aggs == ["count"] or not q.measures):
        return "count"
    if q.label and q.group and not (q.measures or q.aggs or q.order):
        return "lookup"
    return "grouped" if q.group is not None else "overall"


# The parts of a query each computation uses: a part the question set that its computation
# does not use is a part of the question left unanswered (``unused_parts``).
_USES = {
    "overview": set(), "missing": {"measures", "group", "order", "limit", "label"},
    # an aggregation word in a correlation or a test describes its columns ("the number of
    # children", "the maximum temperature (TMAX_F)")
    "correlation": {"measures", "aggs"}, "normality": {"measures", "group", "aggs"},
    "distribution": {"measures", "group", "aggs"}, "ttest": {"measures", "group", "aggs"},
    "chi2": {"measures"}, "crosstab": {"measures", "aggs"},
    "rows": {"measures", "order", "limit"},
    "series": {"measures", "aggs", "time", "grain", "group", "compare", "window", "order",
               "limit"},
    "count": {"aggs", "group", "order", "limit", "label", "compare"},
    "grouped": {"measures", "aggs", "group", "order", "limit", "label", "compare"},
    "overall": {"measures", "aggs", "order"},
    "lookup": {"group", "label"},
}
_MEASURES = {"series": 1, "rows": 1, "normality": 1, "distribution": 1, "ttest": 1,
             "chi2": 2, "crosstab": 3}  # the columns each computation can take, at most
PARTS = ("measures", "aggs", "group", "time", "grain", "order", "limit", "label", "compare",
         "window")


def unused_parts(q: Query) -> list[str]:
    """The parts of ``q`` its computation would leave out (e.g. a grouping of a test)."""
    uses = _USES[path(q)]
    left = [part for part in PARTS if getattr(q, part) and part not in uses]
    if q.compare and path(q) in ("grouped", "count") and q.compare != "share" or (
            q.compare == "share" and path(q) == "count" and q.group is not None):
        left.append("compare")
    if q.window and q.compare != "moving":
        left.append("window")
    if len(q.measures) > _MEASURES.get(path(q), len(q.measures)):  # 「売上と数量の推移」
        left.append("measures")
    return list(dict.fromkeys(left))


def _body(q: Query, ja: bool) -> str:
    if path(q) in ("ttest", "series"):  # their refusals are said in the question's language
        return (_ttest if path(q) == "ttest" else _series)(q, ja)
    return {"overview": _overview, "missing": _missing, "correlation": _correlation,
            "normality": _normality, "distribution": _normality,
            "chi2": _chi2, "crosstab": _crosstab, "rows": _rows,
            "count": _count, "grouped": _grouped, "overall": _overall,
            "lookup": _lookup}[path(q)](q)


def _overview(q: Query) -> str:
    return ("print(f'{len(df)} rows x {df.shape[1]} columns')\n"
            "types = pd.DataFrame({'dtype': df.dtypes.astype(str), "
            "'missing': df.isna().sum(), 'missing_share': df.isna().mean().round(3)})\n"
            "TABLE_MARKDOWN.append(_md(types))\n"
            "TABLE_MARKDOWN.append(_md(df.describe().T.round(3)))\n"
            "JSON_OUT.append({'rows': len(df), 'columns': int(df.shape[1])})\n")


def _missing(q: Query) -> str:
    cols = _lit(q.measures) if q.measures else "list(df.columns)"
    if q.group is None:
        return (f"table = pd.DataFrame({{'missing': df[{cols}].isna().sum(), "
                f"'missing_%': df[{cols}].isna().mean() * 100}})\n" + _SHOW_TABLE)
    code = (f"table = df[{cols}].isna().groupby(df[{_lit(q.group)}]).sum()\n"
            "table['missing'] = table.sum(axis=1)\n")
    if q.order or q.limit or q.label:
        code += f"table = table.sort_values('missing', ascending={q.order == 'asc'})\n"
    code += _limit(q) + _SHOW_TABLE
    if q.label:
        code += (f"print({_lit(f'{q.group}:')}, table.index[0], '(missing:', "
                 "int(table['missing'].iloc[0]), ')')\n")
    return code


def _rows(q: Query) -> str:
    col = _lit(q.measures[0])
    return (f"table = df.sort_values({col}, ascending={q.order == 'asc'})"
            f".head({q.limit})\n" + _SHOW_TABLE)


def _overall(q: Query) -> str:
    if q.aggs == ["nunique"]:
        return (f"table = df[{_lit(q.measures)}].nunique().rename('distinct')\n" + _SHOW_TABLE)
    return (f"table = df[{_lit(q.measures)}].agg({_lit(q.aggs)}).T\n" + _SHOW_TABLE
            + "JSON_OUT.append({str(m): {str(a): float(v) for a, v in row.items()} "
            "for m, row in table.iterrows()})\n")


def _count(q: Query) -> str:
    if q.group is None and q.compare == "share":
        return ("share = len(df) / all_rows * 100 if all_rows else float('nan')\n"
                "print(f'{len(df)} of {all_rows} rows ({share:.1f}%)')\n"
                "JSON_OUT.append({'rows': len(df), 'of_rows': all_rows, "
                "'share_%': round(share, 2)})\n")
    if q.group is None:
        return "print(f'{len(df)} rows')\nJSON_OUT.append({'rows': len(df)})\n"
    code = (f"table = df.groupby({_lit(q.group)}).size().rename('rows')"
            f".sort_values(ascending={q.order == 'asc'})\n" + _limit(q) + _SHOW_TABLE)
    if q.label:  # the group with the most (fewest) rows; a tie is said, not hidden
        code += (f"counts = df.groupby({_lit(q.group)}).size()\n"
                 f"best = counts[counts == counts.{'min' if q.order == 'asc' else 'max'}()]\n"
                 f"JSON_OUT.append({{{_lit(q.group)}: [str(v) for v in best.index], "
                 "'rows': int(best.iloc[0])})\n")
    return code


def _lookup(q: Query) -> str:
    """The values of a column in the rows the filters keep ("from which club?")."""
    by = _lit(q.group)
    return (f"found = [str(v) for v in df[{by}].dropna().unique()]\n"
            f"table = df[{by}].value_counts().rename('rows')\n" + _SHOW_TABLE
            + f"JSON_OUT.append({{{by}: found}})\n")


def _limit(q: Query) -> str:
    return f"table = table.head({q.limit})\n" if q.limit else ""


def _grouped(q: Query) -> str:
    by, measure, agg = _lit(q.group), q.measures[0], q.aggs[0]
    code = f"table = df.groupby({by})[{_lit(q.measures)}].agg({_lit(q.aggs)})\n"
    code += "table.columns = [f'{a}_{m}' if len(table.columns) > 1 else m " \
            "for m, a in table.columns]\n"
    key = f"{agg}_{measure}" if len(q.measures) * len(q.aggs) > 1 else measure
    if q.compare == "share":
        code += (f"table['share_%'] = table[{_lit(key)}] / table[{_lit(key)}].sum() * 100\n")
    if q.order or q.limit or q.label:
        code += f"table = table.sort_values({_lit(key)}, ascending={q.order == 'asc'})\n"
    code += _limit(q) + _SHOW_TABLE
    if q.label:
        code += (f"best = table.index[0]\n"
                 f"print({_lit(f'{q.group}:')}, best, {_lit(f'({agg} of {measure}:')}, "
                 f"round(float(table[{_lit(key)}].iloc[0]), 4), ')')\n"
                 f"JSON_OUT.append({{{_lit(q.group)}: str(best), "
                 f"{_lit(f'{agg}_{measure}')}: float(table[{_lit(key)}].iloc[0])}})\n")
    return code


_NO_YEAR_BEFORE = ("There is no year before to compare with: the data runs from {first} to "
                   "{last}.",
                   "前年のデータがないため前年比は出せません（データは {first} 〜 {last}）。")


def _series(q: Query, ja: bool) -> str:
    time, agg = _lit(q.time), q.aggs[0]
    measure = _lit(q.measures[0]) if q.measures else None
    key = (f"_when(df[{time}]).dt.to_period("
           f"{_lit(q.grain)})" if q.grain else f"df[{time}]")
    keys = f"[{key}, df[{_lit(q.group)}]]" if q.group else key
    code = (f"series = df.groupby({keys})[{measure}].agg({_lit(agg)})\n" if measure else
            f"series = df.groupby({keys}).size().rename('rows')\n")
    if q.per_period:  # 「1日あたりの平均」: the periods' totals, averaged
        code = code.replace(f".agg({_lit(agg)})", ".agg('sum')")
        return (code + "table = series.agg(['mean', 'median', 'min', 'max', 'count'])"
                ".to_frame('per period')\n" + _SHOW_TABLE)
    if q.group:
        code += f"series = series.unstack({_lit(q.group)})\n"
    code += "series = series.sort_index()\n"
    if q.compare == "previous":
        code += "table = pd.concat({'value': series, 'change_%': series.pct_change(" \
                "fill_method=None) * 100}, axis=1)\n"
    elif q.compare == "yoy":
        lag = _PERIODS_PER_YEAR.get(q.grain or "", 1)
        code += (f"table = pd.concat({{'value': series, 'yoy_%': series.pct_change({lag}, "
                 "fill_method=None) * 100}, axis=1)\n"
                 "if table['yoy_%'].notna().sum() == 0:\n"
                 f"    raise CannotAnswer({_lit(_NO_YEAR_BEFORE[ja])}.format("
                 "first=series.index.min(), last=series.index.max()))\n")
    elif q.compare == "cumulative":
        code += "table = pd.concat({'value': series, 'cumulative': series.cumsum()}, axis=1)\n"
    elif q.compare == "moving":
        window = q.window or _WINDOW.get(q.grain or "", 3)
        code += (f"table = pd.concat({{'value': series, 'moving_avg_{window}': "
                 f"series.rolling({window}).mean()}}, axis=1)\n")
    elif q.compare == "share":
        code += "table = pd.concat({'value': series, 'share_%': series / series.sum() * 100}" \
                ", axis=1)\n"
    else:
        code += "table = series.to_frame() if not hasattr(series, 'columns') else series\n"
    if q.order or q.limit:
        code += f"table = table.sort_values(table.columns[0], ascending={q.order == 'asc'})\n"
        code += _limit(q)
    code += "table.index = table.index.astype(str)\n" + _SHOW_TABLE
    return code


def _correlation(q: Query) -> str:
    if len(q.measures) == 2:
        a, b = (_lit(m) for m in q.measures)
        return ("from scipy import stats\n"
                f"pair = df[[{a}, {b}]].dropna()\n"
                f"r, p = stats.pearsonr(pair[{a}], pair[{b}])\n"
                "table = pd.DataFrame({'r': [r], 'p_value': [p], 'n': [len(pair)]}, "
                f"index=[{_lit(' ~ '.join(q.measures))}])\n" + _SHOW_TABLE
                # Pearson's r measures a linear relation only: a small |r| is a weak linear
                # correlation, never evidence of a nonlinear one. Strength by |r|: below
                # 0.2 very weak, 0.4 weak, 0.7 moderate, else strong; none unless p < 0.05.
                + "significant = bool(p < 0.05)\n"
                "level = sum(abs(r) >= limit for limit in (0.2, 0.4, 0.7))\n"
                "strength = ('very weak', 'weak', 'moderate', 'strong')[level]\n"
                "direction = ('positive' if r > 0 else 'negative') if significant else None\n"
                "figures = f'r = {r:.3f}, ' + ('p < 0.001' if p < 0.001 else f'p = {p:.3g}') "
                "+ f', n = {len(pair)}'\n"
                "figures_ja = figures.replace(', ', '、')\n"
                "if significant:\n"
                "    print(f'{strength} {direction} linear correlation ({figures})')\n"
                "    print(('ごく弱い', '弱い', '中程度の', '強い')[level] "
                "+ ('正' if r > 0 else '負') + f'の線形相関（{figures_ja}）')\n"
                "else:\n"
                "    print(f'no significant linear correlation ({figures})')\n"
                "    print(f'有意な線形相関はありません（{figures_ja}）')\n"
                "JSON_OUT.append({'r': float(r), 'p_value': float(p), 'n': len(pair), "
                "'significant': significant, 'strength': strength, 'direction': direction})\n")
    return (f"table = df[{_lit(q.measures)}].corr()\n" + _SHOW_TABLE)


def _normality(q: Query) -> str:
    col = _lit(q.measures[0])
    groups = f"df.groupby({_lit(q.group)})[{col}]" if q.group else f"[('all', df[{col}])]"
    if q.test == "distribution":
        code = (f"table = df.groupby({_lit(q.group)})[{col}].describe()\n" if q.group
                else f"table = df[{col}].describe().to_frame()\n") + _SHOW_TABLE
    else:
        code = ("from scipy import stats\nresults = {}\n"
                f"for name, values in {groups}:\n"
                "    x = values.dropna()\n"
                "    test, (stat, p) = (('Shapiro-Wilk', stats.shapiro(x)) if len(x) <= 5000 "
                "else (\"D'Agostino-Pearson\", stats.normaltest(x)))\n"
                "    results[name] = {'test': test, 'n': len(x), 'statistic': stat, "
                "'p_value': p, 'normal_at_5%': bool(p >= 0.05)}\n"
                "table = pd.DataFrame(results).T\n"
                "TABLE_MARKDOWN.append(_md(table))\nprint(table.to_string())\n"
                "for name, row in results.items():\n"
                "    print(name, ': p =', f\"{row['p_value']:.4f}\", '-> normal at the 5% level:', "
                "'yes (normal)' if row['normal_at_5%'] else 'no (non-normal)')\n"
                "JSON_OUT.append({str(k): {'p_value': float(v['p_value']), "
                "'normal': v['normal_at_5%']} for k, v in results.items()})\n")
    if q.aggs:  # "is it normal, and its skewness and kurtosis"
        frame = f"df.groupby({_lit(q.group)})[{col}]" if q.group else f"df[{col}]"
        code += (f"stats_table = {frame}.agg({_lit(q.aggs)})\n"
                 "TABLE_MARKDOWN.append(_md(stats_table.round(4)))\n"
                 "print(stats_table.round(4).to_string())\n")
        if "skew" in q.aggs and not q.group:
            code += (f"lean = df[{col}].skew()\n"
                     "print('skewness', round(lean, 4), '->', 'positive (right-skewed)' "
                     "if lean > 0 else 'negative (left-skewed)' if lean < 0 else 'symmetric')\n")
    return code


def _two_groups(q: Query, ja: bool) -> str:
    return (f"{q.group} の値は {{n}} 種類（{{names}}）あり、2群ではありません。比べる2つの値を"
            "質問に書いてください（例: 「男性と女性で…」）。" if ja else
            f"{q.group} has {{n}} values ({{names}}), not two: name the two to compare.")


def _ttest(q: Query, ja: bool) -> str:
    col, by = _lit(q.measures[0]), _lit(q.group)
    return ("from scipy import stats\n"
            f"names = df[{by}].dropna().unique()\n"
            "if len(names) != 2:\n"
            f"    raise CannotAnswer({_lit(_two_groups(q, ja))}.format(n=len(names), "
            "names='、'.join(map(str, names[:10]))))\n"
            f"a, b = (df.loc[df[{by}] == n, {col}].dropna() for n in names)\n"
            "t, p = stats.ttest_ind(a, b, equal_var=False)\n"
            "table = pd.DataFrame({'mean': [a.mean(), b.mean()], 'n': [len(a), len(b)]}, "
            "index=[str(n) for n in names])\n" + _SHOW_TABLE
            + "print(f't = {t:.4f}, p = {p:.4f} ->', 'significant' if p < 0.05 else "
            "'not significant', 'at the 5% level')\n"
            "JSON_OUT.append({'t': float(t), 'p_value': float(p), "
            "'significant': bool(p < 0.05)})\n")


def _chi2(q: Query) -> str:
    a, b = (_lit(m) for m in q.measures)
    return ("from scipy import stats\n"
            f"table = pd.crosstab(df[{a}], df[{b}])\n" + _SHOW_TABLE
            + "chi2, p, dof, _ = stats.chi2_contingency(table)\n"
            "print(f'chi2 = {chi2:.4f}, dof = {dof}, p = {p:.4f} ->', 'associated' if p < 0.05 "
            "else 'no evidence of association', 'at the 5% level')\n"
            "JSON_OUT.append({'chi2': float(chi2), 'dof': int(dof), 'p_value': float(p)})\n")


def _crosstab(q: Query) -> str:
    a, b = (_lit(m) for m in q.measures[:2])
    values = (f", values=df[{_lit(q.measures[2])}], aggfunc={_lit(q.aggs[0])}"
              if len(q.measures) == 3 else "")
    return f"table = pd.crosstab(df[{a}], df[{b}]{values})\n" + _SHOW_TABLE
