// The sandbox walls notice under the top bar, from GET /health's `sandbox` once at load:
//   python "refused"             a warning bar: Python cannot run here, and why
//   python "on", walls missing   a smaller notice naming the missing protections, dismissible
//                                (remembered in localStorage per set of missing walls)
//   all walls hold, "starting"   nothing
// Visible text is the UI's own words for each wall; the server's English operator text
// (`lets_through`, `reason`) stays behind a <details>. Text nodes carry data-i18n, so the
// language switch's translate() relabels the notice without rebuilding it.

import { el } from "./dom.js";
import { api } from "./http.js";
import { addStrings, t, translate } from "./i18n.js";

const WALLS = ["filesystem_view", "own_uid", "no_network", "seccomp", "landlock"];
const DISMISSED_KEY = "shokunin.walls.dismissed";

addStrings({
  ja: {
    "walls.refused.title": "この環境では Python を実行できません",
    "walls.refused.why": "サンドボックスの壁（専用のファイルシステム）を作れないため、Python のコードを安全に隔離できません。",
    "walls.missing.title": "Python は実行できますが、次の保護が欠けています:",
    "walls.details": "管理者向けの詳細",
    "walls.letsThrough": "防げないもの",
    "walls.dismiss": "この通知を閉じる",
    "walls.wall.filesystem_view": "専用のファイルシステム",
    "walls.wall.own_uid": "専用のユーザー",
    "walls.wall.no_network": "ネットワークの遮断",
    "walls.wall.seccomp": "システムコールの制限",
    "walls.wall.landlock": "ファイルアクセスの制限",
    "walls.wall.unknown": "その他の保護",
  },
  en: {
    "walls.refused.title": "Python cannot run on this server",
    "walls.refused.why": "The sandbox's walls (a filesystem of its own) cannot be built here, so Python code cannot be kept safely apart.",
    "walls.missing.title": "Python runs, but without these protections:",
    "walls.details": "Details for administrators",
    "walls.letsThrough": "Lets through",
    "walls.dismiss": "Dismiss this notice",
    "walls.wall.filesystem_view": "a filesystem of its own",
    "walls.wall.own_uid": "a user of its own",
    "walls.wall.no_network": "network isolation",
    "walls.wall.seccomp": "system call filter",
    "walls.wall.landlock": "file access limits",
    "walls.wall.unknown": "another protection",
  },
});

/** The warning sign before the notice's text (decoration: the text says it all). */
function icon() {
  const node = el("span", "walls-icon", "⚠");
  node.setAttribute("aria-hidden", "true");
  return node;
}

/** An element whose text is the i18n string `key` (relabelled on a language change). */
function label(tag, className, key) {
  const node = el(tag, className, t(key));
  node.dataset.i18n = key;
  return node;
}

const wallKey = (name) => `walls.wall.${WALLS.includes(name) ? name : "unknown"}`;

/** The server's English text for operators: what each missing wall lets through, and why. */
function details(sandbox, missing) {
  const box = el("details", "walls-details");
  box.append(label("summary", "", "walls.details"));
  if (missing.length) {
    const list = el("dl", "walls-lets-through");
    for (const { wall, lets_through: through } of missing) {
      const row = el("div");
      const name = label("dt", "", wallKey(wall));
      const text = el("dd");
      text.append(label("span", "walls-lets-label", "walls.letsThrough"), " ");
      text.append(Object.assign(el("span", "walls-operator", through ?? ""), { lang: "en" }));
      row.append(name, text);
      list.append(row);
    }
    box.append(list);
  }
  if (sandbox.reason) {
    box.append(Object.assign(el("p", "walls-reason walls-operator", sandbox.reason), { lang: "en" }));
  }
  return box;
}

function refusedBar(root, sandbox, missing) {
  root.dataset.state = "refused";
  root.setAttribute("role", "alert");
  const body = el("div", "walls-body");
  body.append(label("p", "walls-title", "walls.refused.title"),
    label("p", "walls-why", "walls.refused.why"), details(sandbox, missing));
  root.append(icon(), body);
}

function missingNotice(root, sandbox, missing, setKey) {
  root.dataset.state = "missing";
  root.setAttribute("role", "status");
  const head = el("div", "walls-head");
  const names = el("ul", "walls-list");
  for (const { wall } of missing) names.append(label("li", "", wallKey(wall)));
  head.append(label("p", "walls-title", "walls.missing.title"), names);
  const body = el("div", "walls-body");
  body.append(head, details(sandbox, missing));
  const close = el("button", "walls-close", "×");
  close.type = "button";
  close.dataset.i18nAriaLabel = "walls.dismiss";
  close.dataset.i18nTitle = "walls.dismiss";
  close.addEventListener("click", () => {
    localStorage.setItem(DISMISSED_KEY, setKey);
    root.hidden = true;
    root.dataset.state = "dismissed";
  });
  root.append(icon(), body, close);
  translate(root);
}

/** Fill `root` from a /health body and show it if there is something to say. Its data-state
 *  says what was decided: "refused", "missing", "dismissed" (the same walls were dismissed
 *  before) or "none". */
export function renderWallsNotice(root, health) {
  const sandbox = health?.sandbox;
  const missing = Array.isArray(sandbox?.missing) ? sandbox.missing.filter((m) => m?.wall) : [];
  root.replaceChildren();
  root.removeAttribute("role");
  root.hidden = true;
  if (sandbox?.python === "refused") {
    refusedBar(root, sandbox, missing);
  } else if (sandbox?.python === "on" && missing.length) {
    const setKey = missing.map((m) => m.wall).sort().join(",");
    if (localStorage.getItem(DISMISSED_KEY) === setKey) {
      root.dataset.state = "dismissed";
      return;
    }
    missingNotice(root, sandbox, missing, setKey);
  } else {
    root.dataset.state = "none";
    return;
  }
  root.hidden = false;
}

/** Ask /health once and show what it says about the walls (nothing if it cannot be read). */
export async function showWallsNotice(root) {
  let health = null;
  try {
    health = await api("/health");
  } catch {
    // the views say when the server is down; this notice has nothing to add
  }
  renderWallsNotice(root, health);
}
