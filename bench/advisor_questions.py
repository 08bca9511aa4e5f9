"""The Advisor offline on its labelled question set (bench/advisor_questions.yaml): step
accuracy of the offline classifier (a question labelled UNKNOWN is right when nothing is
detected), and the knowledge search's hit rate: the labelled source file among the top 3
chunks. Also the confidence the classifier gave its right and wrong answers.

    python bench/advisor_questions.py [--show-misses]
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

import yaml
from rich.console import Console
from rich.table import Table

from shokunin.agents.advisor import StepClassifier, load_playbook
from shokunin.config import Settings
from shokunin.knowledge import KnowledgeIndex

QUESTIONS = Path(__file__).with_name("advisor_questions.yaml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    settings = Settings()
    questions = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        index = KnowledgeIndex(Path(tmp) / "kb.sqlite")
        index.ingest(settings.knowledge_dir)
        classifier = StepClassifier(load_playbook(settings.advisor_playbook), index)
        per_step: dict[str, Counter[str]] = {}
        confidence: Counter[tuple[str, bool]] = Counter()
        misses = []
        for item in questions:
            label, question = item["step"], item["question"]
            detection = classifier.detect(question)
            right = detection.step == label
            confidence[(detection.confidence, right)] += 1
            counts = per_step.setdefault(label, Counter())
            counts["questions"] += 1
            counts["step right"] += right
            if not right:
                misses.append(f"step {detection.step} ({detection.confidence}) for {label}: "
                              f"{question}")
            if item.get("source"):
                top = [h.source for h in index.search(question, 3)]
                counts["with source"] += 1
                counts["source in top 3"] += item["source"] in top
                if item["source"] not in top:
                    misses.append(f"source {item['source']} not in {top}: {question}")
        index.close()
    table = Table(title=f"Advisor offline, {len(questions)} labelled questions")
    for column in ("step", "questions", "step right", "source in top 3"):
        table.add_column(column, justify="right")
    total: Counter[str] = Counter()
    for step, counts in per_step.items():
        total.update(counts)
        table.add_row(step, str(counts["questions"]), str(counts["step right"]),
                      f"{counts['source in top 3']}/{counts['with source']}"
                      if counts["with source"] else "-")
    table.add_row("all", str(total["questions"]),
                  f"{total['step right']} ({total['step right'] / total['questions']:.0%})",
                  f"{total['source in top 3']}/{total['with source']} "
                  f"({total['source in top 3'] / total['with source']:.0%})")
    console.print(table)
    console.print("confidence of right / wrong steps: " + ", ".join(
        f"{level} {confidence[(level, True)]}/{confidence[(level, False)]}"
        for level in ("high", "medium", "low")))
    if args.show_misses:
        for miss in misses:
            console.print(f"miss: {miss}")


if __name__ == "__main__":
    main()
