"""The Analyst's datasets REST API: upload, record, preview, delete, and its errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from shokunin.api import create_app
from shokunin.config import Settings
from tests.api.runs.test_threads_api import PrincipalFromHeader

CP932_CSV = ("年月,店舗,売上\n2024-01,㈱髙島屋①号店,1200\n2024-02,大阪店,800\n"
             "2024-03,ﾃｽﾄ店,1000\n").encode("cp932")


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", sandbox_pool_size=0, tools_dirs=[],
                    tool_settings_file=tmp_path / "s.json", **overrides)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(_settings(tmp_path, analyst_max_upload_mb=0.01))  # 10,485 bytes
    app.user_middleware.append(Middleware(PrincipalFromHeader))
    with TestClient(app) as client:
        yield client


def _error(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "code"} and body["code"] == code
    return body["error"]


def _upload(client: TestClient, content: bytes = CP932_CSV, name: str = "売上.csv",
            **fields: str) -> Any:
    return client.post("/api/analyst/datasets", files={"file": (name, content, "text/csv")},
                       data=fields)


def test_upload_detects_cp932_and_returns_the_record_and_profile(client: TestClient) -> None:
    response = _upload(client)
    assert response.status_code == 201, response.text
    record = response.json()
    assert (record["original_name"], record["encoding"], record["encoding_method"],
            record["delimiter"], record["header"], record["engine"], record["size_bytes"]) == (
        "売上.csv", "cp932", "cp932", ",", True, "pandas", len(CP932_CSV))
    profile = record["profile"]
    assert (profile["rows"], profile["column_count"]) == (3, 3)
    sales = profile["columns"][2]
    assert (sales["name"], sales["mean"], sales["min"], sales["max"]) == ("売上", 1000.0, 800,
                                                                          1200)
    assert profile["sample_rows"][0]["店舗"] == "㈱髙島屋①号店"
    thread = client.get(f"/api/threads/{record['thread_id']}").json()
    assert (thread["agent"], thread["title"]) == ("analyst", "売上.csv")
    assert client.get(f"/api/analyst/datasets/{record['id']}").json() == record


def test_preview_gives_the_first_rows(client: TestClient) -> None:
    dataset = _upload(client).json()["id"]
    preview = client.get(f"/api/analyst/datasets/{dataset}/preview", params={"rows": 2}).json()
    assert preview == {"id": dataset, "columns": ["年月", "店舗", "売上"],
                       "rows": [["2024-01", "㈱髙島屋①号店", 1200], ["2024-02", "大阪店", 800]]}
    assert len(client.get(f"/api/analyst/datasets/{dataset}/preview").json()["rows"]) == 3
    for bad in ("0", "abc", "1001", "-1"):
        _error(client.get(f"/api/analyst/datasets/{dataset}/preview", params={"rows": bad}),
               400, "bad_request")


def test_overrides_are_taken_from_the_form(client: TestClient) -> None:
    record = _upload(client, "a\tb\n1\t2\n3\t4\n".encode("utf-16"), "x.tsv",
                     delimiter="tab", header="false", encoding="UTF-16").json()
    assert (record["delimiter"], record["header"], record["encoding"],
            record["encoding_method"]) == ("\t", False, "utf-16", "override")
    assert record["profile"]["rows"] == 3
    assert record["path"].endswith("/data.tsv")


def test_delete_removes_the_dataset(client: TestClient, tmp_path: Path) -> None:
    record = _upload(client).json()
    folder = tmp_path / "data" / "workspaces" / record["thread_id"] / "datasets" / record["id"]
    assert (folder / "data.csv").read_bytes() == CP932_CSV
    assert client.delete(f"/api/analyst/datasets/{record['id']}").status_code == 204
    assert not folder.exists()
    _error(client.get(f"/api/analyst/datasets/{record['id']}"), 404, "not_found")
    _error(client.delete(f"/api/analyst/datasets/{record['id']}"), 404, "not_found")


@pytest.mark.parametrize(("content", "code"), [
    (b"", "not_a_table"),
    (bytes(range(256)) * 8, "not_a_table"),
    ("これは表ではありません。ただの文章です。\n句読点だけが並んでいます。\n".encode(),
     "not_a_table"),
    (b"a,b\n1,2\n3,4\n5,6\n7,8\n9,10,11,12\n", "bad_table"),
])
def test_a_file_that_is_not_a_table_is_400(client: TestClient, content: bytes,
                                           code: str) -> None:
    _error(_upload(client, content), 400, code)
    assert client.get("/api/threads", params={"agent": "analyst"}).json()["threads"] == []


def test_an_upload_over_the_limit_is_413(client: TestClient) -> None:
    big = b"a,b\n" + b"1,2\n" * 4000
    _error(_upload(client, big), 413, "too_large")


def test_a_chunked_upload_over_the_limit_is_413(client: TestClient) -> None:
    boundary = "xyz"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"a.csv\"\r\nContent-Type: text/csv\r\n\r\n").encode() + (
        b"a,b\n" + b"1,2\n" * 4000) + f"\r\n--{boundary}--\r\n".encode()
    chunks = iter([body[i:i + 1000] for i in range(0, len(body), 1000)])
    response = client.post("/api/analyst/datasets", content=chunks,
                           headers={"content-type": f"multipart/form-data; boundary={boundary}"})
    _error(response, 413, "too_large")


@pytest.mark.parametrize(("fields", "message"), [
    ({"encoding": "klingon"}, "unknown encoding"),
    ({"delimiter": "ab"}, "delimiter"),
    ({"header": "maybe"}, "header"),
    ({"thread_id": "bad id!"}, ""),
])
def test_bad_options_are_400(client: TestClient, fields: dict[str, str], message: str) -> None:
    response = _upload(client, **fields)
    assert response.status_code == 400 and message in response.json()["error"]


def test_missing_file_and_wrong_media_type(client: TestClient) -> None:
    _error(client.post("/api/analyst/datasets", data={"encoding": "utf-8"},
                       files={"other": ("x", b"1")}), 400, "bad_request")
    _error(client.post("/api/analyst/datasets", json={"file": "a,b"}), 415,
           "unsupported_media_type")


def test_uploads_go_to_the_named_analyst_thread_only(client: TestClient) -> None:
    first = _upload(client).json()
    second = _upload(client, thread_id=first["thread_id"]).json()
    assert second["thread_id"] == first["thread_id"] and second["id"] != first["id"]
    client.portal.call(client.app.state.engine.store.ensure_thread, "wb", "workbench")
    _error(_upload(client, thread_id="wb"), 409, "thread_belongs_to_other_face")


def test_another_owner_cannot_see_or_use_a_dataset(client: TestClient) -> None:
    alice, bob = {"x-principal": "key:alice"}, {"x-principal": "key:bob"}
    record = client.post("/api/analyst/datasets", headers=alice,
                         files={"file": ("a.csv", CP932_CSV)}).json()
    assert client.get(f"/api/analyst/datasets/{record['id']}", headers=alice).status_code == 200
    for call in (client.get, client.delete):
        _error(call(f"/api/analyst/datasets/{record['id']}", headers=bob), 404, "not_found")
    _error(client.post("/api/analyst/datasets", headers=bob, data={
        "thread_id": record["thread_id"]}, files={"file": ("a.csv", CP932_CSV)}),
        404, "not_found")


def test_datasets_survive_a_server_restart(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path))) as client:
        record = _upload(client).json()
    with TestClient(create_app(_settings(tmp_path))) as client:
        assert client.get(f"/api/analyst/datasets/{record['id']}").json() == record
        rows = client.get(f"/api/analyst/datasets/{record['id']}/preview").json()["rows"]
    assert rows[2] == ["2024-03", "ﾃｽﾄ店", 1000]


def test_a_large_upload_is_profiled_and_previewed_through_duckdb(tmp_path: Path) -> None:
    rows = "".join(f"2024-01-{1 + i % 28:02d},店{i % 3},{i}\n" for i in range(2000))
    content = ("日付,店舗,値\n" + rows).encode("cp932")
    settings = _settings(tmp_path, analyst_pandas_max_mb=len(content) / 1024 / 1024 / 2)
    with TestClient(create_app(settings)) as client:
        record = _upload(client, content).json()
        preview = client.get(f"/api/analyst/datasets/{record['id']}/preview",
                             params={"rows": 2}).json()
    assert (record["engine"], record["encoding"], record["profile"]["rows"]) == (
        "duckdb", "cp932", 2000)
    assert record["parquet_path"] == f"datasets/{record['id']}/data.parquet"
    assert record["profile"]["columns"][2]["mean"] == sum(range(2000)) / 2000
    assert preview["rows"] == [["2024-01-01", "店0", 0], ["2024-01-02", "店1", 1]]


TITLED_CSV = ("2024年度 売上一覧\n作成日,2024/4/1\n\n店舗,売上\n東京,\"¥1,200\"\n大阪,¥980\n"
              "福岡,\"¥2,345\"\n").encode()


def test_a_header_under_title_lines_is_found_and_said(client: TestClient) -> None:
    record = _upload(client, TITLED_CSV).json()
    profile = record["profile"]
    assert (profile["header_row"], [c["name"] for c in profile["columns"]]) == (4, ["店舗", "売上"])
    assert (profile["columns"][1]["dtype"], profile["columns"][1]["unit"]) == ("integer", "¥")
    preview = client.get(f"/api/analyst/datasets/{record['id']}/preview").json()
    assert preview["columns"] == ["店舗", "売上"] and preview["rows"][0] == ["東京", 1200]


def test_header_row_is_taken_from_the_form(client: TestClient) -> None:
    record = _upload(client, TITLED_CSV, header_row="2").json()  # the date line, as asked
    assert record["profile"]["header_row"] == 2
    assert [c["name"] for c in record["profile"]["columns"]] == ["作成日", "2024/4/1"]


@pytest.mark.parametrize(("fields", "status", "code", "message"), [
    ({"header_row": "0"}, 400, "bad_request", "header_row must be a whole number from 1"),
    ({"header_row": "-2"}, 400, "bad_request", "header_row"),
    ({"header_row": "abc"}, 400, "bad_request", "header_row"),
    ({"header_row": "2.5"}, 400, "bad_request", "header_row"),
    ({"header_row": "１"}, 400, "bad_request", "header_row"),
    ({"header_row": "100000"}, 400, "bad_request", "header_row"),
    ({"header_row": "3", "header": "false"}, 400, "bad_request", "header_row"),
    ({"header_row": "40"}, 400, "not_a_table", "row 40"),
    ({"header_row": "3"}, 400, "bad_table", "row 3 is empty"),
])
def test_a_bad_header_row_is_400(client: TestClient, fields: dict[str, str], status: int,
                                 code: str, message: str) -> None:
    assert message in _error(_upload(client, TITLED_CSV, **fields), status, code)


def test_a_large_upload_under_title_lines_is_read_from_its_header_by_duckdb(
        tmp_path: Path) -> None:
    rows = "".join(f"2024-01-{1 + i % 28:02d},店{i % 3},{i}\n" for i in range(2000))
    content = ("2024年度 売上一覧\n作成日,2024/4/1\n\n日付,店舗,値\n" + rows).encode("cp932")
    settings = _settings(tmp_path, analyst_pandas_max_mb=len(content) / 1024 / 1024 / 2)
    with TestClient(create_app(settings)) as client:
        record = _upload(client, content).json()
        preview = client.get(f"/api/analyst/datasets/{record['id']}/preview",
                             params={"rows": 1}).json()
    profile = record["profile"]
    assert (record["engine"], profile["header_row"], profile["rows"]) == ("duckdb", 4, 2000)
    assert preview == {"id": record["id"], "columns": ["日付", "店舗", "値"],
                       "rows": [["2024-01-01", "店0", 0]]}
