"""Generate the shipped samples: the two-floor building map package and ``sample.db``.

Run ``python -m shokunin.data.make_samples`` after changing the layout below; the outputs
are committed, and a test checks they still match ``FLOORS``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
MAP_DIR = HERE / "map"
DB_PATH = HERE / "sample.db"

WIDTH, HEIGHT = 100, 60  # virtual coordinates of every floor
SCALE = 10  # image pixels per coordinate unit
M2_PER_UNIT2 = 0.25  # floor area of one square coordinate unit

# floor id -> (name, [(room, kind, capacity, (x1, y1, x2, y2))]); the corridor y 30..38
# is left free on both floors.
FLOORS: dict[str, tuple[str, list[tuple[str, str, int, tuple[int, int, int, int]]]]] = {
    "1F": ("1階", [
        ("Lobby", "lobby", 30, (0, 0, 25, 30)),
        ("Kitchen", "kitchen", 8, (25, 0, 45, 30)),
        ("Room1", "room", 6, (45, 0, 65, 30)),
        ("Room2", "room", 6, (65, 0, 85, 30)),
        ("Toilet", "toilet", 3, (85, 0, 100, 30)),
        ("Office", "office", 20, (0, 38, 45, 60)),
        ("Level1", "stairs", 0, (45, 38, 60, 60)),
        ("Storage", "storage", 0, (60, 38, 100, 60)),
    ]),
    "2F": ("2階", [
        ("MeetingRoom", "meeting", 12, (0, 0, 35, 30)),
        ("Studio", "room", 6, (35, 0, 65, 30)),
        ("Bathroom", "bathroom", 2, (65, 0, 100, 30)),
        ("Lounge", "lounge", 15, (0, 38, 45, 60)),
        ("Level2", "stairs", 0, (45, 38, 60, 60)),
        ("Archive", "storage", 0, (60, 38, 100, 60)),
    ]),
}
# The names people use for each room (Japanese and English). Each stair well is named with
# its floor; "the stairs" / 「階段」 alone means both (the offline brain narrows it by a floor
# named with it: 「2階の階段」, "the stairs on the first floor").
ALIASES: dict[str, list[str]] = {
    "Lobby": ["ロビー", "エントランス", "受付", "玄関", "entrance", "reception", "lobby area"],
    "Kitchen": ["キッチン", "台所", "給湯室", "pantry", "kitchenette"],
    "Room1": ["部屋1", "ルーム1", "room 1"],
    "Room2": ["部屋2", "ルーム2", "room 2"],
    "Toilet": ["トイレ", "お手洗い", "化粧室", "restroom", "wc", "lavatory"],
    "Office": ["オフィス", "事務所", "事務室", "執務室", "workspace"],
    "Level1": ["1階の階段", "1Fの階段", "1階階段", "stairs on 1F", "ground floor stairs",
               "first floor stairs", "level 1"],
    "Storage": ["倉庫", "物置", "収納", "store room", "storeroom", "stockroom"],
    "MeetingRoom": ["会議室", "ミーティングルーム", "meeting room", "conference room",
                    "meeting space"],
    "Studio": ["スタジオ", "工房", "アトリエ", "studio room", "atelier"],
    "Bathroom": ["浴室", "風呂", "バスルーム", "シャワー室", "shower room", "bath"],
    "Lounge": ["ラウンジ", "休憩室", "談話室", "休憩所", "lounge area", "break room",
               "common room"],
    "Level2": ["2階の階段", "2Fの階段", "2階階段", "stairs on 2F", "upstairs stairs",
               "second floor stairs", "level 2"],
    "Archive": ["書庫", "資料室", "書類庫", "アーカイブ", "archives", "records room",
                "file room"],
}
BITMAPS = [("arrow_up", "上矢印"), ("arrow_down", "下矢印"), ("arrow_left", "左矢印"),
           ("arrow_right", "右矢印"), ("person", "人物"), ("exit", "非常口")]
ROOM_FILL = {"stairs": "#E8E4D8", "toilet": "#E4EEF6", "bathroom": "#E4EEF6",
             "kitchen": "#F6EFE4", "storage": "#EEEEEE"}


def definition() -> dict:
    floors = []
    for floor_id, (floor_name, rooms) in FLOORS.items():
        floors.append({
            "floorId": floor_id, "floorName": floor_name, "floorImage": f"floor_{floor_id}.png",
            "coordinateSystem": {"topLeft": {"x": 0, "y": 0},
                                 "bottomRight": {"x": WIDTH, "y": HEIGHT}},
            "rectangles": [{"name": name, "topLeft": {"x": x1, "y": y1},
                            "bottomRight": {"x": x2, "y": y2}, "aliases": ALIASES[name]}
                           for name, _kind, _cap, (x1, y1, x2, y2) in rooms],
        })
    bitmaps = [{"bitmapId": bid, "bitmapName": name, "bitmapFile": f"{bid}.png"}
               for bid, name in BITMAPS]
    return {"floors": floors, "bitmaps": bitmaps}


def _font(size: int) -> ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def draw_floor(floor_id: str) -> Image.Image:
    floor_name, rooms = FLOORS[floor_id]
    img = Image.new("RGB", (WIDTH * SCALE, HEIGHT * SCALE), "#FAFAF7")
    d = ImageDraw.Draw(img)
    d.rectangle((0, 30 * SCALE, WIDTH * SCALE - 1, 38 * SCALE), fill="#F0F0EA")
    for name, kind, _cap, (x1, y1, x2, y2) in rooms:
        box = (x1 * SCALE, y1 * SCALE, x2 * SCALE - 1, y2 * SCALE - 1)
        d.rectangle(box, fill=ROOM_FILL.get(kind, "#FFFFFF"), outline="#333333", width=4)
        if kind == "stairs":
            for step in range(y1 * SCALE + 45, y2 * SCALE - 10, 18):
                d.line((x1 * SCALE + 15, step, x2 * SCALE - 15, step), fill="#8A8470", width=2)
        door_x = (x1 + x2) * SCALE // 2
        door_y = y2 * SCALE - 3 if y1 == 0 else y1 * SCALE + 1
        d.line((door_x - 25, door_y, door_x + 25, door_y), fill="#F0F0EA", width=6)
        d.text((x1 * SCALE + 12, y1 * SCALE + 10), name, fill="#555555", font=_font(20))
    d.text((WIDTH * SCALE - 190, 30 * SCALE + 18), f"{floor_id} corridor", fill="#888888",
           font=_font(18))
    return img


def draw_bitmap(bitmap_id: str) -> Image.Image:
    img = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    arrows = {"arrow_up": [(32, 4), (58, 34), (42, 34), (42, 60), (22, 60), (22, 34), (6, 34)]}
    arrows["arrow_down"] = [(x, 64 - y) for x, y in arrows["arrow_up"]]
    arrows["arrow_left"] = [(y, x) for x, y in arrows["arrow_up"]]
    arrows["arrow_right"] = [(64 - y, x) for x, y in arrows["arrow_up"]]
    if bitmap_id in arrows:
        d.polygon(arrows[bitmap_id], fill=(220, 30, 30, 255), outline=(120, 0, 0, 255))
    elif bitmap_id == "person":
        d.ellipse((22, 4, 42, 24), fill=(30, 90, 200, 255))
        d.rounded_rectangle((16, 27, 48, 60), radius=10, fill=(30, 90, 200, 255))
    elif bitmap_id == "exit":
        d.rounded_rectangle((2, 14, 62, 50), radius=6, fill=(0, 150, 70, 255))
        d.text((9, 22), "EXIT", fill=(255, 255, 255, 255), font=_font(18))
    else:
        raise ValueError(f"no drawing for bitmap {bitmap_id!r}")
    return img


def write_database(path: Path) -> None:
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    with con:
        con.executescript("""
            CREATE TABLE floors (floor_id TEXT PRIMARY KEY, floor_name TEXT NOT NULL,
                                 level INTEGER NOT NULL);
            CREATE TABLE rooms (name TEXT PRIMARY KEY, floor_id TEXT NOT NULL
                                REFERENCES floors(floor_id), kind TEXT NOT NULL,
                                area_m2 REAL NOT NULL, capacity INTEGER NOT NULL);
            CREATE TABLE occupancy (room TEXT NOT NULL REFERENCES rooms(name),
                                    hour INTEGER NOT NULL, people INTEGER NOT NULL,
                                    PRIMARY KEY (room, hour));
        """)
        for level, (floor_id, (floor_name, rooms)) in enumerate(FLOORS.items(), start=1):
            con.execute("INSERT INTO floors VALUES (?, ?, ?)", (floor_id, floor_name, level))
            for name, kind, cap, (x1, y1, x2, y2) in rooms:
                area = (x2 - x1) * (y2 - y1) * M2_PER_UNIT2
                con.execute("INSERT INTO rooms VALUES (?, ?, ?, ?, ?)",
                            (name, floor_id, kind, area, cap))
                for hour in range(8, 20):
                    # deterministic, plausible: busiest around noon, never above capacity
                    people = cap * (6 - abs(hour - 13)) // 6 if cap else 0
                    con.execute("INSERT INTO occupancy VALUES (?, ?, ?)",
                                (name, hour, max(people, 0)))
    con.close()


def main() -> None:
    MAP_DIR.mkdir(parents=True, exist_ok=True)
    (MAP_DIR / "map.json").write_text(
        json.dumps(definition(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for floor_id in FLOORS:
        draw_floor(floor_id).save(MAP_DIR / f"floor_{floor_id}.png", optimize=True)
    for bitmap_id, _name in BITMAPS:
        draw_bitmap(bitmap_id).save(MAP_DIR / f"{bitmap_id}.png", optimize=True)
    write_database(DB_PATH)
    print(f"wrote {MAP_DIR} and {DB_PATH}")


if __name__ == "__main__":
    main()
