"""Faces over HTTP: the app factory, the perimeter, and one sub-package per face, each
translating its wire protocol to and from the engine's use cases."""

from shokunin.api.app import create_app

__all__ = ["create_app"]
