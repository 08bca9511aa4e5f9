"""An agent's structured output as the Markdown a person reads in a checkpoint's preview."""

from __future__ import annotations

from shokunin.agents.studio.markdown import output_markdown


def test_a_document_reads_as_its_summary_and_sections() -> None:
    text = output_markdown({"summary": "雨の街を走る", "attempt": 0, "sections": [
        {"heading": "遊び方", "body": "跳ぶ"}, {"heading": "目標", "body": "逃げ切る"}]})
    assert text == "雨の街を走る\n\n## 遊び方\n\n跳ぶ\n\n## 目標\n\n逃げ切る"


def test_tasks_code_and_images_read_as_a_list_a_code_block_and_pictures() -> None:
    tasks = output_markdown({"summary": "2 件", "tasks": [
        {"id": "loop", "kind": "code", "title": "ループ", "description": "更新と描画"}]})
    assert "- **ループ** (code): 更新と描画" in tasks
    code = output_markdown({"summary": "s", "path": "src/a.js", "language": "javascript",
                            "content": "let x = 1"})
    assert "`src/a.js`" in code and "```javascript\nlet x = 1\n```" in code
    leader = output_markdown({"outputs": [
        {"agentId": "w1", "filePath": "outputs/assets/hero.svg", "summary": "主人公",
         "path": "assets/hero.svg", "svg": "<svg/>"}]}, lambda p: f"/files/{p}")
    assert "### outputs/assets/hero.svg" in leader
    assert "![hero.svg](/files/outputs/assets/hero.svg)" in leader
    assert "<svg" not in leader  # the picture, not its markup


def test_any_other_shape_reads_as_its_fields() -> None:
    text = output_markdown({"score": 3, "notes": {"a": 1}})
    assert "**score**: 3" in text and '"a": 1' in text


def test_the_offline_draft_mark_reads_as_its_note_not_python() -> None:
    text = output_markdown({"summary": "s", "draft": True, "note": "オフライン下書き: 草案です。",
                            "ready": False, "missing": None})
    assert "True" not in text and "False" not in text and "None" not in text
    assert "> オフライン下書き: 草案です。" in text and "**ready**: いいえ" in text


def test_the_offline_concept_does_not_double_the_concepts_full_stop() -> None:
    from shokunin.agents.studio.brains import _outline

    text = _outline("concept_doc", {"description": "荷物を街中に配達する。"})
    assert "。。" not in text and "配達する。" in text
