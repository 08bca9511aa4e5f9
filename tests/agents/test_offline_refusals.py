"""What the offline Workbench says it cannot do points the person using the app to a
screen they can open (the “Models” page, 「モデル」 in the nav), never to an environment
variable or a file only whoever started the server can change (review, point 2)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from shokunin.agents.workbench import intents, replies
from shokunin.agents.workbench.intents import Plan
from shokunin.config import Settings
from shokunin.maps import MapPackage
from tests.agents.conftest import MakeRunner, ask

PKG = MapPackage.load(Settings().map_dir)
WORKBENCH = Path(replies.__file__).parent
# An environment variable (SHOKUNIN_MODEL), the README, or a file name (.env, config.toml)
SERVER_SIDE = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}|README|\.env\b|"
                         r"\b[\w-]+\.(?:py|env|toml|md|json|ya?ml|ini|cfg)\b")
TOOLS = {"sql_engine", "calculator", "run_python", "draw_arrow", "highlight_room",
         "place_bitmap", "show_floor", "clear"}
REFUSED = ["ピザを注文して", "order a pizza", "median area of rooms", "各部屋の室温は？",
           "各部屋の利用率は？", "14時の利用率をグラフにして",
           "how many rooms have more than 10 people at 14:00", "average of the lounge at 9:30",
           "draw an arrow in the garage",
           "plot the average people per floor at 14:00", "what can you do?", "何ができますか"]


def _said(tree: ast.AST) -> list[str]:
    """The strings a module may say: every literal and f-string part, docstrings and
    ``__all__`` left out."""
    names = {id(c) for n in ast.walk(tree) if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
             for c in ast.walk(n.value)}
    docs = names | {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docs]


def test_no_text_of_the_workbench_names_an_environment_variable_or_a_file() -> None:
    found = [(path.relative_to(WORKBENCH), s) for path in sorted(WORKBENCH.rglob("*.py"))
             for s in _said(ast.parse(path.read_text(encoding="utf-8")))
             if SERVER_SIDE.search(s)]
    assert found == []


@pytest.mark.parametrize("text", REFUSED)
def test_every_refusal_note_is_free_of_server_side_names(text: str) -> None:
    plan: Plan = intents.plan(text, PKG, TOOLS)
    notes = replies.notes(plan) or [replies.help_text(plan.ja, PKG)]
    for note in notes:
        assert not SERVER_SIDE.search(note), note


@pytest.mark.parametrize(("text", "hint"), [
    ("ピザを注文して", "「モデル」の画面でモデルを設定すると答えられます"),
    ("order a pizza", "set up a model on the “Models” page"),
    ("14時の各部屋の回転率は？", "「モデル」の画面でモデルを設定すると答えられます"),
])
async def test_a_refusal_points_to_the_models_page(make_runner: MakeRunner, text: str,
                                                   hint: str) -> None:
    [reply] = [e.text for e in await ask(await make_runner(), text)  # type: ignore[attr-defined]
               if e.kind == "text"]
    assert hint in reply
    assert not SERVER_SIDE.search(reply), reply
