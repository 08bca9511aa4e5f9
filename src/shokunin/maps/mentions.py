"""Rooms a text names: seed 000 highlights the rooms named in the agent's reply.

Names and aliases are matched case-insensitively, longest first, whole words where a name
starts or ends with an ASCII letter or digit (so "Room1" is not found in "Room10"), each
stretch of text counted once. Linear in the text's length times the number of names.
"""

from __future__ import annotations

from collections.abc import Iterator

from shokunin.maps.package import MapPackage

_MAX_HITS = 200  # a reply that names rooms this often is a listing, read no further


def _wordish(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


def spans(low: str, word: str) -> Iterator[tuple[int, int]]:
    """Where ``word`` (lower case) occurs in ``low``: whole words if it starts and ends
    with an ASCII letter or digit, else anywhere."""
    at = low.find(word)
    if at < 0:
        return
    whole_start, whole_end = _wordish(word[0]), _wordish(word[-1])
    while at >= 0:
        end = at + len(word)
        if not (whole_start and at > 0 and _wordish(low[at - 1])) and not (
                whole_end and end < len(low) and _wordish(low[end])):
            yield at, end
        at = low.find(word, at + 1)


def mentioned_rooms(text: str, pkg: MapPackage, most: int | None = None) -> list[str]:
    """The rooms ``text`` names (by name or alias), in the order it names them. With
    ``most``, reading stops once more rooms than that are found: the answer is then some
    ``most + 1`` of them, for a caller that only needs to know there are more."""
    low = text.lower()
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, str]] = []
    names: set[str] = set()
    for surface, name in pkg.room_surfaces:
        if surface not in low:
            continue
        for at, end in spans(low, surface):
            if len(taken) >= _MAX_HITS:
                break
            if all(end <= s or at >= e for s, e in taken):
                taken.append((at, end))
                found.append((at, name))
                names.add(name)
        if most is not None and len(names) > most:
            break
    return list(dict.fromkeys(name for _at, name in sorted(found)))
