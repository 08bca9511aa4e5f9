"""
Web検索ツール
Searches the web through Tavily or a SearXNG instance and keeps only results from trusted
public sources (government, local government, universities, listed public bodies), decided by
hostname rules (``trusted_sources``), never by a model. Three times the wanted number of
results is asked for, so that filtering still leaves enough.
"""

from __future__ import annotations

from typing import Any

from search_providers import TAVILY_URL, Provider, SearchError, SearXNG, Tavily
from trusted_sources import PUBLIC_BODIES, classify, parse_domains

TOOL_NAME = "Web検索"
TOOL_DESCRIPTION = ("Web を検索し、政府機関・自治体・大学・公的機関のページだけを返します "
                    "(web search limited to trusted public sources).")
TOOL_ICON = "🔎"

MAX_RESULTS = 5
OVERFETCH = 3
MAX_QUERY = 400
NOT_CONFIGURED = (
    "Web検索が設定されていません。ツール設定で provider を選び、Tavily なら tavily_api_key、"
    "SearXNG なら searxng_url を入力してください。 / Web search is not set up: in this tool's "
    "settings, fill in tavily_api_key (Tavily) or searxng_url (SearXNG) and pick the provider.")


def get_function_declaration() -> dict:
    return {
        "name": "web_search",
        "description": "Search the web. Only results from trusted public sources are returned "
                       "(*.go.jp government, *.lg.jp local government, *.ac.jp universities, "
                       "prefectures and municipalities, listed public bodies), each with the "
                       "rule that admitted it. Use for current official information.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to search for"},
                "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS,
                                "default": MAX_RESULTS,
                                "description": f"At most {MAX_RESULTS} trusted results"},
            },
            "required": ["query"],
        },
    }


def get_settings_schema() -> dict:
    return {
        "provider": {"type": "select", "label": "検索サービス / Provider", "default": "auto",
                     "options": [{"value": "auto", "label": "自動（設定済みのもの） / Auto"},
                                 {"value": "tavily", "label": "Tavily"},
                                 {"value": "searxng", "label": "SearXNG"}]},
        # one of the two services must be set up: the tool is listed as needing settings
        "tavily_api_key": {"type": "secret", "label": "Tavily の APIキー / Tavily API key",
                           "default": "", "required": "service"},
        "tavily_base_url": {"type": "string", "label": "Tavily API の URL", "default": TAVILY_URL},
        "searxng_url": {"type": "string", "label": "SearXNG の URL / SearXNG URL",
                        "description": "例 http://localhost:8888 (format=json を有効に)",
                        "default": "", "required": "service"},
        "trusted_domains": {"type": "text", "label": "信頼する公的機関のドメイン / Trusted domains",
                            "description": "1行に1つ。go.jp・lg.jp・ac.jp・都道府県・市町村は"
                                           "常に信頼します (one per line; government, local "
                                           "government and universities are always trusted)",
                            "default": "\n".join(PUBLIC_BODIES)},
        "http_timeout_sec": {"type": "number", "label": "検索の待ち時間（秒） / HTTP timeout (s)",
                             "default": 15, "min": 0.1, "max": 120},
    }


def execute(args: dict, context: dict) -> dict:
    query = str(args.get("query", "")).strip()
    if not query:
        return {"success": False, "error": "検索語が空です (empty query)"}
    query = query[:MAX_QUERY]
    wanted = max(1, min(MAX_RESULTS, int(args.get("max_results") or MAX_RESULTS)))
    settings = context.get("settings") or {}
    provider = _provider(settings)
    if provider is None:
        return {"success": False, "error": NOT_CONFIGURED}
    say = context.get("message_callback")
    abort_event = context.get("abort_event")
    if say:
        say(f"{provider.name} で検索しています: {query}")
    try:
        hits = provider.search(query, wanted * OVERFETCH)
    except SearchError as exc:
        return {"success": False, "error": str(exc)}
    if abort_event and abort_event.is_set():
        return {"success": False, "error": "中断されました", "aborted": True}
    domains = parse_domains(settings.get("trusted_domains"))
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    for hit in hits:
        trust = classify(hit.url, domains)
        if trust is None or hit.url in seen:
            continue
        seen.add(hit.url)
        kept.append({"title": hit.title, "url": hit.url, "snippet": hit.snippet,
                     "rule": trust.rule, "source_type": trust.source_type})
        if len(kept) == wanted:
            break
    summary = (f"{provider.name} の {len(hits)} 件のうち、信頼できる公的な情報源の {len(kept)} 件を"
               "返します。" if kept else
               f"{provider.name} の {len(hits)} 件に、信頼できる公的な情報源はありませんでした。")
    return {"success": True, "result": {
        "query": query, "provider": provider.name, "summary": summary, "results": kept,
        "dropped": len(hits) - len(kept)}}


def _provider(settings: dict[str, Any]) -> Provider | None:
    """The configured provider; None when the chosen one (or, on auto, any) lacks settings."""
    choice = settings.get("provider") or "auto"
    key = str(settings.get("tavily_api_key") or "").strip()
    searxng = str(settings.get("searxng_url") or "").strip()
    timeout = float(settings.get("http_timeout_sec") or 15)
    if choice in ("tavily", "auto") and key:
        return Tavily(key, str(settings.get("tavily_base_url") or TAVILY_URL), timeout)
    if choice in ("searxng", "auto") and searxng:
        return SearXNG(searxng, timeout)
    return None
