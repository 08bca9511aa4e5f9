"""Masking a tool's secret setting values out of whatever leaves the server.

A secret may be a string, a number or (hand-edited) a nested value; ``secret_strings`` turns
it into the texts it can appear as (its ``str``, ``repr`` and JSON-escaped forms), and
``mask_deep`` also replaces a number that *equals* a numeric secret, wherever it sits in a
result: an integer PIN returned as an int is as secret as the same PIN in a sentence.

One rule for every masking (results, errors, progress, a child's output, the log): a
secret shorter than ``MIN_MASKED_CHARS`` is not masked (``maskable``). A key ``2`` would
mask every 2 in ids and numbers, breaking them and showing the key through the holes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

MASK = "********"
MIN_MASKED_CHARS = 6


def secret_strings(value: Any) -> list[str]:
    """The texts a secret setting value can appear as (empty for an unset value)."""
    if isinstance(value, bool) or (not isinstance(value, dict | list | tuple) and not value):
        return []  # unset (None, "", 0): nothing to hide, and "0" would mask every zero
    if isinstance(value, dict):
        return [s for item in value.values() for s in secret_strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in secret_strings(item)]
    if not isinstance(value, str):
        return [str(value)]  # a number: 12345 or 0.5 (its JSON and repr forms are the same)
    # As it appears inside JSON or a repr too (quotes, backslashes, \\uXXXX escaped).
    forms = {value, repr(value)[1:-1], json.dumps(value)[1:-1],
             json.dumps(value, ensure_ascii=False)[1:-1]}
    return ordered(form for form in forms if form)


def ordered(secrets: Iterable[str]) -> list[str]:
    """Unique, longest first, so that no secret is half-masked by a shorter one it contains."""
    return sorted(set(secrets), key=len, reverse=True)


def maskable(secret: str) -> bool:
    """Whether ``secret`` is long enough to be masked (see the module's docstring)."""
    return len(secret) >= MIN_MASKED_CHARS


def mask_text(text: str, secrets: list[str]) -> str:
    """``text`` with each maskable secret replaced by ``MASK`` (longest first: ``ordered``)."""
    for secret in secrets:
        if maskable(secret):
            text = text.replace(secret, MASK)
    return text


def mask_deep(value: Any, secrets: list[str]) -> Any:
    """Replace every secret found in any string inside ``value`` (keys too), and every
    number equal to a numeric secret."""
    if not secrets:
        return value
    return _Masker(secrets).deep(value)


class _Masker:
    def __init__(self, secrets: list[str]) -> None:
        self.secrets = secrets
        self.numbers = {number for s in secrets
                        if maskable(s) and (number := _as_number(s)) is not None}

    def deep(self, value: Any) -> Any:
        if isinstance(value, str):
            return mask_text(value, self.secrets)
        if isinstance(value, dict):
            return {self.deep(k): self.deep(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.deep(v) for v in value]
        if (isinstance(value, int | float) and not isinstance(value, bool)
                and _as_number(repr(value)) in self.numbers):
            return MASK
        return value


def _as_number(text: str) -> Decimal | None:
    try:
        number = Decimal(text)
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None
