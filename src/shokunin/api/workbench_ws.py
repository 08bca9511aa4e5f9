"""PLACEHOLDER (workbench helper replaces): WS /ws, seed 000."""
from fastapi import APIRouter

router = APIRouter(tags=["workbench"])
