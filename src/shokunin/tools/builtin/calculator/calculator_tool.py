"""
電卓ツール
Exact decimal arithmetic for agents, without eval: the expression is parsed with ``ast``
and only a whitelist of nodes is evaluated, with Decimal so that 0.1 + 0.2 is 0.3.
"""

from __future__ import annotations

import ast
import decimal
import re
from decimal import Decimal

TOOL_NAME = "電卓"
TOOL_DESCRIPTION = ("四則演算・べき乗・パーセント・round/min/max/sum/sqrt/abs を"
                    "10進数で正確に計算します (exact decimal arithmetic).")
TOOL_ICON = "🧮"

MAX_LENGTH = 500
MAX_EXPONENT = 10_000
FUNCTIONS = ("abs", "max", "min", "round", "sqrt", "sum")
# "15%" and "1200 * 8%" are percentages; "10 % 3" (an operand follows) is modulo.
PERCENT = re.compile(r"(\d[\d_]*(?:\.\d*)?|\.\d+)\s*%(?=\s*(?:$|[)\],+\-*/]))")
CONTEXT = decimal.Context(prec=28, Emax=100_000, Emin=-100_000, rounding=decimal.ROUND_HALF_EVEN,
                          traps=[decimal.Overflow, decimal.DivisionByZero,
                                 decimal.InvalidOperation])


class CalcError(Exception):
    """An expression outside what the calculator accepts; the message says why."""


def get_function_declaration() -> dict:
    return {
        "name": "calculator",
        "description": "Evaluate an arithmetic expression exactly (decimal). Supports + - * / "
                       "// % **, parentheses, percentages like '15%' or '1200 * 8%', and the "
                       "functions round(x, digits), min, max, sum, sqrt, abs.",
        "parameters": {
            "type": "object",
            "properties": {
                "expression": {"type": "string",
                               "description": "e.g. '1200 * 8%' or 'round(1 / 3, 4)'"},
            },
            "required": ["expression"],
        },
    }


def execute(args: dict, context: dict) -> dict:
    expression = str(args.get("expression", "")).strip()
    try:
        value = evaluate(expression)
    except CalcError as exc:
        return {"success": False, "error": str(exc)}
    return {"success": True, "result": {"expression": expression, "value": format_number(value)}}


def evaluate(expression: str) -> Decimal:
    if not expression:
        raise CalcError("式が空です (empty expression)")
    if len(expression) > MAX_LENGTH:
        raise CalcError(f"式が長すぎます (expression longer than {MAX_LENGTH} characters)")
    source = PERCENT.sub(r"(\1/100)", expression)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        raise CalcError(f"式を解釈できません (cannot parse {expression!r})") from None
    with decimal.localcontext(CONTEXT):
        try:
            result = _Evaluator(source).number(tree.body)
        except decimal.DivisionByZero:
            raise CalcError("0 で割ることはできません (division by zero)") from None
        except decimal.Overflow:
            raise CalcError("結果が大きすぎます (result too large)") from None
        except decimal.InvalidOperation:
            raise CalcError("計算できません (invalid operation, e.g. sqrt of a negative "
                            "number or 0/0)") from None
    return result


def format_number(value: Decimal) -> str:
    if value == 0:
        return "0"
    value = value.normalize()
    if abs(value.adjusted()) > 30:
        return f"{value:E}"
    return f"{value:f}"


class _Evaluator:
    """Evaluates only numbers, arithmetic operators and the whitelisted functions."""

    def __init__(self, source: str) -> None:
        self.source = source

    def visit(self, node: ast.expr) -> Decimal | list[Decimal]:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise CalcError(_refusal(node))
        return method(node)

    def number(self, node: ast.expr) -> Decimal:
        value = self.visit(node)
        if isinstance(value, list):
            raise CalcError("リストは sum/min/max の中でだけ使えます "
                            "(a list is only allowed there)")
        return value

    def _Constant(self, node: ast.Constant) -> Decimal:
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalcError(f"数値以外は使えません (only numbers are allowed, not {node.value!r})")
        # The source text, not the float, so that 0.1 is exactly 0.1.
        text = ast.get_source_segment(self.source, node) or repr(node.value)
        return Decimal(text.replace("_", ""))

    def _UnaryOp(self, node: ast.UnaryOp) -> Decimal:
        operand = self.number(node.operand)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        raise CalcError(_refusal(node))

    def _BinOp(self, node: ast.BinOp) -> Decimal:
        left, right = self.number(node.left), self.number(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.FloorDiv):
            return (left / right).to_integral_value(rounding=decimal.ROUND_FLOOR)
        if isinstance(op, ast.Mod):  # Python's sign rule: the result has the divisor's sign
            return left - right * (left / right).to_integral_value(rounding=decimal.ROUND_FLOOR)
        if isinstance(op, ast.Pow):
            if abs(right) > MAX_EXPONENT:
                raise CalcError(f"指数が大きすぎます (exponent above {MAX_EXPONENT})")
            return left ** right
        raise CalcError(_refusal(node))

    def _List(self, node: ast.List) -> list[Decimal]:
        return [self.number(item) for item in node.elts]

    _Tuple = _List

    def _Call(self, node: ast.Call) -> Decimal:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise CalcError(f"関数 {ast.unparse(node.func)!r} は使えません (allowed functions: "
                            f"{', '.join(FUNCTIONS)})")
        if node.keywords:
            raise CalcError("キーワード引数は使えません (keyword arguments are not allowed)")
        name = node.func.id
        values = [self.visit(arg) for arg in node.args]
        if name in ("max", "min", "sum"):
            flat = [v for value in values for v in (value if isinstance(value, list) else [value])]
            if not flat:
                raise CalcError(f"{name}() に値がありません (needs at least one number)")
            return sum(flat, Decimal(0)) if name == "sum" else (max if name == "max" else min)(flat)
        numbers = [self.number(arg) for arg in node.args]
        if name == "round":
            if len(numbers) not in (1, 2):
                raise CalcError("round(x) または round(x, 桁数) (round takes 1 or 2 arguments)")
            digits = int(numbers[1]) if len(numbers) == 2 else 0
            # 四捨五入: what people expect from a calculator (Python's round() is banker's).
            return numbers[0].quantize(Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)
        if len(numbers) != 1:
            raise CalcError(f"{name}() takes exactly one argument")
        return numbers[0].sqrt() if name == "sqrt" else abs(numbers[0])


def _refusal(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"名前 {node.id!r} は使えません (names are not allowed; only numbers and functions)"
    if isinstance(node, ast.Attribute):
        return "属性アクセスは使えません (attribute access is not allowed)"
    return f"{type(node).__name__} は使えません (not allowed in a calculation)"
