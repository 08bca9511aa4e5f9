"""The Analyst face (seed 004): datasets (upload, profile, preview, delete), runs, and
sessions (a thread's datasets and its whole report)."""

from shokunin.api.analyst import datasets, runs, sessions

routers = [datasets.router, runs.router, sessions.router]

__all__ = ["routers"]
