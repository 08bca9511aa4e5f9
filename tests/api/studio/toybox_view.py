"""What the seed project's React client (``new-sankaku/toybox``, ``langgraph-studio/`` at
3dbf0a2) shows from the Studio's Socket.IO events: its agent list, checkpoints and toasts,
as ``src/services/websocketService.ts`` updates its stores (``agentStore``,
``checkpointStore``, ``toastStore``) for each event it listens to. Written from the client's
source to read the wire the way it does; none of its code is here."""

from __future__ import annotations

from typing import Any

UNKNOWN = "不明なエージェント"  # the client's name for an event that carries no agent


def display_name(agent: dict[str, Any] | None) -> str:
    """``getDisplayName``: the record's ``metadata.displayName``, else its type."""
    if not agent:
        return UNKNOWN
    return (agent.get("metadata") or {}).get("displayName") or agent["type"]


class ToyboxView:
    def __init__(self) -> None:
        self.agents: dict[str, dict[str, Any]] = {}
        self.checkpoints: dict[str, dict[str, Any]] = {}
        self.toasts: list[tuple[str, str]] = []  # (kind, text)

    def _update(self, agent_id: str, values: dict[str, Any]) -> None:
        if agent_id in self.agents:  # updateAgent: only an agent the store has
            self.agents[agent_id] = {**self.agents[agent_id], **values}

    def _status(self, agent_id: str, status: str) -> None:
        self._update(agent_id, {"status": status})

    def _record(self, data: dict[str, Any]) -> None:
        if data.get("agent"):
            self._update(data["agent"]["id"], data["agent"])

    def apply(self, name: str, data: dict[str, Any]) -> None:
        if name == "connection:state_sync":
            if data.get("agents"):  # setAgents
                self.agents = {a["id"]: dict(a) for a in data["agents"]}
            for checkpoint in data.get("checkpoints") or []:
                self.checkpoints.setdefault(checkpoint["id"], checkpoint)
        elif name == "agent:started":
            if data.get("agent"):
                self.agents.setdefault(data["agent"]["id"], dict(data["agent"]))
                self._status(data["agent"]["id"], "running")
        elif name in ("agent:running", "agent:activated", "agent:resumed"):
            self._record(data)
            self._status(data["agentId"], "running")
        elif name == "agent:progress":
            self._update(data["agentId"], {"progress": data["progress"],
                                           "currentTask": data["currentTask"],
                                           "tokensUsed": data.get("tokensUsed")})
        elif name == "agent:completed":
            self._record(data)
            self._status(data["agentId"], "completed")
            if not (data.get("agent") or {}).get("parentAgentId"):
                name_ = display_name(data.get("agent"))
                self.toasts.append(("success", f"{name_} が完了しました"))
        elif name == "agent:failed":
            self._record(data)
            self._update(data["agentId"], {"error": data.get("error")})
            self._status(data["agentId"], "failed")
            name_ = display_name(data.get("agent"))
            self.toasts.append(("error", f"{name_} がエラーで停止しました"))
        elif name == "agent:retry":
            self._record(data)
            self._status(data["agentId"], "pending")
        elif name == "checkpoint:created":
            if data.get("checkpoint"):
                self.checkpoints.setdefault(data["checkpoint"]["id"], data["checkpoint"])
            if data.get("agentId") and data.get("agentStatus"):
                self._status(data["agentId"], data["agentStatus"])
            self.toasts.append(("warning", f"{display_name(self.agents.get(data.get('agentId')))}"
                                           " が承認を待っています"))
        elif name == "checkpoint:resolved":
            checkpoint = data.get("checkpoint")
            if checkpoint and checkpoint["id"] in self.checkpoints:
                self.checkpoints[checkpoint["id"]] = {**self.checkpoints[checkpoint["id"]],
                                                      **checkpoint}
            if data.get("agentId") and data.get("agentStatus"):
                self._status(data["agentId"], data["agentStatus"])

    def replay(self, events: list[tuple[str, Any]]) -> ToyboxView:
        for name, data in events:
            if isinstance(data, dict):
                self.apply(name, data)
        return self

    def by_type(self) -> dict[str, dict[str, Any]]:
        """The leaders (one per type) as the client lists them."""
        return {a["type"]: a for a in self.agents.values() if not a.get("parentAgentId")}
