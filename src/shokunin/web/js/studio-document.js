// An agent's output document, readable: its sections as headings and paragraphs, a task
// breakdown as a list, generated files as code or an image (shown from the server, never
// injected), any other field as a definition list, and the raw JSON behind a <details>.

import { t } from "./i18n.js";
import { el } from "./dom.js";

const SHOWN = new Set(["summary", "sections", "tasks", "outputs", "note", "draft", "attempt",
  "path", "filePath", "language", "content", "svg", "agentId"]);
const IMAGE = /\.(svg|png|jpe?g|gif|webp)$/i;

/** content: the document (a dict); fileUrl(path): the URL of a file in the project's
 *  outputs (path as stored, e.g. "outputs/assets/x.svg"). */
export function renderDocument(content, fileUrl, { raw = true } = {}) {
  const root = el("div", "studio-doc");
  if (!content || typeof content !== "object") return root;
  for (const section of content.sections ?? []) {
    root.append(el("h4", "studio-doc-heading", String(section.heading ?? "")),
      el("p", "studio-doc-body", String(section.body ?? "")));
  }
  if (Array.isArray(content.tasks) && content.tasks.length) root.append(taskList(content.tasks));
  if (content.path || content.filePath) root.append(file(content, fileUrl));
  for (const output of content.outputs ?? []) {
    const item = el("div", "studio-doc-output");
    if (output.summary) item.append(el("p", "studio-doc-summary", String(output.summary)));
    item.append(file(output, fileUrl));
    root.append(item);
  }
  const rest = Object.entries(content).filter(([key]) => !SHOWN.has(key));
  if (rest.length) root.append(fields(rest));
  if (content.note) root.append(el("p", "studio-doc-note muted", String(content.note)));
  if (raw) {
    const details = el("details", "studio-doc-raw");
    const summary = el("summary", "", t("studio.rawJson"));
    summary.dataset.i18n = "studio.rawJson";
    details.append(summary, el("pre", "", JSON.stringify(content, null, 2)));
    root.append(details);
  }
  return root;
}

function taskList(tasks) {
  const list = el("ul", "studio-doc-tasks");
  for (const task of tasks) {
    const item = el("li");
    if (task.kind) item.append(el("span", "studio-doc-kind", String(task.kind)));
    item.append(el("strong", "", String(task.title ?? task.id ?? "")));
    if (task.description) item.append(el("span", "muted", ` — ${task.description}`));
    list.append(item);
  }
  return list;
}

/** A generated file: its path (a link when it is stored), then code or an image. */
function file(output, fileUrl) {
  const box = el("div", "studio-doc-file");
  const stored = output.filePath ?? null;
  const name = output.path ?? stored ?? "";
  const head = el("div", "studio-doc-path");
  if (stored) {
    const link = el("a", "mono", name);
    link.href = fileUrl(stored);
    link.target = "_blank";
    link.rel = "noopener";
    link.title = t("studio.openFile");
    head.append(link);
  } else {
    head.append(el("span", "mono", name));
  }
  if (output.language) head.append(el("span", "studio-doc-kind", String(output.language)));
  box.append(head);
  if (stored && IMAGE.test(stored)) {
    const img = el("img", "studio-doc-image");
    img.src = fileUrl(stored);
    img.alt = name;
    img.loading = "lazy";
    box.append(img);
  } else if (typeof output.content === "string") {
    box.append(el("pre", "studio-doc-code", output.content));
  }
  return box;
}

function fields(entries) {
  const list = el("dl", "studio-doc-fields");
  for (const [key, value] of entries) {
    const text = value !== null && typeof value === "object" ? JSON.stringify(value, null, 2)
      : String(value);
    list.append(el("dt", "", key), el("dd", typeof value === "object" ? "mono" : "", text));
  }
  return list;
}
