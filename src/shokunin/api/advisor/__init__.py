"""The Advisor face (seed 001): sessions, playbook and diagrams over REST; chat over SSE."""
