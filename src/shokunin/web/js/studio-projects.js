// The Studio's project list (name, status, description, when created; a click opens the
// project) and the form that creates a project from a game concept. It only shows and
// reads the form: the view makes the requests.

import { t } from "./i18n.js";
import { el, when } from "./dom.js";

const field = (name, control) => `
        <div class="field">
          <label for="studio-${name}" data-i18n="studio.field.${name}"></label>${control}
        </div>`;
const input = (name, extra = "") =>
  `<input id="studio-${name}" name="${name}" data-i18n-placeholder="studio.hint.${name}" autocomplete="off"${extra}>`;
const select = (name, values) => `<select id="studio-${name}" name="${name}">${values.map((v) =>
  `<option value="${v}" data-i18n="studio.${name}.${v}"></option>`).join("")}</select>`;

export const CREATE_FORM = `
      <form class="studio-create card">
        <h2 data-i18n="studio.create"></h2>${field("name", input("name", " required maxlength=\"200\""))}${
  field("description", input("description", " maxlength=\"10000\""))}${
  field("concept", `<textarea id="studio-concept" name="concept" rows="3" required maxlength="10000" data-i18n-placeholder="studio.hint.concept"></textarea>`)}
        <div class="studio-form-row">${field("platform", select("platform", ["web", "desktop", "mobile"]))}${
  field("scope", select("scope", ["mvp", "full"]))}
        </div>${field("genre", input("genre", " maxlength=\"200\""))}${
  field("targetAudience", input("targetAudience", " maxlength=\"500\""))}
        <p class="error-text studio-create-error" hidden></p>
        <button type="submit" class="primary" data-i18n="studio.createSubmit"></button>
      </form>`;

/** The form's values as CreateProjectInput (empty optional fields left out). */
export function readCreateForm(form) {
  const value = (name) => form.elements[name].value.trim();
  const optional = (name) => value(name) || undefined;
  return {
    name: value("name"),
    description: optional("description"),
    concept: {
      description: value("concept"),
      platform: value("platform"),
      scope: value("scope"),
      genre: optional("genre"),
      targetAudience: optional("targetAudience"),
    },
  };
}

export class ProjectList {
  /** list: the <ul>; onOpen(id): the user opens a project. */
  constructor(list, { onOpen }) {
    this.list = list;
    this.onOpen = onOpen;
  }

  /** projects: GET /api/projects. Newest first. */
  render(projects) {
    if (!projects.length) {
      const none = el("li", "muted studio-empty", t("studio.noProjects"));
      none.dataset.i18n = "studio.noProjects";
      this.list.replaceChildren(none);
      return;
    }
    const sorted = [...projects].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    this.list.replaceChildren(...sorted.map((p) => {
      const item = el("li", "studio-project-item");
      item.dataset.project = p.id;
      item.dataset.status = p.status;
      const open = el("a", "studio-project-open");
      open.href = `#/studio/${encodeURIComponent(p.id)}`;
      const head = el("span", "studio-project-line");
      const key = `studio.status.${p.status}`;
      const badge = el("span", "studio-badge", t(key));
      badge.dataset.status = p.status;
      badge.dataset.i18n = key;
      head.append(el("span", "studio-project-title", p.name), badge);
      const concept = p.description || p.concept?.description || "";
      const meta = [p.concept?.genre, p.concept?.platform, p.concept?.scope, when(p.createdAt)]
        .filter(Boolean).join(" · ");
      open.append(head, el("span", "studio-project-desc muted", concept),
        el("span", "studio-project-meta muted", meta));
      open.addEventListener("click", (e) => {
        e.preventDefault();
        this.onOpen(p.id);
      });
      item.append(open);
      return item;
    }));
  }
}
