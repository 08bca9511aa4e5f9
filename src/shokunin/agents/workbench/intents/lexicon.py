"""The words the offline brain knows, in English and Japanese, apart from the map's names.

English words are matched as whole words (case-insensitive), Japanese ones as substrings.
"""

from __future__ import annotations

DIRECTIONS_EN = {"up": "up", "upward": "up", "upwards": "up", "down": "down",
                 "downward": "down", "downwards": "down", "left": "left", "right": "right"}
DIRECTIONS_JA = {"上": "up", "下": "down", "左": "left", "右": "right"}
# A Japanese direction character counts only next to one of these (上矢印, 左向き, 右へ),
# and not after these (以上, 地下, 廊下, 最上, 階上).
JA_DIRECTION_AFTER = set("矢向方のへに側")
JA_DIRECTION_NOT_AFTER = set("以地廊最階屋")

COLORS_JA = {"赤": "red", "青": "blue", "緑": "green", "黄": "yellow", "オレンジ": "orange",
             "紫": "purple", "ピンク": "pink", "灰": "gray", "グレー": "gray", "黒": "black",
             "白": "white", "茶": "brown", "水色": "cyan"}

BITMAP_WORDS = {"person": "person", "people icon": "person", "person icon": "person",
                "人物": "person", "人のアイコン": "person", "人アイコン": "person",
                "人を置": "person", "人と": "person", "人を配置": "person", "人を表示": "person",
                "emergency exit": "exit", "exit sign": "exit", "exit": "exit",
                "非常口": "exit", "出口": "exit"}

# Words that name several rooms at once: every room with the word in one of its aliases.
GROUP_WORDS = {"stairs": "stairs", "staircase": "stairs", "stairwell": "stairs",
               "stair": "stairs", "階段": "階段"}

ORDINALS_EN = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
               "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}
KANJI_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
                "九": 9, "十": 10}

# Clause separators. English ones are whole words; Japanese te-forms end a clause when
# something follows them (描いて、/ 描いてKitchenを…), but not before a request ending.
SEPARATORS_EN = ("and then", "and", "then", "also", "after that", "plus")
SEPARATOR_CHARS = set("、。,;；，!！?？\n")
SEPARATORS_JA = ("そして", "それから", "あと", "次に", "その後", "さらに", "また")
TE_FORMS = ("して", "いて", "って", "んで", "えて", "けて", "せて", "べて", "めて", "れて",
            "見せて", "出して")
TE_ENDINGS = ("ください", "下さい", "くれ", "ほしい", "欲しい", "もらえ", "いただ", "ね",
              "よ", "みて", "から", "も", "いる", "いた", "いま", "おり")  # 混んでいる: one verb

# What a clause asks for. Each kind lists English words/phrases and Japanese substrings.
KEYWORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "clear": (("clear", "remove", "erase", "reset", "delete", "wipe"),
              ("クリア", "消して", "消す", "消去", "リセット", "削除", "消し")),
    "calc": (("calculate", "compute", "what is", "what's", "how much is", "evaluate"),
             ("計算", "はいくつ", "はいくら", "は何")),
    "chart": (("plot", "chart", "graph", "visualize", "visualise", "diagram"),
              ("グラフ", "プロット", "図にして", "図示", "可視化", "チャート")),
    "points": (("random",), ("ランダム",)),
    "arrow": (("arrow", "arrows"), ("矢印",)),
    "where": (("where", "which floor", "what floor", "located", "location"),
              ("どこ", "何階", "なんかい", "場所")),
    "rank": (("largest", "biggest", "smallest", "most", "least", "rank", "ranking",
              "largest rooms", "biggest rooms", "fewest"),
             ("一番", "いちばん", "最も", "最大", "最小", "上位", "トップ", "ランキング",
              "順位", "順に", "順で")),
    "total": (("total", "sum", "altogether", "combined", "in all"),
              ("合計", "総", "全部で", "合わせて")),
    "occupancy": (("occupancy", "occupied", "busy", "busiest", "crowded", "peak",
                   "how many people are", "how many people were", "people in",
                   "people are in", "people at"),
                  ("人数", "混", "何人い", "在室", "ピーク", "利用者")),
    "capacity": (("capacity", "capacities", "seats", "seat", "how many people can", "fit",
                  "hold"),
                 ("定員", "収容", "何人入", "何人まで", "席")),
    "area": (("area", "areas", "size", "sizes", "how big", "how large", "square meters",
              "square metres",
              "m2", "m²", "big is", "large is"),
             ("面積", "広さ", "大きさ", "平米", "㎡", "広い", "狭い")),
    "count": (("how many rooms", "number of rooms", "count", "how many"),
              ("何部屋", "部屋数", "いくつ", "何室", "数")),
    "list": (("list", "which rooms", "what rooms", "rooms on", "rooms are on", "rooms in",
              "all rooms", "all the rooms", "every room"),
             ("一覧", "リスト", "どんな部屋", "部屋を教え", "部屋は何", "全部屋", "部屋を全部")),
    "highlight": (("highlight", "mark", "emphasize", "emphasise", "color", "colour",
                   "paint"),
                  ("ハイライト", "強調", "目立", "色を付け", "色をつけ", "塗", "くして",
                   "色にして")),
    "place": (("put", "place", "add", "draw", "mark"),
              ("置いて", "置く", "配置", "追加", "描いて", "描く", "つけて", "付けて")),
    "show": (("show", "display", "open", "view", "go to", "switch to", "see"),
             ("表示", "見せ", "開いて", "出して", "映して", "切り替え")),
    "map": (("map", "floor plan", "plan", "everything", "all", "highlights"),
            ("マップ", "地図", "全部", "すべて", "全て", "ハイライト", "間取り")),
}
SMALLEST_WORDS = (("smallest", "least", "fewest", "lowest", "minimum", "quietest", "emptiest",
                   "least crowded", "least busy"),
                  ("狭い", "小さい", "最小", "少ない", "最少", "空いて", "すいて"))
