"""Long fields over HTTP (issue 37, point 3): a table with a cell past the csv module's
131,072-character limit is a dataset like any other (it was refused as malformed), and a
question past the limit every face shares is a 400 in the API's own error form."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from shokunin.agents.analyst import MAX_QUESTION_CHARS
from shokunin.api import create_app
from tests.api.analyst.test_analyst_datasets import _error, _settings, _upload
from tests.api.runs.test_threads_api import PrincipalFromHeader

LONG = "x" * 200_000


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(_settings(tmp_path_factory.mktemp("long"), allowed_hosts=["testserver"]))
    app.user_middleware.append(Middleware(PrincipalFromHeader))
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize(("table", "fields"), [
    (f"id,note\n1,{LONG}\n2,short\n", {}),
    (f'id,note\n1,"{LONG}\n{LONG}"\n2,short\n', {}),  # quoted, over two lines
    (f"id\tnote\n1\t{LONG}\n2\tshort\n", {"delimiter": "tab"}),
    (f"id；note\n1；{LONG}\n2；short\n", {"delimiter": "；"}),  # pandas' Python engine
    (f"id,{LONG}\n1,2\n3,4\n", {}),  # a header cell
], ids=["a cell", "a quoted cell of two lines", "tab", "a full-width delimiter", "a header"])
def test_a_cell_of_200000_characters_is_a_dataset_with_a_preview(
        client: TestClient, table: str, fields: dict[str, str]) -> None:
    response = _upload(client, table.encode(), "long.csv", **fields)
    assert response.status_code == 201, response.text
    record = response.json()
    assert (record["profile"]["rows"], record["profile"]["column_count"]) == (2, 2)
    preview = client.get(f"/api/analyst/datasets/{record['id']}/preview")
    assert preview.status_code == 200, preview.text
    assert len(preview.text) < 10_000  # the cell is clipped for the wire


def test_a_question_of_200000_characters_is_a_400_saying_the_limit(
        client: TestClient) -> None:
    dataset = _upload(client, b"a,b\n1,2\n3,4\n", "small.csv").json()["id"]
    response = client.post("/api/analyst/runs",
                           json={"dataset_id": dataset, "question": "q" * 200_000})
    assert f"at most {MAX_QUESTION_CHARS}" in _error(response, 400, "bad_request")


def test_a_question_of_only_spaces_is_a_400(client: TestClient) -> None:
    dataset = _upload(client, b"a,b\n1,2\n3,4\n", "small.csv").json()["id"]
    response = client.post("/api/analyst/runs", json={"dataset_id": dataset, "question": " "})
    _error(response, 400, "bad_request")
