"""Argument schemas of the Workbench tools, built once at import.

Tools are made per run (they close over the run's context); giving them ready schemas
keeps LangChain from building a pydantic model from each function on every run.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ShowMapArgs(BaseModel):
    floor_id: str = Field(description="ID of the floor to display (e.g. '1F')")
    highlight_rooms: str = Field(
        "", description="Comma-separated names of rooms on that floor to highlight")
    room_colors: str = Field(
        "", description="Comma-separated hex colours, one per room (or one for all)")
    show_names: bool = Field(True, description="Show room names on highlighted rooms")
    bitmap_overlays: str = Field(
        "", description="'bitmap_id:room_name' or 'bitmap_id:x,y' entries separated by ';'")
    text_overlays: str = Field("", description="'text:room_name' or 'text:x,y' entries "
                                               "separated by ';'")


class NoArgs(BaseModel):
    pass


class DrawArrowArgs(BaseModel):
    room_name: str = Field(description="Room where the arrow is displayed")
    direction: str = Field(description="'up', 'down', 'left' or 'right'")


class HighlightRoomArgs(BaseModel):
    room_names: str = Field(description="Comma-separated room names")


class ShowPointsArgs(BaseModel):
    points: list[dict[str, float]] = Field(description="[{'lat': float, 'lon': float}, ...]")
    description: str = Field("", description="What the points are")


class SqlArgs(BaseModel):
    query: str = Field(description="One SELECT statement")


class SaveDataArgs(BaseModel):
    dataset: dict[str, Any] | list[dict[str, Any]] = Field(
        description="{column: [values]} or a list of {column: value}")
    file_name: str = Field(description="Name of the CSV file (no folders)")


class RunPythonArgs(BaseModel):
    code: str = Field(description="The Python code to run")
