"""What one clause names, resolved against the map: rooms, floors, colours, directions,
bitmaps and hours, each with its position (so "an up arrow in Room1 and a left one in
Kitchen" pairs each direction with its room).

Rooms are found by name and alias (``MapPackage.room_aliases``), longest first; a word for
several rooms ("stairs", 「階段」) means those rooms on the floor the clause names, or all
of them. Floors are read in every usual spelling (2F, 2階, 二階, B1, GF, "second floor",
"floor 2", the map's own ids and names) and then looked up in the map; one the map lacks
is kept as ``unknown_floors`` so the reply can say so. All patterns have bounded, single
repetitions: reading is linear in the clause's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shokunin.agents.workbench.intents.lexicon import (
    BITMAP_WORDS,
    COLORS_JA,
    DIRECTIONS_EN,
    DIRECTIONS_JA,
    GROUP_WORDS,
    JA_DIRECTION_AFTER,
    JA_DIRECTION_NOT_AFTER,
    KANJI_DIGITS,
    ORDINALS_EN,
)
from shokunin.agents.workbench.intents.text import spans
from shokunin.maps import NAMED_COLORS, MapPackage

Found = list[tuple[int, str]]  # (position in the clause, value)

_FLOOR_PATTERNS = [  # (pattern, what the group means)
    (re.compile(r"(?<![a-z0-9])b(\d{1,2})f?(?![a-z0-9])"), "basement"),
    (re.compile(r"地下(\d{1,2})階?"), "basement"),
    (re.compile(r"(?<![a-z0-9])(\d{1,3}) ?f(?![a-z0-9])"), "level"),
    (re.compile(r"(?<!地下)(?<![0-9])(\d{1,3}) ?階"), "level"),
    (re.compile(r"(?<!地下)([一二三四五六七八九十]{1,2})階"), "kanji"),
    (re.compile(r"(?<![a-z])floor (\d{1,3})(?![0-9])"), "level"),
    (re.compile(r"(?<![a-z0-9])(first|second|third|fourth|fifth|\d{1,2}(?:st|nd|rd|th)) "
                r"floor"), "ordinal"),
    (re.compile(r"ground floor|(?<![a-z0-9])gf(?![a-z0-9])|地上階"), "ground"),
    (re.compile(r"top floor|最上階"), "top"),
    (re.compile(r"basement|地下(?![0-9])"), "basement1"),
    (re.compile(r"that floor|this floor|same floor|その階|そのフロア|この階|同じ階|そこ"),
     "reference"),
]
_HOUR_PATTERNS = [
    re.compile(r"(?<![0-9])(\d{1,2}) ?(am|pm)(?![a-z])"),
    re.compile(r"(?<![0-9])(\d{1,2}):00"),
    re.compile(r"(午前|午後)?(\d{1,2})時"),
    re.compile(r"(?<![a-z])at (\d{1,2})(?![0-9:.%]| ?[ap]m(?![a-z]))"),  # not "at 3pm" twice
]
_HEX = re.compile(r"#(?:[0-9a-f]{6}|[0-9a-f]{3})(?![0-9a-z])")
_TOP_N = re.compile(r"(?:top|上位|トップ|best|first) ?(\d{1,2})|(\d{1,2}) ?(?:largest|biggest|"
                    r"smallest|rooms|部屋|つ|件|位)")
_EN_NAME = re.compile(r"(?<![a-z])(?:in|on|at|to|of|for|highlight|show|mark) (?:me )?(?:the )?"
                      r"([a-z][a-z0-9_-]{0,40})")
_JA_NAME = re.compile(r"([a-z][a-z0-9_-]{0,40}|[ァ-ヶー]{2,20}) ?(?:に|へ|の|を|は)")
_NOT_NAMES = {"the", "a", "an", "it", "them", "floor", "map", "room", "rooms", "each",
              "all", "every", "red", "blue", "green", "this", "that", "what", "which", "me",
              "up", "down", "left", "right", "arrow", "arrows", "first", "second", "third",
              "ground", "top", "area", "size", "capacity", "total", "building", "hour",
              "noon", "people", "person", "exit", "plan", "floors", "one", "there", "here",
              "us", "everything", "where", "how", "my", "some", "your", "at", "in", "on",
              "to", "of", "for", "and", "clear", "highlight", "show", "mark", "please",
              "マップ", "グラフ", "ハイライト", "フロア", "ルーム", "トイレ"}


@dataclass
class Mentions:
    rooms: Found = field(default_factory=list)
    floors: Found = field(default_factory=list)
    unknown_floors: list[str] = field(default_factory=list)
    colors: Found = field(default_factory=list)
    directions: Found = field(default_factory=list)
    bitmaps: Found = field(default_factory=list)
    hours: list[int] = field(default_factory=list)
    top: int | None = None
    unknown_rooms: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # words for several rooms, as typed
    # where the names above are in the clause (start, end): a word inside one ("area" in
    # "the lounge area", "top" in "top floor") is part of a name, not a word of its own
    taken: list[tuple[int, int]] = field(default_factory=list)

    @property
    def any(self) -> bool:
        """Whether the clause names anything at all."""
        return bool(self.rooms or self.floors or self.unknown_floors or self.colors
                    or self.directions or self.bitmaps or self.hours or self.top)

    @property
    def room_names(self) -> list[str]:
        return list(dict.fromkeys(name for _pos, name in self.rooms))

    @property
    def floor_ids(self) -> list[str]:
        return list(dict.fromkeys(floor for _pos, floor in self.floors))

    @property
    def floor(self) -> str | None:
        return self.floors[0][1] if self.floors else None


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in taken)


def find(clause: str, pkg: MapPackage) -> Mentions:
    """Everything ``clause`` names, resolved against ``pkg``."""
    low = clause.lower()
    m = Mentions()
    taken: list[tuple[int, int]] = []
    # ``in`` first, here and below: most words are absent, and ``in`` says so at C speed.
    for surface, name in pkg.room_surfaces:
        if surface not in low:
            continue
        for start, end in spans(low, surface):
            if _free(taken, start, end):
                taken.append((start, end))
                m.rooms.append((start, name))
    _floors(clause, pkg, m, taken)
    group_rooms: Found = []
    for word, key in GROUP_WORDS.items():
        if word not in low:
            continue
        for start, end in spans(low, word):
            if not _free(taken, start, end):
                continue
            taken.append((start, end))
            members = [name for alias, name in pkg.room_aliases.items() if key in alias.lower()]
            members = list(dict.fromkeys(members))
            on_floor = [r for r in members if _floor_of(pkg, r) in {f for _p, f in m.floors}]
            m.groups.append(clause[start:end])
            group_rooms += [(start, r) for r in (on_floor or members)]
    m.rooms = sorted(m.rooms + group_rooms)
    _colors(low, m, taken)
    _directions(low, m, taken)
    for word, bitmap in [*BITMAP_WORDS.items(), *_map_bitmaps(pkg)]:
        if word.lower() not in low:
            continue
        for start, end in spans(low, word.lower()):
            if _free(taken, start, end):
                taken.append((start, end))
                m.bitmaps.append((start, bitmap))
    m.bitmaps.sort()
    _hours(low, m)
    if top := _TOP_N.search(low):
        m.top = int(top.group(1) or top.group(2))
    if not m.rooms:
        m.unknown_rooms = _unknown_rooms(low, clause, pkg, taken)
    m.taken = taken
    return m


def _map_bitmaps(pkg: MapPackage) -> list[tuple[str, str]]:
    return [(w, b.bitmapId) for b in pkg.definition.bitmaps if not b.bitmapId.startswith("arrow")
            for w in (b.bitmapId, b.bitmapName)]


def _floor_of(pkg: MapPackage, room: str) -> str | None:
    found = pkg.room(room)
    return found[0].floorId if found else None


def _floors(clause: str, pkg: MapPackage, m: Mentions, taken: list[tuple[int, int]]) -> None:
    low = clause.lower()
    found: list[tuple[int, int, str | None, str]] = []  # start, end, floor id, as typed
    for floor in pkg.definition.floors:
        for word in {floor.floorId.lower(), floor.floorName.lower()}:
            if word not in low:
                continue
            for start, end in spans(low, word):
                found.append((start, end, floor.floorId, clause[start:end]))
    for pattern, meaning in _FLOOR_PATTERNS:
        for hit in pattern.finditer(low):
            found.append((hit.start(), hit.end(), _resolve(pkg, meaning, hit),
                          clause[hit.start():hit.end()]))
    for start, end, floor_id, typed in sorted(found, key=lambda f: (f[0], -(f[1] - f[0]))):
        if not _free(taken, start, end):
            continue
        taken.append((start, end))
        if floor_id:
            m.floors.append((start, floor_id))
        else:
            m.unknown_floors.append(typed)


def _resolve(pkg: MapPackage, meaning: str, hit: re.Match[str]) -> str | None:
    ids = {f.floorId.lower(): f.floorId for f in pkg.definition.floors}
    names = {f.floorName: f.floorId for f in pkg.definition.floors}
    word = hit.group(1) if hit.groups() else ""
    if meaning == "kanji":  # 二 -> 2, 十二 -> 12, 二十 -> 20
        tens, _sep, ones = word.rpartition("十")
        n = (KANJI_DIGITS.get(tens, 1) * 10 if _sep else 0) + KANJI_DIGITS.get(ones, 0)
        meaning, word = "level", str(n)
    if meaning == "ordinal":
        n = ORDINALS_EN.get(word) or int(word[:-2])
        meaning, word = "level", str(n)
    if meaning == "level":
        return ids.get(f"{int(word)}f") or names.get(f"{int(word)}階")
    if meaning == "basement1":
        meaning, word = "basement", "1"
    if meaning == "basement":
        return ids.get(f"b{int(word)}") or ids.get(f"b{int(word)}f") or names.get(
            f"地下{int(word)}階")
    if meaning == "ground":
        return ids.get("gf") or ids.get("g") or ids.get("1f") or names.get("1階")
    if meaning == "top":
        return pkg.floor_ids[-1] if pkg.floor_ids else None
    return None  # "that floor": the brain keeps no memory of earlier requests


def _colors(low: str, m: Mentions, taken: list[tuple[int, int]]) -> None:
    words = [(w, w) for w in NAMED_COLORS] + list(COLORS_JA.items())
    for word, color in words:
        if word not in low:
            continue
        for start, end in spans(low, word):
            if _free(taken, start, end):
                taken.append((start, end))
                m.colors.append((start, color))
    for hit in _HEX.finditer(low):
        m.colors.append((hit.start(), hit.group(0).upper()))
    m.colors.sort()


def _directions(low: str, m: Mentions, taken: list[tuple[int, int]]) -> None:
    for word, way in DIRECTIONS_EN.items():
        if word in low:
            m.directions += [(s, way) for s, e in spans(low, word) if _free(taken, s, e)]
    for i, c in enumerate(low):
        if c in DIRECTIONS_JA and _free(taken, i, i + 1):
            after = low[i + 1:i + 2]
            before = low[i - 1:i] if i else ""
            if after in JA_DIRECTION_AFTER and before not in JA_DIRECTION_NOT_AFTER:
                m.directions.append((i, DIRECTIONS_JA[c]))
    m.directions.sort()


def _hours(low: str, m: Mentions) -> None:
    for pattern in _HOUR_PATTERNS:
        for hit in pattern.finditer(low):
            groups = [g for g in hit.groups() if g]
            number = next(int(g) for g in groups if g.isdigit())
            if ("pm" in groups or "午後" in groups) and number < 12:
                number += 12
            if "noon" not in groups and 0 <= number <= 23 and number not in m.hours:
                m.hours.append(number)
    if "noon" in low or "正午" in low or "昼" in low:
        m.hours.append(12)


def _unknown_rooms(low: str, clause: str, pkg: MapPackage,
                   taken: list[tuple[int, int]]) -> list[str]:
    """Names the user seems to mean as rooms though the map lacks them ("in Garage")."""
    floors = {f.lower() for f in pkg.floor_ids}
    out = []
    for pattern in (_EN_NAME, _JA_NAME):
        for hit in pattern.finditer(low):
            word = hit.group(1)
            if (word in _NOT_NAMES or word in floors or word in NAMED_COLORS
                    or not _free(taken, hit.start(1), hit.end(1)) or word.isdigit()):
                continue
            out.append(clause[hit.start(1):hit.end(1)])
    return list(dict.fromkeys(out))
