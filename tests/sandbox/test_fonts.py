"""Japanese plots render with the font matplotlib-fontja bundles (no tofu, any Python)."""

from __future__ import annotations

import pytest

from shokunin.sandbox import ExecPythonInput, Sandbox

pytestmark = pytest.mark.asyncio(loop_scope="module")

TITLE = (
    "import matplotlib.pyplot as plt\n"
    "from matplotlib import font_manager\n"
    "import {module} as fontja\n"
    "fig, ax = plt.subplots()\n"
    "ax.set_title('月別売上の推移')\n"
    "fig.canvas.draw()\n"
    "used = font_manager.findfont(ax.title.get_fontproperties(), fallback_to_default=False)\n"
    "print(ax.title.get_fontname(), used == fontja.get_font_ttf_path())\n"
    "plt.show()\n"
)


@pytest.mark.parametrize("module", ["matplotlib_fontja", "japanize_matplotlib"])
async def test_japanese_title_uses_the_bundled_font(sandbox: Sandbox, module: str) -> None:
    result = await sandbox.execute(
        "fonts", ExecPythonInput(code=TITLE.format(module=module), timeout_sec=60))
    assert result.ok, result
    assert result.stdout == "IPAexGothic True\n"
    assert "missing from font" not in result.stderr  # matplotlib's tofu warning
    assert len(result.plot_png_base64) == 1
