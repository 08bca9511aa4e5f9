"""The words the offline Analyst knows, Japanese and English: analysis words (what to
compute), column-name synonyms (売上 is ``sales``, ``quantity`` is 数量), and the words that
carry no part of a question ("please", 教えて). A word in none of these is a part of the
question that bound to nothing, and the answer says so.

Each analysis word is ``(kind, value)``; a surface form is matched whole (an English word
never inside another word), longest first.
"""

from __future__ import annotations

Term = tuple[str, str]  # (kind, value)

_TERMS: dict[Term, tuple[str, ...]] = {
    # aggregations
    ("agg", "sum"): ("sum", "total", "totals", "合計", "総額", "総計", "合算", "トータル",
                     "合わせると", "合わせて", "combined"),
    ("agg", "mean"): ("average", "mean", "avg", "平均", "平均値", "average number of",
                      "mean number of", "average amount of"),
    ("agg", "median"): ("median", "中央値"),
    ("agg", "min"): ("minimum", "min", "最小", "最小値", "最低値"),
    ("agg", "max"): ("maximum", "max", "最大", "最大値", "最高値"),
    ("agg", "std"): ("standard deviation", "std", "std dev", "stdev", "標準偏差"),
    ("agg", "var"): ("variance", "分散"),
    ("agg", "skew"): ("skewness", "skew", "skewed", "歪度", "歪み"),
    ("agg", "kurt"): ("kurtosis", "尖度"),
    ("agg", "nunique"): ("unique", "distinct", "種類", "ユニーク"),
    ("agg", "count"): ("how many", "number of", "count", "件数", "何件", "個数", "何行", "行数",
                       "レコード数", "何人", "人数", "回数", "何回", "いくつ", "何個", "何社",
                       "何店", "何種類"),
    ("missing", "missing"): ("missing", "missing values", "null", "nulls", "nan", "欠損",
                             "欠損値", "欠測", "空欄", "percentage of missing",
                             "percentage of missing values", "missing percentage", "欠損率"),
    # order and ranking
    ("order", "desc"): ("top", "highest", "largest", "biggest", "most", "best", "greatest",
                        "上位", "トップ", "ベスト", "最も多い", "一番多い", "最も高い",
                        "一番高い", "最も大きい", "一番大きい", "多い", "高い", "大きい",
                        "最大の", "最高", "長い", "一番長い", "最も長い", "多く", "most common",
                        "most frequent", "最も多く", "一番多く", "よく売れ", "売れている",
                        "売れた", "more", "higher", "larger", "bigger", "longer", "greater",
                        "tallest", "longest", "oldest", "most often", "一番多", "最も多",
                        "一番高", "最も高", "一番大き", "最も大き", "一番長", "最も長"),
    ("order", "asc"): ("bottom", "lowest", "smallest", "least", "fewest", "worst", "下位",
                       "ワースト", "最も少ない", "一番少ない", "最も低い", "一番低い",
                       "最も小さい", "少ない", "低い", "小さい", "最低", "短い", "一番短い",
                       "最も短い", "fewer", "less", "lower", "smaller", "shorter",
                       "shortest", "youngest", "least often", "一番少な", "最も少な", "一番低",
                       "最も低", "一番小さ", "最も小さ", "一番短", "最も短"),
    ("rank", "rank"): ("rank", "ranking", "sort", "sorted", "order by", "順位", "ランキング",
                       "並べ", "順"),
    ("which", "which"): ("which", "what", "who", "どの", "どれ", "どこ", "何が", "誰"),
    # time grains and the time axis
    ("grain", "D"): ("daily", "by day", "each day", "日別", "日ごと", "毎日", "日次"),
    ("rate", "D"): ("per day", "a day", "1日あたり", "一日あたり", "日あたり", "1日の", "日平均"),
    ("grain", "W"): ("weekly", "by week", "each week", "週別", "週ごと", "毎週", "週次"),
    ("rate", "W"): ("per week", "a week", "1週間あたり", "週あたり"),
    ("grain", "M"): ("monthly", "by month", "each month", "month by month", "月別", "月ごと",
                     "毎月", "月次", "月単位"),
    ("rate", "M"): ("per month", "a month", "月あたり", "1か月あたり", "ひと月あたり", "月平均"),
    ("grain", "Q"): ("quarterly", "per quarter", "by quarter", "四半期", "四半期別",
                     "四半期ごと"),
    ("grain", "Y"): ("yearly", "annual", "annually", "per year", "by year", "each year",
                     "年別", "年ごと", "毎年", "年次", "年度別"),
    ("trend", "trend"): ("trend", "trends", "over time", "time series", "推移", "トレンド",
                         "時系列", "動き", "変遷"),
    # comparisons
    ("compare", "previous"): ("month over month", "month-over-month", "mom", "previous month",
                              "last month", "previous period", "period over period", "growth",
                              "growth rate", "change", "changed", "前月比", "前月", "前期比",
                              "前週比", "前日比", "先月", "増減", "増減率", "伸び率", "成長率",
                              "変化", "変化率", "変わった", "前月から", "前月より", "前期より",
                              "伸び", "伸びた", "増えた", "減った"),
    ("compare", "yoy"): ("year over year", "year-over-year", "yoy", "previous year",
                         "last year", "前年比", "前年同月比", "前年", "昨年", "去年", "前年同期比",
                         "前年より"),
    ("compare", "share"): ("share", "shares", "proportion", "percentage of total",
                           "percent of total", "composition", "構成比", "シェア", "割合",
                           "占める", "比率"),
    ("compare", "cumulative"): ("cumulative", "running total", "cumsum", "累計", "累積"),
    ("compare", "moving"): ("moving average", "rolling average", "rolling mean",
                            "移動平均"),
    # tests
    ("test", "correlation"): ("correlation", "correlated", "correlate", "correlates",
                              "correlation coefficient", "pearson", "relationship",
                              "linear relationship", "related", "相関", "相関係数", "相関関係"),
    ("test", "normality"): ("normal distribution", "normally distributed", "normality",
                            "shapiro", "shapiro-wilk", "正規性", "正規分布", "正規"),
    ("test", "ttest"): ("t-test", "t test", "ttest", "welch", "significant difference",
                        "significantly different", "t検定", "有意差", "有意な差", "差はある",
                        "差がある", "差があるか", "差は", "違いはある", "違いがある"),
    ("test", "chi2"): ("association", "associated", "independence", "independent",
                       "chi-square", "chi-squared", "chi square", "関連", "関連性", "独立性",
                       "カイ二乗", "χ2"),
    ("test", "crosstab"): ("crosstab", "cross tab", "cross-tab", "pivot", "pivot table",
                           "cross tabulation", "クロス集計", "クロス表", "ピボット", "クロス"),
    ("distribution", "distribution"): ("distribution", "histogram", "spread", "分布",
                                       "ヒストグラム", "ばらつき"),
    ("overview", "overview"): ("overview", "summary", "summarize", "summarise", "describe",
                               "profile", "statistics", "descriptive statistics", "概要",
                               "要約", "基本統計", "基本統計量", "統計量", "全体像"),
    # group markers (English before the column, Japanese after it)
    ("by", "by"): ("by", "per", "for each", "each", "across", "among", "grouped by",
                   "group by", "broken down by", "in each"),
    ("bypost", "bypost"): ("別", "ごと", "毎", "単位", "ごとの", "別の", "べつ", "べつに", "別に"),
    # what a question asks that the offline planner cannot do: named, never answered
    ("cannot", "outliers"): ("outlier", "outliers", "z-score", "zscore", "iqr", "外れ値",
                             "異常値"),
    ("cannot", "model"): ("regression", "predict", "prediction", "forecast", "forecasting",
                          "model", "machine learning", "classify", "classification", "cluster",
                          "clustering", "train", "r-squared", "予測", "回帰", "モデル",
                          "機械学習", "分類", "クラスタ", "将来", "来月", "来年", "見込み"),
    ("cannot", "transform"): ("normalize", "normalise", "standardize", "scale", "scaling",
                              "impute", "imputation", "fill", "encode", "encoding",
                              "preprocessing", "preprocess", "clean", "cleaning",
                              "feature", "new column", "create", "generate", "log",
                              "正規化", "標準化", "補完", "前処理", "新しい列", "作成"),
    ("cannot", "condition"): ("ignore", "ignoring", "exclude", "excluding", "except",
                              "without", "remove", "removing", "drop", "dropping", "only",
                              "greater than", "less than", "more than", "fewer than", "above",
                              "below", "at least", "at most", "exceed", "exceeds",
                              "over", "under", "when", "where", "whose",
                              "除く", "除いて", "除き", "除外", "以外", "以上", "以下", "未満",
                              "超え", "超",
                              "より", "だけ", "のみ", "場合", "とき"),
    ("cannot", "arithmetic"): ("difference", "ratio", "per capita", "percentile", "quantile",
                               "quartile", "rate", "percentage", "percent", "divide",
                               "multiply", "weighted", "差", "差分", "比", "率", "四分位",
                               "パーセンタイル", "加重"),
    ("cannot", "why"): ("why", "reason", "cause", "because", "explain", "interpret", "impact",
                        "affect", "effect", "influence", "なぜ", "理由", "原因", "要因", "影響",
                        "どうすれば", "施策", "改善", "どうして", "なんで", "どうしたら",
                        "どうやって", "べき", "おすすめ", "アドバイス"),
}

