"""An Analyst run's report as files to download, built from the run's stored events:
Markdown (plots inline as data URLs), one self-contained HTML page (no network: plots
embedded, no scripts or remote styles), and a Jupyter notebook of the cells that produced
it, with their outputs. The question, the report and its tables quote the uploaded table's
names and cells: their raw HTML is made inert (``inert_markdown``) in the Markdown and the
notebook, and escaped in the page.

The notebook runs outside shokunin, in any Jupyter with pandas and matplotlib: it names
the ``python3`` kernel, reads the uploaded file from beside itself by its original name
(with the encoding and dialect shokunin read it with, as its first cell says), and gives
plots a Japanese font where one is installed.

A session's report (``session_markdown``, ``session_page``, ``session_notebook``) is the
same for every question of an Analyst thread, in order: each question a section with its
report and plots (or a line saying why it has none), its cells in one notebook that reads
each dataset once, where the questions move to it."""

from __future__ import annotations

import html
import json
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import nbformat
from markdown_it import MarkdownIt

from shokunin import events as ev
from shokunin.agents.analyst import report_details as details
from shokunin.agents.analyst.inert_markdown import inert
from shokunin.agents.analyst.kernel_code import CELL_HELPERS, numbers_code, read_options
from shokunin.agents.analyst.offline import is_ja
from shokunin.agents.analyst.storage import DatasetRecord
from shokunin.errors import ErrorCode, ShokuninError

MEDIA = {"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8",
         "ipynb": "application/x-ipynb+json"}
_STYLE = ("body{font-family:'Noto Sans JP','Hiragino Sans',sans-serif;max-width:860px;"
          "margin:2em auto;padding:0 1em;line-height:1.6;color:#1f2937}"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d0d5dd;"
          "padding:4px 8px;text-align:left}img{max-width:100%}"
          "pre{background:#f4f5f7;padding:8px;overflow-x:auto}"
          "details{margin:1.5em 0}summary{cursor:pointer;color:#555}")


class NoReport(ShokuninError, LookupError):
    """The run (or no run of the session) has written a report: still running, waiting,
    failed or cancelled."""
    status = 409
    code = ErrorCode.NO_REPORT


@dataclass(frozen=True)
class Answer:
    """One question of a session as its run left it: the run's stored events in seq order,
    its status (``RunStatus``'s value) and the dataset it asked about."""

    events: Sequence[ev.BaseEvent]
    status: str = "completed"
    dataset_id: str = ""

    @property
    def question(self) -> str:
        return next((str(e.input.get("question", "")) for e in self.events
                     if isinstance(e, ev.RunStarted)), "")

    @property
    def report(self) -> str | None:
        """The run's report (its last text), None before it has written one."""
        return next((e.text for e in reversed(self.events) if isinstance(e, ev.Text)), None)

    @property
    def images(self) -> list[ev.Image]:
        return [e for e in self.events if isinstance(e, ev.Image)]


def _parts(events: list[ev.BaseEvent]) -> tuple[str, str, list[ev.Image]]:
    answer = Answer(events)
    if answer.report is None:
        raise NoReport("this run has no report yet")
    return answer.question, answer.report, answer.images


def _source(image: ev.Image) -> str:
    kind = "svg+xml" if image.format == "svg" else image.format
    return f"data:image/{kind};base64,{image.data_base64}"


def _md_figures(images: list[ev.Image]) -> list[str]:
    return [f"![figure {i}]({_source(im)})" for i, im in enumerate(images, start=1)]


def _html_body(report: str, images: list[ev.Image]) -> str:
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(report)
    return body + "".join(f'<figure><img alt="figure {i}" src="{_source(im)}"></figure>'
                          for i, im in enumerate(images, start=1))


def _page(title: str, body: str, lang: str = "ja") -> str:
    title = html.escape(title)
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
            f"<title>{title}</title><style>{_STYLE}</style></head>"
            f"<body><h1>{title}</h1>{body}</body></html>\n")


def _lang(question: str) -> str:
    return "ja" if is_ja(question) else "en"


def markdown(events: list[ev.BaseEvent]) -> str:
    """The answer first (its report and plots), then how it was computed, closed."""
    question, report, images = _parts(events)
    return "\n\n".join(part for part in (
        f"# {inert(question)}", inert(report), *_md_figures(images),
        details.markdown(events, _lang(question))) if part) + "\n"


def page(events: list[ev.BaseEvent]) -> str:
    question, report, images = _parts(events)
    lang = _lang(question)
    return _page(question, _html_body(report, images) + details.page(events, lang), lang)


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
    """``pd.read_...`` of the uploaded file ``DATA``, as shokunin read it (the kernel's
    options: ``kernel_code.read_options``)."""
    read = "pd.read_excel" if record.format == "xlsx" else "pd.read_csv"
    return f"{read}(DATA, {read_options(record)}{columns})"


def _header_said(record: DatasetRecord) -> str:
    row = record.profile.header_row
    if not record.header:
        return "no header row"
    return "the first row as the header" if row in (None, 1) else f"row {row} as the header"


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
             f"{_header_said(record)}.")
    numbers, convert = numbers_code(record)
    code = (f"{CELL_HELPERS}{_FONTS}{numbers}\n"
            f"DATA = {json.dumps(name, ensure_ascii=False)}  # beside this notebook\n"
            f"df = {_reader(record)}\n{convert}\n\n"
            "def _read_table(columns=None):  # how a cell of a large table reads its columns\n"
            f"    return {_reader(record, ', usecols=columns')}\n\n\n"
            "TABLE_MARKDOWN = []\nJSON_OUT = []\n")
    return about, code


