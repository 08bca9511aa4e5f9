"""Drawing bar and line charts, flowcharts and networks to PNG bytes with matplotlib (Agg).

Thread-safe enough for the server: no pyplot and no global rcParams, each drawing builds its
own Figure and passes the Japanese font to every text explicitly. The font is the IPAexGothic
that ``matplotlib-fontja`` ships (found by path, not by importing the package, since importing
it rewrites the process-wide rcParams), else an installed Noto Sans CJK JP or IPA Gothic; a
font only counts when FreeType maps 日本語 to real glyphs.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import math
from pathlib import Path
from typing import TYPE_CHECKING

from diagram_data import ChartData, GraphData

if TYPE_CHECKING:  # matplotlib (half a second) is imported by the first drawing, not by
    # the tool's listing at every start
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties

PROBE = "日本語の図表価格転嫁"
FALLBACK_FAMILIES = ("Noto Sans CJK JP", "IPAexGothic", "IPAGothic", "TakaoGothic",
                     "VL Gothic", "Noto Sans JP")
COLORS = ["#2f6fb0", "#e07b39", "#4a9a5b", "#c0504d", "#8064a2", "#4bacc6", "#9b8b3a"]


class NoJapaneseFont(RuntimeError):
    """No installed font draws Japanese; the message says what to install."""


def missing_glyphs(text: str, font_path: str | Path) -> list[str]:
    """The characters of ``text`` that the font has no glyph for (they would draw as boxes)."""
    from matplotlib.ft2font import FT2Font

    font = FT2Font(str(font_path))
    return sorted({c for c in text if not c.isspace() and font.get_char_index(ord(c)) == 0})


@functools.cache
def japanese_font_path() -> str:
    """The path of a font with real Japanese glyphs; NoJapaneseFont when there is none."""
    candidates: list[str] = []
    spec = importlib.util.find_spec("matplotlib_fontja")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidates.append(str(Path(folder) / "fonts" / "ipaexg.ttf"))
    from matplotlib import font_manager

    by_name = {f.name: f.fname for f in font_manager.fontManager.ttflist}
    candidates += [by_name[name] for name in FALLBACK_FAMILIES if name in by_name]
    for path in candidates:
        try:
            if Path(path).is_file() and not missing_glyphs(PROBE, path):
                return path
        except (OSError, RuntimeError):  # an unreadable font file: try the next one
            continue
    raise NoJapaneseFont("日本語フォントが見つかりません。matplotlib-fontja を入れてください "
                         "(no Japanese font found: install matplotlib-fontja or Noto Sans CJK)")


def font(size: float = 11, path: str | None = None) -> FontProperties:
    from matplotlib.font_manager import FontProperties

    return FontProperties(fname=path or japanese_font_path(), size=size)


def render_chart(kind: str, title: str, data: ChartData, *, font_path: str | None = None
                 ) -> bytes:
    """A bar chart (grouped when there are several series) or a line chart, as PNG bytes."""
    from matplotlib.figure import Figure

    n = len(data.labels)
    fig = Figure(figsize=(max(6.4, min(16.0, 0.6 * n + 3)), 4.8), dpi=100)
    ax = fig.add_subplot()
    fp, small = font(13, font_path), font(9, font_path)
    positions = list(range(n))
    many = len(data.series) > 1
    width = 0.8 / len(data.series)
    for i, series in enumerate(data.series):
        color = COLORS[i % len(COLORS)]
        if kind == "bar":
            offset = (i - (len(data.series) - 1) / 2) * width
            bars = ax.bar([p + offset for p in positions], series.values, width, color=color,
                          label=series.name)
            if n * len(data.series) <= 24:
                labels = ax.bar_label(bars, labels=[short_number(v) for v in series.values],
                                      padding=2)
                for text in labels:
                    text.set_fontproperties(small)
        else:
            ax.plot(positions, series.values, marker="o", color=color, label=series.name)
    ax.set_xticks(positions)
    ax.set_xticklabels(data.labels, fontproperties=small,
                       rotation=30 if n > 6 or max(len(x) for x in data.labels) > 6 else 0,
                       ha="right" if n > 6 else "center")
    for label in ax.get_yticklabels():
        label.set_fontproperties(small)
    if data.unit:
        ax.set_ylabel(data.unit, fontproperties=small)
    if many:
        ax.legend(prop=small)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(title, fontproperties=fp)
    return _png(fig)


def render_flowchart(title: str, graph: GraphData, *, font_path: str | None = None) -> bytes:
    """Steps top to bottom in order, arrows between them (a skip or a loop is curved)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch

    n = len(graph.nodes)
    fig = Figure(figsize=(6.4, max(3.0, 1.0 * n + 1.2)), dpi=100)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.5, n - 0.5)
    fp, box = font(13, font_path), font(11, font_path)
    y = {node: n - 1 - i for i, node in enumerate(graph.nodes)}
    for node, pos in y.items():
        ax.text(0.5, pos, _wrap(node, 18), ha="center", va="center", fontproperties=box,
                bbox={"boxstyle": "round,pad=0.5", "facecolor": "#e8f0fa",
                      "edgecolor": COLORS[0]})
    for a, b in graph.edges:
        adjacent = abs(y[a] - y[b]) == 1
        ax.add_patch(FancyArrowPatch(
            (0.5, y[a]), (0.5, y[b]), arrowstyle="-|>", mutation_scale=14, color="#555555",
            shrinkA=16, shrinkB=16,
            connectionstyle="arc3" if adjacent else "arc3,rad=-0.6"))
    ax.set_title(title, fontproperties=fp)
    return _png(fig)


def render_network(title: str, graph: GraphData, *, font_path: str | None = None) -> bytes:
    """Nodes on a circle (deterministic), edges as lines or arrows."""
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch

    n = len(graph.nodes)
    fig = Figure(figsize=(7.2, 7.2), dpi=100)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.35, 1.35)
    fp, label = font(13, font_path), font(10, font_path)
    where = {node: (math.cos(math.pi / 2 - 2 * math.pi * i / n),
                    math.sin(math.pi / 2 - 2 * math.pi * i / n)) if n > 1 else (0.0, 0.0)
             for i, node in enumerate(graph.nodes)}
    for a, b in graph.edges:
        ax.add_patch(FancyArrowPatch(
            where[a], where[b], arrowstyle="-|>" if (a, b) in graph.one_way else "-",
            mutation_scale=14, color="#777777", shrinkA=22, shrinkB=22, linewidth=1.4))
    for i, (node, (x, y)) in enumerate(where.items()):
        ax.text(x, y, _wrap(node, 10), ha="center", va="center", fontproperties=label,
                bbox={"boxstyle": "circle,pad=0.4" if len(node) <= 4 else "round,pad=0.4",
                      "facecolor": "#fdf1e6", "edgecolor": COLORS[(i % 2)]})
    ax.set_title(title, fontproperties=fp)
    return _png(fig)


def _png(fig: Figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def short_number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}".rstrip("0")


def _wrap(text: str, width: int) -> str:
    """Break every ``width`` characters: Japanese has no spaces to break at."""
    return "\n".join(text[i:i + width] for i in range(0, len(text), width)) or " "
