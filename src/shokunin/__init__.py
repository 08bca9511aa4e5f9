"""shokunin: a self-hosted workbench for tool-using LLM agents."""

__version__ = "0.1.0"
