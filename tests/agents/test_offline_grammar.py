"""The offline brain's grammar: requests (English and Japanese) and the exact tool calls
planned for them, what it says it cannot do, and that no message can hold it for long.

The table covers every failure class of issue 17: rooms by alias and everyday name, several
clauses and intents with their own direction/colour/floor, floors from the map (ids, names,
ordinals, 階, unknown ones said), percentages, charts of what was asked, one floor's rooms,
questions for the database, and plain "cannot" answers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shokunin.agents.workbench import intents, replies
from shokunin.agents.workbench.charts import chart_code
from shokunin.agents.workbench.tools import run_query
from shokunin.config import Settings
from shokunin.maps import MapPackage

PKG = MapPackage.load(Settings().map_dir)
TOOLS = {"calculator", "run_python", "sql_engine"}
ROOT = Path(__file__).resolve().parents[2]

TABLE: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    ('Kitchenに左矢印を表示して', [
        ('draw_arrow', {'room_name': 'Kitchen', 'direction': 'left'}),
    ]),
    ('draw an up arrow in room2', [
        ('draw_arrow', {'room_name': 'Room2', 'direction': 'up'}),
    ]),
    ('draw an arrow up in Room1 and a left arrow in Kitchen, then highlight the Lounge', [
        ('draw_arrow', {'room_name': 'Room1', 'direction': 'up'}),
        ('draw_arrow', {'room_name': 'Kitchen', 'direction': 'left'}),
        ('highlight_room', {'room_names': 'Lounge'}),
    ]),
    ('draw an up arrow in Room1 and a left one in Kitchen', [
        ('draw_arrow', {'room_name': 'Room1', 'direction': 'up'}),
        ('draw_arrow', {'room_name': 'Kitchen', 'direction': 'left'}),
    ]),
    ('put a right arrow in the pantry and a down arrow in the restroom', [
        ('draw_arrow', {'room_name': 'Kitchen', 'direction': 'right'}),
        ('draw_arrow', {'room_name': 'Toilet', 'direction': 'down'}),
    ]),
    ('給湯室に右矢印、トイレに下矢印を描いて', [
        ('draw_arrow', {'room_name': 'Kitchen', 'direction': 'right'}),
        ('draw_arrow', {'room_name': 'Toilet', 'direction': 'down'}),
    ]),
    ('Room1に上矢印を描いてKitchenをハイライトして', [
        ('draw_arrow', {'room_name': 'Room1', 'direction': 'up'}),
        ('highlight_room', {'room_names': 'Kitchen'}),
    ]),
    ('2階の階段に上矢印', [
        ('draw_arrow', {'room_name': 'Level2', 'direction': 'up'}),
    ]),
    ('二階の階段に下向きの矢印を描いて', [
        ('draw_arrow', {'room_name': 'Level2', 'direction': 'down'}),
    ]),
    ('階段に上矢印を描いて', [
        ('draw_arrow', {'room_name': 'Level1', 'direction': 'up'}),
        ('draw_arrow', {'room_name': 'Level2', 'direction': 'up'}),
    ]),
    ('point an arrow left at the stairs on the first floor', [
        ('draw_arrow', {'room_name': 'Level1', 'direction': 'left'}),
    ]),
    ('draw an arrow in Kitchen', [
    ]),
    ('draw a left arrow in Garage', [  # a name the user typed goes on: the tool's error
        ('draw_arrow', {'room_name': 'Garage', 'direction': 'left'}),
    ]),
    ('ガレージに左矢印', [
        ('draw_arrow', {'room_name': 'ガレージ', 'direction': 'left'}),
    ]),
    ('draw an arrow', [
    ]),
    ('highlight Room1 and Room2 on 1F in red', [
        ('show_map', {'floor_id': '1F', 'highlight_rooms': 'Room1,Room2', 'room_colors': 'red'}),
    ]),
    ('highlight Room1 in red and Kitchen in blue', [
        ('show_map', {
            'floor_id': '1F',
            'highlight_rooms': 'Room1,Kitchen',
            'room_colors': 'red,blue',
        }),
    ]),
    ('「書庫」をハイライトして', [
        ('highlight_room', {'room_names': 'Archive'}),
    ]),
    ('highlight the lounge area', [
        ('highlight_room', {'room_names': 'Lounge'}),
    ]),
    ('highlight the conference room in #00ff00', [
        ('show_map', {
            'floor_id': '2F',
            'highlight_rooms': 'MeetingRoom',
            'room_colors': '#00FF00',
        }),
    ]),
    ('会議室とラウンジを青で強調して', [
        ('show_map', {
            'floor_id': '2F',
            'highlight_rooms': 'MeetingRoom,Lounge',
            'room_colors': 'blue',
        }),
    ]),
    ('highlight Kitchen on 2F', [
    ]),
    ('highlight Room1 in magenta', [
        ('show_map', {'floor_id': '1F', 'highlight_rooms': 'Room1', 'room_colors': 'magenta'}),
    ]),
    ('highlight the stairs', [
        ('highlight_room', {'room_names': 'Level1,Level2'}),
    ]),
    ('2Fを表示', [
        ('show_map', {'floor_id': '2F'}),
    ]),
    ('show floor 1', [
        ('show_map', {'floor_id': '1F'}),
    ]),
    ('show the second floor', [
        ('show_map', {'floor_id': '2F'}),
    ]),
    ('二階を表示して', [
        ('show_map', {'floor_id': '2F'}),
    ]),
    ('show the ground floor', [
        ('show_map', {'floor_id': '1F'}),
    ]),
    ('show B1', [
        ('show_map', {'floor_id': 'B1'}),
    ]),
    ('show 3F', [
        ('show_map', {'floor_id': '3F'}),
    ]),
    ('3階を表示して', [
        ('show_map', {'floor_id': '3階'}),
    ]),
    ('highlight Garage', [
        ('highlight_room', {'room_names': 'Garage'}),
    ]),
    ('draw an arrow in Garage', [
    ]),
    ('show the top floor', [
        ('show_map', {'floor_id': '2F'}),
    ]),
    ('show the map', [
        ('show_map', {'floor_id': '1F'}),
    ]),
    ('show the archive', [
        ('show_map', {'floor_id': '2F', 'highlight_rooms': 'Archive'}),
    ]),
    ('show a person in Lobby', [
        ('show_map', {'floor_id': '1F', 'bitmap_overlays': 'person:Lobby'}),
    ]),
    ('put an exit sign in Room1 and Room2', [
        ('show_map', {'floor_id': '1F', 'bitmap_overlays': 'exit:Room1;exit:Room2'}),
    ]),
    ('ロビーに人物を置いて', [
        ('show_map', {'floor_id': '1F', 'bitmap_overlays': 'person:Lobby'}),
    ]),
    ('clear the map', [
        ('clear_map', {}),
    ]),
    ('マップをクリアして', [
        ('clear_map', {}),
    ]),
    ('矢印をクリアして', [
        ('clear_arrows', {}),
    ]),
    ('clear all arrows and show 2F', [
        ('clear_arrows', {}),
        ('show_map', {'floor_id': '2F'}),
    ]),
    ('where is the archive?', [
        ('sql_engine', {
            'query': ('SELECT r.name, r.floor_id, f.floor_name FROM rooms r JOIN floors f ON '
                      "f.floor_id = r.floor_id WHERE r.name IN ('Archive') ORDER BY r.name"),
        }),
    ]),
    ('書庫はどこ？', [
        ('sql_engine', {
            'query': ('SELECT r.name, r.floor_id, f.floor_name FROM rooms r JOIN floors f ON '
                      "f.floor_id = r.floor_id WHERE r.name IN ('Archive') ORDER BY r.name"),
        }),
    ]),
    ('トイレは何階にありますか', [
        ('sql_engine', {
            'query': ('SELECT r.name, r.floor_id, f.floor_name FROM rooms r JOIN floors f ON '
                      "f.floor_id = r.floor_id WHERE r.name IN ('Toilet') ORDER BY r.name"),
        }),
    ]),
    ('how big is the lounge?', [
        ('sql_engine', {
            'query': "SELECT name, area_m2 FROM rooms WHERE name IN ('Lounge') ORDER BY name",
        }),
    ]),
    ('会議室の広さは？', [
        ('sql_engine', {
            'query': ("SELECT name, area_m2 FROM rooms WHERE name IN ('MeetingRoom') ORDER BY "
                      'name'),
        }),
    ]),
    ('what is the capacity of the meeting room?', [
        ('sql_engine', {
            'query': ("SELECT name, capacity FROM rooms WHERE name IN ('MeetingRoom') ORDER "
                      'BY name'),
        }),
    ]),
    ('ラウンジの定員は何人？', [
        ('sql_engine', {
            'query': "SELECT name, capacity FROM rooms WHERE name IN ('Lounge') ORDER BY name",
        }),
    ]),
    ('how many people are in the meeting room at 2pm?', [
        ('sql_engine', {
            'query': ("SELECT room, people FROM occupancy WHERE room IN ('MeetingRoom') AND "
                      'hour = 14 ORDER BY room'),
        }),
    ]),
    ('会議室の14時の人数は？', [
        ('sql_engine', {
            'query': ("SELECT room, people FROM occupancy WHERE room IN ('MeetingRoom') AND "
                      'hour = 14 ORDER BY room'),
        }),
    ]),
    ('when is the lounge busiest?', [
        ('sql_engine', {
            'query': ("SELECT room, h || ':00' AS hour, people FROM (SELECT room, hour AS h, "
                      "people, RANK() OVER (PARTITION BY room ORDER BY people DESC) AS place "
                      "FROM occupancy WHERE room = 'Lounge') WHERE place <= 1 ORDER BY room, "
                      "place, h"),
        }),
    ]),
    ('2Fが一番混むのはいつ？', [
        ('sql_engine', {
            'query': ("SELECT h || ':00' AS hour, people FROM (SELECT o.hour AS h, "
                      "SUM(o.people) AS people, RANK() OVER (ORDER BY SUM(o.people) DESC) AS "
                      "place FROM occupancy o JOIN rooms r ON r.name = o.room WHERE r.floor_id "
                      "= '2F' GROUP BY o.hour) WHERE place <= 1 ORDER BY place, h"),
        }),
    ]),
    ('which room is the largest?', [
        ('sql_engine', {
            'query': ('SELECT name, floor_id, area_m2 FROM (SELECT name, floor_id, area_m2, '
                      'RANK() OVER (ORDER BY area_m2 DESC) AS place FROM rooms) WHERE place '
                      '<= 1 ORDER BY place, name'),
        }),
    ]),
    ('top 3 rooms by capacity', [
        ('sql_engine', {
            'query': ('SELECT name, floor_id, capacity FROM (SELECT name, floor_id, capacity, '
                      'RANK() OVER (ORDER BY capacity DESC) AS place FROM rooms) WHERE place '
                      '<= 3 ORDER BY place, name'),
        }),
    ]),
    ('2階で一番広い部屋は？', [
        ('sql_engine', {
            'query': ('SELECT name, floor_id, area_m2 FROM (SELECT name, floor_id, area_m2, '
                      'RANK() OVER (ORDER BY area_m2 DESC) AS place FROM rooms WHERE floor_id '
                      "= '2F') WHERE place <= 1 ORDER BY place, name"),
        }),
    ]),
    ('what is the smallest room on 1F?', [
        ('sql_engine', {
            'query': ('SELECT name, floor_id, area_m2 FROM (SELECT name, floor_id, area_m2, '
                      'RANK() OVER (ORDER BY area_m2 ASC) AS place FROM rooms WHERE floor_id '
                      "= '1F') WHERE place <= 1 ORDER BY place, name"),
        }),
    ]),
    ('total area of 2F', [
        ('sql_engine', {
            'query': "SELECT SUM(area_m2) AS total_area_m2 FROM rooms WHERE floor_id = '2F'",
        }),
    ]),
    ('2Fの面積の合計は？', [
        ('sql_engine', {
            'query': "SELECT SUM(area_m2) AS total_area_m2 FROM rooms WHERE floor_id = '2F'",
        }),
    ]),
    ('total capacity per floor', [
        ('sql_engine', {
            'query': ('SELECT floor_id, SUM(capacity) AS total_capacity FROM rooms GROUP BY '
                      'floor_id ORDER BY floor_id'),
        }),
    ]),
    ('how many rooms are on 2F?', [
        ('sql_engine', {'query': "SELECT COUNT(*) AS rooms FROM rooms WHERE floor_id = '2F'"}),
    ]),
    ('how many rooms are on the first floor?', [
        ('sql_engine', {'query': "SELECT COUNT(*) AS rooms FROM rooms WHERE floor_id = '1F'"}),
    ]),
    ('2階に部屋はいくつ？', [
        ('sql_engine', {'query': "SELECT COUNT(*) AS rooms FROM rooms WHERE floor_id = '2F'"}),
    ]),
    ('how many rooms are on that floor?', [
    ]),
    ('how many rooms are on 5F?', [
    ]),
    ('list the rooms on the second floor', [
        ('sql_engine', {
            'query': ("SELECT name, kind, area_m2, capacity FROM rooms WHERE floor_id = '2F' "
                      'ORDER BY name'),
        }),
    ]),
    ('1階の部屋の一覧', [
        ('sql_engine', {
            'query': ("SELECT name, kind, area_m2, capacity FROM rooms WHERE floor_id = '1F' "
                      'ORDER BY name'),
        }),
    ]),
    ('list the rooms', [
        ('sql_engine', {
            'query': ('SELECT name, floor_id, kind, area_m2, capacity FROM rooms ORDER BY '
                      'floor_id, name'),
        }),
    ]),
    ('how many people are on 2F at 10am?', [
        ('sql_engine', {
            'query': ('SELECT SUM(o.people) AS people FROM occupancy o JOIN rooms r ON r.name '
                      "= o.room WHERE r.floor_id = '2F' AND o.hour = 10"),
        }),
    ]),
    ('calculate 1200*1.1', [
        ('calculator', {'expression': '1200*1.1'}),
    ]),
    ('1200*1.1を計算して', [
        ('calculator', {'expression': '1200*1.1'}),
    ]),
    ('what is 15% of 2400?', [
        ('calculator', {'expression': '2400 * 15%'}),
    ]),
    ('2400の15%を計算して', [
        ('calculator', {'expression': '2400 * 15%'}),
    ]),
    ('what is 12.5%', [
        ('calculator', {'expression': '12.5%'}),
    ]),
    # found by trying requests the table did not have
    ("what's 7% of 1530 plus 20", [
        ('calculator', {'expression': '(1530 * 7%) + 20'}),
    ]),
    ('calculate 100 divided by 8', [
        ('calculator', {'expression': '100 / 8'}),
    ]),
    ('計算して: 3 × (4 + 5)', [
        ('calculator', {'expression': '3 * (4 + 5)'}),
    ]),
    ('put an exit sign in the lobby and a person in the office', [
        ('show_map', {'floor_id': '1F', 'bitmap_overlays': 'exit:Lobby;person:Office'}),
    ]),
    ('ロビーに非常口、オフィスに人を置いて', [
        ('show_map', {'floor_id': '1F', 'bitmap_overlays': 'exit:Lobby;person:Office'}),
    ]),
    # found on requests written after the grammar (none of these worked before)
    ('show me the smallest three rooms', [
        ('sql_engine', {'query': 'SELECT name, floor_id, area_m2 FROM (SELECT name, floor_id, '
                                 'area_m2, RANK() OVER (ORDER BY area_m2 ASC) AS place FROM '
                                 'rooms) WHERE place <= 3 ORDER BY place, name'}),
    ]),
    ('what is 3 to the power of 5', [
        ('calculator', {'expression': '3 ** 5'}),
    ]),
    ("put the word 'Exit here' in Room2", [
        ('show_map', {'floor_id': '1F', 'text_overlays': 'Exit here:Room2'}),
    ]),
    ('Room2に「集合場所」と書いて', [
        ('show_map', {'floor_id': '1F', 'text_overlays': '集合場所:Room2'}),
    ]),
    ('highlight every room on the first floor in orange', [
        ('show_map', {'floor_id': '1F', 'highlight_rooms': 'Lobby,Kitchen,Room1,Room2,Toilet,'
                      'Office,Level1,Storage', 'room_colors': 'orange'}),
    ]),
    ('1200円の8%は？', [
        ('calculator', {'expression': '1200 * 8%'}),
    ]),
    ('受付を赤くして', [
        ('show_map', {'floor_id': '1F', 'highlight_rooms': 'Lobby', 'room_colors': 'red'}),
    ]),
    # several bitmaps for one room: each is placed, none dropped
    ('put a person and an exit sign in Kitchen and a left arrow in Kitchen', [
        ('show_map', {'floor_id': '1F', 'bitmap_overlays': 'person:Kitchen;exit:Kitchen'}),
        ('draw_arrow', {'room_name': 'Kitchen', 'direction': 'left'}),
    ]),
    ('Kitchenに人と出口マークを置いて', [
        ('show_map', {'floor_id': '1F', 'bitmap_overlays': 'person:Kitchen;exit:Kitchen'}),
    ]),
    ('calculate 1200 * 8%', [
        ('calculator', {'expression': '1200 * 8%'}),
    ]),
    ('2+3*4', [
        ('calculator', {'expression': '2+3*4'}),
    ]),
    ('calculate 10 % 3', [
        ('calculator', {'expression': '10 % 3'}),
    ]),
    ('calculate 1/0', [
        ('calculator', {'expression': '1/0'}),
    ]),
    ('plot room areas', [
        ('run_python', {'chart': {'metric': 'area_m2'}}),
    ]),
    ('plot the room areas on 2F', [
        ('run_python', {'chart': {'metric': 'area_m2', 'floor': '2F'}}),
    ]),
    ('chart the capacity of each room', [
        ('run_python', {'chart': {'metric': 'capacity'}}),
    ]),
    ('graph the occupancy of the lounge', [
        ('run_python', {'chart': {'metric': 'occupancy', 'room': 'Lounge'}}),
    ]),
    ('ラウンジの人数をグラフにして', [
        ('run_python', {'chart': {'metric': 'occupancy', 'room': 'Lounge'}}),
    ]),
    ('plot total area per floor', [
        ('run_python', {'chart': {'metric': 'area_m2', 'per_floor': True}}),
    ]),
    ('2階の部屋の面積をグラフにして', [
        ('run_python', {'chart': {'metric': 'area_m2', 'floor': '2F'}}),
    ]),
    ('SELECT name FROM rooms', [
        ('sql_engine', {'query': 'SELECT name FROM rooms'}),
    ]),
    ('hello there', [
    ]),
    ('こんにちは', [
    ]),
    ("what's the weather tomorrow?", [
    ]),
    ('Kitchen', [
    ]),
    ('highlight Room1 and order a pizza', [
        ('highlight_room', {'room_names': 'Room1'}),
    ]),
    # full-width forms (NFKC) and the sample map's extra aliases
    ('ルーム１に右矢印を描いて', [
        ('draw_arrow', {'room_name': 'Room1', 'direction': 'right'}),
    ]),
    ('２Ｆを表示', [
        ('show_map', {'floor_id': '2F'}),
    ]),
    ('アトリエをハイライトして', [
        ('highlight_room', {'room_names': 'Studio'}),
    ]),
    ('what is 50％ of 300', [
        ('calculator', {'expression': '300 * 50%'}),
    ]),
    ('highlight the stairs on the second floor in green', [
        ('show_map', {'floor_id': '2F', 'highlight_rooms': 'Level2', 'room_colors': 'green'}),
    ]),
    ('show the first floor stairs', [
        ('show_map', {'floor_id': '1F', 'highlight_rooms': 'Level1'}),
    ]),
    # several floors in one question or display
    ('1階と2階の部屋数', [
        ('sql_engine', {
            'query': ("SELECT floor_id, COUNT(*) AS rooms FROM rooms WHERE floor_id IN ('1F', "
                      "'2F') GROUP BY floor_id ORDER BY floor_id"),
        }),
    ]),
    ('list the rooms on 1F and 2F', [
        ('sql_engine', {
            'query': ('SELECT name, floor_id, kind, area_m2, capacity FROM rooms WHERE '
                      "floor_id IN ('1F', '2F') ORDER BY floor_id, name"),
        }),
    ]),
    ('show 1F and 2F', [
        ('show_map', {'floor_id': '1F'}),
        ('show_map', {'floor_id': '2F'}),
    ]),
    ('graph capacities on the first floor', [
        ('run_python', {'chart': {'metric': 'capacity', 'floor': '1F'}}),
    ]),
    ('Could you show me where the restroom is?', [
        ('sql_engine', {
            'query': ('SELECT r.name, r.floor_id, f.floor_name FROM rooms r JOIN floors f ON '
                      "f.floor_id = r.floor_id WHERE r.name IN ('Toilet') ORDER BY r.name"),
        }),
    ]),
    ('How many people can the lobby hold?', [
        ('sql_engine', {
            'query': "SELECT name, capacity FROM rooms WHERE name IN ('Lobby') ORDER BY name",
        }),
    ]),
    ('Put an arrow pointing right in the reception', [
        ('draw_arrow', {'room_name': 'Lobby', 'direction': 'right'}),
    ]),
    ('ロビーとオフィスを緑でハイライトしてください', [
        ('show_map', {'floor_id': '1F', 'highlight_rooms': 'Lobby,Office', 'room_colors': 'green'}),
    ]),
    ('How many people are in the building at noon?', [
        ('sql_engine', {
            'query': ('SELECT SUM(o.people) AS people FROM occupancy o JOIN rooms r ON r.name '
                      '= o.room WHERE o.hour = 12'),
        }),
    ]),
    ('300の20%は？', [
        ('calculator', {'expression': '300 * 20%'}),
    ]),
    ('矢印を全部消して、マップもクリアして', [
        ('clear_arrows', {}),
        ('clear_map', {}),
    ]),
    # SQL typed as is, and a sentence that only starts like SQL
    ('WITH big AS (SELECT * FROM rooms) SELECT name FROM big', [
        ('sql_engine', {'query': 'WITH big AS (SELECT * FROM rooms) SELECT name FROM big'}),
    ]),
    ('with red, highlight Room1', [
        ('show_map', {'floor_id': '1F', 'highlight_rooms': 'Room1', 'room_colors': 'red'}),
    ]),
]


def plan(text: str, tools: set[str] = TOOLS) -> intents.Plan:
    return intents.plan(text, PKG, tools)


def test_the_table_has_sixty_requests_in_both_languages() -> None:
    ja = [t for t, _ in TABLE if replies_is_ja(t)]
    assert len(TABLE) >= 60 and len(ja) >= 20 and len(TABLE) - len(ja) >= 20


def replies_is_ja(text: str) -> bool:
    return intents.plan(text, PKG, TOOLS).ja


@pytest.mark.parametrize(("text", "expected"), TABLE, ids=[t for t, _ in TABLE])
def test_each_request_plans_exactly_these_calls(text: str, expected: Any) -> None:
    assert plan(text).calls == expected


@pytest.mark.parametrize(("text", "said"), [
    ("draw an arrow in Kitchen", "Which way should the arrow in Kitchen point"),
    ("draw an arrow in Garage", "Which way should the arrow in Garage point"),
    ("draw an arrow", "Which room do you mean?"),
    ("highlight Kitchen on 2F", "Kitchen is on 1F, not on 2F."),
    ("how many rooms are in B1?", "no floor “B1” (floors: 1F, 2F)"),
    ("what is the total area of the third floor", "no floor “third floor”"),
    ("how many rooms are on that floor?", "which floor “that floor” is"),
    ("how many rooms are on 5F?", "no floor “5F”"),
    ("hello there", "did not understand “hello there”"),
    ("what's the weather tomorrow?", "did not understand"),
    ("Kitchen", "did not understand “Kitchen”"),
    ("highlight Room1 and order a pizza", "did not understand “order a pizza”"),
])
def test_what_it_cannot_do_is_said_plainly(text: str, said: str) -> None:
    notes = [en for en, _ja in plan(text).notes]
    assert any(said in note for note in notes), notes


def test_japanese_notes_are_japanese() -> None:
    p = plan("5階の部屋はいくつ？")
    assert p.calls == [] and p.ja
    assert replies.notes(p)[0] == "地図に「5階」という階はありません（階: 1F, 2F）。"


def test_random_points_and_missing_tools() -> None:
    [(name, args)] = plan("show 5 random coordinates on the map").calls
    assert name == "show_points" and len(args["points"]) == 5
    for request, count in (("点を5個プロットして", 5), ("plot 12 points", 12),
                           ("3つの点を表示", 3)):
        [(name, args)] = plan(request).calls  # points, not a chart of rooms
        assert name == "show_points" and len(args["points"]) == count, request
    assert plan("calculate 2+2", set()).calls == []
    assert "calculator tool is not installed" in plan("calculate 2+2", set()).notes[0][0]
    assert plan("plot room areas", set()).calls == []


ADVERSARIAL = ["calculate " + "1" * 100_000, "1+" * 50_000, "what is " + "9." * 50_000,
               "in " * 33_000, "Room1" * 20_000, "階" * 100_000, "、" * 100_000,
               "draw an arrow " * 7_000, "ab1f" * 25_000, "#" * 100_000, "(" * 100_000,
               "at 1" * 25_000, "the stairs and " * 6_600]


_READ_ALL = """
import sys
from shokunin.agents.workbench import intents, replies
from shokunin.agents.workbench.charts import chart_code
from shokunin.agents.workbench.tools import run_query
from shokunin.config import Settings
from shokunin.maps import MapPackage
from tests.agents.test_offline_grammar import ADVERSARIAL

