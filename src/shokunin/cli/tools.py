"""PLACEHOLDER (tools helper replaces): ``shokunin tools ...``."""
import typer

app = typer.Typer(help="Tools (seed 003): list, show, run, new, settings.")
