// UI strings in Japanese and English. Static markup names its string with data-i18n*
// attributes; modules that build DOM call t() and re-render on the "langchange" event.

const STRINGS = {
  ja: {
    "app.tagline": "ツールを使う AI エージェントの作業台",
    "nav.label": "ビュー",
    "nav.workbench": "ワークベンチ",
    "nav.tools": "ツール",
    "lang.label": "表示言語",
    "status.connecting": "接続中…",
    "status.connected": "接続済み",
    "status.disconnected": "切断",
    "status.reconnecting": "再接続中…",
    "pane.map": "マップ",
    "pane.images": "画像",
    "pane.chat": "チャット",
    "pane.debug": "デバッグ",
    "splitter.columns": "左右のペインの幅",
    "splitter.left": "マップと画像の高さ",
    "splitter.right": "チャットとデバッグの高さ",
    "map.floor": "フロア",
    "map.clearArrows": "矢印をクリア",
    "map.clearMap": "マップをクリア",
    "map.loading": "マップ定義を待っています…",
    "map.points": "座標プロット",
    "map.canvasLabel": "フロアマップ",
    "images.empty": "生成された画像がここに表示されます",
    "images.close": "閉じる",
    "images.open": "画像を拡大",
    "chat.placeholder": "メッセージを入力 (Enter で送信、Shift+Enter で改行)",
    "chat.send": "送信",
    "chat.cancel": "中止",
    "chat.running": "実行中…",
    "chat.copy": "コピー",
    "chat.copied": "コピーしました",
    "chat.empty": "例: 「Kitchenに左矢印を表示して」「2Fを表示」「highlight Room1 and Room2 on 1F in red」",
    "chat.you": "あなた",
    "chat.agent": "エージェント",
    "chat.lost": "接続が切れたため実行の状態がわかりません。必要なら再送してください。",
    "chat.offline": "サーバーに接続されていません",
    "debug.pretty": "整形",
    "debug.compact": "圧縮",
    "debug.clear": "クリア",
    "debug.empty": "デバッグ情報はまだありません",
    "tools.heading": "ツール",
    "tools.intro": "エージェントが使えるツールの一覧です。選ぶと設定と試し実行ができます。",
    "tools.loading": "読み込み中…",
    "tools.none": "ツールがありません",
    "tools.loadFailed": "ツール一覧を取得できませんでした: {error}",
    "tools.statusOk": "利用可",
    "tools.statusError": "エラー",
    "tools.select": "左の一覧からツールを選んでください",
    "tools.try": "試してみる",
    "tools.run": "実行",
    "tools.abort": "中断",
    "tools.running": "実行中…",
    "tools.progress": "進捗",
    "tools.result": "結果",
    "tools.success": "成功",
    "tools.failed": "失敗",
    "tools.aborted": "中断されました",
    "tools.noParams": "引数はありません",
    "tools.jsonHint": "JSON で入力",
    "tools.badJson": "JSON として読めません",
    "tools.required": "必須です",
    "tools.settings": "設定",
    "tools.save": "保存",
    "tools.saved": "保存しました",
    "tools.saveFailed": "保存できませんでした",
    "tools.secretSet": "設定済み",
    "tools.secretUnset": "未設定",
    "tools.secretHint": "変更するときだけ入力",
    "tools.openUi": "ツール独自の画面を開く",
    "tools.source": "提供元",
    "tools.unavailable": "このツールは読み込みに失敗したため実行できません",
  },
  en: {
    "app.tagline": "A workbench for tool-using AI agents",
    "nav.label": "Views",
    "nav.workbench": "Workbench",
    "nav.tools": "Tools",
    "lang.label": "Language",
    "status.connecting": "Connecting…",
    "status.connected": "Connected",
    "status.disconnected": "Disconnected",
    "status.reconnecting": "Reconnecting…",
    "pane.map": "Map",
    "pane.images": "Images",
    "pane.chat": "Chat",
    "pane.debug": "Debug",
    "splitter.columns": "Width of the left and right panes",
    "splitter.left": "Height of the map and images",
    "splitter.right": "Height of the chat and debug",
    "map.floor": "Floor",
    "map.clearArrows": "Clear Arrows",
    "map.clearMap": "Clear Map",
    "map.loading": "Waiting for the map definition…",
    "map.points": "Point plot",
    "map.canvasLabel": "Floor map",
    "images.empty": "Generated images appear here",
    "images.close": "Close",
    "images.open": "Enlarge image",
    "chat.placeholder": "Type a message (Enter to send, Shift+Enter for a new line)",
    "chat.send": "Send",
    "chat.cancel": "Cancel",
    "chat.running": "Running…",
    "chat.copy": "Copy",
    "chat.copied": "Copied",
    "chat.empty": "Try: \"draw a left arrow in Kitchen\", \"show 2F\", \"highlight Room1 and Room2 on 1F in red\"",
    "chat.you": "You",
    "chat.agent": "Agent",
    "chat.lost": "The connection dropped before the run was known; resend if needed.",
    "chat.offline": "Not connected to the server",
    "debug.pretty": "Pretty",
    "debug.compact": "Compact",
    "debug.clear": "Clear",
    "debug.empty": "No debug information yet",
    "tools.heading": "Tools",
    "tools.intro": "The tools agents can use. Pick one to change its settings or try it.",
    "tools.loading": "Loading…",
    "tools.none": "No tools",
    "tools.loadFailed": "Could not load the tools: {error}",
    "tools.statusOk": "OK",
    "tools.statusError": "Error",
    "tools.select": "Pick a tool from the list",
    "tools.try": "Try it",
    "tools.run": "Run",
    "tools.abort": "Abort",
    "tools.running": "Running…",
    "tools.progress": "Progress",
    "tools.result": "Result",
    "tools.success": "Success",
    "tools.failed": "Failed",
    "tools.aborted": "Aborted",
    "tools.noParams": "No arguments",
    "tools.jsonHint": "JSON",
    "tools.badJson": "Not valid JSON",
    "tools.required": "Required",
    "tools.settings": "Settings",
    "tools.save": "Save",
    "tools.saved": "Saved",
    "tools.saveFailed": "Could not save",
    "tools.secretSet": "set",
    "tools.secretUnset": "not set",
    "tools.secretHint": "Type only to change it",
    "tools.openUi": "Open the tool's own page",
    "tools.source": "Source",
    "tools.unavailable": "This tool failed to load and cannot run",
  },
};

const LANGS = ["ja", "en"];
const KEY = "shokunin.lang";

function initialLang() {
  const saved = localStorage.getItem(KEY);
  if (LANGS.includes(saved)) return saved;
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  return preferred.some((l) => l?.toLowerCase().startsWith("ja")) ? "ja" : "en";
}

let lang = initialLang();

export function currentLang() {
  return lang;
}

export function t(key, params = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

/** Fill the data-i18n* attributes under root with the current language. */
export function translate(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const attr of ["title", "placeholder", "aria-label"]) {
    const data = `data-i18n-${attr}`;
    for (const el of root.querySelectorAll(`[${data}]`)) el.setAttribute(attr, t(el.getAttribute(data)));
  }
}

export function setLang(next) {
  if (!LANGS.includes(next)) return;
  lang = next;
  localStorage.setItem(KEY, next);
  document.documentElement.lang = next;
  translate();
  document.dispatchEvent(new CustomEvent("langchange", { detail: { lang } }));
}

document.documentElement.lang = lang;
