"""``shokunin worker``: take runs from the job queue and run them (no HTTP).

Web processes (``shokunin serve``) with ``SHOKUNIN_QUEUE_URL`` set send every run here;
any number of workers share the queue. On SIGTERM or Ctrl-C a worker takes no new run,
gives the runs it has ``--grace`` seconds to end, then leaves the rest to the other
processes, as a crashed worker's: a Studio project goes on from its last checkpoint, a run
that did nothing with side effects yet starts again, any other ends failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # the engine's parts are imported to work, not by --help
    from shokunin.config import Settings

log = logging.getLogger(__name__)

NO_QUEUE = ("shokunin worker: no job queue is configured. Set SHOKUNIN_QUEUE_URL (e.g. "
            "postgresql://user:pw@host:5432/db, the same one every `shokunin serve` has), "
            "and SHOKUNIN_DATABASE_URL to the database the web processes share.")


def worker(
    concurrency: int = typer.Option(
        None, help="Runs taken at a time (default SHOKUNIN_WORKER_CONCURRENCY or 10)."),
    grace: float = typer.Option(
        30.0, help="Seconds the runs in progress get to end when the worker is stopped."),
    log_level: str = typer.Option("info", help="Log level."),
) -> None:
    """Take runs from the job queue (SHOKUNIN_QUEUE_URL) and run them."""
    from shokunin.cli.collector import starting, tune_gc
    from shokunin.config import Settings

    overrides = {"worker_concurrency": concurrency} if concurrency is not None else {}
    settings = Settings(**overrides)
    if settings.queue_url is None:
        typer.echo(NO_QUEUE, err=True)
        raise typer.Exit(2)
    with starting():  # the engine and the model's SDK imported now, frozen with the rest
        import shokunin.engine  # noqa: F401
        from shokunin.models import ModelConfigError, model_from_settings
        from shokunin.tools import install_log_masking

        try:  # a model that cannot be made stops here with one line, not a traceback
            model_from_settings(settings)
        except ModelConfigError as exc:
            typer.echo(f"shokunin: {exc}", err=True)
            raise typer.Exit(2) from None
        logging.basicConfig(level=log_level.upper(),
                            format="%(levelname)s %(name)s: %(message)s")
        install_log_masking()
    tune_gc(settings.gc_interval_sec)
    try:
        asyncio.run(_work(settings, grace))
    except Exception as exc:  # noqa: BLE001 - e.g. the queue or the database is unreachable
        typer.echo(f"shokunin worker: {exc}", err=True)
        raise typer.Exit(1) from None


async def _work(settings: Settings, grace: float) -> None:
    from shokunin.engine import Engine

    engine = await Engine.open(settings, queue="take")
    try:
        assert engine.queue is not None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        holder = engine.store.leases.holder
        log.info("worker %s takes runs from queues %s and %s", holder, engine.queue.shared,
                 engine.queue.own(holder))
        taking = asyncio.create_task(engine.queue.work(
            holder, settings.worker_concurrency, engine.runner.take), name="take-runs")
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({taking, stopping}, return_when=asyncio.FIRST_COMPLETED)
        taking.cancel()
        stopping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await taking  # re-raises what stopped it, if it stopped by itself
        log.info("worker stopping: runs in progress get %.0f s to end", grace)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                await engine.runner.drain()
        if left := await engine.runner.leave():
            log.warning("worker stopping: %d runs left to the other processes", len(left))
    finally:
        await engine.close()
