// A tool's result as a person reads it: numbers formatted, an object as a table of its keys
// and values, a list as a list (a list of like objects as a table with a column per key),
// links as links. The raw JSON stays one click away (tools-view.js puts it in a <details>).
//
// Numbers (formatNumber): whole numbers exactly, with thousands separators (1,267,650,600,
// 228,229,401,496,703,205,376 from the string "1267650600228229401496703205376"); others
// rounded to at most 6 decimal places with trailing zeros dropped (50/3 -> 16.666667,
// 0.1 + 0.2 -> 0.3); a number nearer zero than 0.000001 in scientific form with 6
// significant digits (1.23457E-9). A string that is a plain decimal number is read as one
// (the calculator answers "16.66666666666666666666666667"). A value whose key names an
// identifier, a year or a code (id, user_id, year, zip, port, version) is shown as written.

import { currentLang, t } from "./i18n.js";
import { el } from "./dom.js";

const PLAIN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const AS_WRITTEN = /(^|[_\s-])(id|year|code|zip|port|version)$/i;
const LINK = /^https?:\/\/[^\s<>"]+$/;
const MAX_ITEMS = 200; // of a list or object shown; the rest is counted
const MAX_DEPTH = 8; // deeper values are shown as JSON
const MAX_COLUMNS = 8; // a list of objects with more keys is a list of tables

function locale() {
  return currentLang() === "ja" ? "ja-JP" : "en-US";
}

/** A number, or a string that is a plain decimal number, as a person reads it. */
export function formatNumber(value) {
  if (typeof value === "string") {
    if (!PLAIN_NUMBER.test(value)) return value;
    // a whole number of any size stays exact
    if (!value.includes(".")) return BigInt(value).toLocaleString(locale());
    value = Number(value);
  }
  if (!Number.isFinite(value)) return String(value);
  const size = Math.abs(value);
  if (size !== 0 && size < 1e-6) {
    return new Intl.NumberFormat(locale(), { notation: "scientific", maximumSignificantDigits: 6 }).format(value);
  }
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: Number.isInteger(value) ? 0 : 6 }).format(value);
}

function isRecord(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function translated(tag, className, key, params) {
  const node = el(tag, className, t(key, params));
  if (!params) node.dataset.i18n = key;
  return node;
}

function numberNode(text) {
  return el("span", "result-number", text);
}

function scalar(value, key) {
  if (value === null || value === undefined) return el("span", "result-none muted", "—");
  if (typeof value === "boolean") return translated("span", "result-bool", value ? "tools.yes" : "tools.no");
  const asWritten = typeof key === "string" && AS_WRITTEN.test(key);
  if (typeof value === "number") return numberNode(asWritten ? String(value) : formatNumber(value));
  const text = String(value);
  if (!asWritten && PLAIN_NUMBER.test(text)) return numberNode(formatNumber(text));
  if (LINK.test(text)) {
    const link = el("a", "result-link", text);
    link.href = text;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    return link;
  }
  return el("span", "result-text", text);
}

function more(count) {
  return count > 0 ? [translated("p", "result-more muted", "tools.moreItems", { n: count })] : [];
}

function keyValueTable(object, depth) {
  const entries = Object.entries(object);
  const body = el("tbody");
  for (const [key, value] of entries.slice(0, MAX_ITEMS)) {
    const row = el("tr");
    const head = el("th", "", key);
    head.scope = "row";
    const cell = el("td");
    cell.append(render(value, key, depth + 1));
    row.append(head, cell);
    body.append(row);
  }
  const table = el("table", "result-table kv");
  table.append(body);
  return wrap(table, entries.length - MAX_ITEMS);
}

function recordsTable(items, columns, depth) {
  const head = el("tr");
  for (const column of columns) {
    const th = el("th", "", column);
    th.scope = "col";
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const item of items.slice(0, MAX_ITEMS)) {
    const row = el("tr");
    for (const column of columns) {
      const cell = el("td");
      if (column in item) cell.append(render(item[column], column, depth + 1));
      row.append(cell);
    }
    body.append(row);
  }
  const table = el("table", "result-table records");
  table.append(thead, body);
  return wrap(table, items.length - MAX_ITEMS);
}

/** A table in a box that scrolls sideways on a narrow screen, and the count left out. */
function wrap(table, left) {
  const box = el("div", "result-table-wrap");
  box.append(table, ...more(left));
  return box;
}

function list(items, depth) {
  if (items.length && items.every(isRecord)) {
    const columns = [...new Set(items.flatMap((item) => Object.keys(item)))];
    if (columns.length && columns.length <= MAX_COLUMNS) return recordsTable(items, columns, depth);
  }
  const ol = el("ol", "result-list");
  for (const item of items.slice(0, MAX_ITEMS)) {
    const li = el("li");
    li.append(render(item, undefined, depth + 1));
    ol.append(li);
  }
  const box = el("div");
  box.append(ol, ...more(items.length - MAX_ITEMS));
  return box;
}

function render(value, key, depth) {
  if (depth > MAX_DEPTH) return el("code", "result-text", JSON.stringify(value));
  if (Array.isArray(value)) {
    return value.length ? list(value, depth) : translated("span", "result-none muted", "tools.emptyValue");
  }
  if (isRecord(value)) {
    return Object.keys(value).length ? keyValueTable(value, depth) : translated("span", "result-none muted", "tools.emptyValue");
  }
  return scalar(value, key);
}

/** The readable form of a tool's ``result`` (any JSON value). */
export function readableResult(value) {
  const box = el("div", "result-readable");
  box.append(render(value, undefined, 0));
  return box;
}
