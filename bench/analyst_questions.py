"""The Analyst's accuracy on closed-form questions about the shipped sample tables.

Each question (Japanese or English) has an exact answer computed here with pandas: one
number, or one number per group. A run answers it when every expected number appears
(to 3 significant decimals) in what the run showed: its cells' output, tables and report.
A clarification, a failure or a wrong number is a miss. Runs go through a real server app
and sandbox with the configured model (the offline brain unless SHOKUNIN_MODEL is set).
SHOKUNIN_ANALYST_PANDAS_MAX_MB=0.0001 sends every table the large-table way (DuckDB, and the
kernel reads the Parquet copy): the "engine" column says which way each went.

    python bench/analyst_questions.py [--only sales_en.csv] [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from fastapi.testclient import TestClient
from rich.console import Console
from rich.table import Table

from shokunin.api import create_app
from shokunin.config import Settings

SAMPLES = Path(__file__).resolve().parents[1] / "src/shokunin/data/analyst"
ENCODINGS = {"sales_ja_cp932.csv": "cp932"}

Expected = Callable[[pd.DataFrame], Any]  # a number, or a Series of numbers by group


def _month(df: pd.DataFrame, column: str, month: str) -> pd.DataFrame:
    return df[df[column].astype(str).str.startswith(month)]


QUESTIONS: list[tuple[str, str, Expected]] = [
    ("sales_en.csv", "total revenue", lambda d: d.revenue.sum()),
    ("sales_en.csv", "average units", lambda d: d.units.mean()),
    ("sales_en.csv", "total revenue by region", lambda d: d.groupby("region").revenue.sum()),
    ("sales_en.csv", "average units by store", lambda d: d.groupby("store").units.mean()),
    ("sales_en.csv", "maximum unit_price", lambda d: d.unit_price.max()),
    ("sales_en.csv", "median revenue by product",
     lambda d: d.groupby("product").revenue.median()),
    ("sales_en.csv", "how many rows does the table have?", lambda d: len(d)),
    ("sales_en.csv", "top 3 stores by total revenue",
     lambda d: d.groupby("store").revenue.sum().nlargest(3)),
    ("sales_en.csv", "total revenue in 2024-03", lambda d: _month(d, "month", "2024-03")
     .revenue.sum()),
    ("sales_en.csv", "total units for North", lambda d: d[d.region == "North"].units.sum()),
    ("sales_en.csv", "minimum revenue", lambda d: d.revenue.min()),
    ("sales_en.csv", "revenue trend by month", lambda d: d.groupby("month").revenue.sum()),
    ("sales_en.csv", "correlation between units and revenue",
     lambda d: round(d.units.corr(d.revenue), 3)),
    ("sales_en.csv", "average revenue by region in 2024-06",
     lambda d: _month(d, "month", "2024-06").groupby("region").revenue.mean()),
    ("sales_en.csv", "total revenue of Coffee beans",
     lambda d: d[d["product"] == "Coffee beans"].revenue.sum()),
    ("sales_ja_cp932.csv", "売上高の合計", lambda d: d["売上高"].sum()),
    ("sales_ja_cp932.csv", "店舗別の売上高合計", lambda d: d.groupby("店舗")["売上高"].sum()),
    ("sales_ja_cp932.csv", "カテゴリ別の数量の平均",
     lambda d: d.groupby("カテゴリ")["数量"].mean()),
    ("sales_ja_cp932.csv", "仕入先ごとの数量の平均、上位3",
     lambda d: d.groupby("仕入先")["数量"].mean().nlargest(3)),
    ("sales_ja_cp932.csv", "2024-03の売上高合計",
     lambda d: _month(d, "年月", "2024-03")["売上高"].sum()),
    ("sales_ja_cp932.csv", "東京本店の売上高合計",
     lambda d: d[d["店舗"] == "東京本店"]["売上高"].sum()),
    ("sales_ja_cp932.csv", "単価の最大", lambda d: d["単価"].max()),
    ("sales_ja_cp932.csv", "数量の中央値", lambda d: d["数量"].median()),
    ("sales_ja_cp932.csv", "売上高の月別推移", lambda d: d.groupby("年月")["売上高"].sum()),
    ("sales_ja_cp932.csv", "東京本店のカテゴリ別の売上高合計",
     lambda d: d[d["店舗"] == "東京本店"].groupby("カテゴリ")["売上高"].sum()),
    ("sales_ja_cp932.csv", "食品の売上高合計",
     lambda d: d[d["カテゴリ"] == "食品"]["売上高"].sum()),
    ("sales_ja_cp932.csv", "数量と売上高の相関", lambda d: round(d["数量"].corr(d["売上高"]), 3)),
    ("survey_ja.csv", "満足度の平均", lambda d: d["満足度"].mean()),
    ("survey_ja.csv", "年代別の満足度の平均", lambda d: d.groupby("年代")["満足度"].mean()),
    ("survey_ja.csv", "性別ごとの推奨度の平均", lambda d: d.groupby("性別")["推奨度"].mean()),
    ("survey_ja.csv", "都道府県別の満足度の平均、上位3",
     lambda d: d.groupby("都道府県")["満足度"].mean().nlargest(3)),
    ("survey_ja.csv", "推奨度の中央値", lambda d: d["推奨度"].median()),
    ("survey_ja.csv", "満足度と推奨度の相関", lambda d: round(d["満足度"].corr(d["推奨度"]), 3)),
    ("survey_ja.csv", "利用頻度ごとの満足度の平均",
     lambda d: d.groupby("利用頻度")["満足度"].mean()),
    ("survey_ja.csv", "東京都の満足度の平均",
     lambda d: d[d["都道府県"] == "東京都"]["満足度"].mean()),
    ("survey_ja.csv", "回答は何件？", lambda d: len(d)),
    ("sensors_en.csv", "average temperature_c", lambda d: d.temperature_c.mean()),
    ("sensors_en.csv", "maximum humidity_pct", lambda d: d.humidity_pct.max()),
    ("sensors_en.csv", "average temperature_c by sensor_id",
     lambda d: d.groupby("sensor_id").temperature_c.mean()),
    ("sensors_en.csv", "minimum temperature_c by sensor_id",
     lambda d: d.groupby("sensor_id").temperature_c.min()),
    ("sensors_en.csv", "average humidity_pct for S1",
     lambda d: d[d.sensor_id == "S1"].humidity_pct.mean()),
    ("sensors_en.csv", "correlation between temperature_c and humidity_pct",
     lambda d: round(d.temperature_c.corr(d.humidity_pct), 3)),
    ("sensors_en.csv", "median temperature_c", lambda d: d.temperature_c.median()),
    ("sensors_en.csv", "how many readings per status",
     lambda d: d.status.value_counts()),
    ("sensors_en.csv", "daily average temperature_c",
     lambda d: d.groupby(pd.to_datetime(d.timestamp).dt.date).temperature_c.mean()),
]

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def _expected(file: str, expected: Expected) -> list[float]:
    frame = pd.read_csv(SAMPLES / file, encoding=ENCODINGS.get(file, "utf-8"))
    value = expected(frame)
    values = value.tolist() if isinstance(value, pd.Series) else [value]
    return [float(v) for v in values]


def _shown(events: list[dict[str, Any]]) -> list[float]:
    text = " ".join(str(e.get(k, "")) for e in events
                    for k in ("stdout", "markdown", "text") if e.get(k))
    return [float(n) for n in _NUMBER.findall(text)]


def _found(want: float, shown: list[float]) -> bool:
    return any(abs(got - want) <= max(1e-3, abs(want) * 1e-6) or round(want, 3) == got
               for got in shown)


def _ask(client: TestClient, dataset: str, question: str) -> tuple[str, list[dict[str, Any]]]:
    run_id = client.post("/api/analyst/runs",
                         json={"dataset_id": dataset, "question": question}).json()["run_id"]
    deadline = time.monotonic() + 180
    while (status := client.get(f"/api/runs/{run_id}").json()["status"]) == "running":
        if time.monotonic() > deadline:
            client.post(f"/api/runs/{run_id}/cancel")
            return "timeout", []
        time.sleep(0.05)
    if status == "interrupted":  # a clarification: a miss here; close the wait
        client.post(f"/api/runs/{run_id}/cancel")
    body = client.get(f"/api/runs/{run_id}/events").text
    events = [json.loads(line[6:]) for line in body.splitlines()
              if line.startswith("data: ") and '"kind"' in line]
    return status, events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="questions about this sample file only")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    questions = [q for q in QUESTIONS if not args.only or q[0] == args.only]
    console = Console()
    rows: list[tuple[str, str, bool, str]] = []
    with tempfile.TemporaryDirectory() as tmp, TestClient(create_app(Settings(
            data_dir=Path(tmp), tools_dirs=[])), base_url="http://127.0.0.1") as client:
        datasets: dict[str, str] = {}
        engines: dict[str, str] = {}
        for file in dict.fromkeys(q[0] for q in questions):
            with open(SAMPLES / file, "rb") as f:
                record = client.post("/api/analyst/datasets", files={"file": (file, f)}).json()
            datasets[file], engines[file] = record["id"], record["engine"]
        for file, question, expected in questions:
            status, events = _ask(client, datasets[file], question)
            shown = _shown(events)
            right = status == "completed" and all(
                _found(want, shown) for want in _expected(file, expected))
            rows.append((file, question, right, status))
            console.print(f"{'✓' if right else '✗'} {file}: {question} ({status})")
    table = Table(title=f"Analyst, {len(rows)} closed-form questions "
                        f"(model: {Settings().model or 'offline'})")
    for column in ("sample", "engine", "questions", "answered right", "accuracy"):
        table.add_column(column, justify="right")
    for file in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == file]
        right = sum(r[2] for r in mine)
        table.add_row(file, engines[file], str(len(mine)), str(right),
                      f"{right / len(mine):.0%}")
    total = sum(r[2] for r in rows)
    table.add_row("all", "", str(len(rows)), str(total), f"{total / len(rows):.0%}")
    console.print(table)
    if args.show_misses:
        for file, question, right, status in rows:
            if not right:
                console.print(f"miss: {file}: {question} ({status})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
