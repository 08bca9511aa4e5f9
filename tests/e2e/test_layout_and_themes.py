"""Every face at a desktop's and a phone's width, in the light and the dark theme (issue 48,
point 7), in a real browser: the page never scrolls sideways and nothing sticks out past the
screen's edges, the face's main input can be scrolled to and is seen whole, and in the dark
theme (the system's `prefers-color-scheme: dark`, emulated) the page is dark with light text.
In both themes every visible text meets WCAG AA contrast on what is behind it.

Each face is first used as a person would (a message sent, a table asked about, a project
started), so the checks see its conversation, code, plots and tables, not an empty page.
The light theme's screenshots are the docs' pictures: with SHOKUNIN_UPDATE_SCREENSHOTS=1 they
are written to docs/img/<face>-<desktop|phone>.png; otherwise they go, like the dark ones
always do, to the test's tmp folder, so a test run never rewrites tracked files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.test_walls_notice import NO_OWN_UID, REFUSED, ROOT, serve_health
from tests.live_server import LiveServer

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1280, 800), "phone": (375, 740)}
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
UPDATE_DOCS = os.environ.get("SHOKUNIN_UPDATE_SCREENSHOTS") == "1"
SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"
LOGIN_TOKEN = "layout-admin-token-0123456789"

# What sticks out sideways: the page or <main> (the page's scroller on narrow screens)
# scrolling sideways, or a visible element past the screen's left or right edge that no
# scroller of its own (a code block, a wide table, the tab row) holds.
SIDEWAYS = """() => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  const root = document.scrollingElement;
  if (root.scrollWidth > vw) out.push(`the page scrolls sideways: ${root.scrollWidth} > ${vw}`);
  const main = document.querySelector("main");
  if (main && main.scrollWidth > main.clientWidth) {
    out.push(`<main> scrolls sideways: ${main.scrollWidth} > ${main.clientWidth}`);
  }
  const pageLevel = new Set([document.documentElement, document.body, main]);
  const held = (node) => {
    for (let p = node.parentElement; p && !pageLevel.has(p); p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible") return true;
    }
    return false;
  };
  for (const node of document.body.querySelectorAll("*")) {
    if (!node.checkVisibility({ checkVisibilityCSS: true })) continue;
    const r = node.getBoundingClientRect();
    if (!r.width || !r.height || (r.left >= -0.5 && r.right <= vw + 0.5) || held(node)) continue;
    out.push(`${node.tagName.toLowerCase()}.${[...node.classList].join(".")} ` +
             `spans ${Math.round(r.left)}..${Math.round(r.right)} of ${vw}`);
  }
  return out.slice(0, 12);
}"""

# Every visible text (an element with a text node of its own, or a filled input) whose colour
# is below WCAG AA against its background (its ancestors' backgrounds composited): 4.5:1, or
# 3:1 for large text. Inactive and in-between states (disabled buttons, queued messages: any
# opacity below 1 on the way up) are exempt, as WCAG exempts inactive controls.
LOW_CONTRAST = """() => {
  const rgba = (css) => {
    const m = css.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const v = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(parseFloat);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]))
    .concat([1]);
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (node) => {
    const layers = [];
    for (let p = node; p; p = p.parentElement) {
      const c = rgba(getComputedStyle(p).backgroundColor);
      if (c && c[3] > 0) layers.push(c);
      if (c && c[3] >= 1) break;
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const faded = (node) => {
    for (let p = node; p; p = p.parentElement) {
      if (parseFloat(getComputedStyle(p).opacity) < 1) return true;
    }
    return false;
  };
  const skip = "script, style, noscript, option, svg, svg *";
  const out = [];
  for (const node of document.body.querySelectorAll("*")) {
    if (node.matches(skip) || !node.checkVisibility({ checkVisibilityCSS: true })) continue;
    const own = [...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const filled = node.matches("input:not([type=checkbox]):not([type=file]), textarea")
      && node.value;
    if (!own && !filled) continue;
    const r = node.getBoundingClientRect();
    if (!r.width || !r.height || faded(node) || node.closest(":disabled")) continue;
    const style = getComputedStyle(node);
    const bg = background(node);
    const fg = over(rgba(style.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && parseInt(style.fontWeight, 10) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      const text = (filled ? node.value : node.textContent).trim().slice(0, 30);
      out.push(`${node.tagName.toLowerCase()}.${[...node.classList].join(".")} ` +
               `"${text}" ${ratio.toFixed(2)}:1 (${style.color} on rgb(${bg.slice(0, 3)}))`);
    }
  }
  return out.slice(0, 12);
}"""


# -- using each face as a person would

def use_workbench(ui: Any) -> None:
    ui.open("#/workbench")
    ui.wait_connected()
    ui.send("Kitchenに左矢印を表示して")
    ui.send("plot room areas")
    expect(ui.page.locator(".thumb img")).to_have_js_property("complete", True)


def use_tools(ui: Any) -> None:
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="calculator"]')
    page.fill('.field[data-field="expression"] input', "1200 * 8%")
    page.click(".run-button")
    page.wait_for_selector(".result-box:not([hidden])")


def use_analyst(ui: Any) -> None:
    page = ui.open("#/analyst")
    page.set_input_files(".analyst-drop input", str(SAMPLES / "sales_ja_cp932.csv"))
    page.wait_for_selector(".analyst-preview table")
    page.fill(".analyst-question", "売上高の月別推移")
    page.click(".analyst-ask button[type=submit]")
    page.wait_for_selector(".analyst-report")
    expect(page.locator(".analyst-plot")).to_have_js_property("complete", True)


def use_advisor(ui: Any) -> None:
    page = ui.open("#/advisor")
    page.wait_for_selector('.conn-status[data-status="ready"]')
    for field, value in {"industry": "金属加工業", "products": "自動車部品",
                         "companySize": "従業員50名", "region": "愛知県",
                         "clientIndustry": "自動車メーカー",
                         "priceTransferStatus": "まだ交渉していない"}.items():
        page.fill(f"#advisor-{field}", value)
    page.click(".advisor-profile button[type=submit]")
    expect(page.locator(".advisor-profile-view")).to_be_visible()
    for question in ("材料費と労務費が上がったので原価を計算し直したい。450+300+150",
                     "原価の内訳をグラフにしてください。材料費: 450、労務費: 300、経費: 150"):
        page.fill(".advisor-input", question)
        page.press(".advisor-input", "Enter")
        expect(page.locator(".advisor-cancel")).to_be_hidden()
        expect(page.locator(".advisor-send")).to_be_enabled()
    expect(page.locator(".advisor-diagram img")).to_have_js_property("complete", True)


def use_studio(ui: Any) -> None:
    page = ui.open("#/studio")
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "ready")
    page.fill("#studio-name", "宇宙シューター")
    page.fill("#studio-description", "画面幅とテーマの確認用")
    page.fill("#studio-concept", "小惑星帯を飛び回って敵を撃つ、短時間で遊べるシューティング")
    page.fill("#studio-genre", "シューティング")
    page.fill("#studio-targetAudience", "通勤中の大人")
    page.click(".studio-create button[type=submit]")
    page.click('.studio-actions button[data-action="start"]')
    expect(page.locator('.studio-checkpoint[data-type="concept_review"]')).to_have_count(1)


@dataclass(frozen=True)
class Face:
    name: str
    use: Callable[[Any], None]
    main_input: str
    # per width, the screenshot shows this element scrolled into view, to its "start" (and
    # its own content to its top) or to its "end"
    views: dict[str, tuple[str, str]]


def _views(desktop: tuple[str, str], phone: tuple[str, str] | None = None) -> dict[str, Any]:
    return {"desktop": desktop, "phone": phone or desktop}


FACES = [
    Face("workbench", use_workbench, ".chat-input", _views((".pane-chat", "end"))),
    Face("tools", use_tools, '.field[data-field="expression"] input',
         _views((".tool-detail", "start"))),
    Face("analyst", use_analyst, ".analyst-question",
         _views((".analyst-plot", "start"), (".analyst-main", "end"))),
    Face("advisor", use_advisor, ".advisor-input", _views((".advisor-main", "end"))),
    Face("studio", use_studio, ".studio-checkpoint textarea", _views((".studio-layout", "start"))),
]


# -- the checks

def luminance(css: str) -> float:
    r, g, b = (float(v) for v in css[css.index("(") + 1:].rstrip(")").split(",")[:3])
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
           for v in (r / 255, g / 255, b / 255)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def assert_fits(page: Any) -> None:
    assert page.evaluate(SIDEWAYS) == []


def assert_reachable(page: Any, selector: str) -> None:
    """The element can be scrolled to without scrolling sideways, and is then seen whole:
    inside the viewport and not covered by anything."""
    node = page.locator(selector).first
    node.scroll_into_view_if_needed()
    expect(node).to_be_visible()
    box = node.bounding_box()
    size = page.viewport_size
    assert box is not None
    # (scroll offsets are whole pixels, boxes are not, and the page and <main> each round
    # their scroll range down: two pixels' slack, far less than any cut a person would see)
    assert box["x"] >= -2 and box["x"] + box["width"] <= size["width"] + 2, (selector, box)
    assert box["y"] >= -2 and box["y"] + box["height"] <= size["height"] + 2, (selector, box)
    assert page.evaluate("[document.scrollingElement.scrollLeft,"
                         " document.querySelector('main').scrollLeft]") == [0, 0]
    assert node.evaluate("""n => {
        const r = n.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return n === hit || n.contains(hit);
    }"""), f"{selector} is covered"


def assert_theme(page: Any, scheme: str) -> None:
    body = page.evaluate("""() => { const s = getComputedStyle(document.body);
                                    return [s.backgroundColor, s.color]; }""")
    bg, fg = (luminance(c) for c in body)
    if scheme == "dark":
        assert bg < 0.05 and fg > 0.6, f"not a dark page with light text: {body}"
    else:
        assert bg > 0.8 and fg < 0.05, f"not a light page with dark text: {body}"
    assert page.evaluate(LOW_CONTRAST) == []


def shoot(page: Any, path: Path, view: tuple[str, str]) -> None:
    page.mouse.move(1, 1)  # over the brand, which has no hover look
    page.evaluate("""([selector, block]) => {
        document.activeElement?.blur();  // no focus ring in the picture
        const node = document.querySelector(selector);
        node.scrollIntoView({block});
        if (block === "start") node.scrollTop = 0;
    }""", list(view))
    page.screenshot(path=str(path))


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the light theme's screenshots go: the docs' folder only when asked."""
    return DOCS_IMG if UPDATE_DOCS else tmp_path


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("face", FACES, ids=[f.name for f in FACES])
def test_a_face_fits_the_screen_in_both_themes(make_page: Any, live_server: LiveServer,
                                               shots: Path, tmp_path: Path, face: Face,
                                               width: str) -> None:
    ui = make_page(live_server, viewport=WIDTHS[width])
    page = ui.page
    page.set_default_timeout(60_000)  # a plot starts a kernel on a busy two-core machine
    serve_health(page, ROOT)  # no walls notice: the notice has its own test below
    face.use(ui)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert_theme(page, scheme)
        assert_fits(page)
        assert_reachable(page, face.main_input)
        assert_fits(page)
        folder = shots if scheme == "light" else tmp_path
        suffix = "" if scheme == "light" else "-dark"
        shoot(page, folder / f"{face.name}-{width}{suffix}.png", face.views[width])
    assert ui.errors == []


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_walls_notice_fits_and_reads_in_both_themes(make_page: Any, live_server: LiveServer,
                                                        tmp_path: Path, width: str) -> None:
    ui = make_page(live_server, viewport=WIDTHS[width])
    page = ui.page
    for name, sandbox in (("refused", REFUSED), ("missing", NO_OWN_UID)):
        serve_health(page, sandbox)
        ui.open("#/analyst")
        page.reload()  # the notice reads /health once, at load
        notice = page.locator(".walls-notice")
        expect(notice).to_have_attribute("data-state", name)
        notice.locator("details.walls-details summary").click()
        expect(notice.locator(".walls-reason")).to_be_visible()
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert_theme(page, scheme)
            assert_fits(page)
            assert_reachable(page, ".analyst-question")
            page.screenshot(path=str(tmp_path / f"walls-{name}-{width}-{scheme}.png"))
        page.emulate_media(color_scheme="light")
    assert ui.errors == []


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("auth-server"),
                        env={"SHOKUNIN_AUTH_TOKEN": LOGIN_TOKEN}).start()
    yield server
    server.stop()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_login_page_fits_and_reads_in_both_themes(make_page: Any, auth_server: LiveServer,
                                                      tmp_path: Path, width: str) -> None:
    ui = make_page(auth_server, viewport=WIDTHS[width])
    page = ui.page
    page.goto(f"{auth_server.url}/login")
    page.fill("#token", "not-the-token-at-all")
    page.click("button[type=submit]")
    expect(page.locator(".login-error")).to_be_visible()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert_theme(page, scheme)
        assert page.evaluate(SIDEWAYS) == []
        assert_reachable(page, "#token")
        page.screenshot(path=str(tmp_path / f"login-{width}-{scheme}.png"))
