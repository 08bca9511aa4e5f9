// The Models view: the chat model the agents use. It shows the model in use, and a form
// (provider, base URL, model name, API key) saved to the server (GET/PUT
// /api/model/settings); the key is kept as the tools' secrets are (never shown back: a badge
// says whether one is stored, and an empty field keeps it). "Test" runs the check
// `shokunin models test` runs on the form as it stands (POST /api/model/test) and shows OK
// with the latency, or what failed and which setting to change. Saved settings take effect
// when the server restarts; the view says so, and says when the environment decides instead.

import { api } from "./http.js";
import { currentLang, t } from "./i18n.js";
import { el } from "./dom.js";
import { settingsForm } from "./schema-form.js";

const MASK = "********";
const FIELDS = ["provider", "base_url", "model", "api_key"];

const STRINGS = {
  ja: {
    "nav.models": "モデル",
    "models.heading": "モデル",
    "models.intro": "エージェントが使うチャットモデルです。offline ではモデルを呼ばず、組み込みの手順で答えます。",
    "models.inUse": "使用中のモデル",
    "models.keySet": "API キーあり",
    "models.noKey": "API キーなし",
    "models.settings": "設定",
    "models.field.provider": "プロバイダー",
    "models.field.provider.hint": "openai は OpenAI 互換のサーバー（vLLM、llama.cpp、LM Studio）にも使えます。",
    "models.field.base_url": "ベース URL",
    "models.field.base_url.hint": "空欄ならプロバイダーの既定（例: http://127.0.0.1:8080/v1）",
    "models.field.model": "モデル名",
    "models.field.model.hint": "例: gpt-4.1-mini、qwen2.5",
    "models.field.api_key": "API キー",
    "models.save": "保存",
    "models.test": "接続テスト",
    "models.testing": "テスト中…",
    "models.saved": "保存しました。再起動後に有効になります（shokunin serve を起動し直してください）。",
    "models.savedSame": "保存しました。いま使用中の設定と同じなので、再起動しなくてもこの設定で動いています。",
    "models.savedEnvironment": "保存しました。ただし環境変数 {names} が設定されているため、この設定は使われません（環境変数が優先されます）。",
    "models.keyCleared.host": "接続先が変わったため、APIキーを消しました。新しい接続先のキーを入力してください。",
    "models.keyCleared.provider": "プロバイダーが変わったため、APIキーを消しました（キーが要るプロバイダーなら入力してください）。",
    "models.saveFailed": "保存できませんでした",
    "models.restart": "保存した設定は、サーバーの再起動後に有効になります。",
    "models.environment": "環境変数 {names} が設定されているため、保存した設定は使われません（環境変数が優先されます）。",
    "models.loadFailed": "モデルの設定を読み込めませんでした: {error}",
  },
  en: {
    "nav.models": "Models",
    "models.heading": "Models",
    "models.intro": "The chat model the agents use. With offline no model is called: built-in procedures answer.",
    "models.inUse": "Model in use",
    "models.keySet": "API key set",
    "models.noKey": "no API key",
    "models.settings": "Settings",
    "models.field.provider": "Provider",
    "models.field.provider.hint": "openai also serves OpenAI-compatible servers (vLLM, llama.cpp, LM Studio).",
    "models.field.base_url": "Base URL",
    "models.field.base_url.hint": "Empty: the provider's default (e.g. http://127.0.0.1:8080/v1)",
    "models.field.model": "Model name",
    "models.field.model.hint": "e.g. gpt-4.1-mini, qwen2.5",
    "models.field.api_key": "API key",
    "models.save": "Save",
    "models.test": "Test",
    "models.testing": "Testing…",
    "models.saved": "Saved. It takes effect after a restart (start shokunin serve again).",
    "models.savedSame": "Saved. It is already the setting in use: no restart needed.",
    "models.savedEnvironment": "Saved, but the environment sets {names}, so this setting is not used (the environment wins).",
    "models.keyCleared.host": "The server address changed, so the API key was removed. Enter the key for the new server.",
    "models.keyCleared.provider": "The provider changed, so the API key was removed (enter one if the new provider needs it).",
    "models.saveFailed": "Could not save",
    "models.restart": "The saved settings take effect when the server restarts.",
    "models.environment": "The environment sets {names}, so the saved settings are not used (the environment wins).",
    "models.loadFailed": "Could not load the model settings: {error}",
  },
};

const MARKUP = `
<div class="models-page">
  <h1 data-i18n="models.heading"></h1>
  <p class="muted" data-i18n="models.intro"></p>
  <div class="models-body"></div>
</div>
`;

/** A JSON request whose refusal is read too: {ok, answer} (a 422 names its fields). */
async function sendJson(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { ok: response.ok, answer: await response.json().catch(() => ({})) };
}

/** An element whose text follows the language switch. */
function tr(tag, className, key) {
  const node = el(tag, className, t(key));
  node.dataset.i18n = key;
  return node;
}

/** The schema with the view's own labels and hints, in the UI's language. */
function labelled(schema) {
  const out = {};
  for (const key of FIELDS) {
    if (!schema[key]) continue;
    const hint = `models.field.${key}.hint`;
    out[key] = { ...schema[key], label: t(`models.field.${key}`), description: t(hint) === hint ? "" : t(hint) };
  }
  return out;
}

