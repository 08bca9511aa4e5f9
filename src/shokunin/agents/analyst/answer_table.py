"""A table of an offline cell's result as a person reads it: headers in words (「売上高
（合計、円）」, 「前月比」, never ``sum`` or ``index``), numbers formatted per column (the same
decimals down a column, % for rates, a dash for a missing value), the unit in the header
rather than in every cell, and a long table cut, saying so."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from shokunin.agents.analyst import labels as words
from shokunin.agents.analyst.numbers import (
    COUNT,
    P_VALUE,
    PERCENT,
    PLAIN,
    Unit,
    amount,
    places,
    unit_of,
)

SHOWN_ROWS = 30  # of a table in the report; all of them are in the cell's output
RATES = {"change_%", "yoy_%", "share_%", "missing_%", "missing_share"}
COUNTS = {"rows", "n", "count", "distinct", "missing", "nunique", "size", "freq", "unique"}
_PLAIN = {"r", "statistic", "t", "skew", "kurt", "var"}


@dataclass
class Table:
    """One table of the cell's result: index labels, column keys (more than one part for a
    table with two header rows), cells, and how many rows it had in all."""

    index: list[str]
    columns: list[tuple[str, ...]]
    data: list[list[Any]]
    rows: int
    index_name: str | None = None
    columns_name: str | None = None

    @classmethod
    def read(cls, kept: dict[str, Any]) -> Table:
        return cls([str(i) for i in kept.get("index", [])],
                   [tuple(str(p) for p in c) for c in kept.get("columns", [])],
                   [list(row) for row in kept.get("data", [])], int(kept.get("rows", 0)),
                   kept.get("index_name"), kept.get("columns_name"))

    def names(self) -> list[str]:
        return [c[0] for c in self.columns]

    def column(self, key: str) -> list[Any]:
        at = next((i for i, c in enumerate(self.columns) if c[0] == key), None)
        return [] if at is None else [row[at] for row in self.data]

    def first(self) -> list[Any]:
        return [row[0] for row in self.data] if self.columns else []


def number(value: Any) -> float | None:
    """``value`` as a float, None for text, a boolean or a missing or infinite value."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


