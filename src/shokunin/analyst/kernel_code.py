"""The code around each Analyst cell: load the dataset in the thread's kernel (once per
kernel: a restarted kernel loads it again), give the cell ``TABLE_MARKDOWN`` and
``JSON_OUT`` (seed 004's conventions), and show what the cell put in them, which the
sandbox returns as the cell's tables and JSON."""

from __future__ import annotations

import json

from shokunin.analyst.storage import DatasetRecord

_HELPERS = '''import pandas as pd


def _md(frame):
    """A DataFrame or Series as a Markdown table."""
    frame = frame.to_frame() if isinstance(frame, pd.Series) else frame
    if not isinstance(frame.index, pd.RangeIndex):
        frame = frame.reset_index()
    cells = lambda row: "| " + " | ".join(str(v).replace("|", "\\\\|") for v in row) + " |"
    return "\\n".join([cells(frame.columns), "|" + "---|" * frame.shape[1],
                      *(cells(row) for row in frame.itertuples(index=False))])


class _Markdown(str):
    """Shown as Markdown: the sandbox returns it as one of the cell's tables."""

    def _repr_markdown_(self):
        return str(self)
'''

# dicts and lists are shown as JSON by the kernel (sandbox/kernel_startup.py)
_SHOW = '''
for _table in TABLE_MARKDOWN:
    display(_Markdown(_table))
for _value in JSON_OUT:
    display(_value)
'''


def loader(record: DatasetRecord) -> str:
    """Python that makes ``df`` the dataset (reading it only if this kernel has not)."""
    path = json.dumps(record.path)
    if record.format == "xlsx":
        read = f"pd.read_excel({path}, engine='calamine', header={0 if record.header else None})"
    else:
        read = (f"pd.read_csv({path}, sep={json.dumps(record.delimiter)}, "
                f"encoding={json.dumps(record.encoding)}, "
                f"header={0 if record.header else None}, low_memory=False)")
    return (f"{_HELPERS}\n"
            "try:\n    _DATASET\nexcept NameError:\n    _DATASET = None\n"
            f"if _DATASET != {json.dumps(record.id)}:\n"
            f"    df = {read}\n"
            f"    _DATASET = {json.dumps(record.id)}\n")


def cell(record: DatasetRecord, code: str) -> str:
    """The whole cell: load, the analysis ``code``, then show its tables and JSON."""
    return f"{loader(record)}TABLE_MARKDOWN = []\nJSON_OUT = []\n\n{code}\n{_SHOW}"
