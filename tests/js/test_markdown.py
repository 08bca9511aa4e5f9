"""The browser's Markdown renderer (web/js/markdown.js), run in Node: what an answer's text
becomes on the screen."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")
MARKDOWN = Path(__file__).parents[2] / "src" / "shokunin" / "web" / "js" / "markdown.js"
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH (Node 20)")


def render(text: str) -> str:
    script = (f"import {{ renderMarkdown }} from {json.dumps(MARKDOWN.as_uri())};\n"
              "let s = ''; process.stdin.on('data', (d) => { s += d; });\n"
              "process.stdin.on('end', () => process.stdout.write(renderMarkdown(s)));")
    return subprocess.run([NODE or "node", "--input-type=module", "-e", script], input=text,
                          capture_output=True, text=True, check=True, timeout=30).stdout


def test_a_table_right_under_a_sentence_is_a_table() -> None:
    # issue 49: a table with no blank line above it arrived as one paragraph of pipes
    html = render("売上は次のとおりです。\n| 地域 | 売上 |\n|---|---:|\n| 東京 | 1,200 |")
    assert "<p>売上は次のとおりです。</p>" in html
    assert "<td>東京</td>" in html and "| 東京 |" not in html


def test_pipes_in_a_sentence_stay_text() -> None:
    html = render("a | b is not a table\nsecond line")
    assert "<table>" not in html and "a | b is not a table" in html
