"""The Workbench face (seed 000): ``WS /ws``, the map over HTTP, and its wire form."""

from shokunin.api.workbench import ws

routers = [ws.router]  # with the map's routes

__all__ = ["routers"]
