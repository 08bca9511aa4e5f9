"""The builtin web_search tool against a fake provider over real HTTP on 127.0.0.1: only
trusted public hosts are kept (label-exact rules), at most 5, each with its rule; errors of
the provider and a missing configuration are clear failures, never crashes."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from shokunin.config import Settings
from shokunin.tools import MASK, ToolRegistry

TOOL_DIR = Path(__file__).parents[2] / "src/shokunin/tools/builtin/web_search"
KEY = "tvly-test-key-4711"

# Untrusted first, so that a filter that kept everything would be caught at once.
RESULTS = [
    ("https://evil-go.jp.example.com/kakaku", False),
    ("https://go.jp.evil.com/tenka", False),
    ("https://www.jftc.go.jp/partnership_package/", True),
    ("https://blog.example.com/price", False),
    ("https://pref.evil.jp/", False),
    ("https://www.pref.aichi.jp/soshiki/", True),
    ("http://192.168.0.1/go.jp", False),
    ("https://www.city.hachioji.tokyo.jp/jigyosha/", True),
    ("ftp://www.meti.go.jp/file", False),
    ("https://www.u-tokyo.ac.jp/ja/", True),
    ("https://www.go.jp@evil.com/", False),
    ("https://www.jcci.or.jp/kakaku/", True),
    ("https://www.city.yokohama.lg.jp/business/", True),
    ("https://www.chusho.meti.go.jp/keiei/torihiki/", True),
]
TRUSTED = [url for url, trusted in RESULTS if trusted]


class FakeProvider(BaseHTTPRequestHandler):
    """Tavily at /tavily/search (POST), SearXNG at /searx/search (GET); /broken answers 500,
    /slow waits 3 s, /html answers a page instead of JSON."""

    seen: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:  # keep the test output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"method": "POST", "path": self.path, "body": body,
                          "auth": self.headers.get("Authorization")})
        if self._special():
            return
        if body.get("api_key") != KEY:
            self._send(401, {"detail": "invalid api key"})
            return
        results = [{"title": f"結果 {i}", "url": url, "content": f"本文 {i}", "score": 0.9}
                   for i, (url, _) in enumerate(RESULTS)]
        self._send(200, {"query": body["query"], "results": results[:body["max_results"]]})

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.seen.append({"method": "GET", "path": parts.path, "query": query})
        if self._special():
            return
        results = [{"title": f"結果 {i}", "url": url, "content": f"本文 {i}", "engine": "fake"}
                   for i, (url, _) in enumerate(RESULTS)]
        self._send(200, {"query": query["q"][0], "results": results})

    def _special(self) -> bool:
        if self.path.startswith("/broken"):
            self._send(500, {"error": "internal"})
        elif self.path.startswith("/slow"):
            time.sleep(3)
            self._send(200, {"results": []})
        elif self.path.startswith("/html"):
            self._raw(200, b"<html>not json</html>", "text/html")
        else:
            return False
        return True

    def _send(self, status: int, data: Any) -> None:
        self._raw(status, json.dumps(data).encode(), "application/json")

    def _raw(self, status: int, body: bytes, kind: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass


@pytest.fixture(scope="module")
def provider_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeProvider)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def tools(tmp_path: Path) -> ToolRegistry:
    FakeProvider.seen.clear()
    return ToolRegistry.from_settings(Settings(
        data_dir=tmp_path, tools_dirs=[], tool_settings_file=tmp_path / "s.json"))


def _trust() -> ModuleType:
    name = "trusted_sources"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, TOOL_DIR / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


async def _search(tools: ToolRegistry, tmp_path: Path, **args: Any) -> dict[str, Any]:
    return await tools.execute("web_search", {"query": "価格転嫁 交渉", **args},
                               workspace=tmp_path)


def test_web_search_is_listed_with_a_masked_secret_key(tools: ToolRegistry) -> None:
    info = tools.get("web_search")
    assert info.ok and info.source == "builtin" and info.has_settings
    tools.save_settings("web_search", {"tavily_api_key": KEY})
    view = tools.get_settings("web_search")
    assert view["schema"]["tavily_api_key"]["secret"] is True
    assert view["values"]["tavily_api_key"] == MASK
    assert KEY not in json.dumps(view)
    assert {"provider", "searxng_url", "trusted_domains", "tavily_base_url"} <= set(
        view["schema"])


async def test_nothing_configured_says_which_settings_to_fill(tools: ToolRegistry,
                                                              tmp_path: Path) -> None:
    result = await _search(tools, tmp_path)
    assert result["success"] is False
    assert "設定されていません" in result["error"] and "not set up" in result["error"]
    assert "tavily_api_key" in result["error"] and "searxng_url" in result["error"]
    tools.save_settings("web_search", {"provider": "searxng", "tavily_api_key": KEY})
    result = await _search(tools, tmp_path)  # SearXNG chosen, but no URL for it
    assert result["success"] is False and "searxng_url" in result["error"]


async def test_tavily_results_are_filtered_to_five_trusted_and_labelled(
        tools: ToolRegistry, tmp_path: Path, provider_url: str) -> None:
    tools.save_settings("web_search", {"provider": "tavily", "tavily_api_key": KEY,
                                       "tavily_base_url": f"{provider_url}/tavily"})
    result = await _search(tools, tmp_path)
    assert result["success"], result
    body = result["result"]
    assert [r["url"] for r in body["results"]] == TRUSTED[:5]
    assert [(r["rule"], r["source_type"]) for r in body["results"]] == [
        ("*.go.jp", "政府機関"), ("pref.*.jp", "都道府県"), ("city.*.jp", "市町村"),
        ("*.ac.jp", "学術機関"), ("jcci.or.jp", "公的機関")]
    first = body["results"][0]
    assert first["title"] == "結果 2" and first["snippet"] == "本文 2"
    assert body["provider"] == "Tavily" and "5 件" in body["summary"]
    [request] = FakeProvider.seen
    assert request["path"] == "/tavily/search" and request["body"]["query"] == "価格転嫁 交渉"
    assert request["body"]["max_results"] == 15  # three times what is wanted
    assert KEY not in json.dumps(result)


async def test_searxng_results_are_filtered_and_max_results_is_honoured(
        tools: ToolRegistry, tmp_path: Path, provider_url: str) -> None:
    tools.save_settings("web_search", {"searxng_url": f"{provider_url}/searx/"})
    result = await _search(tools, tmp_path, max_results=2)
    assert result["success"], result
    assert [r["url"] for r in result["result"]["results"]] == TRUSTED[:2]
    assert result["result"]["provider"] == "SearXNG"
    [request] = FakeProvider.seen
    assert request["method"] == "GET" and request["path"] == "/searx/search"
    assert request["query"] == {"q": ["価格転嫁 交渉"], "format": ["json"]}


async def test_more_than_five_is_refused_by_the_declaration(
        tools: ToolRegistry, tmp_path: Path, provider_url: str) -> None:
    tools.save_settings("web_search", {"searxng_url": f"{provider_url}/searx"})
    result = await _search(tools, tmp_path, max_results=6)
    assert result["success"] is False and "max_results" in result["error"]


async def test_configured_domains_replace_the_listed_public_bodies(
        tools: ToolRegistry, tmp_path: Path, provider_url: str) -> None:
    tools.save_settings("web_search", {"searxng_url": f"{provider_url}/searx",
                                       "trusted_domains": "example.com\n"})
    result = await _search(tools, tmp_path)
    kept = [(r["url"], r["rule"]) for r in result["result"]["results"]]
    assert ("https://blog.example.com/price", "example.com") in kept
    assert "https://www.jcci.or.jp/kakaku/" not in [url for url, _ in kept]


@pytest.mark.parametrize(("path", "words"), [
    ("/broken", ["HTTP 500", "エラー"]),
    ("/html", ["JSON"]),
])
async def test_a_provider_error_is_a_clear_failure(tools: ToolRegistry, tmp_path: Path,
                                                   provider_url: str, path: str,
                                                   words: list[str]) -> None:
    tools.save_settings("web_search", {"tavily_api_key": KEY,
                                       "tavily_base_url": provider_url + path})
    result = await _search(tools, tmp_path)
    assert result["success"] is False and "Tavily" in result["error"]
    assert all(word in result["error"] for word in words), result["error"]
    assert KEY not in result["error"]


async def test_a_wrong_key_says_to_check_it(tools: ToolRegistry, tmp_path: Path,
                                            provider_url: str) -> None:
    tools.save_settings("web_search", {"tavily_api_key": "tvly-wrong",
                                       "tavily_base_url": f"{provider_url}/tavily"})
    result = await _search(tools, tmp_path)
    assert result["success"] is False and "HTTP 401" in result["error"]
    assert "API" in result["error"] and "tvly-wrong" not in result["error"]


async def test_a_provider_timeout_is_a_clear_failure(tools: ToolRegistry, tmp_path: Path,
                                                     provider_url: str) -> None:
    tools.save_settings("web_search", {"searxng_url": f"{provider_url}/slow",
                                       "http_timeout_sec": 0.3})
    started = time.monotonic()
    result = await _search(tools, tmp_path)
    assert result["success"] is False
    assert "0.3" in result["error"] and "did not answer" in result["error"]
    assert time.monotonic() - started < 2.5  # the fake answers only after 3 s


async def test_an_unreachable_provider_is_a_clear_failure(tools: ToolRegistry,
                                                          tmp_path: Path) -> None:
    tools.save_settings("web_search", {"searxng_url": "http://127.0.0.1:9"})
    result = await _search(tools, tmp_path)
    assert result["success"] is False and "cannot be reached" in result["error"]


@pytest.mark.parametrize(("url", "rule"), [
    ("https://www.jftc.go.jp/", "*.go.jp"),
    ("https://WWW.JFTC.GO.JP./x", "*.go.jp"),
    ("https://www.city.yokohama.lg.jp/", "*.lg.jp"),
    ("https://www.u-tokyo.ac.jp/", "*.ac.jp"),
    ("https://pref.aichi.jp/", "pref.*.jp"),
    ("https://www.pref.hokkaido.jp/", "pref.*.jp"),
    ("https://www.city.hachioji.tokyo.jp/", "city.*.jp"),
    ("https://www.town.kamikawa.hokkaido.jp/", "town.*.jp"),
    ("https://www.vill.ogasawara.tokyo.jp/", "vill.*.jp"),
    ("https://www.city.yokohama.jp/", "city.*.jp"),
    ("https://www.jcci.or.jp/", "jcci.or.jp"),
    ("https://jcci.or.jp/", "jcci.or.jp"),
    ("https://www.shokokai.or.jp/", "shokokai.or.jp"),
])
def test_hostname_rules_admit_public_hosts(url: str, rule: str) -> None:
    trust = _trust().classify(url)
    assert trust is not None and trust.rule == rule


@pytest.mark.parametrize("url", [
    "https://evil-go.jp.example.com/",  # go.jp as part of a label of another domain
    "https://go.jp.evil.com/",  # go.jp as leading labels
    "https://www.go.jp@evil.com/",  # userinfo, the host is evil.com
    "https://evilgo.jp/", "https://xgo.jp/",  # one label that only ends in "go"
    "https://go.jp/",  # no organisation label
    "https://jftc.go.jp.evil.com/",
    "https://www.lg.jp.example.net/", "https://ac.jp/",
    "https://pref.evil.jp/",  # anyone may register evil.jp, hence pref.evil.jp
    "https://city.evil.jp/",  # not a designated city
    "https://city.hachioji.evil.jp/",  # not a prefecture
    "https://pref.aichi.jp.evil.com/",
    "https://notjcci.or.jp/", "https://jcci.or.jp.evil.com/",
    "ftp://www.meti.go.jp/", "javascript:alert(1)//www.meti.go.jp", "www.meti.go.jp",
    "http://192.168.0.1/", "http://[::1]/", "https://www..go.jp/", "",
])
def test_hostname_rules_refuse_lookalikes(url: str) -> None:
    assert _trust().classify(url) is None


def test_configured_domains_are_parsed_one_per_line() -> None:
    parse = _trust().parse_domains
    assert parse(" Example.org \n*.foo.or.jp\n\nbad\n.bar.jp.\n") == [
        "example.org", "foo.or.jp", "bar.jp"]
    assert parse("a.jp, b.jp") == ["a.jp", "b.jp"]
