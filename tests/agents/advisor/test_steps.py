"""Playbooks and steps: a playbook loads with its prompt files or is refused with the file
and the problem; the offline classifier finds the step from descriptions and examples with
a confidence from its margin; the step is a focus, not a constraint."""

from __future__ import annotations

from pathlib import Path

import pytest

from shokunin.agents.advisor import (
    UNKNOWN,
    PlaybookError,
    StepClassifier,
    StepDetection,
    load_playbook,
    settle,
)
from shokunin.knowledge import KnowledgeIndex

PLAYBOOK = """
id: demo
title: デモ
base_prompt: base.md
steps:
  - id: COST
    title: 原価計算の実施
    description: 材料費・労務費・経費から製品ごとの原価を計算する。
    examples: [原価の出し方を教えて, 製品一個あたりのコストを知りたい]
    keywords: [原価, 材料費, 労務費, 経費]
    prompt: steps/cost.md
    next: [LETTER]
  - id: LETTER
    title: 書面での申し入れ
    description: 取引先に値上げを書面で申し入れる文書を作る。
    examples: [値上げのお願い文書の書き方, 申し入れ書の文例がほしい]
    keywords: [申し入れ, 文書, 書面, 文例]
    prompt: steps/letter.md
"""


def _playbook(tmp_path: Path, text: str = PLAYBOOK) -> Path:
    (tmp_path / "steps").mkdir()
    (tmp_path / "base.md").write_text("あなたは相談員です。", encoding="utf-8")
    (tmp_path / "steps" / "cost.md").write_text("原価の内訳表を作ります。", encoding="utf-8")
    (tmp_path / "steps" / "letter.md").write_text("文例を示します。", encoding="utf-8")
    path = tmp_path / "playbook.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_playbook_loads_its_prompt_files_and_builds_a_steps_prompt(tmp_path: Path) -> None:
    book = load_playbook(_playbook(tmp_path))
    assert [s.id for s in book.steps] == ["COST", "LETTER"]
    assert book.prompt_for("COST").startswith("あなたは相談員です。")
    assert "原価の内訳表を作ります。" in book.prompt_for("COST")
    assert book.prompt_for(None) == "あなたは相談員です。"
    assert book.title_of(UNKNOWN) == "未判定"


@pytest.mark.parametrize(("change", "problem"), [
    (("prompt: steps/cost.md", "prompt: steps/missing.md"), "missing.md"),
    (("prompt: steps/cost.md", "prompt: ../../etc/passwd"), "outside the playbook's folder"),
    (("next: [LETTER]", "next: [NOWHERE]"), "NOWHERE"),
    (("id: LETTER", "id: COST"), "unique"),
    (("id: LETTER", "id: unknown step"), "steps.1.id"),
    (("steps:", "steps: {"), "playbook.yaml"),
])
def test_a_broken_playbook_is_refused_naming_the_file_and_the_problem(
        tmp_path: Path, change: tuple[str, str], problem: str) -> None:
    path = _playbook(tmp_path, PLAYBOOK.replace(*change))
    with pytest.raises(PlaybookError) as caught:
        load_playbook(path)
    assert str(path) in str(caught.value) and problem in str(caught.value)


def test_the_classifier_finds_the_step_with_a_confidence_from_its_margin(
        tmp_path: Path) -> None:
    classifier = StepClassifier(load_playbook(_playbook(tmp_path)))
    cost = classifier.detect("材料費と労務費から原価を計算したい")
    assert (cost.step, cost.confidence) == ("COST", "high")
    assert "原価" in cost.reasoning and "COST" in cost.reasoning
    letter = classifier.detect("値上げの申し入れ文書")
    assert (letter.step, letter.confidence) == ("LETTER", "high")
    mixed = classifier.detect("原価と文書")  # one word of each step
    assert mixed.confidence in ("low", "medium")
    unknown = classifier.detect("こんにちは")
    assert (unknown.step, unknown.confidence) == (UNKNOWN, "low")


def _detection(step: str, confidence: str = "high") -> StepDetection:
    return StepDetection(step=step, confidence=confidence, reasoning="")  # type: ignore[arg-type]


def test_a_general_question_keeps_the_step_and_an_unclear_first_one_is_asked_back() -> None:
    assert settle("COST", _detection(UNKNOWN, "low"), None, "ありがとう").step == "COST"
    first = settle(None, _detection(UNKNOWN, "low"), None, "よろしく")
    assert (first.step, first.ask) == (None, True)


def test_another_steps_question_changes_the_step_only_when_confident() -> None:
    sure = settle("COST", _detection("LETTER", "high"), None, "申し入れ書の文例")
    assert (sure.step, sure.changed, sure.proposal) == ("LETTER", True, None)
    unsure = settle("COST", _detection("LETTER", "medium"), None, "文書は必要?")
    assert (unsure.step, unsure.changed, unsure.proposal) == ("COST", False, "LETTER")


def test_accepting_a_proposal_moves_the_step_and_other_replies_do_not() -> None:
    accepted = settle("COST", _detection(UNKNOWN, "low"), "LETTER", "はい、お願いします")
    assert (accepted.step, accepted.changed) == ("LETTER", True)
    declined = settle("COST", _detection(UNKNOWN, "low"), "LETTER", "いいえ、このままで")
    assert (declined.step, declined.changed) == ("COST", False)
    long_yes = settle("COST", _detection("COST"), "LETTER",
                      "はい、ところで原価の計算で材料費はどこまで含めますか")
    assert long_yes.step == "COST"  # a new question, not a reply to the proposal


def test_a_first_question_of_medium_confidence_sets_the_step() -> None:
    assert settle(None, _detection("COST", "medium"), None, "原価?").step == "COST"
    low = settle(None, _detection("COST", "low"), None, "原価?")
    assert (low.step, low.proposal, low.ask) == (None, "COST", True)


def test_the_knowledge_files_a_step_names_lend_it_their_vocabulary(tmp_path: Path) -> None:
    book_path = _playbook(tmp_path, PLAYBOOK.replace(
        "    prompt: steps/letter.md", "    prompt: steps/letter.md\n    knowledge: [letter.md]"))
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "letter.md").write_text(
        "# 依頼状\n\n## 宛名と署名\n依頼状の宛名は購買部長、署名は代表者とします。",
        encoding="utf-8")
    (kb / "other.md").write_text("# 雑記\n\n## 天気\n今日は晴れ。", encoding="utf-8")
    index = KnowledgeIndex(tmp_path / "kb.sqlite")
    index.ingest(kb)
    question = "依頼状の宛名と署名は誰にする？"
    assert StepClassifier(load_playbook(book_path)).detect(question).step == UNKNOWN
    detected = StepClassifier(load_playbook(book_path), index).detect(question)
    assert detected.step == "LETTER"


def test_a_single_shared_word_is_too_little_to_name_a_step(tmp_path: Path) -> None:
    classifier = StepClassifier(load_playbook(_playbook(tmp_path)))
    detected = classifier.detect("原価")
    assert (detected.step, detected.confidence) == (UNKNOWN, "low")
    assert "COST" in detected.reasoning  # it still says which step was closest
