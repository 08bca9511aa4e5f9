"""The Studio's records: projects, agents, checkpoints, outputs and logs (seed 002).

Rows whose ids are derived (agents, checkpoints, outputs) are inserted only if absent, so a
graph node that LangGraph re-runs after an interrupt or a crash finds what it wrote before.
The ``*_write`` methods return a write for ``RunContext.emit(event, writes=...)``: a run's
record changes are stored with the event that tells of them, in one transaction.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Executable, Table, and_, bindparam, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.store import schema
from shokunin.store.event_writer import Write

projects = schema.studio_projects
agents = schema.studio_agents
checkpoints = schema.studio_checkpoints
outputs = schema.studio_outputs
logs = schema.studio_logs


def now() -> datetime:
    return datetime.now(UTC)


def _owned(query: Any, owner: str | None) -> Any:
    """``query`` of projects limited to those whose thread ``owner`` made (all if None)."""
    if owner is None:
        return query
    threads = schema.threads
    return query.join(threads, threads.c.id == projects.c.id).where(threads.c.owner == owner)


class StudioRecords:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
        # Prepared once each: the event writer compiles a statement the first time it sees it.
        self._updates: dict[tuple[str, tuple[str, ...]], Executable] = {}
        self._absent: dict[str, Executable] = {}

    # writes that go with an event
    def update_write(self, table: Table, row_id: str, values: dict[str, Any]) -> Write:
        key = (table.name, tuple(sorted(values)))
        statement = self._updates.get(key)
        if statement is None:
            statement = self._updates[key] = update(table).where(
                table.c.id == bindparam("id_")).values(
                {name: bindparam(name, type_=table.c[name].type) for name in key[1]})
        return statement, {"id_": row_id, **values}

    def insert_write(self, table: Table, row: dict[str, Any]) -> Write:
        """Insert ``row`` (every column given) unless its id exists."""
        statement = self._absent.get(table.name)
        if statement is None:
            statement = self._absent[table.name] = self._insert(table).on_conflict_do_nothing(
                index_elements=["id"])
        return statement, {c.name: row.get(c.name) for c in table.columns}

    async def _rows(self, query: Any) -> list[dict[str, Any]]:
        async with self.engine.connect() as conn:
            return [dict(r) for r in (await conn.execute(query)).mappings()]

    async def _row(self, table: Table, row_id: str) -> dict[str, Any] | None:
        rows = await self._rows(select(table).where(table.c.id == row_id))
        return rows[0] if rows else None

    async def _insert_absent(self, table: Table, row: dict[str, Any]) -> dict[str, Any]:
        """Insert ``row`` unless a row with its id exists; return the stored row."""
        async with self.engine.begin() as conn:
            await conn.execute(self._insert(table).values(**row)
                               .on_conflict_do_nothing(index_elements=["id"]))
            stored = (await conn.execute(select(table).where(table.c.id == row["id"]))
                      ).mappings().first()
            return dict(stored)  # type: ignore[arg-type]

    async def _update(self, table: Table, row_id: str, values: dict[str, Any],
                      where: Any = None) -> bool:
        condition = table.c.id == row_id if where is None else and_(table.c.id == row_id, where)
        async with self.engine.begin() as conn:
            return (await conn.execute(update(table).where(condition).values(**values))
                    ).rowcount == 1

    # projects
    async def add_project(self, row: dict[str, Any], agent_rows: list[dict[str, Any]]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(projects.insert().values(**row))
            if agent_rows:
                await conn.execute(agents.insert(), agent_rows)

    async def project(self, project_id: str, owner: str | None = None
                      ) -> dict[str, Any] | None:
        """The project; with ``owner``, only if its thread is that owner's."""
        rows = await self._rows(_owned(select(projects).where(projects.c.id == project_id),
                                       owner))
        return rows[0] if rows else None

    async def projects(self, owner: str | None = None) -> list[dict[str, Any]]:
        """Newest first; with ``owner``, only the projects whose thread that owner made."""
        return await self._rows(_owned(select(projects).order_by(
            projects.c.created_at.desc(), projects.c.id), owner))

    async def projects_with_status(self, *statuses: str) -> list[dict[str, Any]]:
        return await self._rows(select(projects).where(projects.c.status.in_(statuses)))

    async def update_project(self, project_id: str, values: dict[str, Any],
                             from_status: tuple[str, ...] | None = None,
                             where_phase_below: int | None = None) -> bool:
        """Update the project; with ``from_status``, only if its status is one of those
        (a compare-and-set: of two racing transitions, one wins); with
        ``where_phase_below``, only if its current phase is lower."""
        conditions = []
        if from_status:
            conditions.append(projects.c.status.in_(from_status))
        if where_phase_below is not None:
            conditions.append(projects.c.current_phase < where_phase_below)
        return await self._update(projects, project_id, {**values, "updated_at": now()},
                                  and_(*conditions) if conditions else None)

    async def reset_project(self, project_id: str, values: dict[str, Any],
                            agent_rows: list[dict[str, Any]]) -> None:
        """The project as new: its agents, checkpoints, outputs and logs forgotten, ``values``
        set and ``agent_rows`` its agents, in one transaction."""
        async with self.engine.begin() as conn:
            for table in (logs, outputs, checkpoints, agents):
                await conn.execute(delete(table).where(table.c.project_id == project_id))
            await conn.execute(update(projects).where(projects.c.id == project_id)
                               .values(**values, updated_at=now()))
            if agent_rows:
                await conn.execute(agents.insert(), agent_rows)

    # agents
    async def update_agents(self, agent_ids: list[str], values: dict[str, Any]) -> None:
        if agent_ids:
            async with self.engine.begin() as conn:
                await conn.execute(update(agents).where(agents.c.id.in_(agent_ids))
                                   .values(**values))

    async def agent_statuses(self, owner: str | None = None) -> dict[str, int]:
        """How many agents of the projects ``owner`` may see (all if None) have each
        status."""
        query = _owned(select(agents.c.status, func.count()).join(
            projects, projects.c.id == agents.c.project_id), owner).group_by(agents.c.status)
        async with self.engine.connect() as conn:
            return {status: n for status, n in await conn.execute(query)}

    async def agents(self, project_id: str) -> list[dict[str, Any]]:
        return await self._rows(select(agents).where(agents.c.project_id == project_id)
                                .order_by(agents.c.created_at, agents.c.id))

    async def agent(self, agent_id: str) -> dict[str, Any] | None:
        return await self._row(agents, agent_id)

    async def ensure_agent(self, row: dict[str, Any]) -> dict[str, Any]:
        return await self._insert_absent(agents, row)

    async def finished_samples(self, agent_types: list[str], limit: int
                               ) -> list[dict[str, Any]]:
        """The latest ``limit`` completed agents of each type, anywhere: the ETA's evidence.
        One query for every type (a window per type)."""
        latest = func.row_number().over(partition_by=agents.c.type,
                                         order_by=agents.c.completed_at.desc())
        ranked = (select(agents.c.type, agents.c.duration_ms, agents.c.tokens_used,
                         latest.label("n"))
                  .where(agents.c.type.in_(agent_types), agents.c.status == "completed",
                         agents.c.duration_ms.is_not(None))).subquery()
        return await self._rows(select(ranked.c.type, ranked.c.duration_ms,
                                       ranked.c.tokens_used).where(ranked.c.n <= limit))

    # checkpoints
    async def checkpoint(self, checkpoint_id: str) -> dict[str, Any] | None:
        return await self._row(checkpoints, checkpoint_id)

    async def checkpoints(self, project_id: str) -> list[dict[str, Any]]:
        return await self._rows(select(checkpoints).where(checkpoints.c.project_id == project_id)
                                .order_by(checkpoints.c.created_at, checkpoints.c.id))

    async def resolve_checkpoint(self, checkpoint_id: str, status: str,
                                 feedback: str | None) -> bool:
        """Resolve a pending checkpoint; False if it was no longer pending (one wins)."""
        at = now()
        return await self._update(checkpoints, checkpoint_id, {
            "status": status, "feedback": feedback, "resolved_at": at, "updated_at": at},
            checkpoints.c.status == "pending")

    # outputs
    async def outputs(self, *, agent_id: str | None = None,
                      project_id: str | None = None) -> list[dict[str, Any]]:
        query = select(outputs).order_by(outputs.c.created_at, outputs.c.id)
        if agent_id is not None:
            query = query.where(outputs.c.agent_id == agent_id)
        if project_id is not None:
            query = query.where(outputs.c.project_id == project_id)
        return await self._rows(query)

    async def model_calls(self, owner: str | None = None, *, project_id: str | None = None
                          ) -> list[dict[str, Any]]:
        """Each output an agent wrote is one model call: its tokens, time and agent type,
        oldest first; with ``owner``, only in that owner's projects."""
        query = select(outputs.c.id, outputs.c.project_id, outputs.c.agent_id,
                       outputs.c.output_type, outputs.c.tokens_used,
                       outputs.c.generation_time_ms, outputs.c.created_at,
                       agents.c.type.label("agent_type")).select_from(
            outputs.join(projects, projects.c.id == outputs.c.project_id).outerjoin(
                agents, agents.c.id == outputs.c.agent_id))
        if project_id is not None:
            query = query.where(outputs.c.project_id == project_id)
        return await self._rows(_owned(query, owner).order_by(outputs.c.created_at,
                                                              outputs.c.id))

    # logs
    async def log_ids(self, project_id: str) -> set[str]:
        async with self.engine.connect() as conn:
            return set((await conn.execute(select(logs.c.id).where(
                logs.c.project_id == project_id))).scalars())

    async def log_count(self, owner: str | None = None) -> int:
        """How many log entries the agents wrote; with ``owner``, in that owner's projects."""
        query = _owned(select(func.count()).select_from(
            logs.join(projects, projects.c.id == logs.c.project_id)), owner)
        async with self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def logs(self, *, agent_id: str | None = None, project_id: str | None = None,
                   limit: int = 500) -> list[dict[str, Any]]:
        """The newest ``limit`` entries, oldest first."""
        query = select(logs).order_by(logs.c.timestamp.desc(), logs.c.id.desc()).limit(limit)
        if agent_id is not None:
            query = query.where(logs.c.agent_id == agent_id)
        if project_id is not None:
            query = query.where(logs.c.project_id == project_id)
        return list(reversed(await self._rows(query)))
