"""The knowledge index: Japanese two-character words match (FTS5's trigram tokenizer cannot
find them), BM25 puts the document about the words first, every format is read, and
ingesting again touches only what changed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib_fontja  # noqa: E402, F401 - registers the Japanese font

from shokunin.knowledge import KnowledgeIndex, terms  # noqa: E402

COST = """# 原価計算の基本

## 費目
原価は材料費、労務費、経費に分けます。

## 計算例
例（架空の数値）: 材料費 450 円、労務費 300 円、経費 150 円なら原価は 900 円です。
"""
NEGOTIATION = """# 交渉の進め方

## 申し入れ
取引先には書面で価格の見直しを申し入れます。転嫁の根拠を添えます。
"""


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    (folder / "sub").mkdir(parents=True)
    (folder / "cost.md").write_text(COST, encoding="utf-8")
    (folder / "sub" / "negotiation.txt").write_text(NEGOTIATION, encoding="utf-8")
    return folder


def test_two_character_words_match_where_a_trigram_index_finds_nothing(tmp_path: Path) -> None:
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    index.ingest(_folder(tmp_path))
    hits = index.search("原価")
    assert hits and hits[0].source == "cost.md"
    assert index.search("転嫁")[0].source == "sub/negotiation.txt"
    trigram = sqlite3.connect(":memory:")
    trigram.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
    trigram.executemany("INSERT INTO t VALUES (?)", [(COST,), (NEGOTIATION,)])
    assert trigram.execute("SELECT count(*) FROM t WHERE t MATCH '原価'").fetchone()[0] == 0


def test_the_document_about_the_question_ranks_first_with_its_heading(tmp_path: Path) -> None:
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    index.ingest(_folder(tmp_path))
    hits = index.search("原価計算の例を教えてください", limit=3)
    assert hits[0].source == "cost.md" and hits[0].heading == "原価計算の基本 > 計算例"
    assert hits[0].score > 0 and [h.score for h in hits] == sorted(
        (h.score for h in hits), reverse=True)
    assert index.search("書面での申し入れ")[0].heading == "交渉の進め方 > 申し入れ"


def test_how_many_chunks_hold_a_word_counts_the_word_not_its_pairs(tmp_path: Path) -> None:
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    index.ingest(_folder(tmp_path))
    found, total = index.frequencies(["原価", "材料費", "費材", "書面", "来期", "原価"])
    assert total == index.counts()[1]
    # 材料費 as a phrase of its pairs; 費材 pairs no chunk holds in that order
    assert found == {"原価": 2, "材料費": 2, "費材": 0, "書面": 1, "来期": 0}


def test_a_question_with_no_indexed_words_finds_nothing(tmp_path: Path) -> None:
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    index.ingest(_folder(tmp_path))
    assert terms("こんにちは") == []
    assert index.search("こんにちは") == [] and index.search("") == []
    assert index.search('"; DROP TABLE chunks; --') == []


def test_html_pdf_and_cp932_text_are_read(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "page.html").write_text(
        "<html><head><style>.x{}</style><script>var 原価=1</script></head><body>"
        "<h1>見積書</h1><p>見積書の書式を整えます。</p></body></html>", encoding="utf-8")
    (folder / "old.txt").write_bytes("単価表の作り方（髙橋）".encode("cp932"))
    matplotlib.rcParams["pdf.fonttype"] = 42
    fig = plt.figure()
    fig.text(0.1, 0.5, "労務費の指針 guideline")
    fig.savefig(folder / "guide.pdf")
    plt.close(fig)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    report = index.ingest(folder)
    assert report.added == 3 and list(report.errors) == ["broken.pdf"]
    page = index.search("見積書")[0]
    assert (page.source, page.heading) == ("page.html", "見積書")
    assert "var" not in page.text  # scripts are not text
    assert index.search("単価表")[0].text == "単価表の作り方（髙橋）"
    assert index.search("労務費 guideline")[0].heading == "guide > p.1"


def test_ingesting_again_rereads_only_changed_files_and_drops_deleted_ones(
        tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    first = index.ingest(folder)
    assert (first.added, first.chunks) == (2, index.counts()[1])
    assert index.ingest(folder).unchanged == 2
    cost = folder / "cost.md"
    cost.write_text(COST.replace("原価", "製造原価"), encoding="utf-8")
    os.utime(cost, ns=(cost.stat().st_atime_ns, cost.stat().st_mtime_ns + 10**9))
    (folder / "sub" / "negotiation.txt").unlink()
    again = index.ingest(folder)
    assert (again.updated, again.removed, again.unchanged) == (1, 1, 0)
    assert index.search("転嫁") == []
    assert "製造原価" in index.search("製造原価")[0].text
    index.close()
    reopened = KnowledgeIndex(tmp_path / "kb.sqlite")  # the index is a file: it persists
    assert reopened.counts()[0] == 1
    assert reopened.search("製造")[0].source == "cost.md"


def test_a_large_index_still_ranks_the_chunk_with_the_rare_words_first(tmp_path: Path) -> None:
    from shokunin.knowledge import Chunk
    from shokunin.knowledge.index import PRUNE_FROM

    filler = [Chunk(f"f{i}.md", "価格", f"価格の見直しと取引先への説明 その{i}")
              for i in range(PRUNE_FROM + 100)]
    target = Chunk("target.md", "金型", "金型の保管費用を取引先に請求する方法")
    lone = Chunk("lone.md", "為替", "為替予約について")
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    index.add_chunks([*filler[:1000], target, *filler[1000:], lone])
    assert index.search("取引先に金型の保管費用を請求したい")[0].source == "target.md"
    assert index.search("為替はどうなる")[0].source == "lone.md"  # one rare word: found too
    assert len(index.search("価格の見直し", limit=5)) == 5
