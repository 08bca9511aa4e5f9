"""``shokunin models test``: does the configured model answer?

It resolves the model as ``serve`` would (``SHOKUNIN_MODEL`` and the ``MODEL_*`` settings,
else what the Models page saved), makes one small call without the client's retries, and
prints one line: OK with the latency, or what failed and which setting to change, in the
locale's language. Exit status 0 when it answered (or no model is configured), 1 when not.
"""

from __future__ import annotations

import typer

app = typer.Typer(help="The chat model: test that it answers.", no_args_is_help=True)


@app.command("test")
def test(timeout: float = typer.Option(15.0, min=0.1, help="Seconds to wait for the answer "
                                       "(at most SHOKUNIN_MODEL_TIMEOUT_SEC).")) -> None:
    """Make one small call to the configured model: OK with the latency, or why not."""
    import asyncio

    # the model's client is imported only to test (a second of imports)
    from shokunin.agents.model_settings import apply_saved
    from shokunin.cli.logs import command_logs
    from shokunin.config import Settings
    from shokunin.errors import locale_language
    from shokunin.models import check_model

    command_logs()
    settings = apply_saved(Settings())
    result = asyncio.run(check_model(settings, timeout))
    said = result.said(locale_language())
    if result.ok:
        typer.echo(said)
        return
    typer.echo(f"{settings.model}: {said}", err=True)
    raise typer.Exit(1)