def _add_cells(nb: Any, events: Sequence[ev.BaseEvent]) -> None:
    """The run's cells with what each printed, raised, drew and tabled."""
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


def _written(nb: Any) -> str:
    for number, each in enumerate(nb.cells, start=1):  # not random: one run, one file
        each.id = f"cell-{number}"
    nbformat.validate(nb)
    return nbformat.writes(nb)


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
    _add_cells(nb, events)
    nb.cells.append(nbformat.v4.new_markdown_cell(inert(report)))
    return _written(nb)


BUILDERS = {"md": markdown, "html": page, "ipynb": notebook}

# A session's report, in the language of the person who downloads it.
LANGUAGES = ("ja", "en")
_WORDS = {
    "ja": {"failed": "回答できませんでした: {error}", "cancelled": "中止しました。",
           "interrupted": "確認の質問への答えを待っています: {question}",
           "running": "まだ回答中です。"},
    "en": {"failed": "No answer: the run failed: {error}", "cancelled": "Cancelled.",
           "interrupted": "Waiting for an answer to: {question}",
           "running": "Still being answered."},
}


def _heading(number: int, question: str) -> str:
    return f"{number}. {' '.join(question.split())}"  # one line, whatever was typed


def _no_report(answer: Answer, lang: str) -> str:
    """Why a question of the session has no report, in words."""
    words = _WORDS[lang if lang in _WORDS else "ja"]
    if answer.status == "failed":
        error = next((e.error for e in answer.events if isinstance(e, ev.RunFailed)), "")
        return words["failed"].format(error=error).rstrip(": ")
    if answer.status == "interrupted":
        asked = next((e.payload.get("value", {}) for e in reversed(answer.events)
                      if isinstance(e, ev.RunInterrupted)), {})
        question = asked.get("question", "") if isinstance(asked, dict) else ""
        return words["interrupted"].format(question=question).rstrip(": ")
    return words["cancelled" if answer.status == "cancelled" else "running"]


def _answered(answers: Sequence[Answer]) -> None:
    if not any(answer.report is not None for answer in answers):
        raise NoReport("this session has no report yet")


def session_markdown(title: str, answers: Sequence[Answer], lang: str = "ja") -> str:
    """Every question of the session in order, each a section with its report and plots."""
    _answered(answers)
    parts = [f"# {inert(title)}"]
    for number, answer in enumerate(answers, start=1):
        parts.append(f"## {inert(_heading(number, answer.question))}")
        if answer.report is None:
            parts.append(f"*{inert(_no_report(answer, lang))}*")
        else:
            parts += [inert(answer.report), *_md_figures(answer.images)]
        parts.append(details.markdown(answer.events, lang))
    return "\n\n".join(part for part in parts if part) + "\n"


def session_page(title: str, answers: Sequence[Answer], lang: str = "ja") -> str:
    """The session as one self-contained HTML page: a section per question."""
    _answered(answers)
    sections = []
    for number, answer in enumerate(answers, start=1):
        heading = f"<h2>{html.escape(_heading(number, answer.question))}</h2>"
        body = (f'<p><em>{html.escape(_no_report(answer, lang))}</em></p>'
                if answer.report is None else _html_body(answer.report, answer.images))
        sections.append(f"<section>{heading}{body}{details.page(answer.events, lang)}"
                        "</section>")
    return _page(title, "".join(sections), lang if lang in LANGUAGES else "ja")


def session_notebook(title: str, answers: Sequence[Answer],
                     records: dict[str, DatasetRecord] | None = None, lang: str = "ja") -> str:
    """Every question's cells with their outputs, in order, in one notebook: a dataset is
    read (``notebook_setup``) before the first question about it, and again where the
    questions move to another one; ``records``: the datasets still kept, by id."""
    _answered(answers)
    records = records or {}
    nb = nbformat.v4.new_notebook(metadata=_KERNEL)
    nb.cells.append(nbformat.v4.new_markdown_cell(f"# {inert(title)}"))
    read = None
    for number, answer in enumerate(answers, start=1):
        heading = f"## {inert(_heading(number, answer.question))}"
        record = records.get(answer.dataset_id)
        if record is not None and answer.dataset_id != read:
            about, setup = notebook_setup(record)
            nb.cells.append(nbformat.v4.new_markdown_cell(f"{heading}\n\n{about}"))
            nb.cells.append(nbformat.v4.new_code_cell(setup))
            read = answer.dataset_id
        else:
            nb.cells.append(nbformat.v4.new_markdown_cell(heading))
        _add_cells(nb, answer.events)
        nb.cells.append(nbformat.v4.new_markdown_cell(
            inert(answer.report) if answer.report is not None
            else f"*{inert(_no_report(answer, lang))}*"))
    return _written(nb)


SessionBuilder = Callable[[str, Sequence[Answer], dict[str, DatasetRecord], str], str]
SESSION_BUILDERS: dict[str, SessionBuilder] = {
    "md": lambda title, answers, _records, lang: session_markdown(title, answers, lang),
    "html": lambda title, answers, _records, lang: session_page(title, answers, lang),
    "ipynb": session_notebook,
}
