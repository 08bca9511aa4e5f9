"""Questions about the building, as one SELECT each on the sample database.

Schema: floors(floor_id, floor_name, level), rooms(name, floor_id, kind, area_m2,
capacity), occupancy(room, hour, people). Every name put into a query comes from the map
(never from the user's text), and is quoted anyway.
"""

from __future__ import annotations

Label = tuple[str, str]  # (English, Japanese)
Question = tuple[str, Label]  # the SELECT, and what its answer is

METRICS = {"area_m2": ("area (m²)", "面積（m²）"), "capacity": ("capacity", "定員")}


def _q(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _names(rooms: list[str]) -> str:
    return ", ".join(_q(r) for r in rooms)


def _floor_where(floors: list[str], column: str = "floor_id") -> str:
    if len(floors) > 1:
        return f" WHERE {column} IN ({_names(floors)})"
    return f" WHERE {column} = {_q(floors[0])}" if floors else ""


def _on(floors: list[str]) -> Label:
    return (f" on {' and '.join(floors)}", f"{'と'.join(floors)}の") if floors else ("", "")


def where(rooms: list[str]) -> Question:
    return (f"SELECT r.name, r.floor_id, f.floor_name FROM rooms r JOIN floors f ON "
            f"f.floor_id = r.floor_id WHERE r.name IN ({_names(rooms)}) ORDER BY r.name",
            (f"Where {', '.join(rooms)} {'is' if len(rooms) == 1 else 'are'}",
             f"{'、'.join(rooms)}の場所"))


def attribute(metric: str, rooms: list[str]) -> Question:
    en, ja = METRICS[metric]
    return (f"SELECT name, {metric} FROM rooms WHERE name IN ({_names(rooms)}) ORDER BY name",
            (f"The {en} of {', '.join(rooms)}", f"{'、'.join(rooms)}の{ja}"))


def total(metric: str, floors: list[str], per_floor: bool = False) -> Question:
    en, ja = METRICS[metric]
    if per_floor or len(floors) > 1:
        return (f"SELECT floor_id, SUM({metric}) AS total_{metric} FROM rooms"
                f"{_floor_where(floors)} GROUP BY floor_id ORDER BY floor_id",
                (f"Total {en} per floor", f"階ごとの{ja}の合計"))
    on_en, on_ja = _on(floors)
    return (f"SELECT SUM({metric}) AS total_{metric} FROM rooms{_floor_where(floors)}",
            (f"Total {en}{on_en or ' of the building'}", f"{on_ja or '建物全体の'}{ja}の合計"))


def rank(metric: str, descending: bool, top: int, floors: list[str]) -> Question:
    """The ``top`` ranks by ``metric``, ties included (two rooms of the largest area are
    both the largest)."""
    en, ja = METRICS[metric]
    order = "DESC" if descending else "ASC"
    on_en, on_ja = _on(floors)
    word = ("largest" if metric == "area_m2" else "highest") if descending else (
        "smallest" if metric == "area_m2" else "lowest")
    ja_word = "大きい" if descending else "小さい"
    rooms_en = "The room" if top == 1 else f"The {top} rooms"
    rooms_ja = "部屋" if top == 1 else f"部屋（上位{top}）"
    return (f"SELECT name, floor_id, {metric} FROM (SELECT name, floor_id, {metric}, RANK() "
            f"OVER (ORDER BY {metric} {order}) AS place FROM rooms{_floor_where(floors)}) "
            f"WHERE place <= {top} ORDER BY place, name",
            (f"{rooms_en} with the {word} {en}{on_en}",
             f"{on_ja}{ja}が{'最も' if top == 1 else ''}{ja_word}{rooms_ja}"))


def count(floors: list[str]) -> Question:
    on_en, on_ja = _on(floors)
    if len(floors) > 1:
        return (f"SELECT floor_id, COUNT(*) AS rooms FROM rooms{_floor_where(floors)} GROUP BY "
                "floor_id ORDER BY floor_id", (f"Rooms{on_en}", f"{on_ja}部屋の数"))
    return (f"SELECT COUNT(*) AS rooms FROM rooms{_floor_where(floors)}",
            (f"Rooms{on_en or ' in the building'}", f"{on_ja or '建物全体の'}部屋の数"))


def rooms_of(floors: list[str]) -> Question:
    on_en, on_ja = _on(floors)
    if len(floors) == 1:
        return (f"SELECT name, kind, area_m2, capacity FROM rooms{_floor_where(floors)} "
                "ORDER BY name", (f"Rooms{on_en}", f"{on_ja}部屋"))
    if floors:
        return (f"SELECT name, floor_id, kind, area_m2, capacity FROM rooms"
                f"{_floor_where(floors)} ORDER BY floor_id, name",
                (f"Rooms{on_en}", f"{on_ja}部屋"))
    return ("SELECT name, floor_id, kind, area_m2, capacity FROM rooms ORDER BY floor_id, name",
            ("Rooms of the building", "建物の部屋"))


def occupancy(rooms: list[str], floors: list[str], hour: int | None, peak: bool) -> Question:
    if rooms and hour is not None:
        return (f"SELECT room, people FROM occupancy WHERE room IN ({_names(rooms)}) AND "
                f"hour = {hour} ORDER BY room",
                (f"People in {', '.join(rooms)} at {hour}:00",
                 f"{hour}時の{'、'.join(rooms)}の人数"))
    if rooms and peak:
        return (f"SELECT room, hour || ':00' AS hour, people FROM occupancy WHERE room = "
                f"{_q(rooms[0])} ORDER BY people DESC, occupancy.hour LIMIT 1",
                (f"The busiest hour of {rooms[0]}, and the people then",
                 f"{rooms[0]}が最も混む時間と人数"))
    if rooms:
        return (f"SELECT hour, people FROM occupancy WHERE room = {_q(rooms[0])} ORDER BY hour",
                (f"People in {rooms[0]} by hour", f"{rooms[0]}の時間ごとの人数"))
    on_en, on_ja = _on(floors)
    where_floor = _floor_where(floors, "r.floor_id")
    join = "FROM occupancy o JOIN rooms r ON r.name = o.room"
    if hour is not None:
        cond = f"{where_floor} AND o.hour = {hour}" if floors else f" WHERE o.hour = {hour}"
        return (f"SELECT SUM(o.people) AS people {join}{cond}",
                (f"People{on_en or ' in the building'} at {hour}:00",
                 f"{hour}時の{on_ja or '建物全体の'}人数"))
    return (f"SELECT o.hour || ':00' AS hour, SUM(o.people) AS people {join}{where_floor} "
            "GROUP BY o.hour ORDER BY people DESC, o.hour LIMIT 1",
            (f"The busiest hour{on_en or ' of the building'}, and the people then",
             f"{on_ja or '建物全体で'}最も混む時間と人数"))
