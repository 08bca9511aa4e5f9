"""HTML from an uploaded table (issue 34, point 11) stays text in the report files: the
Markdown, the notebook's Markdown (cells and table outputs) and the HTML page render no
tag of it, in a renderer that does render inline HTML."""

from __future__ import annotations

import json

from markdown_it import MarkdownIt

from shokunin import events as ev
from shokunin.analyst import report_files

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
EVENTS: list[ev.BaseEvent] = [
    ev.RunStarted(agent="analyst", input={"question": f"{IMG} の合計は?"}),
    ev.Code(code=f'df["{IMG}"].sum()'),
    ev.CodeResult(ok=True, stdout=f"{SCRIPT}\n"),
    ev.Table(markdown=f"| {IMG} | 店舗 |\n|---|---|\n| {SCRIPT} | 大阪 |"),
    ev.Text(text=f"列 {IMG} の合計は 3 です。\n\n| {IMG} | n |\n|---|---|\n| {SCRIPT} | 1 |\n\n"
                 f"<div onmouseover=alert(1)>x</div>\n\n`{IMG}` はコードのまま。"),
]
_viewer = MarkdownIt("commonmark", {"html": True}).enable("table")  # as Jupyter or a Git host


def _assert_no_tags(html: str) -> None:
    for tag in ("<img", "<script", "<div"):
        assert tag not in html, html


def _rendered(markdown: str) -> str:
    return _viewer.render(markdown)


def test_the_markdown_report_renders_the_tables_html_as_text() -> None:
    markdown = report_files.markdown(EVENTS)
    _assert_no_tags(_rendered(markdown))
    assert "&lt;img src=x onerror=alert(1)>" in markdown  # shown, not dropped
    assert f"`{IMG}`" in markdown  # code is left as written


def test_the_notebooks_markdown_renders_the_tables_html_as_text() -> None:
    notebook = json.loads(report_files.notebook(EVENTS))
    markdown = [("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
                for c in notebook["cells"] if c["cell_type"] == "markdown"]
    outputs = [o["data"]["text/markdown"] for c in notebook["cells"]
               if c["cell_type"] == "code" for o in c["outputs"]
               if o.get("data", {}).get("text/markdown")]
    assert len(markdown) == 2 and len(outputs) == 1
    for text in markdown + outputs:
        _assert_no_tags(_rendered(text if isinstance(text, str) else "".join(text)))


def test_the_html_page_has_no_tag_from_the_table() -> None:
    _assert_no_tags(report_files.page(EVENTS))  # held before: markdown-it with html off
