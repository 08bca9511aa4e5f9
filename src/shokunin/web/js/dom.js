// Small DOM helpers every view uses.

import { currentLang } from "./i18n.js";

/** A new element with a class and text (both optional). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An ISO time as a short local date and time in the UI's language ("" if invalid). */
export function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat(currentLang(), { dateStyle: "short", timeStyle: "short" }).format(date);
}
