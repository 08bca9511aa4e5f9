"""The builtin generate_diagram tool: data read from JSON, tables, lists and arrows; a PNG in
the workspace drawn with a font that really has Japanese glyphs (no tofu boxes)."""

from __future__ import annotations

import importlib.util
import io
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font
from PIL import Image

from shokunin.config import Settings
from shokunin.events import BaseEvent
from shokunin.events import Image as ImageEvent
from shokunin.tools import ToolRegistry

TOOL_DIR = Path(__file__).parents[2] / "src/shokunin/tools/builtin/generate_diagram"
COSTS_JSON = '原価の内訳です: {"原材料費": 450, "労務費": 300, "経費": 150}'
COSTS_RECORDS = ('[{"label": "原材料費", "value": 450}, {"label": "労務費", "value": 300}, '
                 '{"label": "経費", "value": 150}]')
COSTS_TABLE = ("| 費目 | 2023年 | 2024年 |\n|---|---:|---:|\n| 原材料費 | 400 | 450 |\n"
               "| 労務費 | 280 | 300 |\n| 経費 | 140 | 150 |")
COSTS_LIST = "- 原材料費: 450円\n- 労務費: 300円\n- 経費：１５０円"
COSTS_PLAIN = "原材料費 450\n労務費 300\n経費 150"
STEPS_ARROWS = "1. 見積依頼 -> 2. 回答 -> 3. 価格交渉"
STEPS_UNICODE = "見積依頼 → 回答 → 価格交渉"
STEPS_LIST = "進め方:\n1. 見積依頼\n2. 回答\n3. 価格交渉"
STEPS_JSON = '{"steps": ["見積依頼", "回答", "価格交渉"]}'
STEPS_TABLE = ("| 手順 | 内容 |\n|---|---|\n| 見積依頼 | 書面で |\n| 回答 | 2週間以内 |\n"
               "| 価格交渉 | 協議 |")
LINKS_TEXT = "発注者 - 受注者\n受注者 -> 下請事業者\n公正取引委員会 と 発注者"
LINKS_JSON = '{"edges": [["発注者", "受注者"], ["受注者", "下請事業者"]]}'
LINKS_RECORDS = '[{"source": "発注者", "target": "受注者"}, {"source": "受注者", "target": "下請"}]'
LINKS_TABLE = "| 元 | 先 |\n|---|---|\n| 発注者 | 受注者 |\n| 受注者 | 下請事業者 |"


def _helper(name: str) -> ModuleType:
    """One of the tool's helper modules, imported the way the loader does (folder on path)."""
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(TOOL_DIR))
    try:
        spec = importlib.util.spec_from_file_location(name, TOOL_DIR / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(TOOL_DIR))


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    root = tmp_path_factory.mktemp("diagram")
    return ToolRegistry.from_settings(Settings(
        data_dir=root, tools_dirs=[], tool_settings_file=root / "s.json"))


async def _draw(tools: ToolRegistry, workspace: Path, kind: str, description: str,
                title: str = "原価構成", **kwargs: object) -> dict:
    return await tools.execute("generate_diagram", {
        "diagram_type": kind, "title": title, "description": description},
        workspace=workspace, **kwargs)  # type: ignore[arg-type]


def _png_size(path: str) -> tuple[int, int]:
    with Image.open(path) as image:
        assert image.format == "PNG"
        return image.size


def test_generate_diagram_is_listed_as_a_builtin_tool(tools: ToolRegistry) -> None:
    info = tools.get("generate_diagram")
    assert info.ok and info.source == "builtin" and info.title == "図生成"
    assert info.declaration["parameters"]["properties"]["diagram_type"]["enum"] == [
        "bar", "line", "flowchart", "network"]