# The same concept in both languages; a column named by one is found by any of them.
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("売上", "売上高", "売り上げ", "売上金額", "販売額", "sales", "revenue", "turnover"),
    ("数量", "販売数", "販売数量", "個数", "quantity", "qty", "units", "unit count"),
    ("単価", "価格", "値段", "price", "unit price", "unit_price"),
    ("日付", "date", "day"),
    ("年月", "月", "month"),
    ("year",),
    ("商品", "商品名", "製品", "品目", "product", "item", "product name"),
    ("カテゴリ", "カテゴリー", "商品カテゴリ", "category"),
    ("地域", "エリア", "地方", "region", "area"),
    ("店舗", "店", "支店", "store", "shop", "branch"),
    ("顧客", "顧客id", "取引先", "customer", "client", "customer id"),
    ("年齢", "age"),
    ("性別", "男女", "gender", "sex"),
    ("国", "国名", "country"),
    ("部署", "部門", "department", "dept"),
    ("給与", "給料", "年収", "salary", "wage", "pay"),
    ("利益", "粗利", "profit"),
    ("費用", "コスト", "原価", "cost", "expense", "expenses"),
    ("来店者数", "来客数", "訪問者数", "来店客数", "visitors", "visits", "visitor count"),
    ("成約数", "コンバージョン", "conversions"),
    ("気温", "温度", "temperature"),
    ("割引率", "割引", "discount"),
    ("満足度", "satisfaction"),
    ("残業時間", "残業", "overtime"),
    ("勤続年数", "tenure", "years of service"),
    ("チャネル", "経路", "channel"),
    ("運賃", "料金", "fare"),
    ("湿度", "humidity"),
    ("身長", "高さ", "height", "tall"),
)

