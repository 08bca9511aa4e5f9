"""One error tree (errors.py): every exception class in src/shokunin is a ``ShokuninError``
with an HTTP status and an ``ErrorCode``, but for a short list of control signals; every
code is used; the tree drawn in errors.py's docstring names every class."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import shokunin
from shokunin import errors
from shokunin.errors import ErrorCode, ShokuninError

SRC = Path(shokunin.__file__).parent

# Not failures, so outside the tree (errors.py's docstring says the same): they never reach
# a client. ExportError is raised in a tool's own interpreter, where shokunin is absent.
CONTROL_SIGNALS = {
    "shokunin.runs.runner.Interrupted",  # a run waits for a human answer
    "shokunin.tools.static.Dynamic",  # read a tool's exports by running it instead
    "shokunin.sandbox.kernel.CellStopped",  # a cell stopped; its partial result goes on
    "shokunin.untrusted.Cancelled",  # the caller left, like asyncio.CancelledError
    "shokunin.tools.worker.ExportError",  # stdlib only: runs under a tool's own Python
    # a cell that failed, as LangChain's ToolException: the model reads it as the tool's
    # result, the step is recorded as failed
    "shokunin.agents.workbench.tools.run_python.CellFailed",
}
# Modules that only run inside the sandbox's kernel, launcher or template, not importable here.
NOT_IMPORTABLE = {"shokunin.sandbox.kernel_startup", "shokunin.sandbox.launcher",
                  "shokunin.sandbox.zygote",
                  "shokunin.__main__"}


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module in pkgutil.walk_packages(shokunin.__path__, "shokunin."):
        if module.name in NOT_IMPORTABLE:
            continue
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == loaded.__name__):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


CLASSES = _exception_classes()
TREE = {name: cls for name, cls in CLASSES.items() if issubclass(cls, ShokuninError)}


def test_the_walk_finds_the_tree() -> None:
    assert len(TREE) > 50 and "shokunin.runs.errors.InvalidThreadId" in TREE


def test_every_exception_class_is_a_shokunin_error_but_the_control_signals() -> None:
    outside = {name for name, cls in CLASSES.items() if not issubclass(cls, ShokuninError)}
    assert outside == CONTROL_SIGNALS


@pytest.mark.parametrize("name", sorted(TREE))
def test_a_class_carries_a_status_and_a_code(name: str) -> None:
    cls = TREE[name]
    assert isinstance(cls.code, ErrorCode), name
    assert 400 <= cls.status < 600, name


def test_the_docstring_draws_every_class_of_the_tree() -> None:
    drawn = set(re.findall(r"\b[A-Z][A-Za-z]+\b", errors.__doc__ or ""))
    missing = {cls.__name__ for cls in TREE.values()} - drawn
    assert not missing, f"add to errors.py's tree: {sorted(missing)}"


def test_every_error_code_is_used() -> None:
    """A member is used where the source names it (``ErrorCode.X``), or writes its value
    as a code (the perimeter's refusals and the wire translators write literal codes)."""
    source = "\n".join(path.read_text() for path in SRC.rglob("*.py")
                       if path != SRC / "errors.py")
    unused = [code for code in ErrorCode
              if f"ErrorCode.{code.name}" not in source and f'"{code.value}"' not in source]
    assert not unused


def test_an_instance_may_name_a_more_precise_code() -> None:
    from shokunin.runs import RunStateError

    plain, precise = RunStateError("x"), RunStateError("x", code="run_live")
    assert (plain.code, precise.code, precise.status) == ("run_error", "run_live", 409)
    with pytest.raises(ValueError, match="not_a_code"):
        RunStateError("x", code="not_a_code")  # codes come from the one enum


def test_engine_packages_raise_what_callers_catch() -> None:
    """The old bases stay as mixins: ``except ValueError`` around a map command or a
    playbook, ``except LookupError`` around a report, still catch them."""
    from shokunin.agents.analyst.report_files import NoReport
    from shokunin.maps import MapCommandError

    assert issubclass(MapCommandError, ValueError) and issubclass(NoReport, LookupError)


@pytest.mark.parametrize(("hints", "language"), [
    (("en", "ja"), "en"),  # the first hint that names one decides (the UI's cookie)
    ((None, "ja-JP,ja;q=0.9,en;q=0.8"), "ja"),  # Accept-Language, in its order
    ((None, "en-US,en;q=0.9,ja;q=0.8"), "en"),
    (("fr", "de-DE"), "en"),  # neither: English
    ((None, None, "ja_JP.UTF-8"), "ja"),  # a locale
    (("C.UTF-8",), "en"),
    (("fr:ja:en",), "ja"),  # GNU LANGUAGE's list
])
def test_the_users_language_is_read_from_what_a_face_knows(
        hints: tuple[str | None, ...], language: str) -> None:
    assert errors.user_language(*hints) == language


def test_a_locale_names_the_language_of_a_commands_user() -> None:
    assert errors.locale_language({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert errors.locale_language({"LANG": "ja_JP.UTF-8", "LC_ALL": "en_US.UTF-8"}) == "en"
    assert errors.locale_language({}) == "en"


def test_an_error_says_its_message_in_every_language_unless_it_knows_more() -> None:
    plain = ShokuninError("the message")
    assert plain.said("ja") == plain.said("en") == "the message"
