"""Upload bombs (issue 34, point 4): a tiny .xlsx that expands to gigabytes of strings and
a CSV sent with a bytes-to-bytes codec are refused with a clear 4xx, parsed in a child
process, while the server's own memory stays put and ``/health`` keeps answering."""

from __future__ import annotations

import io
import random
import sqlite3
import string
import threading
import time
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shokunin.agents.analyst.profile import MAX_TEXT
from shokunin.api import create_app
from tests.api.analyst.test_analyst_datasets import _error, _settings, _upload

_SHEET_HEAD = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns='
               '"http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"


def xlsx_bomb(cells: int = 1000, string_bytes: int = 1024 * 1024) -> bytes:
    """The issue's bomb: one shared string of ``string_bytes`` referenced by ``cells``
    cells; a few kilobytes that a reader expands into ``cells x string_bytes``."""
    rows = "".join(f'<row r="{i}"><c r="A{i}" t="s"><v>0</v></c></row>'
                   for i in range(1, cells + 1))
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats'
            '.org/package/2006/content-types"><Default Extension="rels" ContentType="application'
            '/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
            'ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType='
            '"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.'
            'openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName='
            '"/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.sharedStrings+xml"/></Types>'),
        "_rels/.rels": (
            f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_PKG}"><Relationship '
            f'Id="rId1" Target="xl/workbook.xml" Type="{_REL}/officeDocument"/></Relationships>'),
        "xl/workbook.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{_MAIN}" xmlns:r="{_REL}">'
            '<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>'),
        "xl/_rels/workbook.xml.rels": (
            f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_PKG}">'
            f'<Relationship Id="rId1" Target="worksheets/sheet1.xml" Type="{_REL}/worksheet"/>'
            f'<Relationship Id="rId2" Target="sharedStrings.xml" Type="{_REL}/sharedStrings"/>'
            '</Relationships>'),
        "xl/sharedStrings.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{_MAIN}" count="{cells}" '
            f'uniqueCount="1"><si><t>{"A" * string_bytes}</t></si></sst>'),
        "xl/worksheets/sheet1.xml": f"{_SHEET_HEAD}{rows}</sheetData></worksheet>",
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return out.getvalue()


def _peak_rss() -> int:
    """This process's (the server's) peak resident memory, in bytes (VmHWM)."""
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines()
                    if line.startswith("VmHWM:"))) * 1024


@pytest.fixture
def bomb_client(tmp_path: Path) -> Iterator[TestClient]:
    # the ratio check off: the bomb reaches the parser, whose child meets its memory limit
    settings = _settings(tmp_path, analyst_parse_memory_mb=256, analyst_xlsx_max_ratio=10**9)
    with TestClient(create_app(settings)) as client:
        _upload(client, b"a,b\n1,2\n3,4\n")  # the forkserver's start is not the bomb's
        yield client


def _while_health_is_polled(client: TestClient, call: Any) -> tuple[Any, float]:
    """``call()``'s answer and the slowest ``/health`` answer while it ran."""
    answer: list[Any] = []
    worker = threading.Thread(target=lambda: answer.append(call()))
    worker.start()
    slowest = 0.0
    while worker.is_alive():
        started = time.monotonic()
        assert client.get("/health").status_code == 200
        slowest = max(slowest, time.monotonic() - started)
        time.sleep(0.05)
    worker.join()
    return answer[0], slowest


def test_the_xlsx_bomb_is_refused_as_too_large_when_expanded_outside_the_server(
        bomb_client: TestClient) -> None:
    bomb = xlsx_bomb()
    assert len(bomb) < 8 * 1024
    before = _peak_rss()
    response, slowest = _while_health_is_polled(
        bomb_client, lambda: _upload(bomb_client, bomb, "bomb.xlsx"))
    message = _error(response, 400, "too_large_expanded")
    assert "too large when expanded" in message
    assert _peak_rss() - before < 100 * 2**20  # the server grew by 3 GiB
    assert slowest < 2.0  # the issue's /health stalled 18 s
    threads = bomb_client.get("/api/threads", params={"agent": "analyst"}).json()["threads"]
    assert [t["title"] for t in threads] == ["売上.csv"]  # none left for the bomb


def test_the_xlsx_bomb_is_refused_from_its_zip_directory_by_default(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path))) as client:
        message = _error(_upload(client, xlsx_bomb(), "bomb.xlsx"), 400, "too_large_expanded")
    assert "sharedStrings.xml" in message and "times" in message


