"""The knowledge index: chunks and their search terms in SQLite FTS5, ranked by BM25.

One SQLite file per knowledge base (``":memory:"`` for a throwaway one). Terms come from
``tokens.terms`` and are stored space-separated, so FTS5's ``unicode61`` tokenizer only
splits on the spaces. Ingesting a folder again re-reads only the files whose size or
modification time changed and drops the chunks of deleted files.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from shokunin.knowledge.chunks import Chunk, chunk_sections
from shokunin.knowledge.dense import Embed, fuse
from shokunin.knowledge.documents import SUFFIXES, UnreadableDocument, read_sections
from shokunin.knowledge.tokens import terms

if TYPE_CHECKING:  # imported where used: a knowledge base without vectors needs none
    import numpy as np

Progress = Callable[[int, int, str], None]  # (done, total, file)
MAX_QUERY_TERMS = 64
# A query searches with its rarest terms only: a bigram found in most chunks (する, 価格 in
# a price knowledge base) adds little to BM25 but makes every chunk a match to score.
# Below PRUNE_FROM chunks every term is cheap enough to keep. Above, a chunk must first
# hold two of the PAIR_TERMS rarest terms (FTS5 intersects their lists, so few chunks are
# scored); only when that finds too few does any one term do.
SEARCH_TERMS = 12
PAIR_TERMS = 6
COMMON_SHARE = 0.2  # of the chunks: a term found in more is left out, unless all are
PRUNE_FROM = 2000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    source TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks (source);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_terms USING fts5 (terms, tokenize = 'unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vocab USING fts5vocab (chunk_terms, 'row');
CREATE TABLE IF NOT EXISTS chunk_vectors (id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
"""
CANDIDATES = 50  # of each ranking, fused when an embedder is set


@dataclass(frozen=True)
class Hit:
    """A chunk that matched, with its BM25 score (higher is better)."""

    source: str
    heading: str
    text: str
    score: float


@dataclass
class IngestReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    chunks: int = 0
    errors: dict[str, str] = field(default_factory=dict)  # file -> why it was skipped


