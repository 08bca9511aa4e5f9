"""Malformed tables and odd encodings (issue 34, point 11): every upload answers either a
dataset or a 4xx ``{"error", "code"}`` saying what is wrong, never a 500, and a refused
file leaves nothing behind (no thread, no folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from shokunin.api import create_app
from tests.api.analyst.test_analyst_datasets import _settings, _upload
from tests.api.runs.test_threads_api import PrincipalFromHeader

JA = "名前,値\n東京,1\n大阪,2\n名古屋,3\n"
CASES: dict[str, tuple[bytes, dict[str, str]]] = {
    "ragged rows": (b"a,b\n1,2\n3,4,5,6,7\n8\n9,10\n", {}),
    "ragged rows, delimiter given": (b"a,b\n1,2\n3,4,5,6,7\n8\n9,10\n", {"delimiter": ","}),
    "binary junk": (bytes(range(256)) * 64, {}),
    "binary junk as latin-1": (bytes(range(256)) * 64, {"encoding": "latin-1",
                                                        "delimiter": ","}),
    "NUL bytes": (b"a,b\n1,\x002\n3,4\n\x00\x00\x00,5\n", {}),
    "NUL bytes, delimiter given": (b"a,b\n1,\x002\n3,4\n", {"delimiter": ",",
                                                            "encoding": "utf-8"}),
    "a lone quote": (b'a,b\n1,"2\n3,4\n', {}),
    "a lone quote, delimiter given": (b'a,b\n1,"2\n3,4\n', {"delimiter": ","}),
    "UTF-16 without BOM": (JA.encode("utf-16-le"), {}),
    "UTF-16 without BOM, as utf-16": (JA.encode("utf-16-le"), {"encoding": "utf-16"}),
    "Shift_JIS": (JA.encode("shift_jis"), {}),
    "Shift_JIS read as utf-8": (JA.encode("shift_jis"), {"encoding": "utf-8"}),
    "EUC-JP": (JA.encode("euc_jp"), {}),
    "EUC-JP as utf-16": (JA.encode("euc_jp"), {"encoding": "utf-16"}),
    "CP1252": ("name,price\ncafé,3€\nnaïve,4€\n".encode("cp1252"), {}),
    "UTF-8 with BOM": (JA.encode("utf-8-sig"), {}),
    "UTF-8 with BOM as utf-32": (JA.encode("utf-8-sig"), {"encoding": "utf-32"}),
    "latin-1": ("name,city\nJosé,Málaga\nZoë,Köln\n".encode("latin-1"), {}),
    "idna": (b"a,b\n1,2\n", {"encoding": "idna"}),
    "punycode": (b"a,b\n1,2\n", {"encoding": "punycode"}),
    "unicode_escape": (b"a,b\n\\U0010ffff,\\N{nothing}\n", {"encoding": "unicode_escape"}),
    "undefined": (b"a,b\n1,2\n", {"encoding": "undefined"}),
    "utf-7": ("a,b\n東京,+2\n".encode("utf-7"), {"encoding": "utf-7"}),
    "utf-7 on other bytes": (b"a,b\n+\xff-,2\n", {"encoding": "utf-7"}),
    "EBCDIC cp037": ("a,b\n1,2\n3,4\n".encode("cp037"), {"encoding": "cp037"}),
    "utf-32 on UTF-8": (JA.encode(), {"encoding": "utf-32"}),
    "utf-16-be on UTF-16-LE": (JA.encode("utf-16-le"), {"encoding": "utf-16-be"}),
    "iso2022_jp": (JA.encode("iso2022_jp"), {"encoding": "iso2022_jp"}),
    "hz on UTF-8": (JA.encode(), {"encoding": "hz"}),
    "ascii on UTF-8": (JA.encode(), {"encoding": "ascii"}),
    "raw_unicode_escape": (b"a,b\n\\u00e9,2\n", {"encoding": "raw_unicode_escape"}),
    "a full-width semicolon delimiter": ("a；b\n1；2\n3；4\n".encode(), {"delimiter": "；"}),
    "an ideographic comma delimiter": ("a、b\n1、2\n3、4\n".encode(), {"delimiter": "、"}),
    "a pipe delimiter": (b"a|b\n1|2\n3|4\n", {"delimiter": "|"}),
    "a delimiter that is not in the file": (b"a,b\n1,2\n", {"delimiter": "|"}),
    "a space delimiter": (b"a b\n1 2\n", {"delimiter": " "}),
    "an empty file": (b"", {}),
    "only blank lines": (b"\n\n  \n\r\n", {}),
    "a header only": (b"a,b,c\n", {}),
    "a header only, header given": (b"a,b,c\n", {"header": "true", "delimiter": ","}),
    "a truncated xlsx": (b"PK\x03\x04" + b"\x00" * 100, {}),
    "an OLE2 file that is no workbook": (b"\xd0\xcf\x11\xe0" + b"\x01" * 600, {}),
    "a zip that is no workbook": (
        b"PK\x05\x06" + b"\x00" * 18, {}),
    "a huge field": (b"a,b\n" + b"x" * 300_000 + b",1\n", {}),
    "a single cell": (b"1\n", {}),
    "CR only line ends": (b"a,b\r1,2\r3,4\r", {}),
    "mixed line ends and quotes": (b'a,b\r\n"1\r\n2",3\n"4""",5\r', {}),
    "an encoding with a NUL": (b"a,b\n1,2\n", {"encoding": "utf8\x00"}),
    "an encoding name of 100,000 characters": (b"a,b\n1,2\n", {"encoding": "u" * 100_000}),
    "a delimiter of 100,000 characters": (b"a,b\n1,2\n", {"delimiter": ";" * 100_000}),
    "a header with a NUL": (b"a,b\n1,2\n", {"header": "true\x00"}),
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("malformed")
    app = create_app(_settings(tmp, allowed_hosts=["testserver"]))  # module scope: set here
    app.user_middleware.append(Middleware(PrincipalFromHeader))
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_upload_is_a_dataset_or_a_clear_4xx_leaving_nothing(
        client: TestClient, case: str) -> None:
    content, fields = CASES[case]
    services = client.app.state.engine  # type: ignore[attr-defined]
    before = client.get("/api/threads", params={"agent": "analyst"}).json()["threads"]
    response = _upload(client, content, "odd.csv", **fields)
    if response.status_code == 201:
        record = response.json()
        assert record["profile"]["rows"] >= 1
        preview = client.get(f"/api/analyst/datasets/{record['id']}/preview")
        assert preview.status_code == 200, preview.text
        return
    assert 400 <= response.status_code < 500, response.text
    body = response.json()
    assert set(body) == {"error", "code"} and len(body["error"]) > 10, body
    assert "Traceback" not in body["error"]
    after = client.get("/api/threads", params={"agent": "analyst"}).json()["threads"]
    assert after == before  # no empty thread left
    workspaces = Path(services.runner.workspace_root)
    assert not [p for p in workspaces.glob("*/datasets/*") if p.is_dir()
                and not any(p.iterdir())]  # no half-written folder


@pytest.mark.parametrize("field", ["encoding", "delimiter", "header", "thread_id"])
def test_a_read_option_sent_as_a_file_is_a_clear_400(client: TestClient, field: str) -> None:
    response = client.post("/api/analyst/datasets", files={
        "file": ("t.csv", b"a,b\n1,2\n", "text/csv"), field: ("x.txt", b"utf-8", "text/plain")})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "bad_request"


def test_a_delimiter_given_as_a_full_width_semicolon_reads_the_table(
        client: TestClient) -> None:
    record = _upload(client, "a；b\n1；2\n3；4\n".encode(), "w.csv", delimiter="；").json()
    assert (record["delimiter"], record["profile"]["rows"]) == ("；", 2)
