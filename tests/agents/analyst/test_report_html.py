"""HTML from an uploaded table (issue 34, point 11) stays text in the report files: the
Markdown, the notebook's Markdown (cells and table outputs) and the HTML page render no
tag of it, in a renderer that does render inline HTML."""

from __future__ import annotations

import json

from markdown_it import MarkdownIt

from shokunin import events as ev
from shokunin.agents.analyst import report_files

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


LINKS = ["[x](javascript:alert(5))", "![i](data:image/svg+xml,<svg onload=alert(6)>)",
         "[y](VBScript:msgbox(7))", "[z](java%09script:alert(8))", "[w](file:///etc/passwd)",
         "[r][ref]\n\n[ref]: javascript:alert(9)", "[e](javascript&#58;alert(10))"]
# A viewer that follows any link (markdown-it alone drops javascript:, others need not)
_any_link = MarkdownIt("commonmark", {"html": True}).enable("table")
_any_link.validateLink = lambda url: True


def _links(markdown: str) -> list[str]:
    tokens = [t for block in _any_link.parse(markdown) for t in [block, *(block.children or [])]]
    return [str(t.attrGet("href") or t.attrGet("src")) for t in tokens
            if t.type in ("link_open", "image")]


def _with_cells(cells: list[str], report: str) -> list[ev.BaseEvent]:
    table = "| 列 |\n|---|\n" + "".join(f"| {cell} |\n" for cell in cells if "\n" not in cell)
    return [ev.RunStarted(agent="analyst", input={"question": f"{cells[0]} とは?"}),
            ev.Code(code="df.head()"), ev.Table(markdown=table), ev.Text(text=report)]


def test_a_link_from_the_table_with_a_scheme_other_than_http_or_mailto_is_text() -> None:
    events = _with_cells(LINKS, "値:\n\n" + "\n\n".join(LINKS))
    notebook = json.loads(report_files.notebook(events))
    texts = [report_files.markdown(events)] + [
        "".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"] + [
        "".join(o["data"]["text/markdown"]) for c in notebook["cells"]
        if c["cell_type"] == "code" for o in c["outputs"] if "text/markdown" in o.get("data", {})]
    assert len(texts) == 4
    for text in texts:
        assert _links(text) == [], text
    assert "javascript:alert(5)" in texts[0]  # shown, not dropped


def test_a_report_with_only_web_and_mail_links_is_left_as_written() -> None:
    report = "[docs](https://example.com/a) [mail](mailto:a@example.com) [here](#top) ![f](f.png)"
    written = report_files.markdown(_with_cells(["1"], report))
    assert f"\n\n{report}\n\n<details>" in written  # the answer, then how it was computed
