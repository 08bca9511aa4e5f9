"""Which search results come from a trusted public source, by hostname rules alone.

A result is kept when its URL is http(s) and its hostname, compared label by label (never as
a substring), is:

=====================  ===============================================  =============
rule                   hostname                                         source_type
=====================  ===============================================  =============
``*.go.jp``            ends with the labels go, jp                      政府機関
``*.lg.jp``            ends with lg, jp                                 地方自治体
``*.ac.jp``            ends with ac, jp                                 学術機関
``pref.*.jp``          ``pref.<prefecture>.jp`` (one of the 47)         都道府県
``city.*.jp`` ...      ``city|town|vill.<name>.<prefecture>.jp``, or    市町村
                       ``city.<designated city>.jp``
configured domain      the domain itself or a subdomain                 公的機関
=====================  ===============================================  =============

So ``evil-go.jp.example.com`` and ``go.jp.evil.com`` are not government sites. The middle
label of ``pref.*.jp`` must be a prefecture, since anyone may register ``<word>.jp`` and so
own ``pref.<word>.jp``. One gap remains: ``city.<name>.<prefecture>.jp`` does not check
``<name>`` against the list of municipalities, and a 都道府県型 registration such as
``example.tokyo.jp`` could name a host ``city.example.tokyo.jp``.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

PREFECTURES = frozenset((
    "hokkaido", "aomori", "iwate", "miyagi", "akita", "yamagata", "fukushima", "ibaraki",
    "tochigi", "gunma", "saitama", "chiba", "tokyo", "kanagawa", "niigata", "toyama",
    "ishikawa", "fukui", "yamanashi", "nagano", "gifu", "shizuoka", "aichi", "mie", "shiga",
    "kyoto", "osaka", "hyogo", "nara", "wakayama", "tottori", "shimane", "okayama", "hiroshima",
    "yamaguchi", "tokushima", "kagawa", "ehime", "kochi", "fukuoka", "saga", "nagasaki",
    "kumamoto", "oita", "miyazaki", "kagoshima", "okinawa",
))
DESIGNATED_CITIES = frozenset((
    "sapporo", "sendai", "saitama", "chiba", "yokohama", "kawasaki", "sagamihara", "niigata",
    "shizuoka", "hamamatsu", "nagoya", "kyoto", "osaka", "sakai", "kobe", "okayama",
    "hiroshima", "kitakyushu", "fukuoka", "kumamoto",
))
SUFFIX_RULES = {("go", "jp"): ("*.go.jp", "政府機関"), ("lg", "jp"): ("*.lg.jp", "地方自治体"),
                ("ac", "jp"): ("*.ac.jp", "学術機関")}
MUNICIPAL = ("city", "town", "vill")
# National public bodies outside go.jp / lg.jp, each sure to be what it says:
# 日本商工会議所, 全国商工会連合会, 全国中小企業団体中央会.
PUBLIC_BODIES = ("jcci.or.jp", "shokokai.or.jp", "chuokai.or.jp")


@dataclass(frozen=True)
class Trust:
    """Why a URL is trusted: the rule that admitted it and the kind of source."""

    rule: str
    source_type: str


def hostname(url: str) -> str | None:
    """The URL's hostname, lower case without a trailing dot; None unless http(s) and a name."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    host = host.rstrip(".")
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    labels = host.split(".")
    if any(not label for label in labels):
        return None
    return host


def parse_domains(text: str | list[str] | None) -> list[str]:
    """Domains from a setting: one per line (or comma separated), ``*.`` and dots trimmed."""
    if not text:
        return []
    items = text if isinstance(text, list) else text.replace(",", "\n").split("\n")
    domains = []
    for item in items:
        domain = str(item).strip().lower().removeprefix("*.").strip(".")
        if domain and "." in domain and all(domain.split(".")):
            domains.append(domain)
    return domains


def classify(url: str, public_bodies: list[str] | tuple[str, ...] = PUBLIC_BODIES
             ) -> Trust | None:
    """The rule that trusts ``url``, or None when no rule does."""
    host = hostname(url)
    if host is None:
        return None
    labels = host.split(".")
    if len(labels) >= 3 and (rule := SUFFIX_RULES.get((labels[-2], labels[-1]))):
        return Trust(*rule)
    if labels[-1] == "jp" and len(labels) >= 3:
        if labels[-3] == "pref" and labels[-2] in PREFECTURES:
            return Trust("pref.*.jp", "都道府県")
        if len(labels) >= 4 and labels[-4] in MUNICIPAL and labels[-2] in PREFECTURES:
            return Trust(f"{labels[-4]}.*.jp", "市町村")
        if labels[-3] == "city" and labels[-2] in DESIGNATED_CITIES:
            return Trust("city.*.jp", "市町村")
    for domain in public_bodies:
        wanted = domain.split(".")
        if labels[-len(wanted):] == wanted:
            return Trust(domain, "公的機関")
    return None
