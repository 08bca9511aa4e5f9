// The Advisor's conversation log: the user's messages, and per answer the tools it used (a
// chip each, as they happen), the answer itself as Markdown (each `content` event holds
// the whole answer so far and replaces the text), the knowledge-base sources it drew on,
// its diagrams, and what went wrong.

import { t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { el } from "./dom.js";
import { calculationLine } from "./advisor-expression.js";

/** A text node that follows the language (translate() refills data-i18n elements). */
const say = (tag, className, key) => {
  const node = el(tag, className, t(key));
  node.dataset.i18n = key;
  return node;
};

/** A tool's name for people: the Tools view's builtin names, else our own, else its id. */
function toolKey(tool) {
  for (const key of [`builtinTool.${tool}`, `advisor.tool.${tool}`]) {
    if (t(key) !== key) return key;
  }
  return null;
}

export class ChatLog {
  constructor(root) {
    this.root = root;
    this.diagrams = new Set(); // file names shown, so a polled diagram is not shown twice
    this.reset();
  }

  /** Empty the log; `hint` is the i18n key of what it says meanwhile. */
  reset(hint = "advisor.empty") {
    this.diagrams.clear();
    this.root.replaceChildren(say("p", "advisor-empty muted", hint));
  }

  add(node) {
    this.root.querySelector(".advisor-empty")?.remove();
    this.root.append(node);
    this.root.scrollTop = this.root.scrollHeight;
    return node;
  }

  user(text) {
    return this.add(el("div", "advisor-msg user", text));
  }

  /** A stored answer (a restored session): {content, tools?, sources?}. */
  assistant({ content, tools = [], sources = [] }) {
    const turn = new Turn(this);
    for (const { tool, args } of tools) turn.tool(tool, args);
    turn.content(content);
    turn.showSources(sources);
    return turn;
  }

  /** A message that is not part of an answer (a failed request). */
  error(message) {
    return this.add(el("p", "advisor-error", message));
  }

  /** An answer that streams in. */
  turn() {
    return new Turn(this);
  }
}

export class Turn {
  constructor(log) {
    this.log = log;
    this.node = log.add(el("div", "advisor-turn"));
    this.chips = this.node.appendChild(el("ul", "advisor-tools"));
    this.answer = this.node.appendChild(el("div", "advisor-msg assistant markdown"));
    this.answer.hidden = true;
    this.sources = null;
    this.pending = this.node.appendChild(el("p", "advisor-pending muted"));
    this.pending.append(el("span", "spinner"), say("span", "", "advisor.answering"));
    this.pending.hidden = true;
  }

  scroll() {
    this.log.root.scrollTop = this.log.root.scrollHeight;
  }

  waiting(on) {
    this.pending.hidden = !on;
  }

  tool(name, args) {
    const chip = el("li", "advisor-chip");
    chip.dataset.tool = name;
    const key = toolKey(name);
    chip.append(key ? say("span", "advisor-chip-name", key) : el("span", "advisor-chip-name", name));
    // a calculation as a person writes it, never the tool's code: an expression that is not
    // plain arithmetic shows the tool's name alone
    const detail = args?.expression !== undefined ? calculationLine(args.expression)
      : args?.query ?? "";
    if (detail) chip.append(el("span", "advisor-chip-args", String(detail)));
    this.chips.append(chip);
    this.scroll();
  }

  content(markdown) {
    this.answer.hidden = !markdown;
    this.answer.innerHTML = renderMarkdown(markdown);
    this.scroll();
  }

  showSources(sources) {
    if (!sources?.length) return;
    this.sources?.remove();
    this.sources = el("div", "advisor-sources");
    this.sources.append(say("h3", "", "advisor.sources"));
    const list = el("ol");
    for (const { source, heading, score } of sources) {
      const item = el("li");
      item.append(el("span", "advisor-source-file", source ?? ""));
      if (heading) item.append(el("span", "advisor-source-heading", heading));
      if (typeof score === "number") {
        item.append(el("span", "advisor-source-score", score.toFixed(2)));
      }
      list.append(item);
    }
    this.sources.append(list);
    this.node.insertBefore(this.sources, this.pending);
    this.scroll();
  }

  diagram({ filename, url }) {
    if (!url || this.log.diagrams.has(filename)) return;
    this.log.diagrams.add(filename);
    const figure = el("figure", "advisor-diagram");
    const img = el("img");
    img.src = url;
    img.alt = t("advisor.diagram.alt"); // its file name is no word for a person
    img.addEventListener("load", () => this.scroll());
    const link = el("a", "", t("advisor.diagram.open"));
    link.href = url;
    link.target = "_blank";
    link.rel = "noopener";
    const caption = el("figcaption");
    caption.append(link);
    figure.append(img, caption);
    this.node.insertBefore(figure, this.pending);
    this.scroll();
  }

  error(message, code) {
    const key = code === "cancelled" ? "advisor.cancelled" : null;
    const node = key ? say("p", "advisor-error cancelled", key) : el("p", "advisor-error", message);
    if (code) node.dataset.code = code;
    this.node.insertBefore(node, this.pending);
    this.scroll();
  }
}
