// The checkpoint panel: each pending checkpoint (title, description, the output's summary
// and content) with a feedback box and Approve / Reject / Request changes, and below the
// checkpoints already resolved. A pending card is kept across re-renders, so feedback
// being typed is not lost when live updates arrive. Its texts carry data-i18n, so the
// shell's translate() switches their language. It only shows: the view resolves.

import { t } from "./i18n.js";
import { el, when } from "./dom.js";
import { renderDocument } from "./studio-document.js";

const ACTIONS = [
  ["approved", "studio.approve", "primary"],
  ["revision_requested", "studio.requestChanges", ""],
  ["rejected", "studio.reject", "danger"],
];

export class CheckpointPanel {
  /** pending, resolved: the containers; onResolve(checkpoint, resolution, feedback): a
   *  promise, rejected with the server's error; fileUrl(path): an output file's URL. */
  constructor({ pending, resolved, onResolve, fileUrl }) {
    this.pendingBox = pending;
    this.resolvedBox = resolved;
    this.onResolve = onResolve;
    this.fileUrl = fileUrl;
    this.cards = new Map(); // checkpoint id -> card element
  }

  reset() {
    this.cards.clear();
    this.render([]);
  }

  /** checkpoints: GET /api/projects/{id}/checkpoints. */
  render(checkpoints) {
    const pending = checkpoints.filter((c) => c.status === "pending")
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const keep = new Set(pending.map((c) => c.id));
    for (const id of [...this.cards.keys()]) if (!keep.has(id)) this.cards.delete(id);
    const cards = pending.map((c) => {
      if (!this.cards.has(c.id)) this.cards.set(c.id, this.card(c));
      return this.cards.get(c.id);
    });
    if (cards.length) this.pendingBox.replaceChildren(...cards);
    else this.pendingBox.replaceChildren(this.empty("studio.noCheckpoints"));

    const resolved = checkpoints.filter((c) => c.status !== "pending")
      .sort((a, b) => (b.resolvedAt ?? b.updatedAt).localeCompare(a.resolvedAt ?? a.updatedAt));
    this.resolvedBox.replaceChildren(...resolved.map((c) => this.resolvedItem(c)));
    this.resolvedBox.hidden = !resolved.length;
  }

  empty(key) {
    const p = el("p", "muted studio-empty", t(key));
    p.dataset.i18n = key;
    return p;
  }

  card(checkpoint) {
    const card = el("article", "studio-checkpoint");
    card.dataset.checkpoint = checkpoint.id;
    card.dataset.type = checkpoint.type;
    const head = el("header", "studio-checkpoint-head");
    head.append(el("h3", "studio-checkpoint-title", checkpoint.title),
      el("span", "studio-checkpoint-when muted", when(checkpoint.createdAt)));
    card.append(head);
    if (checkpoint.description) card.append(el("p", "muted studio-checkpoint-desc", checkpoint.description));
    const output = checkpoint.output ?? {};
    if (output.summary) card.append(el("p", "studio-checkpoint-summary", output.summary));
    card.append(renderDocument(output.content, this.fileUrl));

    const form = el("form", "studio-checkpoint-form");
    const id = `studio-feedback-${checkpoint.id}`;
    const label = el("label", "", t("studio.feedback"));
    label.htmlFor = id;
    label.dataset.i18n = "studio.feedback";
    const feedback = el("textarea", "studio-feedback");
    feedback.id = id;
    feedback.rows = 2;
    feedback.placeholder = t("studio.feedbackHint");
    feedback.dataset.i18nPlaceholder = "studio.feedbackHint";
    const buttons = el("div", "studio-checkpoint-actions");
    for (const [resolution, key, kind] of ACTIONS) {
      const button = el("button", `studio-resolve ${kind}`.trim(), t(key));
      button.type = "button";
      button.dataset.resolution = resolution;
      button.dataset.i18n = key;
      button.addEventListener("click", () => this.resolve(card, checkpoint, resolution));
      buttons.append(button);
    }
    const error = el("p", "error-text studio-checkpoint-error");
    error.hidden = true;
    form.append(label, feedback, buttons, error);
    form.addEventListener("submit", (e) => e.preventDefault());
    card.append(form);
    return card;
  }

  async resolve(card, checkpoint, resolution) {
    if (resolution === "rejected" && !confirm(t("studio.confirmReject", { title: checkpoint.title }))) return;
    const buttons = card.querySelectorAll(".studio-resolve");
    const error = card.querySelector(".studio-checkpoint-error");
    for (const b of buttons) b.disabled = true;
    error.hidden = true;
    try {
      await this.onResolve(checkpoint, resolution, card.querySelector("textarea").value.trim());
      card.classList.add("resolving");
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
      for (const b of buttons) b.disabled = false;
    }
  }

  resolvedItem(checkpoint) {
    const item = el("li", "studio-resolved-item");
    item.dataset.checkpoint = checkpoint.id;
    item.dataset.status = checkpoint.status;
    const key = `studio.resolution.${checkpoint.status}`;
    const badge = el("span", "studio-badge", t(key));
    badge.dataset.status = checkpoint.status;
    badge.dataset.i18n = key;
    item.append(badge, el("span", "studio-resolved-title", checkpoint.title));
    if (checkpoint.feedback) item.append(el("span", "studio-resolved-feedback muted", `「${checkpoint.feedback}」`));
    return item;
  }
}
