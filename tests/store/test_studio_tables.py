"""Migration v5: the Studio's tables; a project's rows go with its thread."""

from __future__ import annotations

from sqlalchemy import inspect

from shokunin.events import Log
from shokunin.store import Store, schema
from shokunin.store.studio_records import StudioRecords, now


async def test_a_project_and_its_agents_go_when_its_thread_is_deleted(db_url: str) -> None:
    store = await Store.open(db_url)
    try:
        async with store.engine.connect() as conn:
            names = await conn.run_sync(lambda c: inspect(c).get_table_names())
        assert {"studio_projects", "studio_agents", "studio_checkpoints", "studio_outputs",
                "studio_logs"} <= set(names)
        records = StudioRecords(store.engine)
        await store.ensure_thread("p1", "studio")
        at = now()
        await records.add_project({
            "id": "p1", "name": "n", "status": "draft", "current_phase": 1, "pipeline": {},
            "elapsed_seconds": 0.0, "created_at": at, "updated_at": at},
            [{"id": "a1", "project_id": "p1", "type": "concept", "status": "pending",
              "progress": 0, "tokens_used": 0, "metadata": {}, "created_at": at}])
        row = {"id": "o1", "project_id": "p1", "agent_id": "a1", "output_type": "concept_doc",
               "content": {"summary": "first"}, "tokens_used": 0, "generation_time_ms": 0,
               "created_at": at}
        # with the event that tells of it, through the event writer's one transaction
        await store.create_run("r1", "p1", "studio", {})
        for seq, content in ((1, "first"), (2, "second")):
            await store.append_event(
                Log(message="out", run_id="r1", thread_id="p1", seq=seq),
                records.insert_write(schema.studio_outputs,
                                     {**row, "content": {"summary": content}}),
                records.update_write(schema.studio_agents, "a1", {"progress": seq * 10}))
        [stored] = await records.outputs(project_id="p1")
        assert stored["content"] == {"summary": "first"}  # written once, kept after
        assert (await records.agent("a1"))["progress"] == 20
        assert [e.seq for e in await store.events_after("r1")] == [1, 2]
        assert await store.delete_thread("p1")
        assert await records.project("p1") is None
        assert await records.agents("p1") == []
        assert await records.outputs(project_id="p1") == []
    finally:
        await store.close()


async def test_projects_scoped_to_an_owner_are_only_theirs(db_url: str) -> None:
    store = await Store.open(db_url)
    try:
        records = StudioRecords(store.engine)
        at = now()
        for project_id, owner in (("pa", "key:a"), ("pb", "key:b"), ("pn", None)):
            await store.ensure_thread(project_id, "studio", owner=owner)
            await records.add_project({
                "id": project_id, "name": project_id, "status": "draft", "current_phase": 1,
                "pipeline": {}, "elapsed_seconds": 0.0, "created_at": at, "updated_at": at},
                [])
        assert [p["id"] for p in await records.projects("key:a")] == ["pa"]
        assert await records.project("pb", "key:a") is None
        assert (await records.project("pb", "key:b"))["id"] == "pb"
        assert {p["id"] for p in await records.projects()} == {"pa", "pb", "pn"}
    finally:
        await store.close()
