// A calculator tool's expression as a person writes it: 「(480 - 400) ÷ 400 × 100 = 20.0%」
// for `round((480 - 400) / 400 * 100, 1)`. Only arithmetic is read (numbers, + − × ÷,
// brackets, round); anything else gives null and the chip shows the tool's name alone.

const SIGNS = { "+": "+", "-": "-", "*": "×", "/": "÷" };
// (an ASCII minus: U+2212 falls back to a taller font and the phone layout overflows)

function tokens(text) {
  const out = [];
  const re = /\s*(\d+(?:\.\d+)?|round|[-+*/(),])/y;
  let m;
  while (re.lastIndex < text.length && (m = re.exec(text))) out.push(m[1]);
  return re.lastIndex === text.length || /^\s*$/.test(text.slice(re.lastIndex)) ? out : null;
}

/** {text, value, percent} of an arithmetic expression, or null. */
export function writtenAs(expression) {
  const list = tokens(String(expression ?? ""));
  if (!list?.length) return null;
  let i = 0;
  const peek = () => list[i];
  const take = (want) => {
    if (want !== undefined && list[i] !== want) throw new Error(want);
    return list[i++];
  };
  function primary() {
    const t = take();
    if (t === "(") {
      const inner = sum();
      take(")");
      return { text: `(${inner.text})`, value: inner.value };
    }
    if (t === "-") {
      const inner = primary();
      return { text: `-${inner.text}`, value: -inner.value };
    }
    if (t === "round") {
      take("(");
      const inner = sum();
      let digits = 0;
      if (peek() === ",") {
        take(",");
        digits = Number(take());
      }
      take(")");
      const f = 10 ** digits;
      return { text: inner.text, value: Math.round(inner.value * f) / f, digits, op: inner.op };
    }
    if (t === undefined || !/^\d/.test(t)) throw new Error(String(t));
    return { text: t, value: Number(t) };
  }
  function chain(next, ops, apply) {
    let left = next();
    while (ops.includes(peek())) {
      const op = take();
      const right = next();
      left = { text: `${left.text} ${SIGNS[op]} ${right.text}`, value: apply(op, left.value, right.value),
               op: [op, right.text] };
    }
    return left;
  }
  const product = () => chain(primary, ["*", "/"], (op, a, b) => (op === "*" ? a * b : a / b));
  const sum = () => chain(product, ["+", "-"], (op, a, b) => (op === "+" ? a + b : a - b));
  try {
    const whole = sum();
    if (i !== list.length || !Number.isFinite(whole.value)) return null;
    const last = whole.op; // the outermost operation: × 100 makes a percent
    const percent = Boolean(last && last[0] === "*" && last[1] === "100");
    return { text: whole.text, value: whole.value, percent, digits: whole.digits };
  } catch {
    return null;
  }
}

/** The line a chip shows for an expression, or null when it is not plain arithmetic. */
export function calculationLine(expression) {
  const read = writtenAs(expression);
  if (!read) return null;
  const value = read.digits !== undefined ? read.value.toFixed(read.digits)
    : String(Math.round(read.value * 1e6) / 1e6);
  return `${read.text} = ${value}${read.percent ? "%" : ""}`;
}