@dataclass
class Asked:
    """What the question asked (the cell's ``spec``), in the language of the answer."""

    spec: dict[str, Any]
    ja: bool
    columns: dict[str, Any] = field(default_factory=dict)  # column profiles by name

    @property
    def kind(self) -> str:
        return str(self.spec.get("kind", ""))

    @property
    def measures(self) -> list[str]:
        return [str(m) for m in self.spec.get("measures") or []]

    @property
    def measure(self) -> str | None:
        return self.measures[0] if self.measures else None

    @property
    def agg(self) -> str | None:
        aggs = self.spec.get("aggs") or []
        return str(aggs[0]) if aggs else None

    @property
    def group(self) -> str | None:
        return self.spec.get("group")

    @property
    def grain(self) -> str | None:
        return self.spec.get("grain")

    def unit(self, measure: str | None, stat: str | None = None) -> Unit:
        """How a value of ``measure`` aggregated by ``stat`` is written."""
        if stat in RATES:
            return PERCENT
        if stat == "p_value":
            return P_VALUE
        if stat in COUNTS or (stat is None and measure is None):
            return COUNT
        if stat in _PLAIN or stat == "var" or measure is None:
            return PLAIN
        return unit_of(measure, self.columns.get(measure), self.ja)

    def header(self, key: tuple[str, ...]) -> str:
        """A column's header in words: 「売上高（合計）」, 「前月比」, 「North（前月比）」."""
        name, measure = key[0], self.measure
        if name in ("value", measure) and self.kind in ("series", "grouped"):
            said = words.measure_word(measure, self.agg, self.ja)
        elif name in ("change_%", "yoy_%", "share_%"):
            said = words.rate_word(name, self.grain, self.ja)
        elif name.startswith("moving_avg_") and name.rsplit("_", 1)[1].isdigit():
            said = words.moving_word(int(name.rsplit("_", 1)[1]), self.grain, self.ja)
        elif _split(name, self.measures):
            agg, of = _split(name, self.measures)  # type: ignore[misc]
            said = words.measure_word(of, agg, self.ja)
        elif self.kind in ("overall", "distribution", "overview") and name in words.DESCRIBE:
            said = words.word(words.DESCRIBE, name, self.ja)
        elif name in words.STAT:
            said = words.word(words.STAT, name, self.ja)
        else:
            said = name
        if len(key) > 1:
            group = " / ".join(key[1:])
            return f"{group}（{said}）" if self.ja else f"{group} ({said})"
        return said

    def cell_unit(self, row: str, column: str) -> Unit:
        """The unit of a cell: its statistic (named by its column, or by its row in a table of
        statistics) and the measure it is of (its row, its column, or the question's)."""
        if column in RATES:
            return PERCENT
        if self.kind in ("overall", "overview"):  # a row per column of the dataset
            return self.unit(row, column if column in words.DESCRIBE or column in COUNTS or
                             column in words.AGG else "dtype")
        if row in words.DESCRIBE and self.kind in ("series", "distribution") and (
                not self.group):  # a column of statistics of the measure
            return self.unit(self.measure, row)
        if self.kind == "crosstab":
            return self.unit(self.measures[2], self.agg) if len(self.measures) > 2 else COUNT
        if self.kind == "chi2":
            return COUNT
        if column in ("value", "cumulative", self.measure) or column.startswith("moving_avg_"):
            return self.unit(self.measure, self.agg if self.kind in ("series", "grouped")
                             else None) if self.measure else COUNT
        if _split(column, self.measures):
            agg, of = _split(column, self.measures)  # type: ignore[misc]
            return self.unit(of, agg)
        if column in COUNTS or column in _PLAIN or column == "p_value":
            return self.unit(None, column)
        if column in words.DESCRIBE:
            return self.unit(self.measure, column)
        if column in self.columns:
            return self.unit(column, "")
        if self.kind == "series":  # one column per group of a series
            return self.unit(self.measure, self.agg) if self.measure else COUNT
        return PLAIN

    def corner(self, table: Table) -> str:
        """The index's header: its name, or what its labels are."""
        if self.kind in ("crosstab", "chi2"):
            return " ＼ ".join(n for n in (table.index_name, table.columns_name) if n)
        if table.index_name:
            return table.index_name
        if self.kind in ("overall", "missing", "overview"):
            return words.COLUMN[0 if self.ja else 1]
        if self.kind == "correlation" and table.names()[:1] == ["r"]:
            return words.PAIR[0 if self.ja else 1]
        if self.kind == "ttest":
            return str(self.group or "")
        return ""

    def row_label(self, label: str) -> str:
        if label == "all":
            return words.ALL_ROWS[0 if self.ja else 1]
        if self.kind in ("series", "distribution") and label in words.DESCRIBE:
            return words.word(words.DESCRIBE, label, self.ja)
        if self.kind == "series":
            return words.period_word(label, self.grain, self.ja)
        return label

    def markdown(self, table: Table) -> str:
        """``table`` for a person (see the module's docstring): the last rows of a long
        series, the first of anything else."""
        rows = list(range(len(table.data)))
        if len(rows) > SHOWN_ROWS:
            rows = rows[-SHOWN_ROWS:] if self.kind == "series" else rows[:SHOWN_ROWS]
        by_row = self.kind in ("overall", "overview") or (
            self.kind in ("series", "distribution") and not self.group
            and bool(set(table.index) & set(words.DESCRIBE)))
        head, align, cells = [], [], [[] for _ in rows]
        for j, key in enumerate(table.columns):
            values = [table.data[i][j] for i in rows]
            units = [self.cell_unit(table.index[i], key[0]) for i in rows]
            shared = _symbol(units[0], self.ja) if not by_row else ""
            head.append(_with_unit(self.header(key), shared, self.ja))
            align.append("---:" if any(number(v) is not None for v in values) else "---")
            decimals = None if by_row else places(values, units[0])
            for k, (value, unit) in enumerate(zip(values, units, strict=True)):
                cells[k].append(self._cell(key[0], value, unit, decimals, by_row))
        if self.kind != "rows":  # whole rows: their index is only a row number
            head.insert(0, self.corner(table))
            align.insert(0, "---")
            for k, i in enumerate(rows):
                label = self.row_label(table.index[i])
                if by_row and any(k in words.DESCRIBE or k in words.AGG for k in table.names()):
                    unit = self.cell_unit(table.index[i], "mean" if self.kind == "overview"
                                          else table.names()[0])
                    label = _with_unit(label, _symbol(unit, self.ja), self.ja)
                cells[k].insert(0, label)
        lines = [_line(head), "|" + "|".join(align) + "|", *(_line(c) for c in cells)]
        if table.rows > len(rows):
            lines += ["", f"（全 {table.rows:,} 行のうち {len(rows)} 行を表示）" if self.ja else
                      f"(showing {len(rows)} of {table.rows:,} rows)"]
        return "\n".join(lines)

    def _cell(self, key: str, value: Any, unit: Unit, decimals: int | None,
              by_row: bool) -> str:
        if key == "dtype" and isinstance(value, str):
            return words.dtype_word(value, self.ja)
        if key == "missing_share" and number(value) is not None:
            return amount(value * 100, PERCENT, ja=self.ja)
        bare = unit if unit.kind in ("percent", "p") else Unit(
            "count" if unit.kind == "count" else "plain")
        return amount(value, bare, decimals, ja=False,  # no 件 in a cell of a table
                      sign=key in ("change_%", "yoy_%"))


def _split(name: str, measures: list[str]) -> tuple[str, str] | None:
    """``sum_売上`` as (``sum``, ``売上``) when it names an aggregation of a measure."""
    agg, _, of = name.partition("_")
    return (agg, of) if agg in words.AGG and of in measures else None


def _symbol(unit: Unit, ja: bool) -> str:
    if unit.symbol == "円" and not ja:
        return "¥"
    return unit.symbol


def _with_unit(header: str, symbol: str, ja: bool) -> str:
    """「売上高（合計）」 with 円: 「売上高（合計、円）」; "revenue" with $: "revenue ($)"."""
    if not symbol:
        return header
    if ja:
        return f"{header[:-1]}、{symbol}）" if header.endswith("）") else f"{header}（{symbol}）"
    return f"{header[:-1]}, {symbol})" if header.endswith(")") else f"{header} ({symbol})"


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") or " "
                             for c in cells) + " |"
