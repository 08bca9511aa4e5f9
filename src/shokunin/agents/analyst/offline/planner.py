"""A question planned: the typed query run as code, or a clarification, or what it could
not do offline, said plainly (``explain``)."""

from __future__ import annotations

from collections.abc import Collection

from shokunin.agents.analyst.offline.binding import closest_columns, is_ja
from shokunin.agents.analyst.offline.code import task, unused_parts
from shokunin.agents.analyst.offline.query import Clarify, NotUnderstood, Query, Task
from shokunin.agents.analyst.offline.reader import read
from shokunin.agents.analyst.profile import DatasetProfile

# a part of a query its computation leaves out, as the reply names it (what it cannot do)
_PART_NAMES = {"measures": ("more columns in one answer", "複数の列を一度に"),
               "aggs": ("the aggregation", "集計方法"),
               "group": ("the grouping", "グループ分け"), "time": ("the time axis", "時間軸"),
               "grain": ("the period", "期間の単位"), "order": ("the order", "並び順"),
               "limit": ("the number of top items", "上位の件数"),
               "label": ("which one", "どれかという問い"), "compare": ("the comparison", "比較"),
               "window": ("the window", "移動平均の期間")}


def _understood_parts(query: Query, ja: bool) -> str:
    return (f"計算できるのは「{query.restate(ja)}」です" if ja else
            f"what I can compute is “{query.restate(ja)}”")


def _quoted(words: list[str], ja: bool) -> str:
    return "、".join(f"「{w}」" for w in words) if ja else ", ".join(f"“{w}”" for w in words)


def plan(question: str, profile: DatasetProfile,
         table_name: str = "") -> Task | Clarify | NotUnderstood:
    """The task that answers ``question`` on a table of ``profile`` (from the file
    ``table_name``), what to ask back, or what it understood and cannot do."""
    ja = is_ja(question)
    query = read(question, profile, table_name)
    if isinstance(query, NotUnderstood) and (typo := _typo(query.unused, profile, ja)):
        return typo  # "revenu by stor": a near spelling of a real column, asked back
    if not isinstance(query, Query):
        return query
    if left := unused_parts(query):  # e.g. "for each station" on a test of one column
        return NotUnderstood(_understood_parts(query, ja),
                             [_PART_NAMES[p][ja] for p in left], query.unused)
    planned = task(query, ja)
    if typo := _typo(query.unused, profile, ja):  # "by regoin"
        return typo
    if query.unused:  # a part of the question went unused: what it can do, not an answer
        return NotUnderstood(_understood_parts(query, ja), [], query.unused)
    return planned


def _typo(unused: list[str], profile: DatasetProfile, ja: bool) -> Clarify | None:
    """A question back when a word left over is a near spelling of real columns."""
    names = {c.name for c in profile.columns}
    near = {w: closest_columns(w, profile) for w in unused if w not in names}
    typos = [w for w, columns in near.items() if columns]
    if not typos:
        return None
    asked = [f"「{w}」という列はありません。{'、'.join(near[w])} のことですか？" if ja else
             f"There is no column “{w}”. Did you mean {' or '.join(f'“{c}”' for c in near[w])}?"
             for w in typos]
    return Clarify(("" if ja else " ").join(asked))


def explain(question: str, result: NotUnderstood, columns: Collection[str] = ()) -> str:
    """The answer to a question the offline brain cannot answer: what it understood, the
    parts it cannot do or use (a real column among them, of ``columns``, is said to be one),
    and what it can do."""
    ja = is_ja(question)
    parts = [f"「{question}」にはオフラインでは答えられません。" if ja else
             f"I cannot answer “{question}” offline.",
             f"{result.understood}。" if ja else f"What I understood: {result.understood}."]
    if result.cannot:
        parts.append(f"{_quoted(result.cannot, ja)} はオフラインではできません。" if ja else
                     f"I cannot do {_quoted(result.cannot, ja)} offline.")
    named = [w for w in result.unused if w in columns]  # a column named, but for nothing
    words = [w for w in result.unused if w not in columns]
    if named:
        parts.append(f"列 {_quoted(named, ja)} を何に使うのか読み取れませんでした"
                     "（「〜別」「〜ごと」でグループ分けなど）。" if ja else
                     f"I could not tell what to do with the column {_quoted(named, ja)} "
                     "(group by it with “by …”, for example).")
    if words:
        parts.append(f"{_quoted(words, ja)} は表の列や値に結びつきませんでした。" if ja
                     else f"{_quoted(words, ja)} matched no column or value.")
    parts.append("オフラインでできること: 列の集計（合計・平均・件数・中央値・最小・最大・"
                 "標準偏差）、"
                 "列別・月別の集計と順位、値や条件（以上・未満・より前など）での絞り込みと件数・割合、"
                 "最も多い値、前月比・前年比・構成比・累計・移動平均、相関、正規性の検定、"
                 "2群の t 検定、欠損値、概要。ほかは「モデル」の画面でモデルを設定してください。"
                 if ja else
                 "Offline I can compute aggregates of a column (sum, mean, count, median, min, "
                 "max, standard deviation), by a column or by period, rankings, rows kept by a "
                 "value or a condition (more than, at least, before a year) and their count or "
                 "share, the most frequent value, the change from "
                 "the previous period or year, shares, cumulative totals, moving averages, "
                 "correlations, a normality test, a two-group t-test, missing values and an "
                 "overview; for anything else set a model on the Models page.")
    return "\n\n".join(parts)
