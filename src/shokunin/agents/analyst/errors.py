"""Why a file cannot become a dataset. The API answers every one with 400 and its ``code``.

    DatasetError            root; ``code`` names the case on the wire
     ├── NotATable          empty, binary, or one column of prose: "not_a_table"
     ├── UnreadableTable    a table that cannot be read as asked: "bad_table"
     ├── TooLargeExpanded   more than its parser may use once expanded: "too_large_expanded"
     ├── TookTooLong        its parser ran past its time: "too_slow"
     └── UnsafeFile         a dataset file replaced by a link or a foreign file: "unsafe_file"
"""

from __future__ import annotations


class DatasetError(Exception):
    code = "bad_table"


class NotATable(DatasetError):
    code = "not_a_table"


class UnreadableTable(DatasetError):
    code = "bad_table"


class TooLargeExpanded(DatasetError):
    code = "too_large_expanded"


class TookTooLong(DatasetError):
    code = "too_slow"


class UnsafeFile(DatasetError):
    code = "unsafe_file"