# Concepts whose values add up: without an aggregation word they are totalled, others averaged.
ADDITIVE = frozenset({
    "売上", "売上高", "売り上げ", "売上金額", "販売額", "sales", "revenue", "turnover", "amount",
    "数量", "販売数", "販売数量", "個数", "quantity", "qty", "units", "利益", "粗利", "profit",
    "費用", "コスト", "原価", "cost", "expense", "expenses", "来店者数", "来客数", "訪問者数",
    "visitors", "visits", "成約数", "conversions", "金額", "件数", "count", "残業時間",
    "overtime", "deaths", "cases", "votes", "orders", "注文数"})



def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that carry no part of a question.
FILLER_EN = _words("""
a an the of in on at to for from with and or is are was were be been being do does did
what's whats how much many me my us our we you your i it its this that these those there
their they them please show tell give find calculate compute determine get list display
report provide identify check see look let know want would like could can should will data
dataset table file column columns field fields row rows record records entry entries value
values variable variables figure figures number numbers amount all overall whole entire
across per each every any some also then both just as into about here value(s) paid
recorded made has have had given based using use used via respectively within if whether
between there's is there are there passenger passengers individual individuals people
person persons employee employees participant participants player players reading readings
measurement measurements transaction transactions respondent respondents user users member
members observation observations sample samples adhere adheres follow follows incurred
received hit administered sold spent earned perform performed analysis analyze analyse so
yes provided separately result results question numerical numeric linear nonlinear level
mm cm km kg usd jpy eur yen dollars out listed scored score achieved got gained played
compete competed appear appeared featured include included contain contains according
chart held hold holds receive receives completed occurred served participated
""")
FILLER_JA = _words("""
調 従 思 使 言 考 書 読 行 入 聞 感 教 見 出 計算 集計 算出 表示 求
確認 分析 知 全体 全 各 何 値 数値 結果 データ 表 一覧 件 位 数 円 個 人
名 回 列 項目 一番 最 もっとも 全商品 全部 すべて 全て それぞれ 各月 毎 月々
社員 従業員 回答者 人たち 教えて 見せて 出して 下さい ください お願い 願 可視化
グラフ 図 描 作 比較 様子 状況 傾向 今年 全店 全国 全期間 全社 値段 つ 件数
上 下 中 間 % ％ 何% 何％ 変 どれくらい どのくらい 載 載って 載ってる 決 務 所属
""")


def terms() -> dict[str, Term]:
    """Every analysis word in lower case, with its kind and value."""
    return {surface.lower(): term for term, surfaces in _TERMS.items() for surface in surfaces}
