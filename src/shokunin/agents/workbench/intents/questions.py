"""Questions about the building, as one SELECT each on the sample database.

Schema: floors(floor_id, floor_name, level), rooms(name, floor_id, kind, area_m2,
capacity), occupancy(room, hour, people). Every name put into a query comes from the map
(never from the user's text), and is quoted anyway. Each query's columns are named for
what they hold (``mean_area_m2``, ``people``): the reply formats them by those names.
Ranks keep ties (two rooms of the largest area are both the largest).
"""

from __future__ import annotations

Label = tuple[str, str]  # (English, Japanese)
Question = tuple[str, Label]  # the SELECT, and what its answer is

METRICS = {"area_m2": ("area", "面積"), "capacity": ("capacity", "定員")}
_JOIN = "FROM occupancy o JOIN rooms r ON r.name = o.room"


def _q(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _names(rooms: list[str]) -> str:
    return ", ".join(_q(r) for r in rooms)


def _in(column: str, values: list[str]) -> str:
    return f"{column} IN ({_names(values)})" if len(values) > 1 else f"{column} = {_q(values[0])}"


def _floor_where(floors: list[str], column: str = "floor_id") -> str:
    if len(floors) > 1:
        return f" WHERE {column} IN ({_names(floors)})"
    return f" WHERE {column} = {_q(floors[0])}" if floors else ""


def _where(*conditions: str) -> str:
    kept = [c for c in conditions if c]
    return f" WHERE {' AND '.join(kept)}" if kept else ""


def _scope(floors: list[str], rooms: list[str], name: str = "name",
           floor: str = "floor_id") -> str:
    return (f"{name} IN ({_names(rooms)})" if rooms else
            _floor_where(floors, floor).removeprefix(" WHERE "))


def _on(floors: list[str]) -> Label:
    return (f" on {' and '.join(floors)}", f"{'と'.join(floors)}の") if floors else ("", "")


def _of(floors: list[str], rooms: list[str]) -> Label:
    """Where the values come from: "of Room1, Room2", "on 2F", "of the building"."""
    if rooms:
        return f" of {', '.join(rooms)}", f"{'、'.join(rooms)}の"
    on_en, on_ja = _on(floors)
    return on_en or " of the building", on_ja or "建物全体の"


def where(rooms: list[str]) -> Question:
    return (f"SELECT r.name, r.floor_id, f.floor_name FROM rooms r JOIN floors f ON "
            f"f.floor_id = r.floor_id WHERE r.name IN ({_names(rooms)}) ORDER BY r.name",
            (f"Where {', '.join(rooms)} {'is' if len(rooms) == 1 else 'are'}",
             f"{'、'.join(rooms)}の場所"))


# -- what rooms are: area and capacity ---------------------------------------------------
def attribute(metric: str, rooms: list[str]) -> Question:
    en, ja = METRICS[metric]
    return (f"SELECT name, {metric} FROM rooms WHERE name IN ({_names(rooms)}) ORDER BY name",
            (f"The {en} of {', '.join(rooms)}", f"{'、'.join(rooms)}の{ja}"))


def total(metric: str, floors: list[str], per_floor: bool = False,
          rooms: list[str] | None = None) -> Question:
    en, ja = METRICS[metric]
    if rooms:
        of_en, of_ja = _of([], rooms)
        return (f"SELECT SUM({metric}) AS total_{metric} FROM rooms WHERE "
                f"{_scope([], rooms)}", (f"Total {en}{of_en}", f"{of_ja}{ja}の合計"))
    if per_floor or len(floors) > 1:
        return (f"SELECT floor_id, SUM({metric}) AS total_{metric} FROM rooms"
                f"{_floor_where(floors)} GROUP BY floor_id ORDER BY floor_id",
                (f"Total {en} per floor", f"階ごとの{ja}の合計"))
    on_en, on_ja = _on(floors)
    return (f"SELECT SUM({metric}) AS total_{metric} FROM rooms{_floor_where(floors)}",
            (f"Total {en}{on_en or ' of the building'}", f"{on_ja or '建物全体の'}{ja}の合計"))


def mean(metric: str, floors: list[str], per_floor: bool = False,
         rooms: list[str] | None = None) -> Question:
    """The average of the rooms' ``metric`` (named rooms, a floor, or the building)."""
    en, ja = METRICS[metric]
    if not rooms and (per_floor or len(floors) > 1):
        return (f"SELECT floor_id, AVG({metric}) AS mean_{metric} FROM rooms"
                f"{_floor_where(floors)} GROUP BY floor_id ORDER BY floor_id",
                (f"Average room {en} per floor", f"階ごとの部屋の平均{ja}"))
    of_en, of_ja = _of(floors, rooms or [])
    room_ja = "" if rooms else "部屋の"
    return (f"SELECT AVG({metric}) AS mean_{metric} FROM rooms"
            f"{_where(_scope(floors, rooms or []))}",
            (f"Average {'' if rooms else 'room '}{en}{of_en}", f"{of_ja}{room_ja}平均{ja}"))


def rank(metric: str, descending: bool, top: int, floors: list[str],
         rooms: list[str] | None = None, per_floor: bool = False) -> Question:
    """The ``top`` ranks by ``metric``, ties included (two rooms of the largest area are
    both the largest), among the ``rooms`` named or the rooms of ``floors`` (of each floor,
    ``per_floor``)."""
    en, ja = METRICS[metric]
    order = "DESC" if descending else "ASC"
    if per_floor:
        word = "largest" if descending else "smallest"
        return (f"SELECT floor_id, name, {metric} FROM (SELECT name, floor_id, {metric}, RANK() "
                f"OVER (PARTITION BY floor_id ORDER BY {metric} {order}) AS place FROM rooms"
                f"{_floor_where(floors)}) WHERE place <= {top} ORDER BY floor_id, place, name",
                (f"The {'room' if top == 1 else f'{top} rooms'} with the {word} {en} on each "
                 "floor", f"階ごとの{ja}が最も{'大きい' if descending else '小さい'}部屋"
                 + ("" if top == 1 else f"（上位{top}）")))
    on_en, on_ja = _of([], rooms) if rooms else _on(floors)
    among = f"{_where(_scope([], rooms))}" if rooms else _floor_where(floors)
    word = ("largest" if metric == "area_m2" else "highest") if descending else (
        "smallest" if metric == "area_m2" else "lowest")
    ja_word = "大きい" if descending else "小さい"
    rooms_en = "The room" if top == 1 else f"The {top} rooms"
    rooms_ja = "部屋" if top == 1 else f"部屋（上位{top}）"
    return (f"SELECT name, floor_id, {metric} FROM (SELECT name, floor_id, {metric}, RANK() "
            f"OVER (ORDER BY {metric} {order}) AS place FROM rooms{among}) "
            f"WHERE place <= {top} ORDER BY place, name",
            (f"{rooms_en} with the {word} {en}{on_en}",
             f"{on_ja}{ja}が{'最も' if top == 1 else ''}{ja_word}{rooms_ja}"))


def ranking(metric: str, descending: bool, floors: list[str],
            rooms: list[str] | None = None) -> Question:
    """Every room (of ``floors``, or the ``rooms`` named) with its ``metric``, in order."""
    en, ja = METRICS[metric]
    order = "DESC" if descending else "ASC"
    on_en, on_ja = _of([], rooms) if rooms else _on(floors)
    first_en = ("largest" if descending else "smallest") if metric == "area_m2" else (
        "highest" if descending else "lowest")
    return (f"SELECT name, floor_id, {metric} FROM rooms{_where(_scope(floors, rooms or []))} "
            f"ORDER BY {metric} {order}, name",
            (f"Rooms{on_en} by {en}, {first_en} first",
             f"{on_ja}部屋の{ja}（{'大きい' if descending else '小さい'}順）"))


def rank_floors(metric: str, combine: str, descending: bool, top: int,
                floors: list[str]) -> Question:
    """The floor(s) whose rooms' total (or average) ``metric`` is the largest (smallest)."""
    en, ja = METRICS[metric]
    fn, column = ("AVG", f"mean_{metric}") if combine == "mean" else ("SUM", f"total_{metric}")
    what_en, what_ja = (f"average room {en}", f"部屋の平均{ja}") if combine == "mean" else (
        f"total {en}", f"{ja}の合計")
    word = "largest" if descending else "smallest"
    return (f"SELECT floor_id, {column} FROM (SELECT floor_id, {fn}({metric}) AS {column}, "
            f"RANK() OVER (ORDER BY {fn}({metric}) {'DESC' if descending else 'ASC'}) AS place "
            f"FROM rooms{_floor_where(floors)} GROUP BY floor_id) WHERE place <= {top} "
            "ORDER BY place, floor_id",
            (f"The floor with the {word} {what_en}",
             f"{what_ja}が最も{'大きい' if descending else '小さい'}階"))


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


# -- who is in them: people, by the hour ------------------------------------------------
def people_at(rooms: list[str], floors: list[str], hour: int) -> Question:
    """People at ``hour``: in each room named, or in all of a floor's (the building's)."""
    if rooms:
        return (f"SELECT room, people FROM occupancy WHERE room IN ({_names(rooms)}) AND "
                f"hour = {hour} ORDER BY room",
                (f"People in {', '.join(rooms)} at {hour}:00",
                 f"{hour}時の{'、'.join(rooms)}の人数"))
    on_en, on_ja = _on(floors)
    cond = f"{_floor_where(floors, 'r.floor_id')} AND o.hour = {hour}" if floors else (
        f" WHERE o.hour = {hour}")
    return (f"SELECT SUM(o.people) AS people {_JOIN}{cond}",
            (f"People{on_en or ' in the building'} at {hour}:00",
             f"{hour}時の{on_ja or '建物全体の'}人数"))


def people_sum(rooms: list[str], hour: int) -> Question:
    """People in the ``rooms`` named, together, at ``hour``."""
    return (f"SELECT SUM(people) AS people FROM occupancy WHERE room IN ({_names(rooms)}) AND "
            f"hour = {hour}", (f"People in {', '.join(rooms)} together at {hour}:00",
                               f"{hour}時の{'、'.join(rooms)}の人数の合計"))


def people_each(over: str, floors: list[str], hour: int) -> Question:
    """People at ``hour`` in each room (most first) or on each floor."""
    on_en, on_ja = _on(floors)
    where = _where(_scope(floors, [], floor="r.floor_id"), f"o.hour = {hour}")
    if over == "floor":
        return (f"SELECT r.floor_id, SUM(o.people) AS people {_JOIN}{where} GROUP BY "
                "r.floor_id ORDER BY r.floor_id",
                (f"People per floor at {hour}:00", f"{hour}時の階ごとの人数"))
    return (f"SELECT r.name, r.floor_id, o.people {_JOIN}{where} ORDER BY o.people DESC, r.name",
            (f"People in each room{on_en} at {hour}:00", f"{hour}時の{on_ja}部屋ごとの人数"))


def usage(rooms: list[str], floors: list[str], hour: int) -> Question:
    """Each room's people at ``hour`` as a share of its capacity (``usage_pct``, most used
    first), among the ``rooms`` named or the rooms of ``floors``; a room of no capacity
    (a corridor, a store) has no share and is left out."""
    where = _where(_scope(floors, rooms, name="r.name", floor="r.floor_id"),
                   f"o.hour = {hour}", "r.capacity > 0")
    share = "ROUND(100.0 * o.people / r.capacity, 1) AS usage_pct"
    if rooms:  # the share first: a room's answer is one sentence, its values in this order
        return (f"SELECT r.name, {share}, o.people, r.capacity {_JOIN}{where} ORDER BY "
                "usage_pct DESC, r.name",
                (f"People per capacity, people and capacity of {', '.join(rooms)} at "
                 f"{hour}:00", f"{hour}時の{'、'.join(rooms)}の定員に対する利用率、人数、定員"))
    on_en, on_ja = _on(floors)
    return (f"SELECT r.name, r.floor_id, o.people, r.capacity, {share} {_JOIN}{where} ORDER BY "
            "usage_pct DESC, r.name",
            (f"People per capacity in each room{on_en} at {hour}:00 (rooms with a capacity)",
             f"{hour}時の{on_ja}部屋ごとの定員に対する利用率（定員のある部屋）"))


def people_rank(over: str, descending: bool, top: int, floors: list[str], rooms: list[str],
                hour: int | None, per_floor: bool = False) -> Question:
    """The room(s) or floor(s) with the most (fewest) people at ``hour`` (the room(s) of
    each floor, ``per_floor``); with no hour, on average over the day's hours. Ties are
    kept."""
    order = "DESC" if descending else "ASC"
    most_en, most_ja = ("most", "多い") if descending else ("fewest", "少ない")
    at_en = f" at {hour}:00" if hour is not None else " on average over the day"
    most_ja = f"人が最も{most_ja}" if hour is not None else f"1日の平均人数が最も{most_ja}"
    on_en = f" among {', '.join(rooms)}" if rooms else _on(floors)[0]
    on_ja = f"{'、'.join(rooms)}のうち" if rooms else (f"{'と'.join(floors)}で" if floors else "")
    scope = _scope(floors, rooms, name="r.name", floor="r.floor_id")
    if over == "floor":
        if hour is not None:
            inner = (f"SELECT r.floor_id, SUM(o.people) AS people, RANK() OVER (ORDER BY "
                     f"SUM(o.people) {order}) AS place {_JOIN}{_where(scope, f'o.hour = {hour}')}"
                     " GROUP BY r.floor_id")
            column = "people"
        else:
            inner = (f"SELECT floor_id, AVG(people) AS mean_people, RANK() OVER (ORDER BY "
                     f"AVG(people) {order}) AS place FROM (SELECT r.floor_id, o.hour, "
                     f"SUM(o.people) AS people {_JOIN}{_where(scope)} GROUP BY r.floor_id, "
                     "o.hour) GROUP BY floor_id")
            column = "mean_people"
        return (f"SELECT floor_id, {column} FROM ({inner}) WHERE place <= {top} ORDER BY "
                "place, floor_id",
                (f"The floor with the {most_en} people{at_en}",
                 f"{f'{hour}時に' if hour is not None else ''}{most_ja}階"))
    if hour is not None and per_floor:  # the room(s) of each floor
        return (f"SELECT floor_id, name, people FROM (SELECT r.name, r.floor_id, o.people, "
                f"RANK() OVER (PARTITION BY r.floor_id ORDER BY o.people {order}) AS place "
                f"{_JOIN}{_where(f'o.hour = {hour}', scope)}) WHERE place <= {top} ORDER BY "
                "floor_id, place, name",
                (f"The room with the {most_en} people on each floor at {hour}:00",
                 f"{hour}時に階ごとで{most_ja}部屋"))
    if hour is not None:
        inner = (f"SELECT r.name, r.floor_id, o.people, RANK() OVER (ORDER BY o.people {order}) "
                 f"AS place {_JOIN}{_where(f'o.hour = {hour}', scope)}")
        column = "people"
    else:
        inner = (f"SELECT r.name, r.floor_id, AVG(o.people) AS mean_people, RANK() OVER (ORDER "
                 f"BY AVG(o.people) {order}) AS place {_JOIN}{_where(scope)} GROUP BY r.name, "
                 "r.floor_id")
        column = "mean_people"
    rooms_en = "The room" if top == 1 else f"The {top} rooms"
    rooms_ja = "部屋" if top == 1 else f"部屋（上位{top}）"
    return (f"SELECT name, floor_id, {column} FROM ({inner}) WHERE place <= {top} ORDER BY "
            "place, name",
            (f"{rooms_en}{on_en} with the {most_en} people{at_en}",
             f"{f'{hour}時に' if hour is not None else ''}{on_ja}"
             f"{most_ja if top == 1 else most_ja.replace('最も', '')}{rooms_ja}"))


def people_mean(floors: list[str], rooms: list[str], hour: int | None,
                per_room: bool) -> Question:
    """The average number of people: per room (at ``hour``, or over every hour of the
    day), or in the whole floor/building per hour of the day."""
    scope = _scope(floors, rooms, name="r.name", floor="r.floor_id")
    of_en, of_ja = _of(floors, rooms)
    if hour is not None:
        return (f"SELECT AVG(o.people) AS mean_people {_JOIN}{_where(scope, f'o.hour = {hour}')}",
                (f"Average people per room{of_en.replace(' of ', ' in ', 1)} at {hour}:00",
                 f"{hour}時の{of_ja}1部屋あたりの平均人数"))
    if rooms and len(rooms) > 1:
        return (f"SELECT room, AVG(people) AS mean_people FROM occupancy WHERE room IN "
                f"({_names(rooms)}) GROUP BY room ORDER BY room",
                ("Average people per hour over the day", "1日の1時間あたりの平均人数"))
    if rooms or per_room:
        return (f"SELECT AVG(o.people) AS mean_people {_JOIN}{_where(scope)}",
                (f"Average people {'in ' + rooms[0] if rooms else 'per room'}"
                 f"{'' if rooms else of_en.replace(' of ', ' in ', 1)} per hour over the day",
                 f"{of_ja}{'' if rooms else '1部屋・'}1時間あたりの平均人数（1日）"))
    return (f"SELECT AVG(people) AS mean_people FROM (SELECT o.hour, SUM(o.people) AS people "
            f"{_JOIN}{_where(scope)} GROUP BY o.hour)",
            (f"Average people{of_en.replace(' of ', ' in ', 1)} per hour over the day",
             f"{of_ja}1時間あたりの平均人数（1日）"))


def people_hours(rooms: list[str], floors: list[str], pick: str | None, top: int) -> Question:
    """The busiest (quietest) hour(s), ties kept, of each room named or of a floor (the
    building); with no ``pick``, the people at every hour."""
    if rooms and pick is None:
        if len(rooms) == 1:
            return (f"SELECT hour, people FROM occupancy WHERE room = {_q(rooms[0])} ORDER BY "
                    "hour", (f"People in {rooms[0]} by hour", f"{rooms[0]}の時間ごとの人数"))
        return (f"SELECT hour, room, people FROM occupancy WHERE room IN ({_names(rooms)}) "
                "ORDER BY hour, room", (f"People in {', '.join(rooms)} by hour",
                                        f"{'、'.join(rooms)}の時間ごとの人数"))
    on_en, on_ja = _on(floors)
    if pick is None:
        return (f"SELECT o.hour, SUM(o.people) AS people {_JOIN}"
                f"{_floor_where(floors, 'r.floor_id')} GROUP BY o.hour ORDER BY o.hour",
                (f"People{on_en or ' in the building'} by hour",
                 f"{on_ja or '建物全体の'}時間ごとの人数"))
    order = "DESC" if pick == "max" else "ASC"
    hour_en = "busiest hour" if pick == "max" else "quietest hour"
    hour_ja = "最も混む時間" if pick == "max" else "最も空いている時間"
    if top > 1:
        hour_en, hour_ja = f"{top} {hour_en}s", f"{hour_ja}（上位{top}）"
    if rooms:
        return (f"SELECT room, h || ':00' AS hour, people FROM (SELECT room, hour AS h, people, "
                f"RANK() OVER (PARTITION BY room ORDER BY people {order}) AS place FROM "
                f"occupancy WHERE {_in('room', rooms)}) WHERE place <= {top} ORDER BY room, "
                "place, h",
                (f"The {hour_en} of {', '.join(rooms)}, and the people then",
                 f"{'、'.join(rooms)}の{hour_ja}と人数"))
    return (f"SELECT h || ':00' AS hour, people FROM (SELECT o.hour AS h, SUM(o.people) AS "
            f"people, RANK() OVER (ORDER BY SUM(o.people) {order}) AS place {_JOIN}"
            f"{_floor_where(floors, 'r.floor_id')} GROUP BY o.hour) WHERE place <= {top} "
            "ORDER BY place, h",
            (f"The {hour_en}{on_en or ' of the building'}, and the people then",
             f"{on_ja or '建物全体で'}{hour_ja}と人数"))
