"""The code around each Analyst cell: load the dataset in the thread's kernel (once per
kernel: a restarted kernel loads it again), give the cell ``TABLE_MARKDOWN`` and
``JSON_OUT`` (seed 004's conventions), and show what the cell put in them, which the
sandbox returns as the cell's tables and JSON."""

from __future__ import annotations

import json

from shokunin.agents.analyst.dataset import csv_engine
from shokunin.agents.analyst.storage import DatasetRecord

CELL_HELPERS = '''import pandas as pd


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


# A cell of a large table that starts with this reads only the columns it names.
PRUNED = "df = _read_table("


def table_reader(columns: list[str]) -> str:
    """The first line of a cell that needs only ``columns`` of a large table."""
    return f"{PRUNED}{json.dumps(columns, ensure_ascii=False)})\n"


def loader(record: DatasetRecord, code: str = "") -> str:
    """Python that makes ``df`` the dataset (reading it only if this kernel has not). For a
    large table it also defines ``_read_table(columns)``, which reads only those columns of the
    Parquet copy; a ``code`` that starts with ``df = _read_table(...)`` loads nothing else."""
    path, helpers = json.dumps(record.path), CELL_HELPERS
    if record.parquet_path is not None:
        parquet = json.dumps(record.parquet_path)
        table = ("\n\ndef _read_table(columns=None):\n"
                 "    global _DATASET\n"
                 "    _DATASET = None  # df will not hold the whole table\n"
                 f"    return pd.read_parquet({parquet}, columns=columns)\n")
        if code.lstrip().startswith(PRUNED):
            return f"{CELL_HELPERS}{table}"
        read, helpers = f"pd.read_parquet({parquet})", f"{CELL_HELPERS}{table}"
    elif record.format == "xlsx":
        read = f"pd.read_excel({path}, engine='calamine', header={0 if record.header else None})"
    else:
        engine = ", ".join(f"{k}={v!r}" for k, v in csv_engine(record.delimiter or ",").items())
        read = (f"pd.read_csv({path}, sep={json.dumps(record.delimiter)}, "
                f"encoding={json.dumps(record.encoding)}, "
                f"header={0 if record.header else None}, {engine})")
    return (f"{helpers}\n"
            "try:\n    _DATASET\nexcept NameError:\n    _DATASET = None\n"
            f"if _DATASET != {json.dumps(record.id)}:\n"
            f"    df = {read}\n"
            f"    _DATASET = {json.dumps(record.id)}\n")


def setup(record: DatasetRecord) -> str:
    """A notebook's first cell: what each cell ran before its code (run it in the thread's
    workspace, the folder that holds ``datasets/``)."""
    return f"{loader(record)}TABLE_MARKDOWN = []\nJSON_OUT = []\n"


def cell(record: DatasetRecord, code: str) -> str:
    """The whole cell: load, the analysis ``code``, then show its tables and JSON."""
    return f"{loader(record, code)}TABLE_MARKDOWN = []\nJSON_OUT = []\n\n{code}\n{_SHOW}"
