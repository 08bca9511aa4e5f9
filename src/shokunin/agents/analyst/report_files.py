"""An Analyst run's report as files to download, built from the run's stored events:
Markdown (plots inline as data URLs), one self-contained HTML page (no network: plots
embedded, no scripts or remote styles), and a Jupyter notebook of the cells that produced
it, with their outputs. The question, the report and its tables quote the uploaded table's
names and cells: their raw HTML is made inert (``inert_markdown``) in the Markdown and the
notebook, and escaped in the page."""

from __future__ import annotations

import html
from typing import Any

import nbformat
from markdown_it import MarkdownIt

from shokunin import events as ev
from shokunin.agents.analyst.inert_markdown import inert
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


def notebook(events: list[ev.BaseEvent], setup: str | None = None) -> str:
    """The run's cells with their outputs, after ``setup`` (the loading every cell ran)."""
    question, report, _images = _parts(events)
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell(f"# {inert(question)}"))
    if setup is not None:
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
    nbformat.validate(nb)
    return nbformat.writes(nb)


BUILDERS = {"md": markdown, "html": page, "ipynb": notebook}
