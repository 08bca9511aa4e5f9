"""PLACEHOLDER (UI helper replaces): GET / and /static/*."""
from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter(tags=["web"])


@router.get("/", response_class=HTMLResponse)
async def index() -> str:
    return "<!doctype html><title>shokunin</title><h1>shokunin</h1>"
