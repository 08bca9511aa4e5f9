"""The browser UI: ``GET /`` is the shell page, ``GET /static/*`` the files it loads.

Static paths are resolved inside the web folder and anything that escapes it (``..``,
encoded or not, symlinks out) is a 404, as is a folder. Content types are set here rather
than guessed, because the platform's mimetypes table may call JavaScript ``text/plain``
and browsers refuse to run an ES module served that way.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

router = APIRouter(tags=["web"])

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
# The browser should revalidate (cheap with the ETag) so an upgraded server is seen at once.
NO_CACHE = {"Cache-Control": "no-cache"}

MISSING_PAGE = """<!doctype html><meta charset="utf-8"><title>shokunin</title>
<h1>shokunin</h1><p>The web UI files were not found in {dir}. The API is running:
see <a href="/docs">/docs</a>. / Web UI のファイルが見つかりません。API は動作しています。</p>"""


def resolve_static(path: str, root: Path | None = None) -> Path | None:
    """The file ``path`` names inside ``root`` (the web folder), or None if it is outside,
    absent or a folder."""
    base = (root or WEB_DIR).resolve()
    try:
        target = (base / path).resolve()
    except (OSError, ValueError):
        return None
    if not target.is_relative_to(base) or not target.is_file():
        return None
    return target


@router.get("/", response_model=None)
async def index() -> FileResponse | HTMLResponse:
    page = resolve_static("index.html")
    if page is None:  # seed 000: still 200, with a message saying what is missing
        return HTMLResponse(MISSING_PAGE.format(dir=WEB_DIR))
    return FileResponse(page, media_type=CONTENT_TYPES[".html"], headers=NO_CACHE)


@router.get("/static/{path:path}")
async def static(path: str) -> FileResponse:
    target = resolve_static(path)
    if target is None:
        raise HTTPException(404, "not found")
    media_type = CONTENT_TYPES.get(target.suffix.lower(), "application/octet-stream")
    return FileResponse(target, media_type=media_type, headers=NO_CACHE)
