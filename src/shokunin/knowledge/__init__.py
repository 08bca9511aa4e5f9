"""Knowledge bases: documents ingested into chunks, searched by BM25 over CJK bigrams."""

from shokunin.knowledge.chunks import Chunk, chunk_sections
from shokunin.knowledge.configured import open_index
from shokunin.knowledge.dense import Embed, EmbedderError, load_embedder
from shokunin.knowledge.documents import SUFFIXES, Section, UnreadableDocument, read_sections
from shokunin.knowledge.index import Hit, IngestReport, KnowledgeIndex
from shokunin.knowledge.tokens import terms

__all__ = ["Chunk", "Embed", "EmbedderError", "Hit", "IngestReport", "KnowledgeIndex",
    "SUFFIXES", "Section", "UnreadableDocument", "chunk_sections", "load_embedder", "open_index",
    "read_sections", "terms"]
