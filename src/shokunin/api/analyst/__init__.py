"""The Analyst face (seed 004): datasets (upload, profile, preview, delete) and runs."""

from shokunin.api.analyst import datasets, runs

routers = [datasets.router, runs.router]

__all__ = ["routers"]
