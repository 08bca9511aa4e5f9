"""The Advisor face (seed 001): sessions, playbook and diagrams over REST; chat over SSE."""

from shokunin.api.advisor import sessions, sse

routers = [sessions.router, sse.router]

__all__ = ["routers"]
