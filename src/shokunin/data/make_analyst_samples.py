"""Generate the Analyst's shipped sample tables in ``data/analyst/``.

Run ``python -m shokunin.data.make_analyst_samples``; the outputs are committed, and a test
checks they still match this script. Every figure comes from a seeded generator, so the
question set built on them has fixed answers.

- ``sales_ja_cp932.csv``: monthly sales by store and product, CP932 with CRLF as Excel on
  Windows writes it (㈱, 髙 and ① in supplier names, a
  half-width kana product);
- ``survey_ja.csv``: a customer survey in UTF-8, with unanswered questions left empty;
- ``sales_en.csv``: monthly sales by region, store and product in UTF-8;
- ``sensors_en.csv``: hourly sensor readings in UTF-8, with gaps and fault states.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterable
from pathlib import Path

OUT = Path(__file__).resolve().parent / "analyst"
MONTHS = [f"2024-{m:02d}" for m in range(1, 13)]


def _write(name: str, header: list[str], rows: Iterable[list[object]], encoding: str = "utf-8",
           newline: str = "\n") -> None:
    with (OUT / name).open("w", encoding=encoding, newline="") as f:
        writer = csv.writer(f, lineterminator=newline)
        writer.writerow(header)
        writer.writerows(rows)


def sales_ja() -> None:
    rng = random.Random(4)
    stores = {"東京本店": 1.4, "大阪梅田店": 1.1, "名古屋栄店": 0.9, "福岡天神店": 0.8,
              "札幌駅前店": 0.7}
    products = [
        ("緑茶ペットボトル", "飲料", 150, "㈱髙橋飲料"), ("ほうじ茶", "飲料", 160, "㈱髙橋飲料"),
        ("おにぎり鮭", "食品", 180, "山本食品㈱"), ("幕の内弁当", "食品", 650, "山本食品㈱"),
        ("ﾐﾝﾄｶﾞﾑ", "食品", 110, "山本食品㈱"), ("ボールペン黒", "文具", 120, "①文具商会"),
        ("ノートA5", "文具", 200, "①文具商会"),
    ]
    rows = []
    for month in MONTHS:
        season = 1.25 if month[-2:] in ("07", "08", "12") else 1.0
        for store, scale in stores.items():
            for product, category, price, supplier in products:
                qty = int(rng.gauss(120, 30) * scale * season)
                qty = max(qty, 5)
                rows.append([month, store, category, product, supplier, qty, price, qty * price])
    _write("sales_ja_cp932.csv", ["年月", "店舗", "カテゴリ", "商品", "仕入先", "数量", "単価",
                                  "売上高"], rows, encoding="cp932", newline="\r\n")


def survey_ja() -> None:
    rng = random.Random(5)
    ages = ["10代", "20代", "30代", "40代", "50代", "60代以上"]
    prefs = ["東京都", "神奈川県", "大阪府", "愛知県", "福岡県", "北海道"]
    freq = ["毎日", "週に数回", "月に数回", "ほとんど使わない"]
    comments = ["使いやすい", "価格が高い", "品揃えが良い", "店員の対応が丁寧", "駐車場が狭い", ""]
    rows = []
    for i in range(1, 301):
        satisfaction = min(5, max(1, round(rng.gauss(3.6, 1.0))))
        recommend = min(10, max(0, round(satisfaction * 2 + rng.gauss(0, 1.2))))
        rows.append([f"R{i:04d}", rng.choice(ages), rng.choice(["男性", "女性", "回答しない"]),
                     rng.choice(prefs), satisfaction if rng.random() > 0.04 else "",
                     recommend, rng.choice(freq), rng.choice(comments)])
    _write("survey_ja.csv", ["回答ID", "年代", "性別", "都道府県", "満足度", "推奨度",
                             "利用頻度", "自由記述"], rows)


def sales_en() -> None:
    rng = random.Random(6)
    stores = [("North", "Leeds"), ("North", "York"), ("South", "Brighton"), ("South", "Bath"),
              ("West", "Bristol")]
    products = [("Coffee beans", 12.5), ("Tea bags", 4.0), ("Mug", 8.0), ("Kettle", 35.0)]
    rows = []
    for month in MONTHS:
        for region, store in stores:
            for product, price in products:
                units = max(3, int(rng.gauss(80, 25)))
                rows.append([month, region, store, product, units, price,
                             f"{units * price:.2f}"])
    _write("sales_en.csv", ["month", "region", "store", "product", "units", "unit_price",
                            "revenue"], rows)


def sensors_en() -> None:
    rng = random.Random(7)
    rows = []
    for sensor in ("S1", "S2", "S3"):
        base = {"S1": 21.0, "S2": 24.5, "S3": 18.0}[sensor]
        for hour in range(24 * 21):
            day, h = divmod(hour, 24)
            temp = base + 2.5 * (1 if 9 <= h <= 17 else -1) * rng.random() + rng.gauss(0, 0.4)
            humidity = 55 + rng.gauss(0, 6)
            status = "fault" if rng.random() < 0.01 else "ok"
            rows.append([f"2024-06-{day + 1:02d} {h:02d}:00:00", sensor,
                         "" if status == "fault" else f"{temp:.1f}", f"{humidity:.1f}", status])
    _write("sensors_en.csv", ["timestamp", "sensor_id", "temperature_c", "humidity_pct",
                              "status"], rows)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for make in (sales_ja, survey_ja, sales_en, sensors_en):
        make()


if __name__ == "__main__":
    main()
