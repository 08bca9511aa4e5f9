"""The Advisor face (seed 001): sessions, playbook and diagrams over REST; chat over SSE."""

from shokunin.api.advisor import cost_analysis, sessions, sse

routers = [sessions.router, sse.router, cost_analysis.router]

__all__ = ["routers"]
