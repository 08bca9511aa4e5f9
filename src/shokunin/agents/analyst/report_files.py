"""An Analyst run's report as files to download, built from the run's stored events:
Markdown (plots inline as data URLs), one self-contained HTML page (no network: plots
embedded, no scripts or remote styles), and a Jupyter notebook of the cells that produced
it, with their outputs. The question, the report and its tables quote the uploaded table's
names and cells: their raw HTML is made inert (``inert_markdown``) in the Markdown and the
notebook, and escaped in the page.

The notebook runs outside shokunin, in any Jupyter with pandas and matplotlib: it names
the ``python3`` kernel, reads the uploaded file from beside itself by its original name
(with the encoding and dialect shokunin read it with, as its first cell says), and gives
plots a Japanese font where one is installed."""

from __future__ import annotations

import html
import json
import platform
from typing import Any

import nbformat
from markdown_it import MarkdownIt

from shokunin import events as ev
from shokunin.agents.analyst.dataset import csv_engine
from shokunin.agents.analyst.inert_markdown import inert
from shokunin.agents.analyst.kernel_code import CELL_HELPERS
from shokunin.agents.analyst.storage import DatasetRecord
from shokunin.errors import ErrorCode, ShokuninError

MEDIA = {"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8",
         "ipynb": "application/x-ipynb+json"}
_STYLE = ("body{font-family:'Noto Sans JP','Hiragino Sans',sans-serif;max-width:860px;"
          "margin:2em auto;padding:0 1em;line-height:1.6;color:#1f2937}"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d0d5dd;"
          "padding:4px 8px;text-align:right}img{max-width:100%}"
          "pre{background:#f4f5f7;padding:8px;overflow-x:auto}")


class NoReport(ShokuninError, LookupError):
    """The run has not written a report (still running, waiting, failed or cancelled)."""
    status = 409
    code = ErrorCode.NO_REPORT


def _parts(events: list[ev.BaseEvent]) -> tuple[str, str, list[ev.Image]]:
    question = next((str(e.input.get("question", "")) for e in events
                     if isinstance(e, ev.RunStarted)), "")
    reports = [e.text for e in events if isinstance(e, ev.Text)]
    if not reports:
        raise NoReport("this run has no report yet")
    return question, reports[-1], [e for e in events if isinstance(e, ev.Image)]


def markdown(events: list[ev.BaseEvent]) -> str:
    question, report, images = _parts(events)
    figures = [f"![figure {i}](data:image/{'svg+xml' if im.format == 'svg' else im.format};"
               f"base64,{im.data_base64})" for i, im in enumerate(images, start=1)]
    return "\n\n".join([f"# {inert(question)}", inert(report), *figures]) + "\n"


def page(events: list[ev.BaseEvent]) -> str:
    question, report, images = _parts(events)
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(report)
    figures = "".join(
        f'<figure><img alt="figure {i}" src="data:image/'
        f'{"svg+xml" if im.format == "svg" else im.format};base64,{im.data_base64}"></figure>'
        for i, im in enumerate(images, start=1))
    title = html.escape(question)
    return (f'<!DOCTYPE html>\n<html lang="ja"><head><meta charset="utf-8">'
            f"<title>{title}</title><style>{_STYLE}</style></head>"
            f"<body><h1>{title}</h1>{body}{figures}</body></html>\n")


# What the sandbox's kernel_startup.py does for plots, where no missing font may warn.
_FONTS = '''
import matplotlib.pyplot as plt
from matplotlib import font_manager

try:
    import matplotlib_fontja  # noqa: F401  (bundles IPAexGothic and selects it)
except ImportError:
    pass
# Japanese labels: the first of these fonts installed here, else matplotlib's own
_installed = {font.name for font in font_manager.fontManager.ttflist}
plt.rcParams["font.family"] = [name for name in (
    "IPAexGothic", "Noto Sans CJK JP", "Noto Sans JP", "Hiragino Sans", "Yu Gothic", "Meiryo",
    "TakaoPGothic", "VL PGothic") if name in _installed] + ["sans-serif"]
plt.rcParams["axes.unicode_minus"] = False
'''
_KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
           "language_info": {"name": "python", "version": platform.python_version(),
                             "mimetype": "text/x-python", "file_extension": ".py",
                             "codemirror_mode": {"name": "ipython", "version": 3},
                             "pygments_lexer": "ipython3", "nbconvert_exporter": "python"}}


