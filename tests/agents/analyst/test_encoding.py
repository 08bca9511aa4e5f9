"""Encoding detection on real files written in each encoding, in the documented order."""

from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.agents.analyst.encoding import candidate_encodings, detect_encoding

# ①, ㈱ and 髙 exist in CP932 only (not in Shift_JIS); ﾃｽﾄ is half-width kana.
CP932_TEXT = "取引先,担当,件数\n㈱髙島屋①号店,ﾃｽﾄ担当,3\n山田商店,佐藤,12\n"
JAPANESE = "店舗,商品,数量\n東京本店,りんご,3\n大阪支店,みかん,12\n"
ENGLISH = "store,product,qty\nTokyo,apple,3\nOsaka,orange,12\n"


def _written(tmp_path: Path, name: str, data: bytes) -> bytes:
    path = tmp_path / name
    path.write_bytes(data)
    return path.read_bytes()


def test_cp932_with_nec_and_ibm_extensions_is_cp932_not_shift_jis(tmp_path: Path) -> None:
    with pytest.raises(UnicodeEncodeError):
        CP932_TEXT.encode("shift_jis")  # why plain Shift_JIS is not enough
    data = _written(tmp_path, "cp932.csv", CP932_TEXT.encode("cp932"))
    guess = detect_encoding(data)
    assert (guess.encoding, guess.method) == ("cp932", "cp932")
    assert data.decode(guess.encoding) == CP932_TEXT


@pytest.mark.parametrize("text", [JAPANESE, "品名,数量\nあいうえお,3\nかきくけこ,5\n"])
def test_euc_jp_is_euc_jp(tmp_path: Path, text: str) -> None:
    data = _written(tmp_path, "euc.csv", text.encode("euc_jp"))
    guess = detect_encoding(data)
    assert (guess.encoding, guess.method) == ("euc_jp", "euc-jp")
    assert data.decode(guess.encoding) == text


def test_euc_jp_that_is_also_valid_cp932_is_told_by_its_kana(tmp_path: Path) -> None:
    text = "品名,数量\nあいうえお,3\nかきくけこ,5\n"
    data = _written(tmp_path, "euc.csv", text.encode("euc_jp"))
    assert data.decode("cp932").startswith("ﾉﾊﾌｾ")  # strictly valid CP932 too, as mojibake
    assert [g.encoding for g in candidate_encodings(data)] == ["euc_jp", "cp932"]


@pytest.mark.parametrize(("codec", "bom", "expected"), [
    ("utf-8-sig", True, "utf-8-sig"),
    ("utf-16", True, "utf-16"),  # Python writes a BOM in native order
    ("utf-16-be", True, "utf-16"),
])
def test_a_byte_order_mark_decides_first(tmp_path: Path, codec: str, bom: bool,
                                         expected: str) -> None:
    raw = JAPANESE.encode(codec)
    if codec == "utf-16-be":
        raw = b"\xfe\xff" + raw
    data = _written(tmp_path, "bom.csv", raw)
    guess = detect_encoding(data)
    assert (guess.encoding, guess.method) == (expected, "bom")
    assert data.decode(guess.encoding) == JAPANESE


@pytest.mark.parametrize("text", [JAPANESE, ENGLISH])
def test_plain_utf8_and_ascii_are_utf8(tmp_path: Path, text: str) -> None:
    guess = detect_encoding(_written(tmp_path, "u.csv", text.encode("utf-8")))
    assert (guess.encoding, guess.method) == ("utf-8", "utf-8")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_found_by_its_nul_bytes(tmp_path: Path, codec: str) -> None:
    data = _written(tmp_path, "u16.csv", ENGLISH.encode(codec))
    guess = detect_encoding(data)
    assert (guess.encoding, guess.method) == (codec, "utf-16-nul-pattern")
    assert data.decode(guess.encoding) == ENGLISH


def test_other_encodings_fall_back_to_charset_normalizer(tmp_path: Path) -> None:
    text = ("Город,Население,Регион\nМосква,13010112,Центральный\n"
            "Санкт-Петербург,5601911,Северо-Западный\nНовосибирск,1633595,Сибирский\n") * 3
    data = _written(tmp_path, "cyrillic.csv", text.encode("cp1251"))
    guess = detect_encoding(data)
    assert guess.method == "charset-normalizer"
    assert data.decode(guess.encoding) == text


def test_binary_junk_has_no_encoding(tmp_path: Path) -> None:
    assert detect_encoding(_written(tmp_path, "junk.bin", bytes(range(256)) * 40)) is None


def test_a_character_cut_at_the_end_of_a_head_sample_does_not_count(tmp_path: Path) -> None:
    data = _written(tmp_path, "u.csv", JAPANESE.encode("utf-8"))
    head = data[:len("店舗,商".encode()) + 1]  # ends inside 品
    assert detect_encoding(head, complete=False).encoding == "utf-8"
    assert detect_encoding(head).encoding != "utf-8"


def test_ascii_head_lists_every_strict_candidate_in_order() -> None:
    assert [g.encoding for g in candidate_encodings(b"a,b\n1,2\n", complete=False)] == [
        "utf-8", "cp932", "euc_jp"]