def match_query(words: list[str]) -> str | None:
    """The FTS5 query for ``words``: any of them, each quoted; None if there are none."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in words) or None


class KnowledgeIndex:
    """Chunks of documents, searchable by BM25 over CJK bigrams and words; with an
    ``embed`` (see ``dense``), also by embeddings, the two rankings fused."""

    def __init__(self, path: Path | str, embed: Embed | None = None) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._lock = threading.Lock()
        self.embed = embed
        # read once, until the chunks change
        self._vectors: tuple[np.ndarray, np.ndarray] | None = None  # (ids, rows)
        self._chunk_count: int | None = None
        with self._lock:
            self._db.executescript(_SCHEMA)
            if embed is not None:  # chunks indexed before the embedder was set
                with self._db:
                    self._embed_missing()

    def _embed_missing(self) -> None:
        """Embed the chunks that have no vector yet (indexed before the embedder was set)."""
        self._embed(self._db.execute(
            "SELECT c.id, c.heading, c.text FROM chunks c "
            "LEFT JOIN chunk_vectors v ON v.id = c.id WHERE v.id IS NULL").fetchall())

    def _embed(self, rows: list[tuple[int, str, str]]) -> None:
        if rows and self.embed is not None:
            import numpy as np

            vectors = self.embed([f"{heading}\n{text}" for _, heading, text in rows])
            self._db.executemany("INSERT INTO chunk_vectors VALUES (?, ?)", [
                (row[0], np.asarray(v, dtype=np.float32).tobytes())
                for row, v in zip(rows, vectors, strict=True)])
            self._changed()

    def _changed(self) -> None:
        self._vectors = self._chunk_count = None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add_chunks(self, chunks: Iterable[Chunk]) -> int:
        """Index ``chunks`` (no document bookkeeping: for built-in or generated text)."""
        with self._lock, self._db:
            return self._insert(chunks)

    def _insert(self, chunks: Iterable[Chunk]) -> int:
        """Index ``chunks`` (and embed them, with an embedder); return how many."""
        added = []
        for chunk in chunks:
            cursor = self._db.execute(
                "INSERT INTO chunks (source, heading, text) VALUES (?, ?, ?)",
                (chunk.source, chunk.heading, chunk.text))
            self._db.execute("INSERT INTO chunk_terms (rowid, terms) VALUES (?, ?)", (
                cursor.lastrowid, " ".join(terms(f"{chunk.heading}\n{chunk.text}"))))
            added.append((cursor.lastrowid, chunk.heading, chunk.text))
        self._embed(added)
        self._changed()
        return len(added)

    def _remove(self, source: str) -> None:
        self._db.execute("DELETE FROM chunk_terms WHERE rowid IN "
                         "(SELECT id FROM chunks WHERE source = ?)", (source,))
        self._db.execute("DELETE FROM chunk_vectors WHERE id IN "
                         "(SELECT id FROM chunks WHERE source = ?)", (source,))
        self._db.execute("DELETE FROM chunks WHERE source = ?", (source,))
        self._changed()
        self._db.execute("DELETE FROM documents WHERE source = ?", (source,))

    def ingest(self, folder: Path, progress: Progress | None = None) -> IngestReport:
        """Bring the index in line with the documents under ``folder``."""
        files = sorted(p for p in folder.rglob("*")
                       if p.is_file() and p.suffix.lower() in SUFFIXES)
        report = IngestReport()
        with self._lock:
            known = {s: (size, mtime) for s, size, mtime in self._db.execute(
                "SELECT source, size, mtime_ns FROM documents")}
        seen = set()
        for i, path in enumerate(files, start=1):
            source = path.relative_to(folder).as_posix()
            seen.add(source)
            stat = path.stat()
            if known.get(source) == (stat.st_size, stat.st_mtime_ns):
                report.unchanged += 1
            else:
                try:
                    chunks = chunk_sections(source, read_sections(path))
                except (UnreadableDocument, OSError) as exc:
                    report.errors[source] = str(exc)
                    chunks = None
                with self._lock, self._db:
                    self._remove(source)
                    if chunks is not None:
                        report.chunks += self._insert(chunks)
                        self._db.execute("INSERT INTO documents VALUES (?, ?, ?)",
                                         (source, stat.st_size, stat.st_mtime_ns))
                if chunks is not None:
                    if source in known:
                        report.updated += 1
                    else:
                        report.added += 1
            if progress is not None:
                progress(i, len(files), source)
        with self._lock, self._db:
            for source in set(known) - seen:
                self._remove(source)
                report.removed += 1
        return report

    def _search_terms(self, query: str) -> tuple[list[str], bool]:
        """The query's terms, and whether the index is large: then only its rarest, rarest
        first (see SEARCH_TERMS)."""
        unique = list(dict.fromkeys(terms(query)))[:MAX_QUERY_TERMS]
        if self._chunk_count is None:  # a count(*) scans every chunk: not on each query
            self._chunk_count = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        chunks = self._chunk_count
        if not unique or chunks < PRUNE_FROM:
            return unique, False
        marks = ",".join("?" * len(unique))
        frequency = dict(self._db.execute(
            f"SELECT term, doc FROM chunk_vocab WHERE term IN ({marks})", unique).fetchall())
        found = sorted((t for t in unique if t in frequency), key=frequency.__getitem__)
        rare = [t for t in found if frequency[t] <= COMMON_SHARE * chunks]
        return (rare or found)[:SEARCH_TERMS], True

    def _matching(self, match: str, limit: int) -> list[tuple[int, str, str, str, float]]:
        return self._db.execute(
            "SELECT c.id, c.source, c.heading, c.text, -bm25(chunk_terms) AS score "
            "FROM chunk_terms JOIN chunks c ON c.id = chunk_terms.rowid "
            "WHERE chunk_terms MATCH ? ORDER BY bm25(chunk_terms) LIMIT ?",
            (match, limit)).fetchall()

    def _bm25(self, query: str, limit: int) -> list[tuple[int, str, str, str, float]]:
        words, pruned = self._search_terms(query)
        match = match_query(words)
        if match is None:
            return []
        rows = []
        if pruned and len(words) >= 2:
            rare = [match_query([w]) for w in words[:PAIR_TERMS]]
            pairs = " OR ".join(f"({a} AND {b})" for i, a in enumerate(rare)
                                for b in rare[i + 1:])
            rows = self._matching(pairs, limit)
        if len(rows) < limit:
            rows = self._matching(match, limit)
        return rows

    def _dense(self, query: str, limit: int) -> list[int]:
        import numpy as np

        assert self.embed is not None
        if self._vectors is None:
            pairs = self._db.execute("SELECT id, vector FROM chunk_vectors").fetchall()
            ids = np.array([i for i, _ in pairs], dtype=np.int64)
            rows = (np.stack([np.frombuffer(v, dtype=np.float32) for _, v in pairs])
                    if pairs else np.zeros((0, 1), dtype=np.float32))
            self._vectors = (ids, rows)
        ids, rows = self._vectors
        if len(ids) == 0:
            return []
        similarity = rows @ np.asarray(self.embed([query])[0], dtype=np.float32)
        best = np.argsort(-similarity)[:limit]
        return [int(ids[i]) for i in best]

    def search(self, query: str, limit: int = 5) -> list[Hit]:
        """The ``limit`` best chunks for ``query``, best first; [] when nothing matches.
        The score is BM25's, or with an embedder the fused reciprocal-rank score."""
        with self._lock:
            if self.embed is None:
                return [Hit(*row[1:]) for row in self._bm25(query, limit)]
            if not query.strip():
                return []
            lexical = self._bm25(query, CANDIDATES)
            fused = fuse([row[0] for row in lexical], self._dense(query, CANDIDATES))[:limit]
            known = {row[0]: row[1:4] for row in lexical}
            missing = [i for i, _ in fused if i not in known]
            if missing:
                marks = ",".join("?" * len(missing))
                known.update({row[0]: row[1:] for row in self._db.execute(
                    f"SELECT id, source, heading, text FROM chunks WHERE id IN ({marks})",
                    missing)})
        return [Hit(*known[i], score=score) for i, score in fused]

    def frequencies(self, words: Iterable[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each of ``words``, and how many chunks there are: what makes
        a word specific in this knowledge base. A word is one run of kanji, of katakana or of
        letters, found as the phrase of its terms (原価計算: 原価 価計 計算)."""
        out: dict[str, int] = {}
        with self._lock:
            total = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
            for word in dict.fromkeys(words):
                grams = terms(word)[:max(1, len(word) - 1)]  # a run's bigrams lead
                if not grams:
                    continue
                phrase = '"' + " ".join(g.replace('"', '""') for g in grams) + '"'
                out[word] = self._db.execute(
                    "SELECT count(*) FROM chunk_terms WHERE chunk_terms MATCH ?",
                    (phrase,)).fetchone()[0]
        return out, total

    def counts(self) -> tuple[int, int]:
        """(documents, chunks) in the index."""
        with self._lock:
            docs = self._db.execute("SELECT count(*) FROM documents").fetchone()[0]
            chunks = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return docs, chunks
