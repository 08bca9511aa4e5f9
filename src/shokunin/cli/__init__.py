"""The ``shokunin`` command: one typer app, one module per command group."""

from shokunin.cli.app import app, main

__all__ = ["app", "main"]