pkg = MapPackage.load(Settings().map_dir)
plans = [intents.plan(m[:int(sys.argv[1])], pkg, {"calculator"}) for m in ADVERSARIAL]
assert all(p.cut for p in plans)
print(replies.notes(plans[0])[0])
"""


@pytest.mark.parametrize("size", [10_000, 100_000])
def test_long_adversarial_messages_are_read_at_once_and_said_to_be_cut(size: int) -> None:
    """Regexes that backtracked took 36 s for 2 kB, holding the GIL (a thread with a
    timeout cannot stop them): read every message in a child process with a generous
    bound; a cubic reader of 10 kB would take hours."""
    done = subprocess.run([sys.executable, "-c", _READ_ALL, str(size)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, check=True)
    assert done.stdout.strip() == "The message is long: I read only its first 1000 characters."


def test_arrow_wording_uses_the_right_article() -> None:
    up = replies.outcome(False, "draw_arrow", {"room_name": "Room1", "direction": "up"}, "", True)
    left = replies.outcome(False, "draw_arrow", {"room_name": "Room1", "direction": "left"},
                           "", True)
    assert (up, left) == ("Drew an up arrow in Room1.", "Drew a left arrow in Room1.")
    assert replies.outcome(True, "draw_arrow", {"room_name": "Room1", "direction": "up"}, "",
                           True) == "上矢印がRoom1に描かれました。"


def test_room_lists_are_spaced_in_english_and_use_the_ja_comma() -> None:
    args = {"room_names": "Room1,Room2"}
    assert replies.outcome(False, "highlight_room", args, "", True) == "Highlighted Room1, Room2."
    ja = replies.outcome(True, "highlight_room", args, "", True)
    assert ja == "Room1、Room2をハイライトしました。"


def test_tool_errors_are_one_sentence_in_the_users_language() -> None:
    error = "Error: unknown room 'Garage'; valid rooms: Lobby, Kitchen"
    assert replies.outcome(True, "draw_arrow", {}, error, False) == (
        "地図に部屋「Garage」はありません（部屋: Lobby, Kitchen）。")
    assert replies.outcome(False, "draw_arrow", {}, error, False) == (
        "The map has no room “Garage” (valid rooms: Lobby, Kitchen).")
    colour = "Error: unknown colour 'magenta'; use #RRGGBB, #RGB or one of: red, blue"
    assert replies.outcome(False, "show_map", {}, colour, False) == (
        "The map has no colour “magenta” (use #RRGGBB, #RGB or one of: red, blue).")
    calc = "Error: 0 で割ることはできません (division by zero)"
    assert replies.outcome(False, "calculator", {}, calc, False) == (
        "The calculator could not compute it: division by zero.")
    assert replies.outcome(True, "calculator", {}, calc, False) == (
        "計算できませんでした: 0 で割ることはできません。")


def test_at_most_twenty_requests_are_read_from_one_message_and_the_rest_is_said() -> None:
    p = plan("show 1F and " * 30)
    assert p.calls == [("show_map", {"floor_id": "1F"})] * 20
    assert p.notes[-1][0] == "I read only the first 20 requests of this message."


def test_every_query_and_chart_of_the_table_runs_on_the_sample_database() -> None:
    db = Settings().sample_db
    calls = [c for _text, expected in TABLE for c in expected]
    queries = [a["query"] for n, a in calls if n == "sql_engine"]
    charts = [a["chart"] for n, a in calls if n == "run_python"]
    assert len(queries) > 30 and len(charts) > 5
    for query in queries:
        run_query(db, query)  # raises on a malformed query
    for spec in charts:
        compile(chart_code(spec, db), "chart", "exec")


def test_a_tool_error_names_no_value_the_user_never_typed_and_no_english_in_japanese() -> None:
    empty = "Error: unknown direction ''; valid directions: up, down, left, right"
    assert replies.outcome(True, "draw_arrow", {}, empty, False) == (
        "向きが指定されていません（向き: up, down, left, right）。")
    assert replies.outcome(False, "draw_arrow", {}, empty, False) == (
        "No direction was given (valid directions: up, down, left, right).")
    other = "Error: the file system is read-only"
    assert replies.outcome(True, "save_data", {}, other, False) == (
        "save_data は失敗しました（詳細はデバッグ欄にあります）。")
