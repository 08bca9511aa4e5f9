"""bounded_yaml: the node count counts an alias as what it repeats, nested anchors too."""

from __future__ import annotations

import pytest

from shokunin import bounded_yaml


def test_nested_aliases_count_as_their_expansion(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounded_yaml, "MAX_NODES", 1_000)
    text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    assert len(bounded_yaml.loads(text)["b"]) == 9  # about 100 nodes
    with pytest.raises(bounded_yaml.YamlTooLarge, match="aliases"):
        bounded_yaml.loads(text + "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n")


def test_an_alias_inside_deep_nesting_counts_the_depth_it_repeats() -> None:
    deep = "[" * 40 + "]" * 40
    assert bounded_yaml.loads(f"a: &a {deep}\nb: {'[' * 20}*a{']' * 20}\n")
    with pytest.raises(bounded_yaml.YamlTooLarge, match="deeper"):
        bounded_yaml.loads(f"a: &a {deep}\nb: {'[' * 30}*a{']' * 30}\n")


def test_an_alias_counts_the_text_of_the_scalars_it_repeats(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounded_yaml, "MAX_TEXT", 10_000)
    text = f"a: &a {'x' * 1_000}\nb: &b [*a, *a, *a, *a]\n"  # about 5,000 characters
    assert len(bounded_yaml.loads(text)["b"]) == 4
    with pytest.raises(bounded_yaml.YamlTooLarge, match="of text"):
        bounded_yaml.loads(text + "c: [*b, *b]\n")  # about 13,000
