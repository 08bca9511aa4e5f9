"""The dense plug-in: an embedder named module:function from a local path, fused with BM25
by reciprocal rank, finds a paraphrase BM25 cannot; a bad plug-in is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.knowledge import Chunk, EmbedderError, KnowledgeIndex, load_embedder

SPEC = "tests.knowledge.toy_embedder:make"
CHUNKS = [Chunk("raise.md", "申し入れ", "価格改定の申し入れは書面で行います。"),
          Chunk("terms.md", "確認", "取引条件を一覧にします。"),
          Chunk("weather.md", "雑記", "今日は晴れです。")]


def test_a_paraphrase_with_no_shared_bigram_is_found_with_the_embedder(tmp_path: Path) -> None:
    plain = KnowledgeIndex(tmp_path / "plain.sqlite")
    plain.add_chunks(CHUNKS)
    assert plain.search("単価アップの伝え方") == []  # no bigram in common
    dense = KnowledgeIndex(tmp_path / "dense.sqlite", load_embedder(SPEC, None))
    dense.add_chunks(CHUNKS)
    hits = dense.search("単価アップの伝え方", limit=2)
    assert hits[0].source == "raise.md" and hits[0].score > hits[1].score
    assert dense.search("取引条件")[0].source == "terms.md"  # BM25 and embeddings agree


def test_chunks_indexed_before_the_embedder_was_set_get_their_vectors(tmp_path: Path) -> None:
    KnowledgeIndex(tmp_path / "kb.sqlite").add_chunks(CHUNKS)
    later = KnowledgeIndex(tmp_path / "kb.sqlite", load_embedder(SPEC, None))
    assert later.search("値上げ", limit=1)[0].source == "raise.md"


def test_a_deleted_document_leaves_no_vector_behind(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "raise.md").write_text("# 申し入れ\n\n価格改定の申し入れ", encoding="utf-8")
    (docs / "rain.md").write_text("# 雑記\n\n雨の日", encoding="utf-8")
    index = KnowledgeIndex(tmp_path / "kb.sqlite", load_embedder(SPEC, None))
    index.ingest(docs)
    (docs / "raise.md").unlink()
    index.ingest(docs)
    assert [h.source for h in index.search("値上げ", limit=5)] == ["rain.md"]


@pytest.mark.parametrize(("spec", "path", "problem"), [
    ("no_colon", None, "module:function"),
    ("tests.knowledge.nowhere:make", None, "cannot load"),
    (SPEC, Path("/nonexistent/model"), "never downloaded"),
    ("shokunin.knowledge.dense:sentence_transformers", None, "EMBEDDING_MODEL"),
])
def test_a_plug_in_that_cannot_be_made_says_why(spec: str, path: Path | None,
                                                 problem: str) -> None:
    with pytest.raises(EmbedderError, match=problem):
        load_embedder(spec, path)
