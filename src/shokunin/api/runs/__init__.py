"""The generic face of threads and runs: list and read threads, a run's events over SSE
(replay, then live), resume and cancel."""
