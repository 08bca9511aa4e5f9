"""How far a zip (an .xlsx) expands, read from its central directory before any parser
inflates it: a few kilobytes can hold gigabytes of XML."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from shokunin.agents.analyst.errors import NotATable, TooLargeExpanded

RATIO_FLOOR = 1024 * 1024  # members smaller than this expanded are not held to the ratio


@dataclass(frozen=True)
class ZipBounds:
    """The most the members may expand to in all, and the most one member larger than
    ``RATIO_FLOOR`` may expand per compressed byte."""

    max_bytes: int = 512 * 1024 * 1024
    max_ratio: float = 200.0


def check(path: Path, bounds: ZipBounds) -> None:
    """Raise ``TooLargeExpanded`` when the zip at ``path`` expands past ``bounds``."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise NotATable(f"not a spreadsheet that can be read: {exc}") from None
    total = sum(member.file_size for member in members)
    if total > bounds.max_bytes:
        raise TooLargeExpanded(
            f"the spreadsheet expands to {total // 2**20} MiB, more than the "
            f"{bounds.max_bytes // 2**20} MiB allowed (SHOKUNIN_ANALYST_XLSX_MAX_EXPANDED_MB)")
    for member in members:
        if (member.file_size > RATIO_FLOOR
                and member.file_size > bounds.max_ratio * max(member.compress_size, 1)):
            raise TooLargeExpanded(
                f"the spreadsheet's {member.filename} expands {member.file_size // 2**10} KiB "
                f"from {member.compress_size} bytes, more than {bounds.max_ratio:g} times: "
                "it is built to be too large when expanded")
