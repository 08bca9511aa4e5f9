"""LangGraph's own checkpointer conformance suite against the saver the server opens.

``langgraph-checkpoint-conformance`` is the spec LangGraph holds every checkpointer to. It is
run here on what ``open_checkpointer`` returns for the store's database: the
``SharedWriterSqliteSaver`` of a SQLite file (writes through the store's writer, reads on a
connection of its own) and ``AsyncPostgresSaver`` over a psycopg pool.

- Every spec case is a pytest case of its own, on a fresh database, so a failure names it.
- The suite's own runner (``validate``) runs once per backend as LangGraph drives it: one
  saver for all the cases of a capability, its own capability detection, its own verdict.
- The optional (extended) capabilities a saver does not implement are listed in
  ``NOT_CLAIMED`` with the reason; their cases are reported as skipped with that reason, and
  a test holds the list to what the saver really implements (a LangGraph upgrade that adds
  one makes it fail: then run those cases instead of listing them).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import (
    ALL_CAPABILITIES,
    BASE_CAPABILITIES,
    Capability,
    DetectedCapabilities,
)
from langgraph.checkpoint.conformance.spec.test_copy_thread import ALL_COPY_THREAD_TESTS
from langgraph.checkpoint.conformance.spec.test_delete_for_runs import (
    ALL_DELETE_FOR_RUNS_TESTS,
)
from langgraph.checkpoint.conformance.spec.test_delete_thread import ALL_DELETE_THREAD_TESTS
from langgraph.checkpoint.conformance.spec.test_get_tuple import ALL_GET_TUPLE_TESTS
from langgraph.checkpoint.conformance.spec.test_list import ALL_LIST_TESTS
from langgraph.checkpoint.conformance.spec.test_prune import ALL_PRUNE_TESTS
from langgraph.checkpoint.conformance.spec.test_put import ALL_PUT_TESTS
from langgraph.checkpoint.conformance.spec.test_put_writes import ALL_PUT_WRITES_TESTS

from shokunin.store import Store, close_checkpointer, open_checkpointer
from tests.backends import database_url, postgres_available

SpecCase = Callable[[BaseCheckpointSaver], Awaitable[None]]

SPEC: dict[Capability, list[SpecCase]] = {
    Capability.PUT: ALL_PUT_TESTS,
    Capability.PUT_WRITES: ALL_PUT_WRITES_TESTS,
    Capability.GET_TUPLE: ALL_GET_TUPLE_TESTS,
    Capability.LIST: ALL_LIST_TESTS,
    Capability.DELETE_THREAD: ALL_DELETE_THREAD_TESTS,
    Capability.DELETE_FOR_RUNS: ALL_DELETE_FOR_RUNS_TESTS,
    Capability.COPY_THREAD: ALL_COPY_THREAD_TESTS,
    Capability.PRUNE: ALL_PRUNE_TESTS,
}

_NO_CALLER = "shokunin never calls it (a thread's checkpoints go with adelete_thread only)"
# Optional capabilities each saver does not implement (BaseCheckpointSaver's method, which
# raises NotImplementedError), and why that is fine.
NOT_CLAIMED: dict[str, dict[Capability, str]] = {
    "sqlite": {
        Capability.DELETE_FOR_RUNS: "optional; AsyncSqliteSaver does not implement "
                                    f"adelete_for_runs; {_NO_CALLER}",
        Capability.COPY_THREAD: "optional; AsyncSqliteSaver does not implement "
                                f"acopy_thread; {_NO_CALLER}",
        Capability.PRUNE: f"optional; AsyncSqliteSaver does not implement aprune; {_NO_CALLER}",
    },
    "postgres": {
        Capability.DELETE_FOR_RUNS: "optional; AsyncPostgresSaver does not implement "
                                    f"adelete_for_runs; {_NO_CALLER}",
        Capability.COPY_THREAD: "optional; AsyncPostgresSaver does not implement "
                                f"acopy_thread; {_NO_CALLER}",
    },
}

_PG_DOWN = pytest.mark.skipif(not postgres_available(),
                              reason="PostgreSQL not reachable on 127.0.0.1:5432")


def _backend(name: str) -> pytest.MarkDecorator | tuple[()]:
    return _PG_DOWN if name == "postgres" else ()


BACKENDS = [pytest.param(name, marks=_backend(name)) for name in NOT_CLAIMED]


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for backend in NOT_CLAIMED:
        for capability, specs in SPEC.items():
            marks = [_PG_DOWN] if backend == "postgres" else []
            reason = NOT_CLAIMED[backend].get(capability)
            if reason is not None:
                marks.append(pytest.mark.skip(reason=f"{capability.value} not claimed: {reason}"))
            cases += [pytest.param(backend, spec, marks=marks,
                                   id=f"{backend}-{capability.value}-{spec.__name__}")
                      for spec in specs]
    return cases


@asynccontextmanager
async def server_saver(backend: str, tmp_path: Path) -> AsyncIterator[BaseCheckpointSaver]:
    """The checkpointer the server opens on an empty store of ``backend``."""
    async with database_url(backend, tmp_path) as url:
        store = await Store.open(url)
        try:
            saver = await open_checkpointer(store)
            try:
                yield saver
            finally:
                await close_checkpointer(saver)
        finally:
            await store.close()


@pytest.mark.parametrize(("backend", "spec"), _cases())
async def test_the_server_saver_passes_the_langgraph_conformance_case(
    backend: str, spec: SpecCase, tmp_path: Path
) -> None:
    async with server_saver(backend, tmp_path) as saver:
        await spec(saver)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_conformance_runner_rates_the_server_saver_full(
    backend: str, tmp_path: Path
) -> None:
    async with database_url(backend, tmp_path) as url:
        store = await Store.open(url)

        @checkpointer_test(name=f"shokunin-{backend}")
        async def factory() -> AsyncIterator[BaseCheckpointSaver]:
            saver = await open_checkpointer(store)  # a fresh saver per capability
            try:
                yield saver
            finally:
                await close_checkpointer(saver)

        try:
            report = await validate(factory)
        finally:
            await store.close()
    failures = [f for result in report.results.values() for f in result.failures]
    assert report.passed_all_base() and report.passed_all(), failures
    assert report.conformance_level() == "FULL"
    ran = {name for name, result in report.results.items() if result.detected}
    assert ran == {c.value for c in ALL_CAPABILITIES - NOT_CLAIMED[backend].keys()}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_saver_implements_exactly_the_capabilities_not_listed_as_unclaimed(
    backend: str, tmp_path: Path
) -> None:
    async with server_saver(backend, tmp_path) as saver:
        detected = DetectedCapabilities.from_instance(saver)
    assert detected.detected >= BASE_CAPABILITIES
    assert detected.missing == NOT_CLAIMED[backend].keys()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_an_unclaimed_capability_is_refused_not_faked(
    backend: str, tmp_path: Path
) -> None:
    calls = {
        Capability.DELETE_FOR_RUNS: lambda s: s.adelete_for_runs(["run-1"]),
        Capability.COPY_THREAD: lambda s: s.acopy_thread("thread-a", "thread-b"),
        Capability.PRUNE: lambda s: s.aprune(["thread-a"]),
    }
    async with server_saver(backend, tmp_path) as saver:
        for capability in NOT_CLAIMED[backend]:
            with pytest.raises(NotImplementedError):
                await calls[capability](saver)
