"""Colours a map command accepts: ``#RGB``, ``#RRGGBB`` or a basic name, normalised to hex."""

from __future__ import annotations

import re

from shokunin.maps.errors import MapCommandError

NAMED_COLORS: dict[str, str] = {
    "red": "#FF0000", "green": "#00A000", "blue": "#0066FF", "yellow": "#FFD700",
    "orange": "#FF8C00", "purple": "#8000C0", "pink": "#FF69B4", "cyan": "#00BFFF",
    "gray": "#808080", "grey": "#808080", "black": "#000000", "white": "#FFFFFF",
    "brown": "#8B4513",
}
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def parse_color(value: str) -> str:
    """Return ``value`` as ``#RRGGBB``; raise MapCommandError naming the valid forms."""
    text = value.strip()
    if _HEX.fullmatch(text):
        digits = text[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        return "#" + digits.upper()
    named = NAMED_COLORS.get(text.lower())
    if named:
        return named
    raise MapCommandError(
        f"unknown colour {value!r}; use #RRGGBB, #RGB or one of: {', '.join(NAMED_COLORS)}")
