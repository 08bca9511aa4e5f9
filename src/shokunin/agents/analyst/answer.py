"""An offline cell's result as what a person reads: the answer first, in the question's
language, as a sentence with its number, then at most the table it needs (``answer_table``).
The cell keeps its result with what was asked (its helper ``_answer``, kernel_code.py), so
every number said here is one the cell computed, never one the plan expected.

    売上高の合計は 12,071,030 円です。
    店舗別の売上高の合計は、東京本店 が最も多く 3,646,170 円です。  (and the table)
"""

from __future__ import annotations

import re
from typing import Any

from shokunin.agents.analyst import labels as words
from shokunin.agents.analyst.answer_table import Asked, Table, number
from shokunin.agents.analyst.numbers import COUNT, P_VALUE, PERCENT, PLAIN, Unit, amount

KEY = "analyst_answer"  # the cell's result among its JSON outputs
# In Japanese, a name or number written in Latin letters or digits stands apart from the
# words around it (「region 別の revenue の合計は 119,027 です」), but not from punctuation.
_SPACES = re.compile(r" {2,}")
_PUNCTUATION = re.compile(r" *([、。（）「」\n]) *")


def find(values: list[Any]) -> dict[str, Any] | None:
    """The cell's result among its JSON outputs (the last, if it kept several)."""
    for value in reversed(values):
        if isinstance(value, dict) and isinstance(value.get(KEY), dict):
            return value[KEY]
    return None


def write(result: dict[str, Any], ja: bool, columns: dict[str, Any] | None = None) -> str:
    """The answer from the cell's result (``find``): its sentence, then its tables;
    ``columns``: the dataset's column profiles by name (their units)."""
    return _Answer(result, ja, columns or {}).text()


