"""Draw the WikiTableQuestions held-out sample: questions and tables from the benchmark's
``pristine-unseen-tables`` split, chosen by a fixed seed, split into a tune and a test half.

    git clone https://github.com/ppasupat/WikiTableQuestions
    python bench/heldout/wtq/make_sample.py WikiTableQuestions

It writes ``wtq_tune.yaml`` and ``wtq_test.yaml`` (question, table, gold answers), and
``wtq_more.yaml``, the next 200 questions, for tuning only (read when a rule that helps the
tune half may hurt elsewhere), and copies the tables they use into ``tables/``.
WikiTableQuestions is CC BY-SA 4.0 (``LICENSE.md``).
"""

from __future__ import annotations

import csv
import random
import shutil
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
SEED = 49  # the issue that asked for it
PER_HALF = 100


def _unescape(text: str) -> str:
    return text.replace("\\n", "\n").replace("\\p", "|").replace("\\\\", "\\")


def main(root: Path) -> int:
    rows = list(csv.DictReader((root / "data" / "pristine-unseen-tables.tsv").open(
        encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE))
    random.Random(SEED).shuffle(rows)
    chosen = rows[:4 * PER_HALF]
    (HERE / "tables").mkdir(exist_ok=True)
    halves: dict[str, list[dict[str, object]]] = {"tune": [], "test": [], "more": []}
    for i, row in enumerate(chosen):
        source = root / row["context"]
        name = row["context"].removeprefix("csv/").replace("-csv/", "_")
        shutil.copyfile(source, HERE / "tables" / name)
        half = "more" if i >= 2 * PER_HALF else "tune" if i % 2 == 0 else "test"
        halves[half].append({
            "id": row["id"], "file": name, "question": row["utterance"],
            "answer": [_unescape(a) for a in row["targetValue"].split("|")]})
    for half, entries in halves.items():
        (HERE / f"wtq_{half}.yaml").write_text(
            yaml.safe_dump(entries, allow_unicode=True, sort_keys=False, width=100), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
