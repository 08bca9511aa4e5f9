"""The server's knowledge index, as Settings describe it."""

from __future__ import annotations

from shokunin.config import Settings
from shokunin.knowledge.dense import load_embedder
from shokunin.knowledge.index import KnowledgeIndex


def open_index(settings: Settings) -> KnowledgeIndex:
    """The index file, with the dense plug-in when one is set. Raises ``EmbedderError``."""
    embed = (load_embedder(settings.knowledge_embedder, settings.knowledge_embedding_model)
             if settings.knowledge_embedder else None)
    return KnowledgeIndex(settings.knowledge_index_path, embed)
