"""Deterministic text-encoding detection of raw bytes.

The order, first match wins:

1. a byte-order mark: UTF-8-SIG, UTF-16 LE/BE;
2. strict UTF-8;
3. strict CP932 (Shift_JIS as Windows writes it: ①, ㈱ and 髙 exist only there);
4. strict EUC-JP;
5. UTF-16 without a BOM, when NUL bytes sit on one side of the byte pairs;
6. ``charset-normalizer``, the only statistical step.

Text holds no NUL byte, so bytes with one skip steps 2-4 (plain ASCII in UTF-16 is valid
UTF-8). EUC-JP text is often valid CP932 too (as half-width kana and rare kanji): when both
decode, EUC-JP wins if it gives more kana, which CP932 read from EUC-JP never has.
"""

from __future__ import annotations

import codecs
from typing import Literal

import charset_normalizer
from pydantic import BaseModel

from shokunin.errors import ErrorCode, ShokuninError

Method = Literal["bom", "utf-8", "cp932", "euc-jp", "utf-16-nul-pattern",
                 "charset-normalizer", "override"]

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
NUL_PAIR_SHARE = 0.05  # byte pairs with a NUL on one side, past which text looks UTF-16


class EncodingGuess(BaseModel):
    """A codec name Python knows (``utf-8``, ``cp932``, ...) and how it was decided."""

    encoding: str
    method: Method


class NotTextEncoding(ShokuninError, ValueError):
    """A codec name that is unknown or does not turn bytes into text."""
    status = 400
    code = ErrorCode.BAD_REQUEST


def text_encoding(name: str) -> str:
    """The codec's own name when it decodes bytes to text. Raises ``NotTextEncoding`` for
    an unknown name and for bytes-to-bytes or text-to-text codecs (``zlib_codec``,
    ``base64``, ``rot13``): those are not a file's encoding, and zlib inflates a small
    upload into gigabytes."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise NotTextEncoding(f"unknown encoding {name[:40]!r}") from None
    if not info._is_text_encoding:  # the registry's own flag; no public API
        raise NotTextEncoding(f"{name[:40]!r} is not a text encoding (it does not decode "
                              "bytes to text); pass one such as utf-8 or cp932")
    return info.name


def decodes(data: bytes, encoding: str, *, complete: bool = True) -> bool:
    """Whether ``data`` is strictly valid in ``encoding``; with ``complete=False`` a
    character cut at the end of a sample does not count against it."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    try:
        decoder.decode(data, final=complete)
    except UnicodeError:  # UnicodeDecodeError, or a codec's own (utf-16 without BOM, punycode)
        return False
    return True


def _kana(text: str) -> int:
    return sum(1 for ch in text if "\u3041" <= ch <= "\u30ff")


def _japanese(data: bytes, complete: bool) -> list[EncodingGuess]:
    """CP932 and EUC-JP in the order they should be tried."""
    cp932, euc = decodes(data, "cp932", complete=complete), decodes(
        data, "euc_jp", complete=complete)
    if cp932 and euc:
        as_cp932 = data.decode("cp932", errors="ignore")
        as_euc = data.decode("euc_jp", errors="ignore")
        if _kana(as_euc) > _kana(as_cp932):
            return [EncodingGuess(encoding="euc_jp", method="euc-jp"),
                    EncodingGuess(encoding="cp932", method="cp932")]
    return ([EncodingGuess(encoding="cp932", method="cp932")] if cp932 else []) + (
        [EncodingGuess(encoding="euc_jp", method="euc-jp")] if euc else [])


def _utf16_by_nuls(data: bytes, complete: bool) -> EncodingGuess | None:
    pairs = len(data) // 2
    if pairs == 0:
        return None
    body = data[:pairs * 2]
    even, odd = body[0::2].count(0), body[1::2].count(0)
    for nuls, other, encoding in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if nuls >= NUL_PAIR_SHARE * pairs and nuls >= 4 * other and decodes(
                data, encoding, complete=complete):
            return EncodingGuess(encoding=encoding, method="utf-16-nul-pattern")
    return None


def candidate_encodings(data: bytes, *, complete: bool = True) -> list[EncodingGuess]:
    """Every encoding the rules accept for ``data``, best first (see the module docstring).
    With ``complete=False`` the bytes are the head of a longer file: a later candidate is
    the fallback when the rest of the file does not decode with an earlier one."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return [EncodingGuess(encoding=encoding, method="bom")]
    found: list[EncodingGuess] = []
    if b"\x00" not in data:
        if decodes(data, "utf-8", complete=complete):
            found.append(EncodingGuess(encoding="utf-8", method="utf-8"))
        found += _japanese(data, complete)
    else:
        utf16 = _utf16_by_nuls(data, complete)
        if utf16 is not None:
            found.append(utf16)
    if not found:
        best = charset_normalizer.from_bytes(data).best()
        if best is not None:
            found.append(EncodingGuess(encoding=codecs.lookup(best.encoding).name,
                                       method="charset-normalizer"))
    return found


def detect_encoding(data: bytes, *, complete: bool = True) -> EncodingGuess | None:
    """The encoding of ``data`` by the rules above; None when nothing decodes it (binary)."""
    found = candidate_encodings(data, complete=complete)
    return found[0] if found else None