@pytest.mark.parametrize(("kind", "description", "source", "labels", "series"), [
    ("bar", COSTS_JSON, "json", ["原材料費", "労務費", "経費"], {"値": [450, 300, 150]}),
    ("bar", COSTS_RECORDS, "json", ["原材料費", "労務費", "経費"], {"値": [450, 300, 150]}),
    ("bar", COSTS_TABLE, "table", ["原材料費", "労務費", "経費"],
     {"2023年": [400, 280, 140], "2024年": [450, 300, 150]}),
    ("bar", COSTS_LIST, "list", ["原材料費", "労務費", "経費"], {"値": [450, 300, 150]}),
    ("bar", COSTS_PLAIN, "list", ["原材料費", "労務費", "経費"], {"値": [450, 300, 150]}),
    ("line", COSTS_JSON, "json", ["原材料費", "労務費", "経費"], {"値": [450, 300, 150]}),
    ("line", COSTS_RECORDS, "json", ["原材料費", "労務費", "経費"], {"値": [450, 300, 150]}),
    ("line", COSTS_TABLE, "table", ["原材料費", "労務費", "経費"],
     {"2023年": [400, 280, 140], "2024年": [450, 300, 150]}),
    ("line", "2022年: 1,200円\n2023年: 1,350円\n2024年: 1,500円", "list",
     ["2022年", "2023年", "2024年"], {"値": [1200, 1350, 1500]}),
    ("line", '{"labels": ["4月", "5月"], "series": {"鋼材": [100, 110], "銅": [90, 95]}}',
     "json", ["4月", "5月"], {"鋼材": [100, 110], "銅": [90, 95]}),
])
async def test_charts_read_their_data_from_each_format_and_save_a_png(
        tools: ToolRegistry, tmp_path: Path, kind: str, description: str, source: str,
        labels: list[str], series: dict[str, list[float]]) -> None:
    result = await _draw(tools, tmp_path, kind, description)
    assert result["success"], result
    body = result["result"]
    assert body["source_format"] == source and body["diagram_type"] == kind
    assert body["data"]["labels"] == labels
    assert {s["name"]: s["values"] for s in body["data"]["series"]} == series
    assert "原価構成" in body["summary"] and labels[0] in body["summary"]
    [file] = result["files"]
    assert file["type"] == "image/png" and file["name"].endswith(".png")
    assert Path(file["path"]).parent == (tmp_path / "diagrams").resolve()
    assert body["path"] == f"diagrams/{file['name']}"
    width, height = _png_size(file["path"])
    assert width > 300 and height > 200
    assert "missing_glyphs" not in body


@pytest.mark.parametrize(("kind", "description", "source", "nodes", "edges"), [
    ("flowchart", STEPS_ARROWS, "arrows", ["見積依頼", "回答", "価格交渉"],
     [("見積依頼", "回答", True), ("回答", "価格交渉", True)]),
    ("flowchart", STEPS_UNICODE, "arrows", ["見積依頼", "回答", "価格交渉"],
     [("見積依頼", "回答", True), ("回答", "価格交渉", True)]),
    ("flowchart", STEPS_LIST, "list", ["見積依頼", "回答", "価格交渉"],
     [("見積依頼", "回答", True), ("回答", "価格交渉", True)]),
    ("flowchart", STEPS_JSON, "json", ["見積依頼", "回答", "価格交渉"],
     [("見積依頼", "回答", True), ("回答", "価格交渉", True)]),
    ("flowchart", STEPS_TABLE, "table", ["見積依頼", "回答", "価格交渉"],
     [("見積依頼", "回答", True), ("回答", "価格交渉", True)]),
    ("network", LINKS_TEXT, "arrows", ["発注者", "受注者", "下請事業者", "公正取引委員会"],
     [("発注者", "受注者", False), ("受注者", "下請事業者", True),
      ("公正取引委員会", "発注者", False)]),
    ("network", LINKS_JSON, "json", ["発注者", "受注者", "下請事業者"],
     [("発注者", "受注者", False), ("受注者", "下請事業者", False)]),
    ("network", LINKS_RECORDS, "json", ["発注者", "受注者", "下請"],
     [("発注者", "受注者", True), ("受注者", "下請", True)]),
    ("network", LINKS_TABLE, "table", ["発注者", "受注者", "下請事業者"],
     [("発注者", "受注者", True), ("受注者", "下請事業者", True)]),
    ("network", "A社 → B社 → C社", "arrows", ["A社", "B社", "C社"],
     [("A社", "B社", True), ("B社", "C社", True)]),
])
async def test_flowcharts_and_networks_read_nodes_and_edges_from_each_format(
        tools: ToolRegistry, tmp_path: Path, kind: str, description: str, source: str,
        nodes: list[str], edges: list[tuple[str, str, bool]]) -> None:
    result = await _draw(tools, tmp_path, kind, description, title="取引の流れ")
    assert result["success"], result
    body = result["result"]
    assert body["source_format"] == source
    assert body["data"]["nodes"] == nodes
    assert [(e["from"], e["to"], e["directed"]) for e in body["data"]["edges"]] == edges
    assert nodes[0] in body["summary"]
    _png_size(result["files"][0]["path"])


