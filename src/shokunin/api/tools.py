"""PLACEHOLDER (tools helper replaces): REST API for seed 003 tools."""
from fastapi import APIRouter

router = APIRouter(prefix="/api/tools", tags=["tools"])
