"""A request's clauses turned into tool calls, and what could not be done said plainly.

Each clause is read on its own (its rooms, floor, direction, colour, bitmap) and asks for
one thing, chosen in this order: clearing, a calculation, a chart, random points, arrows,
a question for the database, a highlight, a bitmap or a floor to show. A clause that asks
for nothing the brain can do, or names a floor or room the map lacks, becomes a note.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from shokunin.agents.workbench.intents import inquiry, quantity, questions
from shokunin.agents.workbench.intents.lexicon import PER_FLOOR_WORDS
from shokunin.agents.workbench.intents.mentions import Mentions, find
from shokunin.agents.workbench.intents.text import bound, clauses, has, is_ja, kinds_in
from shokunin.maps import NAMED_COLORS, MapPackage

MAP_TOOLS = frozenset({"show_map", "clear_map", "draw_arrow", "clear_arrows", "highlight_room",
                       "show_points"})

Call = tuple[str, dict[str, Any]]
MAX_CLAUSES = 20  # requests read from one message; more are said to be left
Label = tuple[str, str]  # (English, Japanese)


@dataclass
class Step:
    """One tool call, and what its answer is (for the reply)."""

    name: str
    args: dict[str, Any]
    about: Label | None = None
    remark: Label | None = None  # said after the answer ("areas do not change by the hour")


@dataclass
class Plan:
    """The tool calls for a request, and the notes on what the brain cannot do."""

    text: str
    ja: bool
    cut: bool = False
    steps: list[Step] = field(default_factory=list)
    notes: list[Label] = field(default_factory=list)
    understood: bool = False  # some clause was read, even if it cannot be done

    @property
    def calls(self) -> list[Call]:
        return [(s.name, s.args) for s in self.steps]


_SQL = re.compile(r"\s{0,20}(?:select\b|with (?:recursive )?[a-z_][a-z0-9_]{0,60} as ?\()",
                  re.IGNORECASE)
_PERCENT_OF = re.compile(r"(\d{1,20}(?:\.\d{1,20})?) ?% ?of ?(\d{1,20}(?:\.\d{1,20})?)")
_JA_PERCENT_OF = re.compile(r"(\d{1,20}(?:\.\d{1,20})?) ?の ?(\d{1,20}(?:\.\d{1,20})?) ?[%％]")
_WORD_OPERATORS = (("足す", "+"), ("たす", "+"), ("引く", "-"), ("掛ける", "*"),
                   ("かける", "*"), ("割る", "/"))
# "(2400 * 15%)" with no operator on either side: the whole expression, shown bare
_WHOLE_PRODUCT = re.compile(r"(?<![-+*/%^] )(?<![-+*/%^])\((\d[\d.]{0,40} \* [\d.]{1,40}%)\)"
                            r"(?![ ]?[-+*/%^])")
_EXPR = re.compile(r"(?<![a-z_])[0-9.+\-*/%^()× ÷]+")
_POINTS = re.compile(r"(\d{1,3}) ?(?:random (?:coordinates|points|locations)|(?:個|点|つ)?の?"
                     r"ランダムな?(?:座標|地点|点))"
                     r"|(?:plot|show|draw|put) (\d{1,3}) (?:points|coordinates|locations)"
                     r"|(?:点|地点|座標)を ?(\d{1,3}) ?(?:個|つ|点)?"
                     r"|(\d{1,3}) ?(?:個|つ)の(?:点|地点|座標)")
# a text label: "put the word 'Exit here' in Room2", 「Room2に『集合』と書いて」
_QUOTED = re.compile(r"[\"“「『']([^\"”」』']{1,40})[\"”」』']")
_TEXT_WORDS = (("the word", "the text", "a label", "label", "write", "text"),
               ("と書", "と表示", "という文字", "の文字", "ラベル"))
_EVERY_ROOM = (("every room", "all rooms", "all the rooms", "each room"),
               ("全部屋", "すべての部屋", "全ての部屋", "全部の部屋", "各部屋"))
_IN_COLOR = re.compile(r"(?<![a-z])in ([a-z]{3,20})(?![a-z0-9])")
_REFERENCES = {"that floor", "this floor", "same floor", "その階", "そのフロア", "この階", "同じ階",
               "そこ"}
_QUESTIONS = {"where", "rank", "total", "occupancy", "capacity", "area", "count", "list"}
_ARTICLE_WORDS = {"the", "a", "an", "red", "this", "that", "one"}
_WORD = re.compile(r"[a-z]{2}")


def random_points(text: str, count: int) -> list[dict[str, float]]:
    """Deterministic "random" points around Tokyo, seeded by the request text."""
    digest = hashlib.sha256(text.encode()).digest()
    return [{"lat": round(35.6 + digest[i % 32] / 2550, 4),
             "lon": round(139.6 + digest[(i * 7 + 3) % 32] / 2550, 4)} for i in range(count)]


def plan(text: str, pkg: MapPackage, tools: set[str], language: str = "en") -> Plan:
    """The tool calls that fulfil ``text``, with notes for what cannot be done offline. The
    reply is in the text's language; a text in none ("Room1", a SELECT) gets the UI's."""
    read, cut = bound(text)
    result = Plan(text=read, ja=is_ja(read) or (language == "ja" and _neutral(read, pkg)),
                  cut=cut)
    if _SQL.match(read):
        result.steps.append(Step("sql_engine", {"query": read}))
        result.understood = True
        return result
    parts = clauses(read, lambda piece: find(piece, pkg).any)
    for clause in parts[:MAX_CLAUSES]:
        _Clause(clause, pkg, tools, result).plan()
    if len(parts) > MAX_CLAUSES:
        result.notes.append((f"I read only the first {MAX_CLAUSES} requests of this message.",
                             f"このメッセージの最初の{MAX_CLAUSES}件の依頼だけを読みました。"))
    return result


class _Clause:
    def __init__(self, text: str, pkg: MapPackage, tools: set[str], out: Plan) -> None:
        self.text, self.low, self.pkg, self.tools, self.out = text, text.lower(), pkg, tools, out
        self.kinds = kinds_in(text)
        self.m: Mentions = find(text, pkg)

    # -- the outcome ------------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any], about: Label | None = None,
             remark: Label | None = None) -> None:
        if name in MAP_TOOLS and not self.pkg.floor_ids:  # the map failed to load
            return self.note(f"“{self.text}” needs the map, which failed to load on this "
                             "server.",
                             f"「{self.text}」には地図が必要ですが、このサーバーでは地図の"
                             "読み込みに失敗しています。")
        self.out.steps.append(Step(name, args, about, remark))
        self.out.understood = True

    def note(self, en: str, ja: str, understood: bool = True) -> None:
        self.out.notes.append((en, ja))
        self.out.understood = self.out.understood or understood

    def ask(self, question: questions.Question, remark: Label | None = None) -> None:
        query, about = question
        self.call("sql_engine", {"query": query}, about, remark)

    # -- reading ----------------------------------------------------------------------------
    def plan(self) -> None:
        k, m = self.kinds, self.m
        if m.unknown_floors and not m.floors:
            return self._unknown_floor()
        if m.unknown_floors:
            self._unknown_floor(note_only=True)
        if "clear" in k and ({"arrow", "map", "highlight"} & k or len(k) == 1):
            return self.call("clear_arrows" if "arrow" in k else "clear_map", {})
        if (expression := self._expression()) is not None:
            return self._calculate(expression)
        if hit := _POINTS.search(self.low):  # before charts: "plot 5 points" is no chart
            count = min(int(next(g for g in hit.groups() if g)), 50)
            return self.call("show_points", {"points": random_points(self.out.text, count),
                                             "description": f"{count} random coordinates"})
        if "chart" in k:
            return self._chart()
        if "arrow" in k:
            return self._arrows()
        if (label := _QUOTED.search(self.text)) and has(self.low, _TEXT_WORDS[0] + _TEXT_WORDS[1]):
            return self._label(label.group(1))
        if "highlight" in k and m.floors and has(self.low, _EVERY_ROOM[0] + _EVERY_ROOM[1]):
            return self._show_rooms([r.name for f in self.pkg.definition.floors
                                     if f.floorId in m.floor_ids for r in f.rectangles])
        if self._question():
            return None
        if m.bitmaps and k & {"show", "place", "highlight"}:
            return self._overlay()
        if "highlight" in k:
            return self._highlight()
        if "show" in k and (m.floors or m.rooms or "map" in k):
            return self._show()
        if "show" in k and m.unknown_rooms:
            return self.call("highlight_room", {"room_names": ",".join(m.unknown_rooms)})
        quoted = self.text if len(self.text) <= 60 else self.text[:57] + "…"
        self.note(f"I did not understand “{quoted}”.", f"「{quoted}」は理解できませんでした。",
                  understood=False)
        return None

    def _unknown_floor(self, note_only: bool = False) -> None:
        """A floor the map lacks: a request only to display it goes to show_map, whose
        error names the floors (shown in the user's language); anything else is said."""
        floors = ", ".join(self.pkg.floor_ids)
        typed = self.m.unknown_floors[0]
        display = self.kinds & {"show", "highlight"} and not self.kinds & _QUESTIONS
        if typed.lower() not in _REFERENCES and display and not self.m.rooms and not note_only:
            self.call("show_map", {"floor_id": typed})
        elif typed.lower() in _REFERENCES:
            self.note(f"I cannot tell which floor “{typed}” is (I keep no memory of earlier "
                      f"requests offline); name it: {floors}.",
                      f"「{typed}」がどの階か分かりません（オフラインでは前の依頼を"
                      f"覚えていません）。階を指定してください: {floors}。")
        else:
            self.note(f"The map has no floor “{typed}” (floors: {floors}).",
                      f"地図に「{typed}」という階はありません（階: {floors}）。")

    def _unknown_room(self) -> None:
        rooms = ", ".join(self.pkg.room_names)
        if self.m.unknown_rooms:
            name = self.m.unknown_rooms[0]
            self.note(f"The map has no room “{name}” (rooms: {rooms}).",
                      f"地図に「{name}」という部屋はありません（部屋: {rooms}）。")
        else:
            self.note(f"Which room do you mean? Rooms: {rooms}.",
                      f"どの部屋ですか？ 部屋: {rooms}。")

    # -- calculator -------------------------------------------------------------------------
    def _expression(self) -> str | None:
        low = self.low.replace("％", "%")
        for word, sign in _WORD_OPERATORS:
            low = low.replace(word, sign)
        # "7% of 1530" and 「1530の7%」 are products, whatever surrounds them
        low = _PERCENT_OF.sub(lambda h: f"({h.group(2)} * {h.group(1)}%)", low)
        low = _JA_PERCENT_OF.sub(lambda h: f"({h.group(1)} * {h.group(2)}%)", low)
        if low.count("(") == 1 and (whole := _WHOLE_PRODUCT.search(low)):
            low = low.replace(whole.group(0), whole.group(1))  # "(2400 * 15%)" alone
        runs = [r.group(0).strip() for r in _EXPR.finditer(low)  # not the "1" of "1f"
                if not _ascii_letter(low[r.end():r.end() + 1])]
        runs = [r for r in runs if any(c.isdigit() for c in r)]
        if not runs:
            return None
        expr = max(runs, key=len).replace("×", "*").replace("÷", "/").replace("^", "**")
        operator = any(c in expr for c in "+-*/%") and not expr.startswith("-")
        if "calc" in self.kinds and operator:
            return expr
        rest = low.replace(max(runs, key=len).strip(), "", 1).strip(" =?？は:：")
        return expr if operator and not rest else None

    def _calculate(self, expression: str) -> None:
        if "calculator" not in self.tools:
            return self.note(f"I understood the calculation {expression}, but the calculator "
                             "tool is not installed.",
                             f"計算 {expression} と理解しましたが、電卓ツールが入っていません。")
        return self.call("calculator", {"expression": expression})

    # -- charts -----------------------------------------------------------------------------
    def _chart(self) -> None:
        m, k = self.m, self.kinds
        q = quantity.read(self.text, k, m)
        hourly = has(self.low, ("by hour", "hourly", "per hour", "over the day")) or (
            has(self.low, ("時間ごと", "時間別", "時間帯")))
        metric = {"capacity": "capacity", "people": "occupancy", "area_m2": "area_m2"}.get(
            q.measure or "", "occupancy" if m.hours or hourly else "area_m2")
        spec: dict[str, Any] = {"metric": metric}
        rooms = m.room_names
        if metric == "occupancy" and len(rooms) > 1:
            return self.note("I can chart the people of one room at a time offline: ask for "
                             "each.", "人数のグラフはオフラインでは1部屋ずつです。部屋ごとに"
                             "頼んでください。")
        if metric == "occupancy" and rooms:
            spec["room"] = rooms[0]
        elif rooms:
            spec["rooms"] = rooms
        elif has(self.low, PER_FLOOR_WORDS[0]) or has(self.low, PER_FLOOR_WORDS[1]):
            spec["per_floor"] = True
        if len(m.floor_ids) == 1 and not spec.keys() & {"room", "rooms", "per_floor"}:
            spec["floor"] = m.floor
        if refusal := inquiry.chart(q, m, spec):  # a part the chart would not draw
            return self.note(*refusal)
        if "run_python" not in self.tools:
            return self.note("I understood a chart, but the Python sandbox is not available.",
                             "グラフの依頼と理解しましたが、Python サンドボックスが使えません。")
        remark = None if q.hour is None or metric == "occupancy" else (
            f"(Room {metric.removesuffix('_m2')}s do not change with the hour: {q.hour}:00 "
            "makes no difference.)",
            f"（部屋の{'面積' if metric == 'area_m2' else '定員'}は時刻によって変わらないため、"
            f"{q.hour}時かどうかは関係ありません。）")
        return self.call("run_python", {"chart": spec}, remark=remark)

    # -- arrows -----------------------------------------------------------------------------
    def _arrows(self) -> None:
        m = self.m
        if not m.rooms and not m.unknown_rooms:
            return self._unknown_room()
        if not m.directions:
            names = ", ".join(m.room_names or m.unknown_rooms)
            return self.note(f"Which way should the arrow in {names} point: up, down, left or "
                             "right?",
                             f"{'、'.join(m.room_names or m.unknown_rooms)}の矢印はどちら向きですか"
                             "（上・下・左・右）？")
        if not m.rooms:  # names the map lacks: draw_arrow's error names the rooms it has
            for name in m.unknown_rooms:
                self.call("draw_arrow", {"room_name": name, "direction": m.directions[0][1]})
            return None
        for pos, room in _unique(m.rooms):
            self.call("draw_arrow", {"room_name": room, "direction": _nearest(m.directions, pos)})
        return None

    # -- questions --------------------------------------------------------------------------
    def _question(self) -> bool:
        """A question for the database: the quantity it asks for (quantity.py) computed
        with every part of it, or said plainly which part cannot be (inquiry.py)."""
        k, m = self.kinds, self.m
        floors, rooms = m.floor_ids, m.room_names
        q = quantity.read(self.text, k, m)
        if "where" in k and rooms and not (q.pick or q.combine or q.hour is not None):
            self.ask(questions.where(rooms))
        elif q.asks and not self._display(q) and (choice := inquiry.choose(q, m)) is not None:
            if choice.question is not None:
                self.ask(choice.question, choice.remark)
            if choice.refusal is not None:
                self.note(*choice.refusal)
        elif "count" in k and not rooms and (has(self.low, ("room", "rooms")) or "部屋" in
                                             self.low or floors):
            self.ask(questions.count(floors))
        elif "list" in k or ("show" in k and has(self.low, ("rooms",)) and not rooms):
            self.ask(questions.rooms_of(floors))
        elif k & {"where", "capacity", "area"} and not rooms:
            self._unknown_room()
        else:
            return False
        return True

    def _display(self, q: quantity.Quantity) -> bool:
        """Whether "area" says where ("highlight the kitchen area"), not a quantity asked."""
        return bool(self.kinds & {"highlight", "show"} and self.m.rooms
                    and q.measure == "area_m2" and q.typed.keys() == {"measure"})

    # -- the map ----------------------------------------------------------------------------
    def _rooms_here(self) -> list[str]:
        """The clause's rooms; with a floor named, those not on it are dropped and said."""
        floor = self.m.floor
        rooms = self.m.room_names
        if not floor:
            return rooms
        here = [r for r in rooms if self._floor_of(r) == floor]
        for room in rooms:
            if room not in here:
                other = self._floor_of(room)
                self.note(f"{room} is on {other}, not on {floor}.",
                          f"{room}は{floor}ではなく{other}にあります。")
        return here

    def _floor_of(self, room: str) -> str:
        found = self.pkg.room(room)
        assert found is not None
        return found[0].floorId

    def _by_floor(self, rooms: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for room in rooms:
            out.setdefault(self._floor_of(room), []).append(room)
        return out

    def _colors_for(self, rooms: list[str]) -> dict[str, str] | None:
        colors = [c for _p, c in self.m.colors]
        if not colors:
            return {}
        if len(colors) == 1:
            return dict.fromkeys(rooms, colors[0])
        positions = {name: pos for pos, name in self.m.rooms}
        return {r: _nearest(self.m.colors, positions[r], after=True) for r in rooms}

    def _unknown_color(self) -> str | None:
        for hit in _IN_COLOR.finditer(self.low):
            word = hit.group(1)
            if word not in NAMED_COLORS and word not in _ARTICLE_WORDS and not self.pkg.room(
                    word) and not self.pkg.floor(word):
                return self.text[hit.start(1):hit.end(1)]
        return None

    def _highlight(self) -> None:
        m = self.m
        if not m.rooms and not m.floors:
            if m.unknown_rooms:  # highlight_room's error names the rooms the map has
                return self.call("highlight_room", {"room_names": ",".join(m.unknown_rooms)})
            return self._unknown_room()
        if not m.colors and (bad := self._unknown_color()):
            m.colors.append((self.low.find(bad.lower()), bad))  # show_map names the colours
        rooms = self._rooms_here()
        if not rooms and m.rooms:
            return None  # every room was on another floor: said by _rooms_here
        if rooms and not m.colors and not m.floors:
            return self.call("highlight_room", {"room_names": ",".join(rooms)})
        return self._show_rooms(rooms)

    def _label(self, text: str) -> None:
        """A text overlay in each room named (or at the centre of the floor named)."""
        rooms = self._rooms_here()
        if not rooms:
            return self._unknown_room() if not self.m.rooms else None
        for floor, here in self._by_floor(rooms).items():
            self.call("show_map", {"floor_id": floor,
                                   "text_overlays": ";".join(f"{text}:{r}" for r in here)})
        return None

    def _bitmaps_of(self, room: str) -> list[str]:
        """The bitmaps asked for ``room``: each bitmap word goes to the room it is said for
        (the next room named in English, "a person and an exit sign in Kitchen"; the one
        before it in Japanese, 「Kitchenに人と出口」); a room no bitmap went to gets the
        nearest one (``_bitmap_of``)."""
        rooms = self.m.rooms
        mine = []
        for pos, bitmap in self.m.bitmaps:
            before = [name for at, name in rooms if at < pos]
            after = [name for at, name in rooms if at > pos]
            first, second = (before[-1:], after[:1]) if is_ja(self.text) else (after[:1],
                                                                                before[-1:])
            if (first or second)[:1] == [room] and bitmap not in mine:
                mine.append(bitmap)
        return mine or [self._bitmap_of(room)]

    def _bitmap_of(self, room: str) -> str:
        """The bitmap asked for ``room`` when a clause places several ("an exit sign in the
        lobby and a person in the office"): the bitmap word nearest before the room's name
        (after it in Japanese: 「ロビーに非常口」), else the nearest on the other side."""
        at = next(pos for pos, name in self.m.rooms if name == room)
        before = [b for pos, b in self.m.bitmaps if pos < at]
        after = [b for pos, b in self.m.bitmaps if pos > at]
        first, second = (after[:1], before[-1:]) if is_ja(self.text) else (before[-1:],
                                                                             after[:1])
        return (first or second or [self.m.bitmaps[0][1]])[0]

    def _show_rooms(self, rooms: list[str], bitmap: str | None = None) -> None:
        if not rooms:  # one show_map per floor named: the last one stays on screen
            for floor in self.m.floor_ids or self.pkg.floor_ids[:1]:
                self.call("show_map", {"floor_id": floor})
            return None
        colors = self._colors_for(rooms) or {}
        for floor, here in self._by_floor(rooms).items():
            args: dict[str, Any] = {"floor_id": floor}
            if bitmap:
                args["bitmap_overlays"] = ";".join(
                    f"{b}:{r}" for r in here
                    for b in (self._bitmaps_of(r) if len(self.m.bitmaps) > 1 else [bitmap]))
            else:
                args["highlight_rooms"] = ",".join(here)
                if colors:
                    shades = [colors[r] for r in here]
                    args["room_colors"] = shades[0] if len(set(shades)) == 1 else ",".join(shades)
            self.call("show_map", args)
        return None

    def _overlay(self) -> None:
        rooms = self._rooms_here()
        bitmap = self.m.bitmaps[0][1]
        if not rooms and self.m.unknown_rooms:  # show_map's error names the rooms
            spots = ";".join(f"{bitmap}:{name}" for name in self.m.unknown_rooms)
            floor = self.m.floor or next(iter(self.pkg.floor_ids), "")
            return self.call("show_map", {"floor_id": floor,
                                          "bitmap_overlays": spots})
        if not rooms:
            return self._unknown_room() if not self.m.rooms else None
        return self._show_rooms(rooms, bitmap=bitmap)

    def _show(self) -> None:
        rooms = self._rooms_here()
        if self.m.rooms and not rooms:
            return None
        return self._show_rooms(rooms)


def _neutral(text: str, pkg: MapPackage) -> bool:
    """Whether ``text`` is in no language of its own: a SELECT, names and numbers ("Room1",
    "2F", "2+3*4"), with no other word."""
    if _SQL.match(text):
        return True
    low = text.lower()
    for surface, _name in pkg.room_surfaces:
        low = low.replace(surface, " ")
    for floor in pkg.floor_ids:
        low = low.replace(floor.lower(), " ")
    return _WORD.search(low) is None


def _ascii_letter(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _unique(found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    seen: set[str] = set()
    return [(p, v) for p, v in found if not (v in seen or seen.add(v))]  # type: ignore[func-returns-value]


def _nearest(found: list[tuple[int, str]], pos: int, after: bool = False) -> str:
    """The value mentioned closest to ``pos``: "an up arrow in Room1" (before the room) or
    "Room1 in red" (after it, ``after=True``) is preferred, the other side otherwise."""
    before = [v for p, v in found if p <= pos]
    later = [v for p, v in found if p > pos]
    if after:
        return later[0] if later else before[-1]
    return before[-1] if before else later[0]
