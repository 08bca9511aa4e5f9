"""The builtin calculator: exact integers and decimals, percentages, a whitelist without eval."""

from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.config import Settings
from shokunin.tools import ToolRegistry


@pytest.fixture(scope="module")
def calc() -> ToolRegistry:
    return ToolRegistry.from_settings(Settings(
        data_dir=Path("/nonexistent-shokunin"), tools_dirs=[],
        tool_settings_file=Path("/nonexistent-shokunin/s.json")))


@pytest.mark.parametrize(("expression", "value"), [
    ("0.1 + 0.2", "0.3"), ("1200 * 8%", "96"), ("15%", "0.15"), ("10 % 3", "1"),
    ("-7 // 2", "-4"), ("-7 % 3", "2"), ("2 ** 10", "1024"), ("(1 + 2) * 3", "9"),
    ("round(2.5)", "3"), ("round(1 / 3, 4)", "0.3333"), ("sqrt(16)", "4"), ("abs(-2.50)", "2.5"),
    ("sum([1, 2, 3.5])", "6.5"), ("max(1, 5, 3)", "5"), ("min([4, 2])", "2"),
    ("19.99 * 3", "59.97"), ("1_000 * 3", "3000"), ("10 ** -3", "0.001"), ("-(3)", "-3"),
    # Integers are exact at any size: no rounding to 28 digits on the way.
    ("2**10000 % 7", "2"), ("(2**10000 + 1) % 7", "3"), ("2**100000 % 7", "2"),
    ("9**9**9 % 7", "1"), ("2**64", "18446744073709551616"), ("2**100 * 3 - 2**100 * 3", "0"),
    ("(10**40 + 1) - 10**40", "1"), ("10**30 // 7", "142857142857142857142857142857"),
    ("2**200 / 2**199", "2"), ("7 / 2", "3.5"), ("2 ** -2", "0.25"), ("round(25, -1)", "30"),
    ("round(-25, -1)", "-30"), ("sqrt(10**40)", "1" + "0" * 20), ("-(2**70) % 3", "2"),
])
async def test_arithmetic(calc: ToolRegistry, tmp_path: Path, expression: str,
                          value: str) -> None:
    result = await calc.execute("calculator", {"expression": expression}, workspace=tmp_path)
    assert result["success"], result
    assert result["result"]["value"] == value


@pytest.mark.parametrize(("expression", "reason"), [
    ("x + 1", "names are not allowed"), ("os.system", "attribute access"),
    ("__import__('os')", "allowed functions"), ("open('f')", "allowed functions"),
    ("(1).__class__", "attribute access"), ("1 / 0", "division by zero"),
    ("9 ** 9 ** 9", "result above 10000 digits"), ("2 ** 100000", "result above 10000 digits"),
    ("10**5000 * 10**5000", "result above 10000 digits"), ("0.5 ** 100000", "exponent above"),
    ("2 ** -100000", "exponent above"), ("5 // 0", "division by zero"),
    ("2**10 % 0", "division by zero"),
    ("'a' * 3", "only numbers"), ("[1, 2]", "only allowed"), ("sqrt(-1)", "invalid operation"),
    ("", "empty"), ("1 +", "cannot parse"), ("lambda: 1", "not allowed"),
    ("1" * 600, "longer than"), ("round(1, ndigits=2)", "keyword"),
])
async def test_refusals(calc: ToolRegistry, tmp_path: Path, expression: str,
                        reason: str) -> None:
    result = await calc.execute("calculator", {"expression": expression}, workspace=tmp_path)
    assert not result["success"] and reason in result["error"], result


async def test_integer_results_keep_every_digit(calc: ToolRegistry, tmp_path: Path) -> None:
    result = await calc.execute("calculator", {"expression": "10**9999 + 1"}, workspace=tmp_path)
    assert result["result"]["value"] == "1" + "0" * 9998 + "1"
