// The view registry: the shell's faces (Workbench, Tools, and later Analyst, Advisor,
// Studio), each addressed by the URL hash "#/<name>/<route>" and started lazily.
//
// A view is registered as a definition:
//   {name, label, strings, create}
//     name     "workbench": the hash "#/workbench" shows it
//     label    the i18n key of its navigation link
//     strings  its own string table {ja: {...}, en: {...}}, merged into the shell's
//     create() returns the view object, called once, the first time the view is shown
// and the view object has:
//   mount(container, ctx)  the view is shown: start (or resume) its work. Called again after
//                          each unmount with the same container, which keeps the DOM the
//                          view left in it, so a view keeps its state between visits.
//   unmount()              another view is shown: stop connections and timers.
//   route(route)           optional: the hash changed within this view ("#/<name>/<route>").
// ctx gives the view: ctx.route (the hash after "#/<name>/"), ctx.setRoute(route, {push})
// (rewrites the hash without a hashchange, unless the user is leaving the view), and
// ctx.setStatus(status) for the status shown in the shell while the view is shown (a key of
// "status.*" in i18n, or null for none).

import { addStrings, t, translate } from "./i18n.js";

function parseHash() {
  const [name = "", ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  return { name, route: rest.join("/") };
}

export class ViewRegistry extends EventTarget {
  /** nav: the <nav> for the links; main: where views' containers go; status: the shell's
   *  status element (.conn-status with a .conn-text). */
  constructor({ nav, main, status }) {
    super();
    this.nav = nav;
    this.main = main;
    this.statusEl = status;
    this.views = new Map(); // name -> {definition, view, container, status}
    this.current = null; // name of the shown view
    this.started = false;
    window.addEventListener("hashchange", () => this.follow());
  }

  register(definition) {
    const { name, label, strings = {}, create } = definition;
    if (!/^[a-z][a-z0-9-]*$/.test(name ?? "")) throw new Error(`bad view name ${name}`);
    if (this.views.has(name)) throw new Error(`view ${name} is already registered`);
    if (typeof create !== "function") throw new Error(`view ${name} has no create()`);
    addStrings(strings);
    this.views.set(name, { definition, view: null, container: null, status: null });
    const link = document.createElement("a");
    link.href = `#/${name}`;
    link.dataset.view = name;
    link.dataset.i18n = label;
    link.textContent = t(label);
    link.setAttribute("aria-current", "false");
    this.nav.append(link);
    // A reload on "#/<name>" of a view registered after start shows it once it exists.
    if (this.started && parseHash().name === name) this.follow();
    return this;
  }

  /** Show the view the hash names (the first registered one if it names none). */
  start() {
    this.started = true;
    this.follow();
  }

  /** The view object of `name` if it has been created (views start lazily). */
  instance(name) {
    return this.views.get(name)?.view ?? null;
  }

  follow() {
    const { name, route } = parseHash();
    if (this.views.has(name)) {
      this.show(name, route);
      return;
    }
    const fallback = this.views.keys().next().value;
    if (fallback === undefined) return;
    history.replaceState(null, "", `#/${fallback}`);
    this.show(fallback, "");
  }

  show(name, route = "") {
    const entry = this.views.get(name);
    if (this.current === name) {
      entry.view.route?.(route);
      return;
    }
    if (this.current) {
      const previous = this.views.get(this.current);
      previous.view.unmount();
      previous.container.hidden = true;
    }
    this.current = name;
    for (const link of this.nav.querySelectorAll("a[data-view]")) {
      link.setAttribute("aria-current", link.dataset.view === name ? "page" : "false");
    }
    document.body.dataset.view = name;
    if (!entry.view) {
      entry.container = document.createElement("section");
      entry.container.id = `view-${name}`;
      entry.container.className = "view";
      this.main.append(entry.container);
      entry.view = entry.definition.create();
    }
    entry.container.hidden = false;
    this.renderStatus();
    entry.view.mount(entry.container, this.context(name));
    translate(entry.container);
    this.dispatchEvent(new CustomEvent("viewchange", { detail: { name } }));
  }

  context(name) {
    const entry = this.views.get(name);
    return {
      get route() {
        const hash = parseHash();
        return hash.name === name ? hash.route : "";
      },
      setRoute: (route, { push = false } = {}) => {
        // The hash naming another view is a navigation whose hashchange has not come yet:
        // rewriting the hash now would undo it.
        if (this.current !== name || parseHash().name !== name) return;
        const url = route ? `#/${name}/${route}` : `#/${name}`;
        if (location.hash === url) return;
        if (push) history.pushState(null, "", url);
        else history.replaceState(null, "", url);
      },
      setStatus: (status) => {
        entry.status = status;
        if (this.current === name) this.renderStatus();
      },
    };
  }

  renderStatus() {
    const status = this.views.get(this.current)?.status ?? null;
    const text = this.statusEl.querySelector(".conn-text");
    this.statusEl.hidden = status === null;
    if (status === null) return;
    this.statusEl.dataset.status = status;
    text.dataset.i18n = `status.${status}`;
    text.textContent = t(`status.${status}`);
  }
}
