"""The notebook download runs outside shokunin (issue 37, point 2): it names its kernel,
reads the uploaded file from beside itself with the encoding the upload was read with, and
plots with a Japanese font where one is installed, falling back silently where none is.
Executed here by nbclient in a plain ``python3`` kernel, in a folder holding only the
notebook and the CSV."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest

from shokunin import events as ev
from shokunin.agents.analyst import report_files

pytestmark = pytest.mark.subprocess

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"
CSV = "sales_ja_cp932.csv"


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``shokunin analyze --out report.ipynb`` of a Japanese question with a chart, the
    notebook then alone in a folder with the CSV beside it."""
    work = tmp_path_factory.mktemp("analyze")
    env = {**os.environ, "SHOKUNIN_DATA_DIR": str(work / "data"), "COLUMNS": "100"}
    env.pop("SHOKUNIN_MODEL", None)
    out = work / "report.ipynb"
    done = subprocess.run([sys.executable, "-m", "shokunin", "analyze", str(SAMPLES / CSV),
                           "月別の売上高の推移", "--out", str(out)], env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    folder = tmp_path_factory.mktemp("elsewhere")
    shutil.copy(out, folder / "report.ipynb")
    shutil.copy(SAMPLES / CSV, folder / CSV)
    return folder / "report.ipynb"


def test_the_notebook_names_the_python3_kernel_and_its_language(notebook: Path) -> None:
    metadata = json.loads(notebook.read_text(encoding="utf-8"))["metadata"]
    assert metadata["kernelspec"]["name"] == "python3"
    assert metadata["language_info"]["name"] == "python"


def test_its_first_cell_says_which_file_to_put_beside_it_and_how_it_is_read(
        notebook: Path) -> None:
    nb = nbformat.read(notebook, as_version=4)
    about, setup = nb.cells[0].source, nb.cells[1].source
    assert f"`{CSV}` beside this notebook" in about and "`cp932`" in about
    assert f'DATA = "{CSV}"' in setup and 'encoding="cp932"' in setup
    assert "datasets/" not in setup and "shokunin" not in setup  # nothing of the server's


def test_it_runs_in_a_plain_kernel_and_draws_the_chart_in_a_japanese_font(
        notebook: Path) -> None:
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:  # the outputs stored from the run go: these are made here
        if cell.cell_type == "code":
            cell.outputs = []
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(notebook.parent)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert "1354660" in "".join(o.get("text", "") for o in outputs)  # 2024-12, from the CSV
    stderr = "".join(o.get("text", "") for o in outputs if o.get("name") == "stderr")
    assert "Glyph" not in stderr and "findfont" not in stderr, stderr


_NO_JAPANESE_FONT = """
import logging, sys
sys.modules["matplotlib_fontja"] = None  # as if not installed: its import fails
import matplotlib
matplotlib.use("Agg")
from matplotlib import font_manager
font_manager.fontManager.ttflist = [f for f in font_manager.fontManager.ttflist
                                    if f.name.startswith("DejaVu")]
records = []
logging.getLogger("matplotlib.font_manager").addHandler(
    type("H", (logging.Handler,), {"emit": lambda self, r: records.append(r.getMessage())})())
exec(sys.argv[1])
fig, ax = plt.subplots()
ax.set_title("monthly revenue")
fig.canvas.draw()
print(plt.rcParams["font.family"], records)
"""


def test_where_no_japanese_font_is_installed_the_default_is_used_without_a_word() -> None:
    done = subprocess.run([sys.executable, "-c", _NO_JAPANESE_FONT, report_files._FONTS],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['sans-serif'] []"


def test_a_notebook_of_a_deleted_dataset_still_names_its_kernel() -> None:
    events: list[ev.BaseEvent] = [ev.RunStarted(agent="analyst", input={"question": "q"}),
                                  ev.Code(code="1 + 1"), ev.Text(text="2")]
    nb = json.loads(report_files.notebook(events))
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert [c["cell_type"] for c in nb["cells"]] == ["markdown", "code", "markdown"]
