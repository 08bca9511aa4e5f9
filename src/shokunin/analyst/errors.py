"""Why a file cannot become a dataset. The API answers every one with 400 and its ``code``.

    DatasetError            root; ``code`` names the case on the wire
     ├── NotATable          empty, binary, or one column of prose: "not_a_table"
     └── UnreadableTable    a table that cannot be read as asked: "bad_table"
"""

from __future__ import annotations


class DatasetError(Exception):
    code = "bad_table"


class NotATable(DatasetError):
    code = "not_a_table"


class UnreadableTable(DatasetError):
    code = "bad_table"
