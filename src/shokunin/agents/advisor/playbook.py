"""A playbook: the steps of a process the Advisor guides (YAML), each with its description,
example questions, key words, prompt addition (a Markdown file beside it), recommended
tools, next steps and the stages of its own process (``flow``, drawn when a user asks for a
picture of the step). The price pass-through (価格転嫁) process is the shipped default."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from shokunin import bounded_yaml
from shokunin.errors import ShokuninError

UNKNOWN = "UNKNOWN"


class PlaybookError(ShokuninError, ValueError):
    """A playbook that cannot be used; the message names the file and the problem."""


class Step(BaseModel):
    id: str = Field(pattern=r"^[A-Z][A-Z0-9_]{0,63}$")
    title: str
    description: str
    examples: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    prompt: str = ""  # the text of the step's prompt addition
    tools: list[str] = Field(default_factory=list)
    next: list[str] = Field(default_factory=list)
    knowledge: list[str] = Field(default_factory=list)  # knowledge files central to the step
    flow: list[str] = Field(default_factory=list, max_length=30)  # the step's process, in order


class Unknown(BaseModel):
    title: str = "未判定"
    description: str = ""


class Playbook(BaseModel):
    id: str
    title: str
    language: str = "ja"
    base_prompt: str = ""  # the text of the base prompt
    unknown: Unknown = Field(default_factory=Unknown)
    steps: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids(self) -> Playbook:
        ids = [s.id for s in self.steps]
        if len(set(ids)) != len(ids) or UNKNOWN in ids:
            raise ValueError(f"step ids must be unique and not {UNKNOWN}")
        unknown_next = {n for s in self.steps for n in s.next} - set(ids)
        if unknown_next:
            raise ValueError(f"next names steps that do not exist: {sorted(unknown_next)}")
        return self

    def step(self, step_id: str | None) -> Step | None:
        return next((s for s in self.steps if s.id == step_id), None)

    def title_of(self, step_id: str | None) -> str:
        step = self.step(step_id)
        return step.title if step else self.unknown.title

    def prompt_for(self, step_id: str | None) -> str:
        """The base prompt plus the step's addition."""
        step = self.step(step_id)
        if step is None:
            return self.base_prompt
        return f"{self.base_prompt}\n\n## 現在のステップ: {step.id} {step.title}\n\n{step.prompt}"


def _text(folder: Path, name: str, what: str) -> str:
    path = (folder / name).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise PlaybookError(f"{what} {name!r} is outside the playbook's folder")
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlaybookError(f"{what} {name!r}: {exc.strerror or exc}") from None


def load_playbook(path: Path) -> Playbook:
    """Read the playbook at ``path``; its prompt files are read relative to its folder."""
    try:
        data = bounded_yaml.read(path)
    except (OSError, yaml.YAMLError, UnicodeDecodeError, bounded_yaml.YamlTooLarge) as exc:
        raise PlaybookError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise PlaybookError(f"{path}: a playbook is a mapping with id, title and steps")
    folder = path.parent
    try:
        if data.get("base_prompt"):
            data["base_prompt"] = _text(folder, str(data["base_prompt"]), "base_prompt")
        for step in data.get("steps") or []:
            if isinstance(step, dict) and step.get("prompt"):
                step["prompt"] = _text(folder, str(step["prompt"]), f"step {step.get('id')}")
        return Playbook.model_validate(data)
    except PlaybookError as exc:
        raise PlaybookError(f"{path}: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise PlaybookError(f"{path}: {problems}") from None
