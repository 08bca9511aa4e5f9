"""Map errors.

    MapError                 the map package cannot be used
    └── (problems)           one "field.path: reason" line per fault
    MapCommandError          a display command names something the map lacks
"""

from __future__ import annotations

from shokunin.errors import ErrorCode, ShokuninError


class MapError(ShokuninError):
    """The map package is broken; ``problems`` lists every fault as ``path: reason``."""
    status = 503
    code = ErrorCode.MAP_ERROR

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"invalid map package {source}: " + "; ".join(problems))


class MapCommandError(ShokuninError, ValueError):
    """A command names an unknown floor, room, colour, direction or bitmap, or a bad spot.

    The message names the valid choices, so an agent can correct itself and a user
    understands it."""
    status = 400
    code = ErrorCode.BAD_REQUEST
