"""Pipelines as data: the shipped one, a user's own, and files that cannot be used."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from shokunin import bounded_yaml
from shokunin.agents.studio import PipelineError, load_pipeline
from shokunin.engine import Engine
from tests.agents.studio.conftest import new_project, pending, settle, studio_settings

SMALL = """
name: two_steps
phases: [{number: 1, name: 企画}, {number: 2, name: 制作}]
agents:
  - {type: concept, phase: 1, output: concept_doc, checkpoint: concept_review,
     on_reject: phase}
  - {type: world, phase: 1, output: world_design}
  - {type: design, phase: 2, depends_on: [world], output: design_doc}
"""


def test_the_shipped_pipeline_has_the_seeds_thirteen_agent_types() -> None:
    pipeline = load_pipeline()
    types = [a.type for a in pipeline.agents] + [a.workers.type for a in pipeline.agents
                                                 if a.workers]
    assert sorted(types) == sorted([
        "concept", "design", "scenario", "character", "world", "task_split", "code_leader",
        "asset_leader", "code_worker", "asset_worker", "integrator", "tester", "reviewer"])
    assert [p.number for p in pipeline.phases] == [1, 2, 3]


@pytest.mark.parametrize(("text", "why"), [
    ("phases: [{number: 1, name: a}]\nagents:\n  - {type: design, phase: 1, "
     "depends_on: [concept], output: design_doc}", "depends on 'concept'"),
    ("phases: [{number: 1, name: a}]\nagents:\n  - {type: concept, phase: 1, "
     "output: concept_doc, checkpoint: looks_good}", "agents.0.checkpoint"),
    ("phases: [{number: 1, name: a}]\nagents:\n  - {type: concept, phase: 2, "
     "output: concept_doc}", "phase 2"),
    ("phases: [{number: 1, name: a}]\nagents:\n  - {type: concept, phase: 1, "
     "output: concept_doc}\n  - {type: concept, phase: 1, output: concept_doc}", "twice"),
    ("phases: [{number: 1, name: a}]\nagents:\n  - {type: code_leader, phase: 1, output: code,"
     " workers: {type: code_worker, tasks: code, output: code}}", "task_breakdown"),
    ("phases: [", "not valid YAML"),
    ("phases: [{number: 1, name: a}, {number: 1, name: b}]\nagents:\n  - {type: concept, "
     "phase: 1, output: concept_doc}", "distinct numbers"),
])
def test_a_pipeline_that_cannot_work_is_refused_with_the_reason(
        tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PipelineError, match=why):
        load_pipeline(path)


async def test_a_users_pipeline_runs_and_a_phase_rejection_stops_only_that_phase(
        tmp_path: Path) -> None:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL, encoding="utf-8")
    services = await Engine.open(studio_settings(tmp_path, studio_pipeline=path))
    try:
        studio = services.studio
        project = await studio.create(new_project())
        assert len(await studio.records.agents(project["id"])) == 3
        await studio.start(project["id"])
        await settle(services, project["id"])
        [concept] = await pending(services, project["id"])
        await studio.resolve(concept["id"], "rejected", "違う")
        final = await settle(services, project["id"])
        agents = {a["type"]: a["status"] for a in await studio.records.agents(project["id"])}
        # world ran beside concept; design (phase 2) needs only world, so it ran too
        assert agents == {"concept": "failed", "world": "completed", "design": "completed"}
        assert final["status"] == "failed"  # not everything was approved
    finally:
        await services.close()


async def test_a_broken_pipeline_file_leaves_the_studio_unavailable_not_the_server(
        tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("phases: []\nagents: []\n", encoding="utf-8")
    services = await Engine.open(studio_settings(tmp_path, studio_pipeline=path))
    try:
        assert services.studio is None
        assert "at least one phase and one agent" in services.why_unavailable("studio")
        assert "advisor" in services.runner.agents
    finally:
        await services.close()


def _billion_laughs() -> str:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]")
    return "\n".join(lines) + "\n"


HOSTILE = {  # issue 34, point 11: each stopped the server at start (RecursionError)
    "10,000 flow levels": ("[" * 10_000 + "]" * 10_000, "nest"),
    "10,000 block levels": ("- " * 10_000 + "x\n", "nest"),
    "1,200 mapping levels": ("".join(" " * i + "k:\n" for i in range(1_200)) + " " * 1_200
                             + "v\n", "nest"),
    "70 levels": ("phases: " + "[" * 70 + "]" * 70, "deeper than 64"),
    "a billion laughs": (_billion_laughs(), "aliases"),
    "a 100 KB title aliased 60 times": ("title: &t " + "x" * 100_000 + "\nexamples: ["
                                        + ", ".join(["*t"] * 60) + "]\n", "MiB of text"),
    "2 MiB": ("# " + "x" * 2 * 1024 * 1024 + "\n", "larger than"),
}


@pytest.mark.parametrize("loader", ["libyaml", "pure"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_pipeline_yaml_is_refused_with_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, loader: str) -> None:
    if loader == "pure":
        monkeypatch.setattr(bounded_yaml, "_Loader", yaml.SafeLoader)
    text, why = HOSTILE[case]
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PipelineError, match=why) as raised:
        load_pipeline(path)
    assert str(path) in str(raised.value)


def test_the_shipped_phases_are_named_as_the_seed_projects_backend_names_them() -> None:
    from shokunin.agents.studio.pipeline import Phase

    shipped = load_pipeline()
    assert [shipped.phase_name(n) for n in (1, 2, 3)] == [
        "Phase 1: 企画・設計", "Phase 2: 実装", "Phase 3: 統合・テスト"]
    assert Phase(number=1, name="企画").title == ""  # a file without titles: its names
