"""The code around each Analyst cell: load the dataset in the thread's kernel (once per
kernel: a restarted kernel loads it again), give the cell ``TABLE_MARKDOWN`` and
``JSON_OUT`` (seed 004's conventions), and show what the cell put in them, which the
sandbox returns as the cell's tables and JSON.

The cell's helpers (``CELL_HELPERS``) write what a person reads: ``_md`` a table with its
numbers formatted, ``_chart`` a chart in the question's words (rates on a second axis, tick
labels with separators or 万), and ``_answer`` keeps the cell's result as JSON, from which
the report's sentence and table are written (``answer.py``)."""

from __future__ import annotations

import inspect
import json

from shokunin.agents.analyst import text_numbers
from shokunin.agents.analyst.dataset import csv_engine
from shokunin.agents.analyst.storage import DatasetRecord

# What reads numbers written as text, as the profile did: the module's own source, run in
# the kernel (which cannot import shokunin), so that the two cannot differ.
TEXT_NUMBERS = inspect.getsource(text_numbers)

CELL_HELPERS = r'''import pandas as pd

_ANSWERS = []  # what this cell found, for the report (_answer); shown after the cell


class CannotAnswer(Exception):
    """The question cannot be answered from this table; its message says why, in words."""


def _when(values):
    """Dates as written in a table, Japanese ones too (2024年1月, 2024年1月5日), as dates."""
    text = values.astype(str).str.replace(
        r"(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*日)?",
        lambda m: f"{m[1]}-{int(m[2]):02d}-{int(m[3] or 1):02d}", regex=True)
    return pd.to_datetime(text, errors="coerce")


def _plain(v):
    """A value as JSON: nothing for NaN and NaT, numpy's numbers as Python's, else text."""
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            v = v.item()
        except (TypeError, ValueError):
            pass
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return None
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return str(v)


def _texts(values):
    """A column's cells as a person reads them: thousands separators, the same few decimals
    for the whole column (none for whole numbers), nothing for a missing value."""
    if getattr(values.dtype, "kind", "O") not in "iuf":  # text, dates, yes/no
        return ["" if _plain(v) is None else str(v) for v in values]
    numbers = pd.to_numeric(values, errors="coerce").astype(float)
    finite = numbers[numbers.abs() < float("inf")]
    largest = finite.abs().max() if len(finite) else 0
    whole = bool(((finite - finite.round()).abs() < 1e-9).all())
    places = 0 if whole else 2 if largest >= 1 else 3 if largest >= 0.01 else 4
    return ["" if not abs(v) < float("inf") else f"{v:,.{places}f}" for v in numbers]


def _md(frame):
    """A DataFrame or Series as a Markdown table, its numbers as a person reads them."""
    frame = frame.to_frame() if isinstance(frame, pd.Series) else frame
    if not isinstance(frame.index, pd.RangeIndex):
        names = [" " * i if n is None else n for i, n in enumerate(frame.index.names)]
        try:
            frame = frame.reset_index(names=names)
        except ValueError:  # a level named as a column
            frame = frame.reset_index(drop=True)
    head = [" / ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in frame.columns]
    columns = [_texts(frame.iloc[:, i]) for i in range(frame.shape[1])]
    rule = "".join("---:|" if getattr(frame.iloc[:, i].dtype, "kind", "O") in "iuf" else "---|"
                   for i in range(frame.shape[1]))  # numbers to the right
    cells = lambda row: "| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |"
    return "\n".join([cells(head), "|" + rule, *(cells(row) for row in zip(*columns))])


class _Markdown(str):
    """Shown as Markdown: the sandbox returns it as one of the cell's tables."""

    def _repr_markdown_(self):
        return str(self)


def _answer(spec, *tables, **values):
    """Keep what the cell found for its report: what was asked (``spec``), its ``tables``
    (up to 400 rows each) and ``values``, as JSON."""
    shown = []
    for frame in tables:
        if frame is None:
            continue
        frame = frame.to_frame() if isinstance(frame, pd.Series) else frame
        head = frame.head(400)
        names = [str(n) for n in head.index.names if n is not None]
        shown.append({
            "index_name": " / ".join(names) or None,
            "columns_name": None if head.columns.name is None else str(head.columns.name),
            "index": [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i)
                      for i in head.index],
            "columns": [[str(p) for p in c] if isinstance(c, tuple) else [str(c)]
                        for c in head.columns],
            "data": [[_plain(v) for v in row]
                     for row in head.itertuples(index=False, name=None)],
            "rows": int(len(frame))})
    _ANSWERS.append({"analyst_answer": {"spec": spec, "tables": shown, "values": {
        str(k): _plain(v) for k, v in values.items()}}})


def _tick(v, ja=False, percent=False):
    """An axis label: separators, 万 and 億 in Japanese, % for a rate; never 1e6."""
    size = abs(v)
    if percent:
        text, unit = f"{v:,.1f}" if size < 10 else f"{v:,.0f}", "%"
    elif ja and size >= 1e4:  # 1.5万, 120万, 3.2億
        scaled, unit = (v / 1e8, "億") if size >= 1e8 else (v / 1e4, "万")
        text = f"{scaled:,.1f}" if abs(scaled) < 100 else f"{scaled:,.0f}"
    else:
        text, unit = f"{v:,.0f}" if size >= 100 else f"{v:,.2f}", ""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return ("0" if text in ("-0", "") else text) + unit


def _chart(table, spec):
    """Draw ``table`` as ``spec`` says (kind line, bar or hist, and the question's words):
    amounts on the left axis, rates (columns named ``*_%``) on a second axis on the right."""
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    try:
        import matplotlib_fontja  # noqa: F401  (a Japanese font, as the kernel has)
    except ImportError:
        pass
    ja, words = spec.get("ja", False), spec.get("labels", {})
    fig, ax = plt.subplots(figsize=(7.2, 3.8))
    amounts = FuncFormatter(lambda v, _p: _tick(v, ja))
    if spec["kind"] == "hist":
        values = pd.to_numeric(table, errors="coerce").dropna()
        ax.hist(values, bins=30, color="#4c78a8", edgecolor="white")
        ax.xaxis.set_major_formatter(amounts)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        frame = table.to_frame() if isinstance(table, pd.Series) else table
        if not 1 < len(frame) <= 400:
            plt.close(fig)
            return
        role = lambda c: str(c[0] if isinstance(c, tuple) else c)
        def said(c):
            if not isinstance(c, tuple):
                return words.get(str(c), str(c))
            group = " / ".join(map(str, c[1:]))
            return f"{group}（{words.get(role(c), role(c))}）" if ja else (
                f"{group} ({words.get(role(c), role(c))})")
        rates = [c for c in frame.columns if role(c).endswith("_%")]
        kept = [c for c in frame.columns if c not in rates]
        if spec["kind"] == "bar":
            kept = kept[:1]
        positions = list(range(len(frame)))
        names = [str(i) for i in frame.index]
        if spec["kind"] == "bar":
            bars = ax.bar(positions, frame[kept[0]].astype(float), color="#4c78a8",
                          label=said(kept[0]))
            if len(frame) <= 12:
                ax.bar_label(bars, labels=[_tick(v, ja) for v in frame[kept[0]].astype(float)],
                             fontsize=8, padding=2)
        else:
            for c in kept:
                ax.plot(positions, frame[c].astype(float), marker="o", label=said(c))
        step = max(1, -(-len(positions) // 12))
        ax.set_xticks(positions[::step])
        ax.set_xticklabels(names[::step], rotation=30 if len(positions) > 6 else 0,
                           ha="right" if len(positions) > 6 else "center")
        ax.yaxis.set_major_formatter(amounts)
        handles, labels = ax.get_legend_handles_labels()
        if rates:
            right = ax.twinx()
            for c in rates:
                right.plot(positions, frame[c].astype(float), color="#e45756", marker="s",
                           linestyle="none" if spec["kind"] == "bar" else "--", label=said(c))
            if any(role(c) != "share_%" for c in rates):
                right.axhline(0, color="#e45756", linewidth=0.6, alpha=0.5)
            right.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: _tick(v, ja, True)))
            right.set_ylabel(spec.get("rate", ""))
            more, said_more = right.get_legend_handles_labels()
            handles, labels = handles + more, labels + said_more
        if len(handles) > 1:
            ax.legend(handles, labels, fontsize=8, loc="best")
    ax.set_title(spec.get("title", ""), fontsize=11)
    ax.set_xlabel(spec.get("x", ""))
    ax.set_ylabel(spec.get("y", ""))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    if matplotlib.get_backend().lower() != "agg":  # shown (captured) where there is a display
        plt.show()
    plt.close(fig)
'''

