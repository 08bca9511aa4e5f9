// The Tools view's strings added since its first ones, Japanese and English (merged into
// the shell's table by the view registry). Its first strings, and those the settings form
// and the Advisor share with it (tools.required, builtinTool.*), are still in i18n.js.

export const TOOLS_STRINGS = {
  ja: {
    "tools.statusNeedsSettings": "要設定",
    "tools.needsSettings": "使う前に設定が必要です: {what}",
    "tools.needsSettingsHint": "下の「設定」で入力して保存すると使えるようになります。",
    "tools.or": " または ",
    "tools.and": "、",
    "tools.reload": "一覧を更新",
    "tools.rawJson": "JSON（結果そのまま）",
    "tools.yes": "はい",
    "tools.no": "いいえ",
    "tools.emptyValue": "（なし）",
    "tools.moreItems": "ほか {n} 件（JSON で全体を見られます）",
  },
  en: {
    "tools.statusNeedsSettings": "Needs settings",
    "tools.needsSettings": "Set before use: {what}",
    "tools.needsSettingsHint": "Fill it in under Settings below and save, and the tool is ready.",
    "tools.or": " or ",
    "tools.and": "; ",
    "tools.reload": "Reload list",
    "tools.rawJson": "Raw JSON",
    "tools.yes": "yes",
    "tools.no": "no",
    "tools.emptyValue": "(none)",
    "tools.moreItems": "{n} more (the JSON has them all)",
  },
};
