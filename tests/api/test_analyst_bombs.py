"""Upload bombs (issue 34, point 4): a tiny .xlsx that expands to gigabytes of strings and
a CSV sent with a bytes-to-bytes codec are refused with a clear 4xx, parsed in a child
process, while the server's own memory stays put and ``/health`` keeps answering."""

from __future__ import annotations

import io
import threading
import time
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from tests.api.test_analyst_datasets import _error, _settings, _upload

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
