"""Search providers: one interface, Tavily and SearXNG behind it, errors as SearchError.

Every failure of the HTTP exchange (refused connection, timeout, an HTTP error status, a body
that is not the expected JSON) becomes a SearchError whose message says what happened in
Japanese and English; the API key never appears in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import httpx

TAVILY_URL = "https://api.tavily.com"
TAVILY_MAX = 20  # what Tavily returns at most per request


@dataclass(frozen=True)
class Hit:
    title: str
    url: str
    snippet: str


class SearchError(Exception):
    """The provider could not answer; the message is for the user."""


class Provider(Protocol):
    name: str

    def search(self, query: str, count: int) -> list[Hit]:
        """Up to ``count`` raw results (not yet filtered)."""
        ...


class Tavily:
    name = "Tavily"

    def __init__(self, api_key: str, base_url: str = TAVILY_URL, timeout: float = 15.0) -> None:
        self.api_key, self.base_url, self.timeout = api_key, base_url.rstrip("/"), timeout

    def search(self, query: str, count: int) -> list[Hit]:
        body = {"api_key": self.api_key, "query": query, "max_results": min(count, TAVILY_MAX),
                "search_depth": "basic"}
        data = _request(self.name, "POST", f"{self.base_url}/search", self.timeout, json=body,
                        headers={"Authorization": f"Bearer {self.api_key}"})
        return _hits(self.name, data, "content")


class SearXNG:
    name = "SearXNG"

    def __init__(self, url: str, timeout: float = 15.0) -> None:
        self.url, self.timeout = url.rstrip("/"), timeout

    def search(self, query: str, count: int) -> list[Hit]:
        data = _request(self.name, "GET", f"{self.url}/search", self.timeout,
                        params={"q": query, "format": "json"})
        return _hits(self.name, data, "content")[:count]


def _request(provider: str, method: str, url: str, timeout: float, **kwargs: Any) -> Any:
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            response = client.request(method, url, **kwargs)
    except httpx.TimeoutException:
        raise SearchError(f"{provider} が {timeout:g} 秒以内に応答しませんでした "
                          f"({provider} did not answer within {timeout:g} s)") from None
    except httpx.HTTPError as exc:
        raise SearchError(f"{provider} に接続できません ({provider} cannot be reached: "
                          f"{type(exc).__name__})") from None
    if response.status_code in (401, 403):
        raise SearchError(f"{provider} に拒否されました。API キーを確認してください "
                          f"({provider} refused the request, HTTP {response.status_code}: "
                          "check the API key)")
    if response.status_code >= 300:  # redirects are not followed: a moved API is an error
        raise SearchError(f"{provider} がエラーを返しました ({provider} answered HTTP "
                          f"{response.status_code})")
    try:
        return response.json()
    except ValueError:
        raise SearchError(f"{provider} の応答が JSON ではありません ({provider} did not answer "
                          "JSON; for SearXNG, enable the json format in settings.yml)") from None


def _hits(provider: str, data: Any, snippet_key: str) -> list[Hit]:
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise SearchError(f"{provider} の応答に results がありません ({provider}'s answer has "
                          "no results list)")
    hits = []
    for item in results:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            hits.append(Hit(title=str(item.get("title") or ""), url=item["url"],
                            snippet=str(item.get(snippet_key) or "")[:1000]))
    return hits
