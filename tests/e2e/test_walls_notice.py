"""The sandbox walls notice under the top bar (issue 47, point 5): the shell reads /health once
at load and says, in words a person reads, when Python is refused or which walls are missing.

/health is intercepted and answered with each shape the server gives (a refused normal user's
server, a normal user's server without its own uid, a root server where all walls hold), so
every state is seen on any machine. Screenshots of each state, at desktop and phone width, go
to the test's tmp folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

DESKTOP = (1280, 800)
PHONE = (375, 740)

ALL_HOLD = {"filesystem_view": True, "own_uid": True, "no_network": True, "seccomp": True,
            "landlock": True}
FS_LETS_THROUGH = ("the host's files and its services' unix sockets (PostgreSQL, MariaDB, "
                   "Redis): a kernel's filesystem holds only what Python needs")
UID_LETS_THROUGH = "other kernels and the server's files, by the uid's own rights"
REFUSED_REASON = (
    "Python is refused: this system lets a normal user make no user namespace, so a kernel "
    "cannot get a filesystem of its own and could reach the host's files and services. Run "
    "the server as root, allow unprivileged user namespaces (sysctl "
    "kernel.unprivileged_userns_clone=1 or user.max_user_namespaces>0), or accept the weaker "
    "walls with SHOKUNIN_SANDBOX_WEAK_WALLS=true (docs/threat-model.md).")
SHARED_UID_REASON = (
    "kernels of a normal user's server share its uid: the filesystem view, Landlock and "
    "seccomp keep them apart from the host, not from each other's workspaces")

REFUSED = {
    "python": "refused",
    "walls": {**ALL_HOLD, "filesystem_view": False, "own_uid": False},
    "missing": [{"wall": "filesystem_view", "lets_through": FS_LETS_THROUGH},
                {"wall": "own_uid", "lets_through": UID_LETS_THROUGH}],
    "reason": REFUSED_REASON,
}
NO_OWN_UID = {
    "python": "on",
    "walls": {**ALL_HOLD, "own_uid": False},
    "missing": [{"wall": "own_uid", "lets_through": UID_LETS_THROUGH}],
    "reason": SHARED_UID_REASON,
}
WEAK_WALLS = {
    "python": "on",
    "walls": {**ALL_HOLD, "filesystem_view": False, "own_uid": False},
    "missing": REFUSED["missing"],
    "reason": "Python runs with weaker walls (SHOKUNIN_SANDBOX_WEAK_WALLS=true): kernels see "
              "the host's files, limited by Landlock and seccomp only. See docs/threat-model.md.",
}
ROOT = {"python": "on", "walls": ALL_HOLD, "missing": [], "reason": None}
INTERNAL = ["own_uid", "filesystem_view", "lets_through", "missing", "SHOKUNIN_"]


def serve_health(page: Any, sandbox: dict[str, Any]) -> None:
    """Answer the page's /health with `sandbox` (replacing an earlier answer)."""
    body = json.dumps({"status": "ok", "version": "test", "model": "offline",
                       "agents": [], "sandbox": sandbox})
    page.unroute("**/health")
    page.route("**/health", lambda route: route.fulfill(
        status=200, content_type="application/json", body=body))


def open_with(make_page: Any, server: Any, sandbox: dict[str, Any], viewport: tuple[int, int],
              locale: str = "ja-JP") -> Any:
    """A page on the Tools view whose /health says `sandbox`, once the notice has decided."""
    ui = make_page(server, viewport=viewport, locale=locale)
    serve_health(ui.page, sandbox)
    ui.open("#/tools")
    ui.page.wait_for_selector(".walls-notice[data-state]", state="attached")
    return ui


def shoot(ui: Any, folder: Path, name: str) -> None:
    ui.page.screenshot(path=str(folder / f"{name}.png"))