# What a cell shows after its code: its tables and JSON, and its answer for the report
# (dicts and lists are shown as JSON by the kernel, sandbox/kernel_startup.py).
SHOW = '''
for _table in TABLE_MARKDOWN:
    display(_Markdown(_table))
for _value in JSON_OUT:
    display(_value)
for _value in _ANSWERS:
    display(_value)
'''


# A cell of a large table that starts with this reads only the columns it names.
PRUNED = "df = _read_table("


def table_reader(columns: list[str]) -> str:
    """The first line of a cell that needs only ``columns`` of a large table."""
    return f"{PRUNED}{json.dumps(columns, ensure_ascii=False)})\n"


def read_options(record: DatasetRecord) -> str:
    """The arguments after the file's name of the ``pd.read_excel``/``pd.read_csv`` that
    reads the dataset as its profile did: the header's row (under title lines), its codes
    as text and, for a text file, its delimiter, encoding and engine."""
    profile = record.profile
    options = [f"header={0 if record.header else None}"]
    if profile.skip_rows:
        options.append(f"skiprows={profile.skip_rows}")
    if profile.codes:
        options.append("dtype={" + ", ".join(f"{i}: str" for i in profile.codes) + "}")
    if record.format != "xlsx":
        options[:0] = [f"sep={json.dumps(record.delimiter or ',')}",
                       f"encoding={json.dumps(record.encoding or 'utf-8')}"]
        options += [f"{k}={v!r}" for k, v in csv_engine(record.delimiter or ",").items()]
    return ", ".join(options)