CAPACITY_RANK_WORDS = (("capacity", "seats", "can hold", "can fit", "hold the most",
                        "holds the most"),
                       ("定員", "収容", "人が入る", "人が入れる", "座れ"))

# The parts of a question about a quantity (intents/quantity.py): what is measured, how the
# values are combined or picked, what each answer is about, and what cannot be computed.
PEOPLE_WORDS = (("people", "person", "persons", "occupancy", "occupied", "busy", "busiest",
                 "crowded", "crowd", "visitors", "occupants", "headcount", "quietest",
                 "emptiest", "quiet", "empty"),
                ("人数", "人が", "人は", "人の", "何人", "人い", "混", "在室", "利用者", "ピーク",
                 "空いて", "すいて", "空き"))
SIZE_WORDS = (("largest", "biggest", "smallest", "widest", "big", "large", "small"),
              ("広い", "狭い", "大きい", "小さい", "広さ", "大きさ"))
MEAN_WORDS = (("average", "averages", "mean", "avg", "on average"), ("平均",))
MAX_WORDS = (("largest", "biggest", "most", "highest", "busiest", "maximum", "max", "peak",
              "widest", "most crowded", "top", "greatest"),
             ("一番", "いちばん", "最も", "最大", "最多", "ピーク", "トップ", "上位"))
COUNT_ROOMS_WORDS = (("how many rooms", "number of rooms", "count the rooms", "count rooms",
                      "room count"),
                     ("何部屋", "部屋数", "何室", "部屋はいくつ", "部屋がいくつ", "部屋の数"))
# What each answer is about: an hour ("when"), a floor ("which floor"), a room ("which room")
OVER_HOUR_WORDS = (("when", "what time", "which hour", "what hour", "by hour", "per hour",
                    "hourly", "each hour", "busiest hour", "busiest time", "time of day"),
                   ("いつ", "何時", "時間帯", "時間ごと", "時間別", "毎時"))
OVER_FLOOR_WORDS = (("which floor", "what floor", "floor with", "floor has", "floor is"),
                    ("どの階", "どのフロア", "何階", "階はどこ", "フロアはどこ"))
OVER_ROOM_WORDS = (("room", "rooms", "which one", "per room", "each room", "by room",
                    "every room"),
                   ("部屋", "どこの", "どこが", "どこに", "どの"))
PER_ROOM_WORDS = (("per room", "each room", "by room", "every room", "room by room",
                   "for each room", "all rooms"),
                  ("部屋ごと", "部屋別", "各部屋", "全部屋", "すべての部屋", "全ての部屋"))
# Asked for, but not computed offline: said, never swapped for another quantity.
UNSUPPORTED_WORDS = (("median", "standard deviation", "std dev", "variance", "ratio",
                      "percentage", "percent", "proportion", "share of", "density",
                      "per person", "per square", "difference", "mode", "growth", "trend",
                      "forecast", "predict"),
                     ("中央値", "標準偏差", "分散", "割合", "比率", "密度", "一人当たり",
                      "1人当たり", "一人あたり", "1人あたり", "平米あたり", "差", "最頻",
                      "推移", "予測", "傾向"))
# The people in a room as a share of its capacity, at an hour (intents/questions.usage)
USAGE_WORDS = (("occupancy rate", "occupancy rates", "utilisation rate", "utilization rate",
                "usage rate", "utilisation", "utilization", "people per capacity",
                "per capacity", "relative to capacity", "compared to capacity",
                "against capacity", "how full"),
               ("利用率", "稼働率", "占有率", "使用率", "在室率", "充足率", "混雑率", "収容率"))
# What is measured, in words the queries cannot compute: another rate or ratio (回転率,
# "turnover rate", 割合) and a property the database does not hold (temperature, cost).
# Read before the measures the queries know, so that 「定員に対する回転率」 is not answered
# with the capacity it mentions.
UNKNOWN_MEASURE_WORDS = (("usage", "rate", "load factor", "as a share of capacity", "full",
                          "ratio",
                          "percentage", "percent", "proportion", "share of",
                          "temperature", "humidity", "noise", "energy", "electricity", "power",
                          "cost", "costs", "price", "rent", "height", "ceiling", "brightness",
                          "co2", "air quality"),
                         ("温度", "室温", "湿度", "騒音", "電力", "消費", "料金", "費用", "価格",
                          "家賃", "賃料", "割合", "高さ", "天井", "明るさ", "照度", "二酸化炭素"))
# A Japanese measure compound ending in 率 (回転率, 比率): read whole.
UNKNOWN_MEASURE_JA = r"[一-龥ァ-ヶー々]*率"
# Times the data does not resolve to one hour of the day (the sample has one day, by hour).
TIME_SPAN_WORDS = (("morning", "afternoon", "evening", "night", "tonight", "lunchtime",
                    "today", "tomorrow", "yesterday", "week", "month", "year", "weekend",
                    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                    "sunday", "all day", "whole day", "during the day", "between", "until",
                    "half past", "quarter"),
                   ("午前中", "朝", "夕方", "夜", "今日", "明日", "昨日", "今週", "先週", "来週",
                    "今月", "先月", "週末", "曜日", "一日中", "1日中", "終日", "時半",
                    "まで", "から"))
PER_FLOOR_WORDS = (("per floor", "by floor", "each floor", "every floor"),
                   ("フロアごと", "階ごと", "フロア別", "階別", "各階"))