def _reader(record: DatasetRecord, columns: str = "") -> str:
    """``pd.read_...`` of the uploaded file ``DATA``, as shokunin read it."""
    header = 0 if record.header else None
    if record.format == "xlsx":
        return f"pd.read_excel(DATA, header={header}{columns})"
    delimiter = record.delimiter or ","
    options = "".join(f", {k}={v!r}" for k, v in csv_engine(delimiter).items())
    return (f"pd.read_csv(DATA, sep={json.dumps(delimiter)}, "
            f"encoding={json.dumps(record.encoding or 'utf-8')}, header={header}{options}"
            f"{columns})")


def notebook_setup(record: DatasetRecord) -> tuple[str, str]:
    """The notebook's words on where its data comes from, and its first code cell: read the
    uploaded file from beside the notebook, and give the cells what they had in the
    sandbox (its helpers, ``TABLE_MARKDOWN``, ``JSON_OUT``, a Japanese plot font)."""
    name = record.original_name.replace("\\", "/").rsplit("/", 1)[-1]
    how = ("an Excel workbook (pandas reads it with openpyxl)" if record.format == "xlsx" else
           f"encoding `{record.encoding}`, delimiter `{record.delimiter!r}`")
    about = (f"Runs outside shokunin, in any Jupyter with pandas and matplotlib: put the "
             f"uploaded file `{inert(name)}` beside this notebook (its kernel starts in the "
             f"notebook's folder). It is read as shokunin read it: {how}, "
             f"{'the first row as the header' if record.header else 'no header row'}.")
    code = (f"{CELL_HELPERS}{_FONTS}\n"
            f"DATA = {json.dumps(name, ensure_ascii=False)}  # beside this notebook\n"
            f"df = {_reader(record)}\n\n\n"
            "def _read_table(columns=None):  # how a cell of a large table reads its columns\n"
            f"    return {_reader(record, ', usecols=columns')}\n\n\n"
            "TABLE_MARKDOWN = []\nJSON_OUT = []\n")
    return about, code


def notebook(events: list[ev.BaseEvent], record: DatasetRecord | None = None) -> str:
    """The run's cells with their outputs, after reading ``record``'s file (the run's
    dataset, while it is kept) from beside the notebook (``notebook_setup``)."""
    question, report, _images = _parts(events)
    nb = nbformat.v4.new_notebook(metadata=_KERNEL)
    title = f"# {inert(question)}"
    if record is None:
        nb.cells.append(nbformat.v4.new_markdown_cell(title))
    else:
        about, setup = notebook_setup(record)
        nb.cells.append(nbformat.v4.new_markdown_cell(f"{title}\n\n{about}"))
        nb.cells.append(nbformat.v4.new_code_cell(setup))
    cell: Any = None
    for event in events:
        if isinstance(event, ev.Code):
            cell = nbformat.v4.new_code_cell(event.code)
            nb.cells.append(cell)
        elif cell is None:
            continue
        elif isinstance(event, ev.CodeResult):
            if event.stdout:
                cell.outputs.append(nbformat.v4.new_output("stream", name="stdout",
                                                           text=event.stdout))
            if not event.ok:
                cell.outputs.append(nbformat.v4.new_output(
                    "error", ename=event.error_type or "Error",
                    evalue=event.error_message or "", traceback=[event.stderr]))
        elif isinstance(event, ev.Image) and event.format == "png":
            cell.outputs.append(nbformat.v4.new_output(
                "display_data", data={"image/png": event.data_base64}))
        elif isinstance(event, ev.Table):
            cell.outputs.append(nbformat.v4.new_output(
                "display_data", data={"text/markdown": inert(event.markdown)}))
    nb.cells.append(nbformat.v4.new_markdown_cell(inert(report)))
    for number, each in enumerate(nb.cells, start=1):  # not random: one run, one file
        each.id = f"cell-{number}"
    nbformat.validate(nb)
    return nbformat.writes(nb)


BUILDERS = {"md": markdown, "html": page, "ipynb": notebook}
