"""
電卓ツール
Exact arithmetic for agents, without eval: the expression is parsed with ``ast`` and only a
whitelist of nodes is evaluated. Integers stay Python ints (exact at any size, so
``2**10000 % 7`` is 2); a fraction or a decimal makes the value a Decimal, so that
0.1 + 0.2 is 0.3. An integer result may have at most MAX_DIGITS digits: a power is refused
from its size estimate before it is computed, so ``9**9**9`` answers at once.
"""

from __future__ import annotations

import ast
import decimal
import math
import re
from decimal import Decimal

TOOL_NAME = "電卓"
TOOL_DESCRIPTION = ("四則演算・べき乗・パーセント・round/min/max/sum/sqrt/abs を正確に計算します"
                    "（整数は桁数そのまま、小数は10進数） (exact integer and decimal arithmetic).")
TOOL_ICON = "🧮"

MAX_LENGTH = 500
MAX_EXPONENT = 10_000  # of a decimal power
MAX_DIGITS = 10_000  # of an integer result
INT_LIMIT = 10**MAX_DIGITS  # the smallest integer with one digit too many
MAX_BITS = INT_LIMIT.bit_length()
TOO_LARGE = f"結果が大きすぎます (result above {MAX_DIGITS} digits)"
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
        "description": "Evaluate an arithmetic expression exactly (integers of any size up to "
                       f"{MAX_DIGITS} digits, decimals to 28 significant digits). Supports + - "
                       "* / // % **, parentheses, percentages like '15%' or '1200 * 8%', and "
                       "the functions round(x, digits), min, max, sum, sqrt, abs.",
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


Number = int | Decimal


def evaluate(expression: str) -> Number:
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
        except (decimal.DivisionByZero, ZeroDivisionError):
            raise CalcError("0 で割ることはできません (division by zero)") from None
        except decimal.Overflow:
            raise CalcError("結果が大きすぎます (result too large)") from None
        except decimal.InvalidOperation:
            raise CalcError("計算できません (invalid operation, e.g. sqrt of a negative "
                            "number or 0/0)") from None
    return result


def format_number(value: Number) -> str:
    if isinstance(value, int):  # via Decimal: str() of an int stops at 4,300 digits
        return format(Decimal(value), "f")
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

    def visit(self, node: ast.expr) -> Number | list[Number]:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise CalcError(_refusal(node))
        return method(node)

    def number(self, node: ast.expr) -> Number:
        value = self.visit(node)
        if isinstance(value, list):
            raise CalcError("リストは sum/min/max の中でだけ使えます "
                            "(a list is only allowed there)")
        return value

    def _Constant(self, node: ast.Constant) -> Number:
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalcError(f"数値以外は使えません (only numbers are allowed, not {node.value!r})")
        if isinstance(node.value, int):
            return node.value
        # The source text, not the float, so that 0.1 is exactly 0.1.
        text = ast.get_source_segment(self.source, node) or repr(node.value)
        return Decimal(text.replace("_", ""))

    def _UnaryOp(self, node: ast.UnaryOp) -> Number:
        operand = self.number(node.operand)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        raise CalcError(_refusal(node))

    def _BinOp(self, node: ast.BinOp) -> Number:
        op = node.op
        if isinstance(op, ast.Mod) and isinstance(node.left, ast.BinOp) and isinstance(
                node.left.op, ast.Pow):
            modular = self._power_mod(node.left.left, node.left.right, node.right)
            if modular is not None:
                return modular
        left, right = self.number(node.left), self.number(node.right)
        if isinstance(left, int) and isinstance(right, int):
            return _integers(op, left, right, node)
        left, right = Decimal(left), Decimal(right)
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

    def _power_mod(self, base: ast.expr, exponent: ast.expr, modulus: ast.expr) -> int | None:
        """``a ** b % m`` on integers without building ``a ** b`` (Python's pow(a, b, m))."""
        a, b, m = self.number(base), self.number(exponent), self.number(modulus)
        if not (isinstance(a, int) and isinstance(b, int) and isinstance(m, int)) or b < 0:
            return None
        if m == 0:
            raise ZeroDivisionError
        return pow(a, b, m)

    def _List(self, node: ast.List) -> list[Number]:
        return [self.number(item) for item in node.elts]

    _Tuple = _List

    def _Call(self, node: ast.Call) -> Number:
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
            if name == "sum":
                return _bounded(sum(flat, 0))
            return (max if name == "max" else min)(flat)
        numbers = [self.number(arg) for arg in node.args]
        if name == "round":
            if len(numbers) not in (1, 2):
                raise CalcError("round(x) または round(x, 桁数) (round takes 1 or 2 arguments)")
            digits = int(numbers[1]) if len(numbers) == 2 else 0
            return _round(numbers[0], digits)
        if len(numbers) != 1:
            raise CalcError(f"{name}() takes exactly one argument")
        value = numbers[0]
        if name == "abs":
            return abs(value)
        if isinstance(value, int) and value >= 0 and math.isqrt(value) ** 2 == value:
            return math.isqrt(value)
        return Decimal(value).sqrt()


def _integers(op: ast.operator, left: int, right: int, node: ast.BinOp) -> Number:
    """Exact integer arithmetic; a quotient that is not whole becomes a Decimal."""
    if isinstance(op, ast.Add):
        return _bounded(left + right)
    if isinstance(op, ast.Sub):
        return _bounded(left - right)
    if isinstance(op, ast.Mult):
        if left and right and left.bit_length() + right.bit_length() - 1 > MAX_BITS:  # lower bound
            raise CalcError(TOO_LARGE)
        return _bounded(left * right)
    if isinstance(op, ast.Div):
        if right and left % right == 0:
            return left // right
        return Decimal(left) / Decimal(right)
    if isinstance(op, ast.FloorDiv):
        return left // right
    if isinstance(op, ast.Mod):
        return left % right
    if isinstance(op, ast.Pow):
        if right < 0:
            if abs(right) > MAX_EXPONENT:
                raise CalcError(f"指数が大きすぎます (exponent above {MAX_EXPONENT})")
            return Decimal(left) ** right
        # |left| >= 2 has at least (bits - 1) * right bits: refuse before computing it.
        if abs(left) > 1 and (abs(left).bit_length() - 1) * right >= MAX_BITS:
            raise CalcError(TOO_LARGE)
        return _bounded(left ** right)
    raise CalcError(_refusal(node))


def _bounded(value: Number) -> Number:
    if isinstance(value, int) and abs(value) >= INT_LIMIT:
        raise CalcError(TOO_LARGE)
    return value


def _round(value: Number, digits: int) -> Number:
    """四捨五入 (half away from zero): what people expect from a calculator; Python's round()
    rounds half to even."""
    if isinstance(value, int):
        if digits >= 0:
            return value
        unit = 10 ** min(-digits, MAX_DIGITS + 1)
        rounded = (abs(value) + unit // 2) // unit * unit
        return rounded if value >= 0 else -rounded
    return value.quantize(Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)


def _refusal(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"名前 {node.id!r} は使えません (names are not allowed; only numbers and functions)"
    if isinstance(node, ast.Attribute):
        return "属性アクセスは使えません (attribute access is not allowed)"
    return f"{type(node).__name__} は使えません (not allowed in a calculation)"
