"""What a person reads for the Analyst's internal names, in Japanese and English: the
aggregations (``sum``), statistics (``p_value``), comparisons (``change_%``), column types
(``float64``) and time grains of a computed table, as headers, chart labels and sentences.

Each entry is ``(Japanese, English)``; ``word(table, key, ja)`` picks one.
"""

from __future__ import annotations

import re

AGG = {"sum": ("合計", "total"), "mean": ("平均", "average"), "median": ("中央値", "median"),
       "min": ("最小値", "minimum"), "max": ("最大値", "maximum"), "count": ("件数", "count"),
       "std": ("標準偏差", "standard deviation"), "var": ("分散", "variance"),
       "skew": ("歪度", "skewness"), "kurt": ("尖度", "excess kurtosis"),
       "nunique": ("種類数", "number of distinct values"), "size": ("件数", "count")}
# describe()'s rows, and the per-period summary's
DESCRIBE = {"count": ("件数", "Count"), "mean": ("平均", "Average"),
            "std": ("標準偏差", "Std. deviation"), "min": ("最小", "Minimum"),
            "25%": ("第1四分位", "25th percentile"), "50%": ("中央値", "Median"),
            "75%": ("第3四分位", "75th percentile"), "max": ("最大", "Maximum"),
            "median": ("中央値", "Median"), "unique": ("種類数", "Distinct values"),
            "top": ("最頻値", "Most frequent"), "freq": ("最頻値の件数", "Its count"),
            "sum": ("合計", "Total"), "nunique": ("種類数", "Distinct values")}
# the columns the offline cells name
STAT = {"r": ("相関係数 r", "Correlation r"), "p_value": ("p 値", "p-value"),
        "n": ("件数", "Count"), "statistic": ("検定統計量", "Statistic"),
        "test": ("検定", "Test"), "normal_at_5%": ("正規分布とみなせるか（5%水準）",
                                                "Normal at the 5% level"),
        "mean": ("平均", "Average"), "rows": ("件数", "Count"), "distinct": ("種類数",
                                                                         "Distinct values"),
        "missing": ("欠損数", "Missing"), "missing_%": ("欠損率", "Missing share"),
        "missing_share": ("欠損率", "Missing share"), "dtype": ("型", "Type"),
        "per period": ("期間あたり", "Per period"), "value": ("値", "Value"),
        "cumulative": ("累計", "Cumulative total"), "share_%": ("構成比", "Share"),
        "yoy_%": ("前年同期比", "Year-over-year change"),
        "change_%": ("前期比", "Change from the previous period")}
PREVIOUS = {"D": ("前日比", "Change from the previous day"),
            "W": ("前週比", "Change from the previous week"),
            "M": ("前月比", "Month-over-month change"),
            "Q": ("前期比", "Quarter-over-quarter change"),
            "Y": ("前年比", "Year-over-year change")}
GRAIN = {"D": ("日", "day"), "W": ("週", "week"), "M": ("月", "month"),
         "Q": ("四半期", "quarter"), "Y": ("年", "year")}
GRAIN_BY = {"D": ("日別", "Daily"), "W": ("週別", "Weekly"), "M": ("月別", "Monthly"),
            "Q": ("四半期別", "Quarterly"), "Y": ("年別", "Yearly")}
PER = {"D": ("1日", "day"), "W": ("1週間", "week"), "M": ("1か月", "month"),
       "Q": ("1四半期", "quarter"), "Y": ("1年", "year")}
WINDOW = {"D": ("日", "-day"), "W": ("週", "-week"), "M": ("か月", "-month"),
          "Q": ("四半期", "-quarter"), "Y": ("年", "-year")}
# a pandas dtype as a kind of value
DTYPE = (("int", ("整数", "whole number")), ("float", ("小数", "decimal number")),
         ("bool", ("真偽値", "yes / no")), ("datetime", ("日時", "date and time")),
         ("category", ("区分", "category")), ("", ("文字列", "text")))
YES_NO = {True: ("はい", "yes"), False: ("いいえ", "no")}
ALL_ROWS = ("全体", "all rows")
COLUMN = ("列", "Column")
PAIR = ("組み合わせ", "Pair")
COUNT_UNIT = ("件", "")


def period_word(label: str, grain: str | None, ja: bool) -> str:
    """A period as a person writes it: 「2024年3月」 for 2024-03, "2024 Q1" for 2024Q1."""
    month = re.fullmatch(r"(\d{4})-(\d{2})", label)
    if grain == "M" and month:
        return f"{month[1]}年{int(month[2])}月" if ja else label
    quarter = re.fullmatch(r"(\d{4})Q([1-4])", label)
    if grain == "Q" and quarter:
        return f"{quarter[1]}年第{quarter[2]}四半期" if ja else f"{quarter[1]} Q{quarter[2]}"
    if grain == "Y" and re.fullmatch(r"\d{4}", label) and ja:
        return f"{label}年"
    return label


def spaced(name: str, ja: bool) -> str:
    """A name in Japanese text, set apart where it starts or ends in Latin letters or digits:
    「region 別の revenue」."""
    if not ja or not name:
        return name
    return (" " if name[0].isascii() and name[0].isalnum() else "") + name + (
        " " if name[-1].isascii() and name[-1].isalnum() else "")


def word(table: dict[str, tuple[str, str]], key: str, ja: bool) -> str:
    """``key``'s word in ``table``, or ``key`` itself."""
    pair = table.get(key)
    return key if pair is None else pair[0 if ja else 1]


def dtype_word(dtype: str, ja: bool) -> str:
    """A pandas dtype (``float64``, ``object``) as a kind of value."""
    low = dtype.lower()
    return next(pair[0 if ja else 1] for prefix, pair in DTYPE if prefix in low)


def moving_word(window: int, grain: str | None, ja: bool) -> str:
    unit = WINDOW.get(grain or "", ("期間", "-period"))
    return f"{window}{unit[0]}移動平均" if ja else f"{window}{unit[1]} moving average"


def rate_word(key: str, grain: str | None, ja: bool) -> str:
    """A rate column (``change_%``, ``yoy_%``, ``share_%``) named for the question's grain."""
    if key == "change_%" and grain in PREVIOUS:
        return word(PREVIOUS, grain, ja)
    if key == "yoy_%" and grain == "Y":
        return "前年比" if ja else "Year-over-year change"
    return word(STAT, key, ja)


def measure_word(measure: str | None, agg: str | None, ja: bool) -> str:
    """A computed value's header: the column and its aggregation (「売上高（合計）」)."""
    if not measure:
        return word(STAT, "rows", ja)
    if not agg:
        return measure
    return f"{measure}（{word(AGG, agg, True)}）" if ja else f"{measure} ({word(AGG, agg, False)})"
