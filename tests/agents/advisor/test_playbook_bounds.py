"""A hostile playbook YAML (issue 34, point 11) is refused with a PlaybookError naming the
file and the bound, with either YAML loader, instead of stopping the server at start."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from shokunin import bounded_yaml
from shokunin.agents.advisor import PlaybookError, load_playbook
from tests.agents.studio.test_pipeline_file import HOSTILE


@pytest.mark.parametrize("loader", ["libyaml", "pure"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_playbook_yaml_is_refused_with_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, loader: str) -> None:
    if loader == "pure":
        monkeypatch.setattr(bounded_yaml, "_Loader", yaml.SafeLoader)
    text, why = HOSTILE[case]
    path = tmp_path / "playbook.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PlaybookError, match=why) as raised:
        load_playbook(path)
    assert str(path) in str(raised.value)


def test_anchors_and_aliases_within_the_bounds_still_load(tmp_path: Path) -> None:
    path = tmp_path / "playbook.yaml"
    path.write_text("id: p\ntitle: P\nsteps:\n  - &s {id: A, title: a, description: d, "
                    "keywords: &k [x, y]}\n  - {id: B, title: b, description: d, "
                    "keywords: *k}\n", encoding="utf-8")
    playbook = load_playbook(path)
    assert [s.keywords for s in playbook.steps] == [["x", "y"], ["x", "y"]]
