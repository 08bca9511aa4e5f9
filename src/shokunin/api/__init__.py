"""Faces: FastAPI routers that translate wire protocols to and from the engine."""

from shokunin.api.app import build_services, create_app
from shokunin.api.services import Services

__all__ = ["Services", "build_services", "create_app"]