@pytest.mark.parametrize(("kind", "description", "words"), [
    ("bar", "特にデータはありません。", ["JSON", "Markdown", "原材料費: 450"]),
    ("line", '{"原材料費": "たくさん"}', ["JSON", "list lines"]),
    ("bar", '{"原材料費": NaN, "労務費": Infinity}', ["JSON"]),
    ("flowchart", "", ["A -> B -> C", "番号付き"]),
    ("network", "発注者と受注者の関係", ["A - B", "A と B", "edges"]),
])
async def test_no_data_is_a_failure_that_names_the_formats_understood(
        tools: ToolRegistry, tmp_path: Path, kind: str, description: str,
        words: list[str]) -> None:
    result = await _draw(tools, tmp_path, kind, description)
    assert result["success"] is False and result["files"] == []
    assert all(word in result["error"] for word in words), result["error"]
    assert not (tmp_path / "diagrams").exists()


async def test_an_unknown_diagram_type_is_refused_by_the_declaration(
        tools: ToolRegistry, tmp_path: Path) -> None:
    result = await _draw(tools, tmp_path, "pie", COSTS_JSON)
    assert result["success"] is False and "diagram_type" in result["error"]


async def test_python_in_the_description_is_never_evaluated(
        tools: ToolRegistry, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = f"__import__('pathlib').Path({str(marker)!r}).touch()\n- 原材料費: 450"
    result = await _draw(tools, tmp_path, "bar", text)
    assert result["success"] and result["result"]["data"]["labels"] == ["原材料費"]
    assert not marker.exists()


async def test_a_run_gets_the_diagram_as_an_image_event(tools: ToolRegistry,
                                                        tmp_path: Path) -> None:
    seen: list[BaseEvent] = []
    result = await _draw(tools, tmp_path, "bar", COSTS_JSON, emit=seen.append)
    [event] = seen
    assert isinstance(event, ImageEvent) and event.format == "png"
    assert event.path == result["result"]["path"]
    assert event.data_base64.startswith("iVBORw0KGgo")  # the PNG signature


# ---- Japanese glyphs: a test that fails when kanji would draw as empty boxes ---------------

def _render_text(text: str, font_path: str) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties

    fig = Figure(figsize=(3, 1), dpi=80)
    FigureCanvasAgg(fig)
    fig.text(0.05, 0.3, text, fontproperties=FontProperties(fname=font_path, size=20))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return Image.open(io.BytesIO(buffer.getvalue())).convert("L").tobytes()


def test_the_chosen_font_has_a_real_glyph_for_every_kanji_and_kana() -> None:
    render = _helper("diagram_render")
    path = render.japanese_font_path()
    assert Path(path).is_file()
    font = FT2Font(path)
    for char in "原価構成労務費見積依頼価格転嫁発注者下請事業者ー・。ア":
        assert font.get_char_index(ord(char)) != 0, f"{char!r} missing from {path}"


def test_different_kanji_draw_different_pixels_with_the_chosen_font_not_tofu() -> None:
    render = _helper("diagram_render")
    path = render.japanese_font_path()
    assert _render_text("原価構成", path) != _render_text("価格転嫁", path)
    # The same comparison on a font without CJK: both titles become identical boxes, which
    # is what the assertion above would see if the tool picked such a font.
    dejavu = font_manager.findfont("DejaVu Sans", fallback_to_default=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Glyph ... missing from font(s) DejaVu Sans"
        assert _render_text("原価構成", dejavu) == _render_text("価格転嫁", dejavu)


async def test_the_tool_draws_two_kanji_titles_as_two_different_images(
        tools: ToolRegistry, tmp_path: Path) -> None:
    """End to end: only the title differs; with tofu both PNGs would be pixel-identical."""
    first = await _draw(tools, tmp_path, "bar", COSTS_JSON, title="原価構成")
    second = await _draw(tools, tmp_path, "bar", COSTS_JSON, title="価格転嫁")
    with Image.open(first["files"][0]["path"]) as a, Image.open(second["files"][0]["path"]) as b:
        assert a.size == b.size
        assert a.tobytes() != b.tobytes()


def test_missing_glyphs_names_what_a_font_cannot_draw() -> None:
    render = _helper("diagram_render")
    dejavu = font_manager.findfont("DejaVu Sans", fallback_to_default=False)
    assert render.missing_glyphs("原価 abc", dejavu) == ["価", "原"]
    assert render.missing_glyphs("原価 abc", render.japanese_font_path()) == []
