"""mentioned_rooms: the rooms a reply names, by name or alias, as seed 000 highlights them."""

from __future__ import annotations

import pytest

from shokunin.config import Settings
from shokunin.maps import MapPackage, mentioned_rooms


@pytest.fixture(scope="module")
def pkg() -> MapPackage:
    return MapPackage.load(Settings().map_dir)


@pytest.mark.parametrize(("text", "rooms"), [
    ("The kitchen is next to Room1.", ["Kitchen", "Room1"]),
    ("会議室は2階にあります。ロビーから階段で。", ["MeetingRoom", "Lobby"]),
    ("Room10 and Room1x are not rooms here", []),  # whole words for ASCII names
    ("Go to the meeting room, then the kitchenette", ["MeetingRoom", "Kitchen"]),
    ("KITCHEN, kitchen and Kitchen", ["Kitchen"]),  # once each, case-insensitive
    ("Nothing about rooms.", []),
])
def test_rooms_are_found_by_name_and_alias_in_order(
        pkg: MapPackage, text: str, rooms: list[str]) -> None:
    assert mentioned_rooms(text, pkg) == rooms


def test_a_longer_alias_wins_over_the_name_inside_it(pkg: MapPackage) -> None:
    # "Room 1" is Room1's alias; "meeting room" must not also count as a bare "room ..."
    assert mentioned_rooms("the meeting room 1 floor up", pkg) == ["MeetingRoom"]


def test_a_huge_reply_is_read_in_bounded_time(pkg: MapPackage) -> None:
    assert mentioned_rooms("Kitchen " * 100_000, pkg) == ["Kitchen"]


def test_with_most_the_reading_stops_one_room_past_it(pkg: MapPackage) -> None:
    text = "Kitchen, Room1, the archive, the lobby and the lounge"
    assert mentioned_rooms(text, pkg) == ["Kitchen", "Room1", "Archive", "Lobby", "Lounge"]
    some = mentioned_rooms(text, pkg, most=2)
    assert len(some) == 3 and set(some) <= {"Kitchen", "Room1", "Archive", "Lobby", "Lounge"}
    assert mentioned_rooms("Kitchen and Room1", pkg, most=2) == ["Kitchen", "Room1"]