class _Answer(Asked):
    def __init__(self, result: dict[str, Any], ja: bool, columns: dict[str, Any]) -> None:
        super().__init__(dict(result.get("spec") or {}), ja, columns)
        self.tables = [Table.read(t) for t in result.get("tables") or []]
        self.values: dict[str, Any] = dict(result.get("values") or {})

    def text(self) -> str:
        writer = getattr(self, f"_{self.kind}", None)
        sentence, shown = writer() if writer and self._complete() else ("", self.tables[:1])
        if self.ja:
            sentence = _PUNCTUATION.sub(r"\1", _SPACES.sub(" ", sentence)).strip()
        return "\n\n".join([*([sentence] if sentence else []),
                            *(self.markdown(t) for t in shown if t.data)])

    def _complete(self) -> bool:
        needs_table = self.kind not in ("overview", "lookup") and not (
            self.kind == "count" and not self.group)
        return bool(self.tables and self.tables[0].data) or not needs_table

    # words

    def w(self, ja: str, en: str) -> str:
        return ja if self.ja else en

    def n(self, name: Any) -> str:
        """A name in a Japanese sentence, set apart where it starts or ends in Latin."""
        text = str(name)
        if not self.ja or not text:
            return text
        return (" " if text[0].isascii() and text[0].isalnum() else "") + text + (
            " " if text[-1].isascii() and text[-1].isalnum() else "")

    def v(self, value: Any) -> str:
        """A value of the table (a group, a period) in a Japanese sentence, set apart:
        「東京本店 が最も多く」."""
        return f" {value} " if self.ja else str(value)

    def say(self, value: Any, unit: Unit = PLAIN, sign: bool = False) -> str:
        return self.n(amount(value, unit, ja=self.ja, sign=sign))

    def p(self, value: float) -> str:
        return "p < 0.0001" if value < 0.0001 else f"p = {amount(value, P_VALUE)}"

    def agg_word(self, agg: str | None) -> str:
        return words.word(words.AGG, agg or "", self.ja)

    def scope(self, periods: bool = True) -> str:
        return str(self.spec.get("scope" if periods else "scope_values") or "")

    def subject(self, measure: str | None, agg: str | None, by: str = "",
                periods: bool = True) -> str:
        """「東京本店のカテゴリ別の売上高の合計」, "the total of revenue (North)"."""
        where = self.scope(periods)
        if self.ja:
            what = (f"{self.n(measure)}の{self.agg_word(agg)}" if measure and agg else
                    self.n(measure) if measure else "件数")
            return "の".join(p for p in (self.n(where), by, what) if p)
        what = (f"the {self.agg_word(agg)} of {measure}" if measure and agg else
                measure or "the number of rows")
        return f"{what} ({where})" if where else what

    def most(self, agg: str | None, low: bool) -> str:
        """How the first is first: 多く/少なく for totals and counts, else 高く/低く."""
        if not self.ja:
            return "lowest" if low else "highest"
        if agg in (None, "sum", "count", "nunique", "size"):
            return "少なく" if low else "多く"
        return "低く" if low else "高く"

    def period(self, label: str) -> str:
        return words.period_word(label, self.grain, self.ja)

    # a sentence per computation, and the tables it shows

    def _overall(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        said = []
        for measure, row in zip(table.index, table.data, strict=False):
            pairs = [(agg, self.say(v, self.unit(measure, "nunique" if agg == "distinct"
                                                 else agg)))
                     for (agg, *_), v in zip(table.columns, row, strict=False)]
            first = "nunique" if pairs[0][0] == "distinct" else pairs[0][0]
            if self.ja:
                said.append(f"{self.subject(measure, first)}は {pairs[0][1]}" + "".join(
                    f"、{self.agg_word(a)}は {v}" for a, v in pairs[1:]) + "です。")
            else:
                said.append(_capital(f"{self.subject(measure, first)} is {pairs[0][1]}" + "".join(
                    f", its {self.agg_word(a)} {v}" for a, v in pairs[1:]) + "."))
        cells = len(table.data) * len(table.columns)
        return " ".join(said[:3]), ([table] if cells > 3 else [])

    def _count(self) -> tuple[str, list[Table]]:
        if self.group:
            return self._ranked(None, "count"), self.tables[:1]
        rows, where = self.values.get("rows"), self.scope()
        if (of := self.values.get("of_rows")) is not None:  # the share of the rows kept
            share = amount(rows / of * 100 if of else float("nan"), PERCENT, ja=self.ja)
            if self.ja:
                return (f"{self.n(where)}の行は {self.say(of, COUNT)}中 "
                        f"{self.say(rows, COUNT)}（{share}）です。", [])
            return (f"{self.say(rows, COUNT)} of {self.say(of, COUNT)} rows ({share}) match "
                    f"{where}.", [])
        if self.ja:
            return (f"{self.n(where) + 'の' if where else ''}行数は "
                    f"{self.say(rows, COUNT)}です。", [])
        noun = "row" if rows == 1 else "rows"
        return f"{self.say(rows, COUNT)} {noun}" + (
            f" {'matches' if rows == 1 else 'match'} {where}." if where else
            " in the table."), []

    def _lookup(self) -> tuple[str, list[Table]]:
        found = self.values.get("found")
        found = found if isinstance(found, list) else [
            str(i) for i in (self.tables[0].index if self.tables else [])]
        where = self.scope()
        names = self.w("、", ", ").join(map(str, found[:10])) or self.w("該当なし", "none")
        if self.ja:
            return (f"{self.n(where) + 'の' if where else ''}{self.n(self.group)}は "
                    f"{self.v(names)}です。", [])
        return f"The {self.group}{f' ({where})' if where else ''}: {names}.", []

    def _grouped(self) -> tuple[str, list[Table]]:
        return self._ranked(self.measure, self.agg), self.tables[:1]

    def _ranked(self, measure: str | None, agg: str | None) -> str:
        """The group first in the table's first column: its first row when the question
        ordered the groups, else the largest; a tie names each group in it."""
        table = self.tables[0]
        known = [(name, v) for name, v in zip(table.index, map(number, table.first()),
                                               strict=False) if v is not None]
        if not known:
            return ""
        low = self.spec.get("order") == "asc"
        best = known[0][1] if self.spec.get("order") else max(v for _, v in known)
        leaders = [name for name, v in known if v == best][:3]
        shown = self.say(best, COUNT if agg == "count" else self.unit(measure, agg))
        shares = table.column("share_%")
        share = ""
        if shares and len(leaders) == 1:
            part = self.say(shares[table.index.index(leaders[0])], PERCENT)
            share = self.w(f"（構成比 {part}）", f" ({part} of the total)")
        by = self.group or table.index_name or ""
        names = self.w("、", " and ").join(self.v(name) for name in leaders)
        if self.ja:
            tie = "（同数）" if len(leaders) > 1 else ""
            if len(table.index) == 1:
                return (f"{self.subject(measure, agg)}が最も{'小さい' if low else '大きい'}"
                        f"{self.n(by)}は {names}（{shown}{share}）です。")
            each = "ごと" if by.endswith("別") else "別"  # 「性別ごと」, not 「性別別」
            what = self.subject(measure, agg, by=f"{self.n(by)}{each}")
            return f"{what}は、{names}{tie} が最も{self.most(agg, low)} {shown}{share}です。"
        what = (self.subject(measure, agg) if measure else "number of rows").removeprefix("the ")
        if len(table.index) == 1:
            return f"The {by} with the {self.most(agg, low)} {what} is {names} ({shown}{share})."
        verb = "have" if len(leaders) > 1 else "has"
        return f"By {by}, {names} {verb} the {self.most(agg, low)} {what}: {shown}{share}."

    def _series(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        if self.spec.get("per_period"):
            return self._per_period(table), []
        agg = self.agg if self.measure else "count"
        if len(table.columns[0]) > 1 or table.names()[0] not in ("value", "rows", self.measure):
            return self._series_by_group(table, agg), [table]
        unit = self.unit(self.measure, agg)
        rows = [(label, v, i) for i, (label, v) in enumerate(zip(
            table.index, map(number, table.first()), strict=False)) if v is not None]
        if not rows:
            return "", [table]
        what = self.subject(self.measure, agg if self.measure else None)
        several = len(table.index) > 1
        if self.spec.get("order") or self.spec.get("limit"):  # 「売上が最も多い月」
            label, value, _ = rows[0]
            low = self.spec.get("order") == "asc"
            when = words.word(words.GRAIN, self.grain or "", self.ja) if self.grain else self.w(
                "時期", "period")
            if self.ja:
                return (f"{what}が最も{self.most(agg, low)[:-1]}い{when}は "
                        f"{self.v(self.period(label))}（{self.say(value, unit)}）です。", [table])
            return (f"The {when} with the {self.most(agg, low)} {what.removeprefix('the ')} is "
                    f"{label} ({self.say(value, unit)}).", [table])
        label, value, at = rows[-1]
        compared = self._compared(table, at)
        if self.ja:
            grain = words.word(words.GRAIN_BY, self.grain, True) if self.grain and several else ""
            what = self.subject(self.measure, agg if self.measure else None, by=grain,
                                periods=several)  # one period: it is named as the answer's
            text = (f"{what}は、{'最新の ' if several else ''}{self.v(self.period(label))}"
                    f"が {self.say(value, unit)}{compared}です。")
        else:
            when = words.word(words.GRAIN, self.grain, False) if self.grain else "period"
            grain = words.word(words.GRAIN_BY, self.grain, False).lower() + " " if (
                self.grain and several) else ""
            what = self.subject(self.measure, agg if self.measure else None, periods=several)
            text = (f"The {grain}{what.removeprefix('the ')} was {self.say(value, unit)}"
                    f"{compared} in {label}" + (f", the latest {when}." if several else "."))
        top = max(rows, key=lambda r: r[1])
        if len(rows) >= 3 and top[0] != label:
            text += self.w(f"最も{self.most(agg, False)[:-1]}いのは {self.v(self.period(top[0]))}"
                           f"の {self.say(top[1], unit)}です。",
                           f" The highest is {top[0]} ({self.say(top[1], unit)}).")
        return text, [table]

    def _compared(self, table: Table, at: int) -> str:
        """The comparison of the row ``at`` (前月比, 累計, …), in brackets."""
        for key in table.names()[1:]:
            value = table.column(key)[at]
            if key in ("change_%", "yoy_%", "share_%"):
                name = words.rate_word(key, self.grain, self.ja)
                said = self.say(value, PERCENT, sign=key != "share_%")
            elif key == "cumulative" or key.startswith("moving_avg_"):
                name = self.header((key,))
                said = self.say(value, self.unit(self.measure, self.agg) if self.measure
                                else COUNT)
            else:
                continue
            return self.w(f"（{name} {said}）", f" ({name.lower()} {said})")
        return ""

    def _series_by_group(self, table: Table, agg: str | None) -> str:
        """A series per group: which group leads the latest period."""
        keep = [i for i, c in enumerate(table.columns) if len(c) == 1 or c[0] in (
            "value", "rows")]
        label, row = table.index[-1], table.data[-1]
        known = [(" / ".join(table.columns[i][1:] or table.columns[i]), number(row[i]))
                 for i in keep]
        known = [(n, v) for n, v in known if v is not None]
        if not known:
            return ""
        name, value = max(known, key=lambda k: k[1])
        shown = self.say(value, self.unit(self.measure, agg) if self.measure else COUNT)
        what = self.subject(self.measure, agg if self.measure else None)
        if self.ja:
            return (f"{what}は、最新の {self.v(self.period(label))}では {self.v(name)}が最も"
                    f"{self.most(agg, False)} {shown}です。")
        return (f"In the latest period, {label}, {name} has the highest "
                f"{what.removeprefix('the ')}: {shown}.")

    def _per_period(self, table: Table) -> str:
        stats = dict(zip(table.index, table.first(), strict=False))
        unit = self.unit(self.measure, "sum")
        grain = words.word(words.GRAIN, self.grain or "D", self.ja)
        what = self.subject(self.measure, "sum")
        low, high, mid = (self.say(stats.get(k), unit) for k in ("min", "max", "median"))
        periods = self.say(stats.get("count"), PLAIN)
        if self.ja:
            each = words.word(words.PER, self.grain or "D", True)
            return (f"{each}あたりの{what}は、平均 {self.say(stats.get('mean'), unit)}です"
                    f"（中央値 {mid}、最小 {low}、最大 {high}、{periods}"
                    f"{words.WINDOW.get(self.grain or 'D', ('期間', ''))[0]}分）。")
        return (f"Per {grain}, {what.removeprefix('the ')} averages "
                f"{self.say(stats.get('mean'), unit)} (median {mid}, minimum {low}, maximum "
                f"{high}, over {periods} {grain}s).")

    def _correlation(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        if table.names()[:2] == ["r", "p_value"]:
            a, _, b = table.index[0].partition(" ~ ")
            n = table.column("n")[0] if "n" in table.names() else None
            return self._relation(a, b, number(table.column("r")[0]),
                                  number(table.column("p_value")[0]), n), []
        pairs = [(table.index[i], table.columns[j][0], number(v))
                 for i, row in enumerate(table.data) for j, v in enumerate(row)
                 if table.index[i] < table.columns[j][0] and number(v) is not None]
        if not pairs:
            return "", [table]
        a, b, r = max(pairs, key=lambda p: abs(p[2] or 0))
        return self.w(f"相関が最も強いのは {self.n(a)}と{self.n(b)}"
                      f"（相関係数 {amount(r, PLAIN, 3)}）です。",
                      f"The strongest correlation is between {a} and {b} "
                      f"(r = {amount(r, PLAIN, 3)})."), [table]

    def _relation(self, a: str, b: str, r: float | None, p: float | None, n: Any) -> str:
        if r is None or p is None:
            return self.w(f"{self.n(a)}と{self.n(b)}の相関係数は計算できませんでした。",
                          f"The correlation of {a} and {b} could not be computed.")
        level = sum(abs(r) >= limit for limit in (0.2, 0.4, 0.7))  # as the cell words it
        figures = self.w(f"相関係数 {amount(r, PLAIN, 3)}、{self.p(p)}、{self.say(n, COUNT)}",
                         f"r = {amount(r, PLAIN, 3)}, {self.p(p)}, n = {self.say(n, COUNT)}")
        if p >= 0.05:
            return self.w(f"{self.n(a)}と{self.n(b)}に 5% 水準で有意な相関はありません"
                          f"（{figures}）。",
                          f"{a} and {b} show no significant correlation at the 5% level "
                          f"({figures}).")
        strength = self.w(("ごく弱い", "弱い", "中程度の", "強い")[level],
                          ("a very weak", "a weak", "a moderate", "a strong")[level])
        sign = self.w("正" if r > 0 else "負", "positive" if r > 0 else "negative")
        return self.w(f"{self.n(a)}と{self.n(b)}には{strength}{sign}の相関があります"
                      f"（{figures}）。",
                      f"{a} and {b} have {strength} {sign} correlation ({figures}).")

    def _normality(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        where = self.scope()
        subject = (f"{self.n(where)}の{self.n(self.measure)}" if where else self.n(self.measure)
                   ) if self.ja else str(self.measure)
        said = []
        for name, p, test in zip(table.index, map(number, table.column("p_value")),
                                 table.column("test"), strict=False):
            if p is None:
                continue
            who = "" if name == "all" else f"{name}: "
            if self.ja:
                verdict = "正規分布に従うとはいえません" if p < 0.05 else "正規分布と矛盾しません"
                said.append(f"{who}{subject}は{verdict}（{test} 検定、{self.p(p)}、有意水準 5%）。")
            else:
                verdict = ("is not normally distributed" if p < 0.05 else
                           "is consistent with a normal distribution")
                said.append(_capital(f"{who}{subject} {verdict} ({test} test, {self.p(p)}, "
                                     "5% level)."))
        return " ".join(said[:5]), ([table] if len(table.index) > 1 else []) + self.tables[1:2]

    def _distribution(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        if self.group:
            return self.w(f"{self.n(self.group)}別の{self.n(self.measure)}の分布です。",
                          f"The distribution of {self.measure} by {self.group}."), [table]
        stats = dict(zip(table.index, table.first(), strict=False))
        unit = self.unit(self.measure, "mean")
        mean, median, low, high = (self.say(stats.get(k), unit)
                                   for k in ("mean", "50%", "min", "max"))
        where = self.scope()
        subject = (f"{self.n(where)}の{self.n(self.measure)}" if where else self.n(self.measure)
                   ) if self.ja else str(self.measure)
        return self.w(f"{subject}は平均 {mean}、中央値 {median}、最小 {low}〜最大 {high}"
                      f"（{self.say(stats.get('count'), COUNT)}）です。",
                      f"{subject}: mean {mean}, median {median}, from {low} to {high} "
                      f"({self.say(stats.get('count'), COUNT)} values)."), [table]

    def _ttest(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        means = [self.say(v, self.unit(self.measure, "mean")) for v in table.column("mean")]
        t, p = number(self.values.get("t")), number(self.values.get("p"))
        if len(table.index) != 2 or p is None:
            return "", [table]
        a, b = table.index
        figures = self.w(f"Welch の t 検定、t = {amount(t, PLAIN, 2)}、{self.p(p)}",
                         f"Welch's t-test, t = {amount(t, PLAIN, 2)}, {self.p(p)}")
        if self.ja:
            verdict = "5% 水準で有意です" if p < 0.05 else "5% 水準で有意ではありません"
            return (f"{self.v(a)}と{self.v(b)}の{self.n(self.measure)}の平均は {means[0]}と "
                    f"{means[1]}で、その差は {verdict}（{figures}）。", [table])
        verdict = "significant" if p < 0.05 else "not significant"
        return (f"The mean {self.measure} is {means[0]} for {a} and {means[1]} for {b}; the "
                f"difference is {verdict} at the 5% level ({figures}).", [table])

    def _chi2(self) -> tuple[str, list[Table]]:
        p = number(self.values.get("p"))
        a, b = (self.measures + ["", ""])[:2]
        if p is None:
            return "", self.tables[:1]
        chi2, dof = amount(self.values.get("chi2"), PLAIN, 2), self.values.get("dof")
        if self.ja:
            verdict = "関連があります" if p < 0.05 else "関連があるとはいえません"
            return (f"{self.n(a)}と{self.n(b)}には 5% 水準で{verdict}（カイ二乗 {chi2}、"
                    f"自由度 {dof}、"
                    f"{self.p(p)}）。", self.tables[:1])
        verdict = "are associated" if p < 0.05 else "show no evidence of association"
        return (f"{a} and {b} {verdict} at the 5% level (chi-squared {chi2}, {dof} degrees of "
                f"freedom, {self.p(p)}).", self.tables[:1])

    def _crosstab(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        cells = [(table.index[i], table.columns[j][0], number(v))
                 for i, row in enumerate(table.data) for j, v in enumerate(row)]
        cells = [c for c in cells if c[2] is not None]
        a, b = (self.measures + ["", ""])[:2]
        if not cells:
            return "", [table]
        row, column, value = max(cells, key=lambda c: c[2] or 0)
        shown = self.say(value, self.cell_unit(row, column))
        return self.w(f"{self.n(a)} × {self.n(b)}のクロス集計です。最も大きいのは {self.v(row)}× "
                      f"{self.v(column)}の {shown}です。",
                      f"A crosstab of {a} by {b}; the largest cell is {row} × {column}: "
                      f"{shown}."), [table]

    def _rows(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        values = table.column(self.measure or "")
        if not values:
            return "", [table]
        low = self.spec.get("order") == "asc"
        shown = self.say(values[0], self.unit(self.measure, ""))
        named = next((i for i, c in enumerate(table.columns) if c[0] != self.measure and all(
            isinstance(row[i], str) for row in table.data)), None)
        who = f"{table.columns[named][0]} {table.data[0][named]}" if named is not None else ""
        if self.ja:
            return (f"{self.n(self.measure)}が最も{'小さい' if low else '大きい'}のは"
                    f"{self.v(who) if who else ''}で、{shown}です（上位 {len(table.data)} 行を"
                    "表にしました）。", [table])
        return (f"The {'lowest' if low else 'highest'} {self.measure} is {shown}"
                f"{f' ({who})' if who else ''}; the table shows the top {len(table.data)} rows.",
                [table])

    def _missing(self) -> tuple[str, list[Table]]:
        table = self.tables[0]
        counts = [(name, number(v) or 0) for name, v in zip(
            table.index, table.column("missing"), strict=False)]
        if not counts:
            return "", [table]
        name, most = max(counts, key=lambda c: c[1])
        if self.group:
            return self.w(f"欠損値が最も多い{self.n(self.group)}は {self.v(name)}"
                          f"（{self.say(most, COUNT)}）です。",
                          f"The {self.group} with the most missing values is {name} "
                          f"({self.say(most, COUNT)})."), [table]
        total = sum(v for _, v in counts)
        if total == 0:
            return self.w("欠損値はありません。", "No value is missing."), []
        shares = table.column("missing_%")
        share = self.say(shares[table.index.index(name)], PERCENT) if shares else ""
        part, english = (f"（{share}）", f" ({share})") if share else ("", "")
        having = sum(1 for _, v in counts if v)
        return self.w(f"欠損値は {having} 列に合計 {self.say(total, COUNT)}あり、最も多いのは "
                      f"{self.n(name)}の {self.say(most, COUNT)}{part}です。",
                      f"{self.say(total, COUNT)} values are missing, in {having} columns; the "
                      f"most in {name}: {self.say(most, COUNT)}{english}."
                      ), [table]

    def _overview(self) -> tuple[str, list[Table]]:
        rows, columns = self.values.get("rows"), self.values.get("columns")
        missing = sum(number(v) or 0 for v in self.tables[0].column("missing")) \
            if self.tables else 0
        if self.ja:
            text = (f"この表は {self.say(rows, PLAIN)} 行 × {self.say(columns, PLAIN)} 列です。"
                    + (f"欠損値は合計 {self.say(missing, COUNT)}です。" if missing else
                       "欠損値はありません。"))
        else:
            text = (f"The table has {self.say(rows, PLAIN)} rows and "
                    f"{self.say(columns, PLAIN)} columns; "
                    + (f"{self.say(missing, COUNT)} values are missing." if missing else
                       "no value is missing."))
        return text, self.tables[:2]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