def numbers_code(record: DatasetRecord) -> tuple[str, str]:
    """What reads the dataset's numbers written as text: the definitions (``TEXT_NUMBERS``)
    and the line that converts ``df``; both empty when it has none or is read from its
    Parquet copy (typed when written)."""
    columns = record.profile.text_numbers
    if not columns or record.parquet_path is not None:
        return "", ""
    return (f"\n{TEXT_NUMBERS}",
            f"df = read_text_numbers(df, {json.dumps(columns, ensure_ascii=False)})\n")


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
        read = f"pd.read_excel({path}, engine='calamine', {read_options(record)})"
    else:
        read = f"pd.read_csv({path}, {read_options(record)})"
    numbers, convert = numbers_code(record)
    return (f"{helpers}{numbers}\n"
            "try:\n    _DATASET\nexcept NameError:\n    _DATASET = None\n"
            f"if _DATASET != {json.dumps(record.id)}:\n"
            f"    df = {read}\n"
            + (f"    {convert}" if convert else "")
            + f"    _DATASET = {json.dumps(record.id)}\n")


def setup(record: DatasetRecord) -> str:
    """A notebook's first cell: what each cell ran before its code (run it in the thread's
    workspace, the folder that holds ``datasets/``)."""
    return f"{loader(record)}TABLE_MARKDOWN = []\nJSON_OUT = []\n"


def cell(record: DatasetRecord, code: str) -> str:
    """The whole cell: load, the analysis ``code``, then show its tables and JSON."""
    return f"{loader(record, code)}TABLE_MARKDOWN = []\nJSON_OUT = []\n\n{code}\n{SHOW}"
