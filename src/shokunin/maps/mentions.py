"""Rooms a text names: seed 000 highlights the rooms named in the agent's reply.

Names and aliases are matched case-insensitively, longest first, whole words where a name
starts or ends with an ASCII letter or digit (so "Room1" is not found in "Room10"), each
stretch of text counted once. Linear in the text's length times the number of names.
"""

from __future__ import annotations

import re

from shokunin.maps.package import MapPackage

_WORDISH = re.compile(r"[0-9A-Za-z_]")
_MAX_HITS = 200  # a reply that names rooms this often is a listing, read no further


def _bounded(text: str, start: int, end: int, surface: str) -> bool:
    """Whether the match is a whole word at each end where the name is word-like there."""
    if _WORDISH.match(surface[0]) and start > 0 and _WORDISH.match(text[start - 1]):
        return False
    return not (_WORDISH.match(surface[-1]) and end < len(text) and _WORDISH.match(text[end]))


def mentioned_rooms(text: str, pkg: MapPackage) -> list[str]:
    """The rooms ``text`` names (by name or alias), in the order it names them."""
    low = text.lower()
    surfaces = {name.lower(): name for name in pkg.room_names}
    surfaces |= {alias.lower(): name for alias, name in pkg.room_aliases.items()}
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, str]] = []
    for surface in sorted(surfaces, key=len, reverse=True):
        at = low.find(surface)
        while at >= 0 and len(taken) < _MAX_HITS:
            end = at + len(surface)
            if _bounded(low, at, end, surface) and all(end <= s or at >= e for s, e in taken):
                taken.append((at, end))
                found.append((at, surfaces[surface]))
            at = low.find(surface, end)
    return list(dict.fromkeys(name for _at, name in sorted(found)))
