"""Write the held-out Analyst tables into `bench/heldout/tables/` (seeded, so re-running it
reproduces the committed CSVs byte for byte).

- `daily_sales_en.csv`: a small shop's daily sales per product in 2024 (English columns),
  with three bulk-order days as outliers.
- `orders_ja.csv`: an order table over 2023-2024 (Japanese columns); larger orders get larger
  discounts, customers keep one region.
- `staff_ja.csv`: staff records (Japanese columns); pay rises with age and tenure, satisfaction
  falls with overtime, two extreme overtime values.
- `shop_visits_en.csv`: daily visitors per store and channel (snake_case columns), with missing
  revenue and temperature readings.

    python bench/heldout/make_tables.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

TABLES = Path(__file__).resolve().parent / "tables"
SEED = 20241127


def daily_sales(rng: np.random.Generator) -> pd.DataFrame:
    """One row per day and product; sales in yen (quantity x price, some discounted days)."""
    dates = pd.date_range("2024-01-01", "2024-12-31", freq="D")
    prices = {"ProductA": 1200, "ProductB": 800, "ProductC": 2500, "ProductD": 450}
    base_qty = {"ProductA": 20, "ProductB": 32, "ProductC": 8, "ProductD": 55}
    # Slow winter, an Obon dip in August, a December peak.
    month_factor = [0.85, 0.8, 0.95, 1.0, 1.05, 0.95, 1.05, 0.8, 1.0, 1.05, 1.1, 1.35]
    rows = []
    for day_number, day in enumerate(dates):
        season = month_factor[day.month - 1] * (1 + 0.1 * day_number / len(dates))
        weekend = 1.3 if day.day_of_week >= 5 else 1.0
        for product, price in prices.items():
            # ProductD is a cold drink: it sells more in summer.
            summer = 1.4 if product == "ProductD" and day.month in (7, 8, 9) else 1.0
            quantity = int(rng.poisson(base_qty[product] * season * weekend * summer))
            discount = rng.choice([0.0, 0.1], p=[0.9, 0.1])
            rows.append((day.strftime("%Y-%m-%d"), product,
                         round(quantity * price * (1 - discount)), quantity))
    frame = pd.DataFrame(rows, columns=["date", "product", "sales", "quantity"])
    bulk = {("2024-03-15", "ProductC"): 90, ("2024-07-20", "ProductA"): 220,
            ("2024-11-08", "ProductB"): 320}
    for (day, product), quantity in bulk.items():
        at = (frame.date == day) & (frame["product"] == product)
        frame.loc[at, ["sales", "quantity"]] = [quantity * prices[product], quantity]
    return frame


PRODUCTS = {  # 商品名: (商品カテゴリ, 2023年の単価)
    "コシヒカリ5kg": ("食品", 2400), "合わせ味噌": ("食品", 450), "濃口醤油": ("食品", 380),
    "緑茶24本": ("飲料", 2200), "コーヒー豆": ("飲料", 1500),
    "衣料用洗剤": ("日用品", 600), "ティッシュ5箱": ("日用品", 450),
    "電気ケトル": ("家電", 4800), "ドライヤー": ("家電", 6500),
}


def orders(rng: np.random.Generator) -> pd.DataFrame:
    """One row per order; 売上 = 数量 x 単価 x (1 - 割引率), food prices up 5% in 2024."""
    regions = ["関東", "関西", "中部", "九州", "東北", "北海道"]
    customers = [f"C{n:03d}" for n in range(1, 121)]
    home = dict(zip(customers, rng.choice(regions, size=len(customers),
                                          p=[0.35, 0.2, 0.15, 0.1, 0.1, 0.1]),
                    strict=True))
    loyalty = rng.zipf(1.6, size=len(customers)).clip(max=12).astype(float)
    loyalty /= loyalty.sum()
    days_2023 = pd.date_range("2023-01-01", "2023-12-31", freq="D")
    days_2024 = pd.date_range("2024-01-01", "2024-12-31", freq="D")
    dates = np.concatenate([rng.choice(days_2023, 180), rng.choice(days_2024, 240)])
    names = list(PRODUCTS)
    popularity = np.array([0.14, 0.12, 0.12, 0.12, 0.12, 0.12, 0.1, 0.09, 0.07])
    rows = []
    for date in np.sort(dates):
        customer = rng.choice(customers, p=loyalty)
        name = rng.choice(names, p=popularity)
        category, price = PRODUCTS[name]
        if category == "食品" and pd.Timestamp(date).year == 2024:
            price = round(price * 1.05)
        quantity = int(rng.integers(1, 4) if category == "家電" else rng.integers(1, 13))
        # Volume discount, with noise: bigger orders tend to get bigger discounts.
        level = int(np.clip(round(quantity / 4 + rng.normal(0, 0.8)), 0, 3))
        discount = [0.0, 0.05, 0.1, 0.15][level]
        rows.append((pd.Timestamp(date).strftime("%Y-%m-%d"), customer, home[customer],
                     category, name, quantity, price, round(quantity * price * (1 - discount)),
                     discount))
    frame = pd.DataFrame(rows, columns=["注文日", "顧客ID", "地域", "商品カテゴリ", "商品名",
                                        "数量", "単価", "売上", "割引率"])
    frame.insert(0, "注文ID", [f"O{n:04d}" for n in range(1, len(frame) + 1)])
    return frame


def staff(rng: np.random.Generator) -> pd.DataFrame:
    """One row per employee; 給与 is monthly pay in yen, 残業時間 monthly hours."""
    count = 150
    departments = rng.choice(["営業", "開発", "製造", "総務", "人事"], size=count,
                             p=[0.3, 0.25, 0.25, 0.12, 0.08])
    age = rng.integers(22, 61, size=count)
    tenure = np.minimum(age - 22, rng.gamma(2.0, 4.0, size=count).round()).astype(int)
    sex = rng.choice(["男性", "女性"], size=count, p=[0.6, 0.4])
    pay_offset = {"営業": 10_000, "開発": 35_000, "製造": -10_000, "総務": 0, "人事": 5_000}
    pay = (200_000 + 5_500 * (age - 22) + 4_000 * tenure
           + np.array([pay_offset[d] for d in departments])
           - np.where(sex == "女性", 9_000, 0) + rng.normal(0, 25_000, size=count))
    overtime_base = {"営業": 30, "開発": 34, "製造": 24, "総務": 12, "人事": 15}
    overtime = np.array([overtime_base[d] for d in departments]) + rng.normal(0, 8, size=count)
    overtime = overtime.clip(0, None)
    overtime[[17, 88]] = [96.0, 112.5]  # two people far past the 45-hour line
    satisfaction = (4.3 - 0.045 * overtime + rng.normal(0, 0.7, size=count)).round().clip(1, 5)
    return pd.DataFrame({
        "社員ID": [f"E{n:03d}" for n in range(1, count + 1)], "部署": departments, "年齢": age,
        "勤続年数": tenure, "残業時間": overtime.round(1), "満足度": satisfaction.astype(int),
        "性別": sex, "給与": (pay / 1000).round().astype(int) * 1000,
    })


def shop_visits(rng: np.random.Generator) -> pd.DataFrame:
    """One row per day, store and channel; heat keeps walk-ins away and sends people online."""
    dates = pd.date_range("2024-04-01", "2024-08-31", freq="D")
    stores = {"Shibuya": (800, 1500, 0.22, 0.0), "Umeda": (650, 1100, 0.25, 0.8),
              "Sakae": (400, 600, 0.2, 0.5)}  # walk-in base, online base, store CVR, warmer by
    rows = []
    for day_number, day in enumerate(dates):
        weekend = 1.4 if day.day_of_week >= 5 else 1.0
        for store, (walk_in, online, store_cvr, warmer) in stores.items():
            temperature = 16 + 14 * day_number / len(dates) + warmer + rng.normal(0, 2.0)
            heat = temperature - 22
            for channel in ("store", "online"):
                base = walk_in * weekend * (1 - 0.025 * heat) if channel == "store" \
                    else online * (1 + 0.015 * heat)
                visitors = int(rng.poisson(base))
                conversions = int(rng.binomial(visitors, store_cvr if channel == "store"
                                               else 0.03))
                ticket = 4200 if channel == "store" else 5600
                revenue = round(conversions * ticket * rng.lognormal(0, 0.08))
                rows.append((day.strftime("%Y-%m-%d"), store, channel, visitors, conversions,
                             revenue, round(temperature, 1)))
    frame = pd.DataFrame(rows, columns=["visit_date", "store", "channel", "visitors",
                                        "conversions", "revenue", "temperature"])
    # A POS outage loses some revenue; the thermometer misses some (day, store) readings.
    frame["revenue"] = frame.revenue.astype("float").mask(rng.random(len(frame)) < 0.03)
    missing = frame[["visit_date", "store"]].drop_duplicates().sample(frac=0.05,
                                                                      random_state=SEED)
    at = frame.set_index(["visit_date", "store"]).index.isin(missing.set_index(
        ["visit_date", "store"]).index)
    frame.loc[at, "temperature"] = np.nan
    frame["revenue"] = frame.revenue.astype("Int64")
    return frame


def write_tables(directory: Path = TABLES) -> list[Path]:
    """Write the four tables into `directory` and return their paths."""
    directory.mkdir(exist_ok=True)
    rng = np.random.default_rng(SEED)  # one stream, drawn in this order: keep the order
    paths = []
    for name, build in [("daily_sales_en.csv", daily_sales), ("orders_ja.csv", orders),
                        ("staff_ja.csv", staff), ("shop_visits_en.csv", shop_visits)]:
        path = directory / name
        build(rng).to_csv(path, index=False, lineterminator="\n")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write_tables():
        print(f"{written.name}: {written.stat().st_size / 1024:.1f} KB")
