"""Dense retrieval, an optional plug-in: an embedder made from a model on local disk, never
downloaded at run time. ``SHOKUNIN_KNOWLEDGE_EMBEDDER`` names a factory ``module:function``
that takes ``SHOKUNIN_KNOWLEDGE_EMBEDDING_MODEL`` (a path) and returns ``embed(texts) ->
array`` of L2-normalised rows. ``sentence_transformers`` below is the one shipped (install
sentence-transformers yourself); a search then fuses BM25's ranking with the embeddings'
by reciprocal rank."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shokunin.errors import ShokuninError

if TYPE_CHECKING:  # imported where used: a knowledge base without vectors needs none
    import numpy as np

Embed = Callable[[list[str]], "np.ndarray"]
RRF_K = 60  # reciprocal rank fusion's constant: 1 / (RRF_K + rank)


class EmbedderError(ShokuninError, ValueError):
    """An embedder that cannot be made; the message says why and what to set."""


def load_embedder(spec: str, model_path: Path | None) -> Embed:
    """The embedder ``spec`` (``module:function``) makes from ``model_path``."""
    module_name, _, function = spec.partition(":")
    if not module_name or not function:
        raise EmbedderError(f"SHOKUNIN_KNOWLEDGE_EMBEDDER must be module:function, not {spec!r}")
    if model_path is not None and not model_path.exists():
        raise EmbedderError(f"SHOKUNIN_KNOWLEDGE_EMBEDDING_MODEL {model_path} does not exist "
                            "(models are never downloaded at run time)")
    try:
        factory = getattr(importlib.import_module(module_name), function)
    except (ImportError, AttributeError) as exc:
        raise EmbedderError(f"cannot load the embedder {spec!r}: {exc}") from None
    return factory(model_path)


def sentence_transformers(model_path: Path | None) -> Embed:
    """A sentence-transformers model from a local folder, offline."""
    import numpy as np

    if model_path is None:
        raise EmbedderError("set SHOKUNIN_KNOWLEDGE_EMBEDDING_MODEL to the model's folder")
    os.environ["HF_HUB_OFFLINE"] = "1"  # a missing file is an error, never a download
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise EmbedderError("pip install sentence-transformers to use this embedder") from None
    model = SentenceTransformer(str(model_path), local_files_only=True)

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(model.encode(texts, normalize_embeddings=True), dtype=np.float32)
    return embed


def fuse(*rankings: list[int]) -> list[tuple[int, float]]:
    """Ids ranked by reciprocal rank fusion of several rankings (best first)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, chunk_id in enumerate(ranking, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: -item[1])
