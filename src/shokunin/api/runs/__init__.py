"""The generic face of threads and runs: list and read threads, a run's events over SSE
(replay, then live), resume and cancel."""

from shokunin.api.runs import runs, threads

routers = [threads.router, runs.router]

__all__ = ["routers"]