/** The form's values; a field left empty is sent empty (the provider's default), not
 *  left out (which would keep what is stored), but for the key: empty keeps the stored one. */
function readForm(form) {
  const { values, errors } = form.read();
  for (const key of ["base_url", "model"]) values[key] ??= "";
  return { values, errors };
}

/** What a save did, plainly: whether it takes effect now, after a restart, or not at all
 *  (the environment decides), and that the key was removed when the server or provider
 *  changed without a new one. */
function savedText(answer) {
  const effect = answer.environment?.length
    ? t("models.savedEnvironment", { names: answer.environment.join(", ") })
    : t(answer.restart_needed ? "models.saved" : "models.savedSame");
  return answer.key_cleared ? `${effect} ${t(`models.keyCleared.${answer.key_cleared}`)}` : effect;
}

class ModelsFace {
  mount(container, ctx) {
    if (!this.root) {
      container.innerHTML = MARKUP;
      this.root = container;
      document.addEventListener("langchange", () => this.view && this.render(this.view));
    }
    this.load(ctx);
  }

  unmount() {}

  async load(ctx, note = null) {
    ctx?.setStatus("loading");
    try {
      this.view = await api("/api/model/settings");
    } catch (error) {
      this.root.querySelector(".models-body").replaceChildren(
        el("p", "error-text", t("models.loadFailed", { error: error.message })));
      ctx?.setStatus("failed");
      return;
    }
    this.render(this.view, note);
    ctx?.setStatus(null);
  }

  render(view, note = null) {
    const body = this.root.querySelector(".models-body");
    const inUse = el("section", "card models-in-use");
    const key = view.in_use.key_set ? "models.keySet" : "models.noKey";
    inUse.append(tr("h3", "", "models.inUse"),
      el("p", "models-spec mono", view.in_use.model),
      el("p", "muted", [view.in_use.base_url, t(key)].filter(Boolean).join(" · ")));
    const notes = [];
    if (view.environment.length) {
      notes.push(el("p", "models-note", t("models.environment", { names: view.environment.join(", ") })));
    } else if (view.restart_needed) {
      notes.push(el("p", "models-note", t("models.restart")));
    }
    body.replaceChildren(inUse, ...notes, this.settingsCard(view, note));
  }

  settingsCard(view, note) {
    const card = el("section", "card models-settings");
    const form = settingsForm(labelled(view.schema), view.values, MASK);
    const formEl = el("form", "settings-form");
    formEl.noValidate = true;
    const save = tr("button", "primary", "models.save");
    save.type = "submit";
    const test = tr("button", "models-test", "models.test");
    test.type = "button";
    const state = el("span", "run-state");
    state.setAttribute("role", "status");
    const actions = el("div", "actions");
    actions.append(save, test, state);
    const result = el("p", "models-result");
    result.setAttribute("role", "status");
    result.hidden = true;
    formEl.append(form.element, actions, result);
    card.append(tr("h3", "", "models.settings"), formEl);
    form.showErrors(view.errors ?? {});
    if (note) this.say(state, note.text, note.ok ? "ok" : "failed");

    formEl.addEventListener("submit", async (event) => {
      event.preventDefault();
      const { values, errors } = readForm(form);
      if (Object.keys(errors).length) return;
      save.disabled = true;
      try {
        const { ok, answer } = await sendJson("PUT", "/api/model/settings", { values });
        if (ok) {
          this.view = answer;
          this.render(answer, { text: savedText(answer), ok: true });
          return;
        }
        // a refused save names its fields ({"errors": {field: message}}); else the error form
        form.showErrors(answer.errors ?? {});
        const why = answer.error ?? Object.values(answer.errors ?? {}).join("; ");
        this.say(state, `${t("models.saveFailed")}${why ? `: ${why}` : ""}`, "failed");
      } catch (error) {
        this.say(state, `${t("models.saveFailed")}: ${error.message}`, "failed");
      } finally {
        save.disabled = false;
      }
    });

    test.addEventListener("click", async () => {
      const { values, errors } = readForm(form);
      if (Object.keys(errors).length) return;
      test.disabled = true;
      result.hidden = true;
      this.say(state, t("models.testing"), "");
      try {
        const { ok, answer } = await sendJson("POST", "/api/model/test", { values });
        if (!ok) {
          form.showErrors(answer.errors ?? {});
          this.say(state, answer.error ?? Object.values(answer.errors ?? {}).join("; "), "failed");
          return;
        }
        this.say(state, "", "");
        result.textContent = answer.said?.[currentLang()] ?? answer.message;
        result.className = `models-result ${answer.ok ? "ok" : "failed"}`;
        result.dataset.code = answer.code ?? (answer.ok ? "ok" : "");
        result.hidden = false;
      } catch (error) {
        this.say(state, error.message, "failed");
      } finally {
        test.disabled = false;
      }
    });
    return card;
  }

  say(state, text, kind) {
    state.textContent = text;
    state.className = `run-state ${kind}`.trim();
  }
}

export const modelsView = {
  name: "models",
  label: "nav.models",
  strings: STRINGS,
  create: () => new ModelsFace(),
};