def fits(page: Any) -> None:
    """The notice is inside the viewport's width, nothing makes the page scroll sideways, and
    on a desktop the views still fit under it (only narrow screens scroll <main>)."""
    box = page.locator(".walls-notice").bounding_box()
    size = page.viewport_size
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    if size["width"] > 900:
        assert page.evaluate("document.documentElement.scrollHeight") <= size["height"]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_refused_python_shows_a_warning_bar_with_the_reason_behind_a_disclosure(
        make_page: Any, live_server: Any, tmp_path: Path, viewport: tuple[int, int]) -> None:
    ui = open_with(make_page, live_server, REFUSED, viewport)
    page = ui.page
    bar = page.locator(".walls-notice")
    expect(bar).to_have_attribute("data-state", "refused")
    expect(bar).to_be_visible()
    expect(bar).to_have_attribute("role", "alert")
    expect(bar.locator(".walls-title")).to_have_text("この環境では Python を実行できません")
    expect(bar.locator(".walls-why")).to_contain_text("専用のファイルシステム")
    details = bar.locator("details.walls-details")
    expect(details).not_to_have_attribute("open", "")
    expect(details.locator("summary")).to_have_text("管理者向けの詳細")
    reason = details.locator(".walls-reason")
    expect(reason).to_have_text(REFUSED_REASON)
    expect(reason).to_be_hidden()
    visible = bar.inner_text()
    assert not [word for word in INTERNAL if word in visible], visible
    assert page.locator(".walls-close").count() == 0, "the refused bar cannot be dismissed"
    fits(page)
    shoot(ui, tmp_path, f"refused-{viewport[0]}")

    details.locator("summary").click()
    expect(reason).to_be_visible()
    expect(details.locator("dt").first).to_have_text("専用のファイルシステム")
    fits(page)
    shoot(ui, tmp_path, f"refused-open-{viewport[0]}")

    page.click('.lang-switch button[data-lang="en"]')
    expect(bar.locator(".walls-title")).to_have_text("Python cannot run on this server")
    expect(details.locator("dt").first).to_have_text("a filesystem of its own")

    # The Analyst view, sized to the viewport before, keeps its question box on screen.
    page.click('.nav a[data-view="analyst"]')
    expect(page.locator(".analyst-ask")).to_be_visible()
    fits(page)
    assert ui.errors == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_missing_walls_are_named_in_words_and_a_dismissal_is_remembered(
        make_page: Any, live_server: Any, tmp_path: Path, viewport: tuple[int, int]) -> None:
    ui = open_with(make_page, live_server, NO_OWN_UID, viewport)
    page = ui.page
    notice = page.locator(".walls-notice")
    expect(notice).to_have_attribute("data-state", "missing")
    expect(notice).to_be_visible()
    expect(notice.locator(".walls-list li")).to_have_text(["専用のユーザー"])
    visible = notice.inner_text()
    assert "専用のユーザー" in visible
    assert not [word for word in INTERNAL if word in visible], visible
    details = notice.locator("details.walls-details")
    expect(details).not_to_have_attribute("open", "")
    expect(details.locator(".walls-reason")).to_have_text(SHARED_UID_REASON)
    expect(details.locator("dd")).to_contain_text(UID_LETS_THROUGH)
    expect(details.locator(".walls-reason")).to_be_hidden()
    fits(page)
    shoot(ui, tmp_path, f"missing-{viewport[0]}")

    details.locator("summary").click()
    expect(details.locator(".walls-reason")).to_be_visible()
    fits(page)
    shoot(ui, tmp_path, f"missing-open-{viewport[0]}")

    page.click(".walls-close")
    expect(notice).to_be_hidden()
    page.reload()
    page.wait_for_selector('.walls-notice[data-state="dismissed"]', state="attached")
    expect(notice).to_be_hidden()

    # Another set of missing walls is news: it shows again, now in English.
    page.click('.lang-switch button[data-lang="en"]')
    serve_health(page, WEAK_WALLS)
    page.reload()
    expect(notice).to_have_attribute("data-state", "missing")
    expect(notice.locator(".walls-list li")).to_have_text(
        ["a filesystem of its own", "a user of its own"])
    expect(notice.locator(".walls-title")).to_have_text(
        "Python runs, but without these protections:")
    visible = notice.inner_text()
    assert not [word for word in INTERNAL if word in visible], visible
    fits(page)
    shoot(ui, tmp_path, f"weak-walls-en-{viewport[0]}")
    assert ui.errors == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_nothing_is_shown_when_all_walls_hold_or_the_sandbox_is_starting(
        make_page: Any, live_server: Any, tmp_path: Path, viewport: tuple[int, int]) -> None:
    ui = open_with(make_page, live_server, ROOT, viewport)
    page = ui.page
    notice = page.locator(".walls-notice")
    expect(notice).to_have_attribute("data-state", "none")
    expect(notice).to_be_hidden()
    shoot(ui, tmp_path, f"all-hold-{viewport[0]}")

    serve_health(page, {"python": "starting"})
    page.reload()
    page.wait_for_selector('.walls-notice[data-state="none"]', state="attached")
    expect(notice).to_be_hidden()
    assert ui.errors == []
