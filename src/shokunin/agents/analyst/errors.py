"""Why a file cannot become a dataset. The API answers every one with 400 and its ``code``.

    DatasetError            root; ``code`` names the case on the wire
     ├── NotATable          empty, binary, or one column of prose: "not_a_table"
     ├── UnreadableTable    a table that cannot be read as asked: "bad_table"
     ├── TooLargeExpanded   more than its parser may use once expanded: "too_large_expanded"
     ├── TookTooLong        its parser ran past its time: "too_slow"
     └── UnsafeFile         a dataset file replaced by a link or a foreign file: "unsafe_file"
"""

from __future__ import annotations

from shokunin.errors import ErrorCode, ShokuninError


class DatasetError(ShokuninError):
    status = 400
    code = ErrorCode.BAD_TABLE


class NotATable(DatasetError):
    code = ErrorCode.NOT_A_TABLE


class UnreadableTable(DatasetError):
    code = ErrorCode.BAD_TABLE


class TooLargeExpanded(DatasetError):
    code = ErrorCode.TOO_LARGE_EXPANDED


class TookTooLong(DatasetError):
    code = ErrorCode.TOO_SLOW


class UnsafeFile(DatasetError):
    code = ErrorCode.UNSAFE_FILE
