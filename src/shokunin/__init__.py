"""shokunin: a self-hosted workbench for tool-using LLM agents."""

__version__ = "0.1.0"

__all__ = ["__version__"]