def test_an_xlsx_over_the_expanded_size_setting_is_refused(tmp_path: Path) -> None:
    settings = _settings(tmp_path, analyst_xlsx_max_expanded_mb=0.5)
    with TestClient(create_app(settings)) as client:
        message = _error(_upload(client, xlsx_bomb(cells=10), "big.xlsx"), 400,
                         "too_large_expanded")
    assert "ANALYST_XLSX_MAX_EXPANDED_MB" in message


@pytest.mark.parametrize("codec", ["zlib_codec", "zlib", "base64", "bz2_codec", "rot13",
                                   "hex", "uu_codec"])
def test_a_codec_that_is_not_a_text_encoding_is_refused(tmp_path: Path, codec: str) -> None:
    inflating = zlib.compress(b"a,b\n" + b"1,2\n" * (16 * 2**20), 9)  # 64 MiB from 64 KiB
    settings = _settings(tmp_path, analyst_max_upload_mb=1)
    with TestClient(create_app(settings)) as client:
        before = _peak_rss()
        message = _error(_upload(client, inflating, encoding=codec), 400, "bad_request")
        assert "not a text encoding" in message
        assert _peak_rss() - before < 32 * 2**20
        assert client.get("/api/threads", params={"agent": "analyst"}).json()["threads"] == []


def test_a_parse_past_its_time_is_refused_as_too_slow(tmp_path: Path) -> None:
    settings = _settings(tmp_path, analyst_parse_seconds=0.001)
    with TestClient(create_app(settings)) as client:
        message = _error(_upload(client), 400, "too_slow")
    assert "took too long" in message


def _wide_string_xlsx(string_bytes: int, rows: int, cols: int) -> bytes:
    """The review's r2.xlsx (p4/mkxlsx.py random 1 3 40): one shared string of random
    letters (it barely compresses, so the ratio check passes) in every cell of ``rows`` x
    ``cols``, under a header row ``c0``, ``c1``, ...; one column name as long as well."""
    letters = random.Random(1).choices(string.ascii_letters + string.digits, k=string_bytes)
    big = "".join(letters)
    names = [big] + [f"c{c}" for c in range(1, cols)]
    header = "".join(f'<c r="{_col(c)}1" t="inlineStr"><is><t>{name}</t></is></c>'
                     for c, name in enumerate(names))
    body = "".join(f'<row r="{r}">' + "".join(f'<c r="{_col(c)}{r}" t="s"><v>0</v></c>'
                                              for c in range(cols)) + "</row>"
                   for r in range(2, rows + 2))
    sheet = f'{_SHEET_HEAD}<row r="1">{header}</row>{body}</sheetData></worksheet>'
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xlsx_bomb(cells=1, string_bytes=string_bytes))) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for info in src.infolist():
            text = src.read(info).decode()
            if info.filename == "xl/sharedStrings.xml":
                text = text.replace("A" * string_bytes, big)
            elif info.filename == "xl/worksheets/sheet1.xml":
                text = sheet
            archive.writestr(info.filename, text)
    return out.getvalue()


def _col(index: int) -> str:
    name, index = "", index + 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def test_a_megabyte_cell_in_every_cell_gives_a_small_profile_and_preview(
        tmp_path: Path) -> None:
    # The review's file gave a 167 MB profile, stored and sent on every read of the dataset
    workbook = _wide_string_xlsx(2**20, 3, 40)
    settings = _settings(tmp_path, analyst_max_upload_mb=4)
    with TestClient(create_app(settings)) as client:
        response = _upload(client, workbook, "r2.xlsx", header="true")
        assert response.status_code == 201, response.text[:500]
        assert len(response.content) < 2**20
        record = response.json()
        columns = record["profile"]["columns"]
        assert len(columns) == 40 and len(columns[0]["name"]) == MAX_TEXT
        assert columns[0]["name"].endswith("…")
        assert len(columns[1]["top_values"][0]["value"]) == MAX_TEXT
        stored = client.get(f"/api/analyst/datasets/{record['id']}")
        assert len(stored.content) < 2**20
        preview = client.get(f"/api/analyst/datasets/{record['id']}/preview")
        assert preview.status_code == 200 and len(preview.content) < 2**20
        assert {len(v) for row in preview.json()["rows"] for v in row} == {MAX_TEXT}
    with sqlite3.connect(settings.data_dir / "shokunin.db") as db:
        sizes = db.execute("SELECT length(profile) FROM analyst_datasets").fetchall()
    assert sizes and all(size < 2**20 for (size,) in sizes)
