"""A calculator chip shows the calculation as a person writes it, never the tool's code
(`round((480 - 400) / 400 * 100, 1)`): the view's own module, run under node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")
MODULE = Path(__file__).parents[3] / "src" / "shokunin" / "web" / "js" / "advisor-expression.js"


def _lines(expressions: list[str]) -> list[str | None]:
    script = ("import { calculationLine } from " + json.dumps(MODULE.as_uri()) + ";\n"
              f"console.log(JSON.stringify({json.dumps(expressions)}.map(calculationLine)));")
    done = subprocess.run([str(NODE), "--input-type=module", "-e", script],
                          capture_output=True, text=True, check=True, timeout=30)
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: install Node 20 to run this test")
def test_a_calculation_is_written_as_a_person_writes_it() -> None:
    assert _lines(["round((480 - 400) / 400 * 100, 1)", "(150 - 120) * 2000",
                   "__import__('os').system('x')"]) == [
        "(480 - 400) ÷ 400 × 100 = 20.0%", "(150 - 120) × 2000 = 60000", None]


def test_the_chip_shows_no_raw_expression() -> None:
    chat = (MODULE.parent / "advisor-chat.js").read_text(encoding="utf-8")
    assert "calculationLine(args.expression)" in chat
    assert "JSON.stringify(args" not in chat  # no code in the chip's tooltip either
