"""The map definition: floors with a coordinate system and named rectangles, and bitmaps.

Field names are the seed's (camelCase), so a definition serialises to exactly the
``map_definition`` content the browser expects.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_FILE_HINT = "a plain file name inside the map folder"


def _plain_filename(value: str) -> str:
    if not value or "/" in value or "\\" in value or value in (".", "..") or value.startswith("."):
        raise ValueError(f"must be {_FILE_HINT}, got {value!r}")
    return value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Point(_Model):
    """A point in the floor's virtual coordinates. On a coordinate system's corners it may
    also give ``px``/``py``, where that point lies on the floor image in pixels (seed 000's
    2D-map Point), for a plan whose surveyed area covers only part of its image."""

    x: float
    y: float
    px: float | None = None
    py: float | None = None


class CoordinateSystem(_Model):
    """The floor's virtual coordinates: what the image's top-left and bottom-right corners
    are called. Either axis may run backwards (e.g. y growing upwards)."""

    topLeft: Point  # noqa: N815 - the seed's field names
    bottomRight: Point  # noqa: N815

    @model_validator(mode="after")
    def _not_flat(self) -> CoordinateSystem:
        if self.topLeft.x == self.bottomRight.x or self.topLeft.y == self.bottomRight.y:
            raise ValueError("topLeft and bottomRight must differ in both x and y")
        pixels = [p is not None for c in (self.topLeft, self.bottomRight) for p in (c.px, c.py)]
        if any(pixels) and not all(pixels):
            raise ValueError("give px and py on both topLeft and bottomRight, or on neither")
        if all(pixels) and (self.topLeft.px == self.bottomRight.px
                            or self.topLeft.py == self.bottomRight.py):
            raise ValueError("topLeft and bottomRight must differ in both px and py")
        return self

    def contains(self, p: Point) -> bool:
        xs = sorted((self.topLeft.x, self.bottomRight.x))
        ys = sorted((self.topLeft.y, self.bottomRight.y))
        return xs[0] <= p.x <= xs[1] and ys[0] <= p.y <= ys[1]

    def runs_forward(self, a: Point, b: Point) -> bool:
        """True if ``b`` lies strictly right of and below ``a`` in this system's orientation."""
        sx = 1 if self.bottomRight.x > self.topLeft.x else -1
        sy = 1 if self.bottomRight.y > self.topLeft.y else -1
        return (b.x - a.x) * sx > 0 and (b.y - a.y) * sy > 0


class Rectangle(_Model):
    name: str = Field(min_length=1)
    topLeft: Point  # noqa: N815
    bottomRight: Point  # noqa: N815
    # The names people use for the room ("階段", "the stairs"); shokunin's extension.
    aliases: list[str] = Field(default_factory=list)

    @property
    def center(self) -> Point:
        return Point(x=(self.topLeft.x + self.bottomRight.x) / 2,
                     y=(self.topLeft.y + self.bottomRight.y) / 2)


class Floor(_Model):
    floorId: str = Field(min_length=1)  # noqa: N815
    floorName: str = Field(min_length=1)  # noqa: N815
    floorImage: str  # noqa: N815
    coordinateSystem: CoordinateSystem  # noqa: N815
    rectangles: list[Rectangle] = Field(default_factory=list)

    _image_name = field_validator("floorImage")(_plain_filename)


class Bitmap(_Model):
    bitmapId: str = Field(min_length=1)  # noqa: N815
    bitmapName: str = Field(min_length=1)  # noqa: N815
    bitmapFile: str  # noqa: N815

    _file_name = field_validator("bitmapFile")(_plain_filename)


class MapDefinition(_Model):
    floors: list[Floor] = Field(min_length=1)
    bitmaps: list[Bitmap] = Field(default_factory=list)
