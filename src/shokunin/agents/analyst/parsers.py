"""The process the uploads' parsers fork from (``untrusted``'s forkserver): what it imports
once, and starting it before the first upload."""

from __future__ import annotations

import contextlib
import threading

from shokunin import untrusted

# The forkserver imports the parsers, and the walls each child unpickles, once; each child
# then starts in milliseconds. Arrow (pandas' strings) would otherwise reserve 1 GiB of
# address space in mimalloc at first use.
untrusted.preload("shokunin.agents.analyst.isolated", "shokunin.sandbox.parser_walls",
                  "pandas", "python_calamine", "duckdb",
                  env={"ARROW_DEFAULT_MEMORY_POOL": "system"})


def start() -> None:
    """Start the parsers' process now, in the background, rather than at the first upload:
    it imports pandas and DuckDB first (about a second), which a process that uploads once
    at start (``shokunin analyze``) overlaps with its own imports. Never raises: the upload
    that follows says why if it cannot."""
    def run() -> None:
        with contextlib.suppress(Exception):
            untrusted.run(int)  # the smallest child: it waits for those imports

    threading.Thread(target=run, name="start-parsers", daemon=True).start()
