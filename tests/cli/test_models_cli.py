"""``shokunin models test`` and a model's failure on the command line (issue 48.3): one or
two lines that say what failed and which setting to change, no traceback unless
``--debug`` asks; exit 1. With a model that answers: OK and the latency, exit 0. Run as a
user runs them: a subprocess of the installed command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shokunin.agents.model_settings import ModelSettings
from shokunin.config import Settings
from shokunin.models import ModelUnreachable
from tests.fake_openai import API_KEY, FakeOpenAI
from tests.live_server import free_port

pytestmark = pytest.mark.subprocess

SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"


def _shokunin(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("SHOKUNIN_", "LC_", "LANG")) and k != "OPENAI_API_KEY"}
    return subprocess.run([sys.executable, "-m", "shokunin", *args], capture_output=True,
                          text=True, timeout=180, check=False, env={
                              **base, "SHOKUNIN_DATA_DIR": str(tmp_path / "data"),
                              "COLUMNS": "200", **env})


def _closed() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"


def test_a_model_nobody_answers_at_is_one_line_and_exit_1(tmp_path: Path) -> None:
    url = _closed()
    done = _shokunin(tmp_path, "models", "test", SHOKUNIN_MODEL="openai:gpt-test",
                     SHOKUNIN_MODEL_BASE_URL=url, SHOKUNIN_MODEL_API_KEY="sk-test")
    assert done.returncode == 1
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert len(lines) <= 3, lines
    assert lines[-1] == f"openai:gpt-test: {ModelUnreachable(url).said('en')}"
    assert "Traceback" not in done.stderr


def test_the_message_is_in_the_locales_language(tmp_path: Path) -> None:
    url = _closed()
    done = _shokunin(tmp_path, "models", "test", SHOKUNIN_MODEL="openai:gpt-test",
                     SHOKUNIN_MODEL_BASE_URL=url, SHOKUNIN_MODEL_API_KEY="sk-test",
                     LANG="ja_JP.UTF-8")
    assert done.returncode == 1
    assert done.stderr.strip() == f"openai:gpt-test: {ModelUnreachable(url).said('ja')}"


def test_a_model_that_answers_is_ok_with_its_latency(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        done = _shokunin(tmp_path, "models", "test", SHOKUNIN_MODEL="openai:fake-gpt",
                         SHOKUNIN_MODEL_BASE_URL=fake.base_url, SHOKUNIN_MODEL_API_KEY=API_KEY)
        assert fake.checks == 1 and fake.requests == []
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.strip().splitlines()
    assert line.startswith("OK: openai:fake-gpt answered in ") and " ms " in line
    assert fake.base_url in line


def test_a_refused_key_names_its_setting(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        done = _shokunin(tmp_path, "models", "test", SHOKUNIN_MODEL="openai:fake-gpt",
                         SHOKUNIN_MODEL_BASE_URL=fake.base_url,
                         SHOKUNIN_MODEL_API_KEY="sk-wrong-key")
    assert done.returncode == 1
    assert "refused the API key (401)" in done.stderr
    assert "SHOKUNIN_MODEL_API_KEY" in done.stderr and "sk-wrong-key" not in done.stderr


def test_what_the_models_page_saved_is_what_is_tested(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    with FakeOpenAI() as fake:
        ModelSettings(settings).save({"provider": "openai", "model": "fake-gpt",
                                      "base_url": fake.base_url, "api_key": API_KEY})
        done = _shokunin(tmp_path, "models", "test")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("OK: openai:fake-gpt answered in ")


def test_no_model_configured_is_said_and_not_a_failure(tmp_path: Path) -> None:
    done = _shokunin(tmp_path, "models", "test")
    assert done.returncode == 0
    assert "offline" in done.stdout


def test_analyze_says_what_failed_without_a_traceback(tmp_path: Path) -> None:
    url = _closed()
    model = {"SHOKUNIN_MODEL": "openai:gpt-test", "SHOKUNIN_MODEL_BASE_URL": url,
             "SHOKUNIN_MODEL_API_KEY": "sk-test"}
    done = _shokunin(tmp_path, "analyze", str(SAMPLES / "sales_en.csv"), "total revenue",
                     **model)
    assert done.returncode == 1
    # the table, the failure (wrapped to the terminal's width), the end: no traceback
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) <= 5, done.stderr
    said = f"failed: {ModelUnreachable(url).said('en')}"
    assert " ".join(said.split()) in " ".join(done.stderr.split())
    debug = _shokunin(tmp_path, "--debug", "analyze", str(SAMPLES / "sales_en.csv"),
                      "total revenue", **model)
    assert debug.returncode == 1 and "Traceback" in debug.stderr  # asked for
