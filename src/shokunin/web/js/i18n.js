// UI strings in Japanese and English. This table holds the shell's strings (and, for now,
// the Tools view's); every other view brings its own table, merged in by the view registry
// through addStrings(). Static markup names its string with data-i18n* attributes; modules
// that build DOM call t() and re-render on the "langchange" event.

const STRINGS = {
  ja: {
    "app.tagline": "ツールを使う AI エージェントの作業台",
    "nav.label": "ビュー",
    "nav.tools": "ツール",
    "lang.label": "表示言語",
    "status.connecting": "接続中…",
    "status.connected": "接続済み",
    "status.disconnected": "切断",
    "status.reconnecting": "再接続中…",
    "status.paused": "一時停止",
    "status.loading": "読み込み中…",
    "status.ready": "準備完了",
    "status.failed": "読み込み失敗",
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
    "tools.sameWorkspace": "前回の実行と同じワークスペースで実行します（書いたファイルを次の実行で読めます）。",
    "tools.newWorkspace": "新しいワークスペースにする",
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
    "tools.liveUi": "ツールの画面（実行中のツールが開いた画面）",
    "tools.liveUiOpen": "新しいタブで開く",
    "tools.liveUiStop": "画面を閉じる",
    "tools.liveUiStopped": "ツールの画面を閉じました。もう一度見るにはツールを実行してください。",
    "tools.source": "提供元",
    "tools.unavailable": "このツールは読み込みに失敗したため実行できません",
    "tools.agentHeading": "ワークベンチのエージェントの組み込みツール",
    "tools.agentIntro": "エージェント自身が持つツールです（設定・試し実行はありません）。",
    "builtinTool.calculator": "電卓",
    "builtinTool.calculator.desc": "四則演算・べき乗・パーセント・関数を正確に計算します。",
    "builtinTool.table_format": "表整形",
    "builtinTool.table_format.desc": "行データを Markdown などの表に整形します。",
    "builtinTool.generate_diagram": "図生成",
    "builtinTool.generate_diagram.desc": "説明文のデータから棒グラフ・折れ線グラフ・フローチャート・ネットワーク図を描きます。",
    "builtinTool.web_search": "Web検索",
    "builtinTool.web_search.desc": "Web を検索し、政府機関・自治体・大学・公的機関のページだけを返します。",
    "builtinTool.cost_impact": "価格転嫁検討ツール",
    "builtinTool.cost_impact.desc": "コスト高騰前と現在の売上高・原価・経費から、利益率の変化と高騰前の利益率を保つ参考価格を計算します。",
    "agentTool.show_map": "マップ表示",
    "agentTool.show_map.desc": "フロアを表示し、部屋のハイライトやアイコン・文字を重ねます。",
    "agentTool.clear_map": "マップをクリア",
    "agentTool.clear_map.desc": "ハイライトと重ねた表示をすべて消します。",
    "agentTool.draw_arrow": "矢印を描く",
    "agentTool.draw_arrow.desc": "部屋に上下左右の矢印を描きます。",
    "agentTool.clear_arrows": "矢印をクリア",
    "agentTool.clear_arrows.desc": "矢印をすべて消します。",
    "agentTool.highlight_room": "部屋をハイライト",
    "agentTool.highlight_room.desc": "部屋を青でハイライトします（レガシー表示）。",
    "agentTool.show_points": "座標をプロット",
    "agentTool.show_points.desc": "緯度・経度の点を地図にプロットします（レガシー表示）。",
    "agentTool.sql_engine": "SQL（サンプルDB）",
    "agentTool.sql_engine.desc": "サンプルの建物データベースに読み取り専用の SQL を実行します。",
    "agentTool.save_data": "データを保存",
    "agentTool.save_data.desc": "表データを CSV として会話の作業フォルダに保存します。",
    "agentTool.run_python": "Python 実行",
    "agentTool.run_python.desc": "サンドボックスの Jupyter カーネルで Python を実行します（図は画像ペインに表示）。",
  },
  en: {
    "app.tagline": "A workbench for tool-using AI agents",
    "nav.label": "Views",
    "nav.tools": "Tools",
    "lang.label": "Language",
    "status.connecting": "Connecting…",
    "status.connected": "Connected",
    "status.disconnected": "Disconnected",
    "status.reconnecting": "Reconnecting…",
    "status.paused": "Paused",
    "status.loading": "Loading…",
    "status.ready": "Ready",
    "status.failed": "Failed to load",
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
    "tools.sameWorkspace": "Runs in the same workspace as the last try (a file it wrote can be read now).",
    "tools.newWorkspace": "Use a new workspace",
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
    "tools.liveUi": "The tool's page (served by the tool while it lives)",
    "tools.liveUiOpen": "Open in a new tab",
    "tools.liveUiStop": "Close the page",
    "tools.liveUiStopped": "The tool's page was closed. Run the tool again to see it.",
    "tools.source": "Source",
    "tools.unavailable": "This tool failed to load and cannot run",
    "tools.agentHeading": "The Workbench agent's built-in tools",
    "tools.agentIntro": "Tools the agent brings itself (no settings, not tried here).",
    "builtinTool.calculator": "Calculator",
    "builtinTool.calculator.desc": "Exact arithmetic: + − × ÷, powers, percentages and functions.",
    "builtinTool.table_format": "Table formatter",
    "builtinTool.table_format.desc": "Formats rows as a Markdown (or other) table.",
    "builtinTool.generate_diagram": "Diagram",
    "builtinTool.generate_diagram.desc": "Draws a bar or line chart, a flowchart or a network from data in the text.",
    "builtinTool.web_search": "Web search",
    "builtinTool.web_search.desc": "Searches the web and keeps only government, local government, university and public-body pages.",
    "builtinTool.cost_impact": "Cost impact",
    "builtinTool.cost_impact.desc": "From sales, cost of sales and expenses before a cost rise and now: the change in margin and the price that keeps the margin from before.",
    "agentTool.show_map": "Show map",
    "agentTool.show_map.desc": "Shows a floor, highlights rooms, and places icons or text on it.",
    "agentTool.clear_map": "Clear map",
    "agentTool.clear_map.desc": "Removes all highlights and overlays.",
    "agentTool.draw_arrow": "Draw arrow",
    "agentTool.draw_arrow.desc": "Draws an up, down, left or right arrow in a room.",
    "agentTool.clear_arrows": "Clear arrows",
    "agentTool.clear_arrows.desc": "Removes all arrows.",
    "agentTool.highlight_room": "Highlight rooms",
    "agentTool.highlight_room.desc": "Highlights rooms in blue (the legacy view).",
    "agentTool.show_points": "Plot points",
    "agentTool.show_points.desc": "Plots latitude/longitude points (the legacy view).",
    "agentTool.sql_engine": "SQL (sample database)",
    "agentTool.sql_engine.desc": "Runs read-only SQL on the sample building database.",
    "agentTool.save_data": "Save data",
    "agentTool.save_data.desc": "Saves a table as CSV in the conversation's workspace.",
    "agentTool.run_python": "Run Python",
    "agentTool.run_python.desc": "Runs Python in a sandboxed Jupyter kernel (figures go to the images pane).",
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

/**
 * Merge a view's string table ({ja: {...}, en: {...}}) into the shell's. A key another
 * table already defines with a different text is an error: two views must not fight
 * over one string.
 */
export function addStrings(tables) {
  const clashes = [];
  for (const [code, table] of Object.entries(tables)) {
    if (!LANGS.includes(code)) throw new Error(`unknown language ${code} in a string table`);
    for (const [key, text] of Object.entries(table)) {
      if (key in STRINGS[code] && STRINGS[code][key] !== text) clashes.push(`${code}:${key}`);
    }
  }
  if (clashes.length) throw new Error(`string keys defined twice: ${clashes.join(", ")}`);
  for (const [code, table] of Object.entries(tables)) Object.assign(STRINGS[code], table);
}

/** Fill the data-i18n* attributes under root with the current language. */
export function translate(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const attr of ["title", "placeholder", "aria-label"]) {
    const data = `data-i18n-${attr}`;
    for (const el of root.querySelectorAll(`[${data}]`)) el.setAttribute(attr, t(el.getAttribute(data)));
  }
}

/** The server reads the UI's language from this cookie, for the messages it writes
 *  (a model's failure on the Workbench's socket, the Models page's test). */
function tellServer(code) {
  document.cookie = `shokunin_lang=${code}; path=/; max-age=31536000; SameSite=Strict`;
}

export function setLang(next) {
  if (!LANGS.includes(next)) return;
  lang = next;
  localStorage.setItem(KEY, next);
  tellServer(next);
  document.documentElement.lang = next;
  translate();
  document.dispatchEvent(new CustomEvent("langchange", { detail: { lang } }));
}

document.documentElement.lang = lang;
tellServer(lang);
